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

/* 1 when a running md array holds the block device NAME (its
 * sys/class/block/NAME/holders/ names an mdN): a member, whose own start
 * may show what lies on the array (1.0 and 0.90 keep their superblock at
 * the end), so the root and lvm stages read the array, not it. */
int hi_md_member(const struct boot *b, const char *name);

int hi_stage_md(struct boot *b);        /* stages/md.c: assemble the md RAID arrays the image carries */

#endif
