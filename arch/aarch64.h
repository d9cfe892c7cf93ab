/* The aarch64 table (arch/aarch64.c); its type is arch/arch_types.h. */
#ifndef HARDINIT_AARCH64_H
#define HARDINIT_AARCH64_H

#include "arch_types.h"

extern const struct arch hi_arch_aarch64;

#endif
