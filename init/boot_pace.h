/* boot_pace.c's functions (one header per .c file). */
#ifndef HARDINIT_BOOT_PACE_H
#define HARDINIT_BOOT_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "config_types.h"
#include "report.h"
#include "boot.h"

void hi_boot_pace_start(struct boot *b);

/* What was set only for the wait for devices (the preemption model, the
 * self-tests' nice) put back; before the switch to the root. Warns. */
void hi_boot_pace_devices_done(struct boot *b);

/* The mode in parentheses of debugfs's sched/preempt ("none (voluntary)
 * full") into out: 0, or -1 when there is none or it does not fit. */
int hi_boot_pace_preempt_mode(const char *text, char *out, size_t cap);

/* 0, or -1 after a logged warning that something stays changed. */
int hi_boot_pace_end(struct boot *b);

#endif
