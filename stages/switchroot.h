/* The initramfs clean-up, apart from the stage so a test can run it on a
 * fake old root inside an unshare'd mount namespace. */
#ifndef HARDINIT_SWITCHROOT_H
#define HARDINIT_SWITCHROOT_H

#include <stddef.h>

#define CLEAN_MAX_DEPTH   32
#define CLEAN_MAX_ENTRIES 100000

/* Delete the contents of oldroot, never crossing into another file system
 * (the new root and the moved API mounts are other devices). Refuses,
 * returning -1 with err set, unless oldroot is a ramfs or tmpfs. Deletion
 * is best-effort: errors are counted in *failed, not fatal. Returns the
 * number of entries removed. */
long initramfs_clean(const char *oldroot, long *failed, char *err, size_t errlen);

#endif
