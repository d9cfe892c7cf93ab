/* sysctl_start.c's functions (one header per .c file). */
#ifndef HARDINIT_SYSCTL_START_H
#define HARDINIT_SYSCTL_START_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "config_types.h"
#include "sysctl_apply.h"
#include "sysctl_early.h"

/* Why writing key makes the kernel wait, so that it is worth starting
 * early, or NULL for an ordinary write; the table and its kernel facts are
 * in stages/sysctl_start.c. */
const char *hi_sysctl_slow_reason(const char *key);

/* Wait (bounded by e->timeout_ms) for the writer started by the
 * sysctl_start stage, join it, and mark what it did not finish as
 * refused with ETIMEDOUT (logged, with a word that the hand-off's exec
 * waits for a thread stuck in the kernel). 0 when every slot finished, -1
 * on a timeout. Safe to call when nothing was started, and more than once. */
int hi_sysctl_early_collect(struct sysctl_early *e);

/* The collected early slot for key = value (use its judged result), or
 * NULL: not started early, another value, or not collected yet. */
const struct sysctl_early_slot *hi_sysctl_early_find(const struct sysctl_early *e,
						  const char *key, const char *value);

int hi_stage_sysctl_start(struct boot *b); /* stages/sysctl_start.c: slow sysctl writes begun on a thread */

#endif
