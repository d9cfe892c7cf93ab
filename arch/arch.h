/* The architecture hardinit runs on and the one a name or a command-line
 * word belongs to (arch/arch.c); the tables' type is arch/arch_types.h. */
#ifndef HARDINIT_ARCH_H
#define HARDINIT_ARCH_H

#include <stdbool.h>

#include "arch_types.h"

/* The architecture this binary was compiled for. */
const struct arch *hi_arch_native(void);

/* By uname -m or Debian name ("x86_64", "amd64", "aarch64", "arm64"). */
const struct arch *hi_arch_by_name(const char *name);

/* The architecture a command-line word belongs to ("vsyscall=none":
 * x86_64), or NULL for a word every architecture reads. */
const struct arch *hi_arch_of_word(const char *word);

/* Is a word read by a's kernel (its own or a common word)? */
bool hi_arch_reads_word(const struct arch *a, const char *word);

#endif
