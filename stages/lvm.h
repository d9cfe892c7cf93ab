/* lvm.c's functions (one header per .c file). */
#ifndef HARDINIT_LVM_H
#define HARDINIT_LVM_H

#include <stddef.h>

#include "boot.h"

int hi_stage_lvm(struct boot *b);        /* stages/lvm.c: activate the LVM logical volume root= names */

/* /dev/VG/LV as lvm2's /dev/mapper/VG-LV (1), or 0 when SPEC is no such
 * name: what the root stage matches (stages/lvm.c, used by resume_check). */
int hi_lvm_spec_mapper(const char *spec, char *out, size_t cap);

#endif
