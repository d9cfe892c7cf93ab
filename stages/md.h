/* md.c's functions (one header per .c file). */
#ifndef HARDINIT_MD_H
#define HARDINIT_MD_H

#include <stddef.h>

#include "boot.h"

/* Debian's word for booting a RAID array that lacks a member. */
#define MD_DEGRADED_WORD "bootdegraded"

/* 1 when the value of bootdegraded= allows a degraded array (true, yes,
 * 1, on, as Debian's mdadm initramfs script reads it; the bare word too). */
int hi_md_degraded_allowed(const char *value, int present);

/* /dev/md/NAME as the node the md stage made (/dev/mdN), from its links
 * under dev: 1 with out set, 0 when spec names no such link. */
int hi_md_spec_node(const struct boot *b, const char *spec, char *out, size_t cap);

int hi_stage_md(struct boot *b);        /* stages/md.c: assemble the md RAID arrays the image carries */

#endif
