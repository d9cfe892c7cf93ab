/* The command-line interface when hardinit is not PID 1: help, version,
 * check-config, dry-run, audit. None of it changes the system. */
#ifndef HARDINIT_CLI_H
#define HARDINIT_CLI_H

#include "boot.h"

int cli_main(int argc, char **argv);

/* Run the stage table in MODE_DRY_RUN and print what a boot would do.
 * Returns the exit status (0 or 1). Defined in init/main.c. */
int dry_run(struct boot *b);

#endif
