/* prefetch.c's functions (one header per .c file). */
#ifndef HARDINIT_PREFETCH_H
#define HARDINIT_PREFETCH_H

#include "boot.h"

int hi_stage_prefetch(struct boot *b);   /* stages/prefetch.c: the root's files, looked up in parallel */

int hi_stage_prefetch_join(struct boot *b); /* stages/prefetch.c: wait for those lookups (bounded) */

#endif
