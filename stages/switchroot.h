/* The initramfs clean-up, apart from the stage so a test can run it on a
 * fake old root inside an unshare'd mount namespace. */
#ifndef HARDINIT_SWITCHROOT_H
#define HARDINIT_SWITCHROOT_H

#include <stddef.h>

#include "boot.h"

#define CLEAN_MAX_DEPTH   32
#define CLEAN_MAX_ENTRIES 100000

/* Delete the contents of oldroot, never crossing into another file system
 * (the new root and the moved API mounts are other devices). Refuses,
 * returning -1 with err set, unless oldroot is a ramfs or tmpfs. Deletion
 * is best-effort: errors are counted in *failed, not fatal. Returns the
 * number of entries removed. */
long hi_initramfs_clean(const char *oldroot, long *failed, char *err, size_t errlen);

/* Copy src to dst (created, mode 0600, never through a link), at most
 * max bytes. Returns 0, 1 when src does not exist, or -1 with why set and
 * dst removed: a copy that is not whole never stays. */
int hi_embedded_copy(const char *src, const char *dst, long max, char *why, size_t whylen);

/* Copy the embedded policy set (policy, type, file_contexts) from the
 * initramfs directory from to run_dir. Returns 0, or -1 with why set after
 * removing every file of the set from run_dir. */
int hi_embedded_policy_keep(const char *from, const char *run_dir, long max, char *why, size_t whylen);

int hi_stage_switchroot(struct boot *b); /* stages/switchroot.c: move mounts, MS_MOVE, chroot, free initramfs */

#endif
