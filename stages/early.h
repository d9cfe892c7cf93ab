/* early.c's functions (one header per .c file). */
#ifndef HARDINIT_EARLY_H
#define HARDINIT_EARLY_H

#include <stddef.h>

#include "boot.h"

int hi_stage_early(struct boot *b);      /* stages/early.c: API mounts, console, fds */

/* fds 0-2 (all of them, or only_closed ones) on DEV/console, else
 * DEV/null for input and DEV/kmsg for output (never a pipe nobody reads);
 * what says which. Returns 0, or -1 when none opened (fds untouched).
 * stages/early.c, used by the hand-off too. */
int hi_console_std_fds(const char *dev, int only_closed, char *what, size_t whatlen);

#endif
