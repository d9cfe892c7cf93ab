/* The SELinux stage (stages/selinux.c); its limits and types, shared with
 * selinux_config.c and selinux_relabel.c, are stages/selinux_types.h. */
#ifndef HARDINIT_SELINUX_H
#define HARDINIT_SELINUX_H

#include "boot.h"
#include "selinux_types.h"

int hi_stage_selinux(struct boot *b);    /* stages/selinux.c: load policy, booleans, relabel */

#endif
