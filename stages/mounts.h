/* stages/mounts.c: the mounts stage's own helper (its entry point is in
 * stages/stages.h). Its parts are one file and one header each, included
 * one way: mounts.c over mounts_polyinst (instance parents, fstab, the
 * tmpfiles.d drop-in) over mounts_nsconf (namespace.conf) over
 * mounts_mountinfo (mountinfo, string helpers); this header brings them
 * all, for tests/unit/test_mounts.c and hardinit audit. */
#ifndef HARDINIT_MOUNTS_H
#define HARDINIT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"
#include "mounts_mountinfo.h"
#include "mounts_polyinst.h"

/* A link (or another file) where a directory of the root should be: one
 * warning naming the path and the link's target, a "refused" report item
 * under key; the fix it names never acts through the link. rel is the
 * path below b->newroot, err the errno of the safe open. */
void hi_mounts_refuse_path(struct boot *b, const char *key, const char *rel, int err);

int hi_stage_mounts(struct boot *b);     /* stages/mounts.c: shared /, hardened API mounts, polydirs */

#endif
