/* verity.c's functions (one header per .c file). */
#ifndef HARDINIT_VERITY_H
#define HARDINIT_VERITY_H

#include "boot.h"

int hi_stage_verity(struct boot *b);     /* stages/verity.c: dm-verity device for the root */

#endif
