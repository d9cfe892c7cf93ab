/* locks.c's functions (one header per .c file). */
#ifndef HARDINIT_LOCKS_H
#define HARDINIT_LOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_types.h"
#include "boot.h"
#include "hardening.h"

/* The bracketed level of /sys/kernel/security/lockdown text
 * ("none [integrity] confidentiality"), or -1 when there is none. */
int hi_lockdown_parse_current(const char *text);

/* Mount securityfs on b->sys/kernel/security unless its lsm file is
 * already there (never in a dry run). 0 when the file is visible. */
int hi_securityfs_ensure(const struct boot *b);

int hi_stage_locks(struct boot *b);      /* stages/locks.c: modules, kexec, lockdown, ptrace */

#endif
