/* memory.c's functions (one header per .c file). */
#ifndef HARDINIT_MEMORY_H
#define HARDINIT_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_types.h"
#include "boot.h"
#include "hardening.h"

/* Does the command-line word `word` contradict the [kernel] word `want`
 * (hardinit check-config --cmdline, for a UKI's baked command line)? The
 * same key with another value (mitigations=off against mitigations=auto;
 * '-' and '_' alike in the key), or a bare word that undoes one of
 * another name (slab_merge against slab_nomerge). */
bool hi_kernel_word_contradicts(const char *word, const char *want);

/* Does the first "flags" line of /proc/cpuinfo text name flag ("nx")? */
bool hi_cpuinfo_has_flag(const char *cpuinfo, const char *flag);

/* Fill found[] with the weakening words present on the command line: a's
 * own (arch/: noexec32 on x86_64, arm64.nobti on aarch64), then the common
 * ones (nokaslr, norandmaps). Returns how many (at most max). */
size_t hi_nx_weakeners_present(const struct cmdline *c, const struct arch *a,
			    const struct arch_weakener **found, size_t max);

int hi_stage_memory(struct boot *b);     /* stages/memory.c: NX, ASLR, MDWE */

#endif
