/* The stage runner: the order of a boot is the table in stages/table.c,
 * which defines what is declared here (prog/main.c and the CLI's dry-run
 * call it). */
#ifndef HARDINIT_TABLE_H
#define HARDINIT_TABLE_H

#include "boot.h"

/* A stage: one file in stages/, one entry point (stages/stages.h). Returns
 * 0 on success or -1 after hi_boot_error() said what failed; the runner logs
 * it and its caller decides (prog/main.c: the configured failure action).
 * Warnings are logged by the stage itself and carried on. */
typedef int (*stage_fn)(struct boot *b);

/* Run the stages of b->mode in the order of stages/table.c, timing each
 * into the report. Returns 0, or -1 at the first that failed (b->err). */
int hi_boot_run_stages(struct boot *b);

/* Exec the real init. Returns only on failure (-1, b->err set), or in a
 * dry run after printing what it would run (0). */
int hi_boot_handoff(struct boot *b);

#endif
