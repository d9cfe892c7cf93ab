/* sysctl.c's functions (one header per .c file). */
#ifndef HARDINIT_SYSCTL_H
#define HARDINIT_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_types.h"
#include "boot.h"
#include "hardening.h"

/* The drop-in text: every applied or already-set sysctl of the report's
 * memory, sysctl and locks items, plus the ptrace scope the locks stage
 * will set (ptrace_scope < 0: none). Returns the length, -1 if too big. */
int hi_sysctl_dropin_format(const struct report *r, int ptrace_scope, char *out, size_t cap);

/* Is a [kernel] word ("slab_nomerge", "lockdown=integrity") in force?
 * Looks at the command line and, where the kernel shows it, the live
 * state under b->sys. why gets a short reason either way. */
bool hi_kernel_opt_in_force(const struct boot *b, const char *word, char *why, size_t whylen);

int hi_stage_sysctl(struct boot *b);     /* stages/sysctl.c: profile sysctls, cmdline protections */

#endif
