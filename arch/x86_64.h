/* The x86_64 table (arch/x86_64.c); its type is arch/arch_types.h. */
#ifndef HARDINIT_X86_64_H
#define HARDINIT_X86_64_H

#include "arch_types.h"

extern const struct arch hi_arch_x86_64;

#endif
