/* The initramfs clean-up, run for real inside a private mount namespace of
 * its own (never on the host's mounts): a tmpfs under the fake old root
 * keeps its canary, and a root that is not ramfs/tmpfs is refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "fsutil.h"
#include "switchroot.h"
#include "tap.h"

static char base[] = "/tmp/hardinit-sw-XXXXXX";

/* rel is under the test's base directory. */
static int exists(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", base, rel);
	return access(path, F_OK) == 0;
}

static void make_tree(const char *root)
{
	char p[512];
	const char *dirs[] = { "bin", "etc/hardinit", "lib/modules/x/kernel/deep/er", "newroot", "keep" };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
		hi_fs_mkdir_p(p, 0755);
	}
	snprintf(p, sizeof p, "%s/init", root);
	hi_fs_write_new(p, "binary");
	snprintf(p, sizeof p, "%s/etc/hardinit.conf", root);
	hi_fs_write_new(p, "[boot]\n");
	snprintf(p, sizeof p, "%s/lib/modules/x/kernel/deep/er/m.ko", root);
	hi_fs_write_new(p, "module");
	snprintf(p, sizeof p, "%s/bin/sh", root);
	if (symlink("/keep/canary", p) < 0)
		perror("symlink");
}

int main(void)
{
	char root[256], p[512], err[256];
	long failed = -1;

	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0) {
		printf("ok 1 - switch-root clean-up # skip needs root to unshare a mount namespace\n1..1\n");
		return 0;
	}
	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || !mkdtemp(base)) {
		perror("private namespace");
		return 1;
	}
	snprintf(root, sizeof root, "%s/oldroot", base);
	hi_fs_mkdir_p(root, 0755);
	tap_ok(mount("tmpfs", root, "tmpfs", 0, "size=4m") == 0, "fake initramfs is a tmpfs");
	make_tree(root);
	/* Another file system under the old root: the new root in a real boot. */
	snprintf(p, sizeof p, "%s/newroot", root);
	tap_ok(mount("tmpfs", p, "tmpfs", 0, "size=1m") == 0, "a tmpfs mounted under the old root");
	snprintf(p, sizeof p, "%s/newroot/canary", root);
	hi_fs_write_new(p, "must survive");

	long removed = hi_initramfs_clean(root, &failed, err, sizeof err);
	tap_ok(removed > 0, "clean-up removed entries (%ld)", removed);
	tap_ok(failed == 0, "no deletion failed except across the mount (%ld)", failed);
	tap_ok(exists("oldroot/newroot/canary"), "canary on the mounted tmpfs survives");
	tap_ok(!exists("oldroot/init"), "/init removed");
	tap_ok(!exists("oldroot/lib"), "nested directories removed");
	tap_ok(!exists("oldroot/bin/sh"), "symlink removed, not followed");
	tap_ok(exists("oldroot/newroot"), "the mount point itself is kept");

	/* The refusal: a directory on a disk. Which directory is a disk is a
	 * fact read before the call (statfs), so a deletion there is a
	 * failure, never a skip. */
	static const char *const disks[] = { "/var/tmp", "build", "." };
	const char *on_disk = NULL;
	for (size_t i = 0; i < sizeof disks / sizeof disks[0] && !on_disk; i++) {
		struct statfs sfs;
		if (statfs(disks[i], &sfs) == 0 && (unsigned long)sfs.f_type != TMPFS_MAGIC &&
		    (unsigned long)sfs.f_type != RAMFS_MAGIC && access(disks[i], W_OK) == 0)
			on_disk = disks[i];
	}
	if (!on_disk) {
		printf("ok %d - refusal # skip no writable directory on a disk here\n", ++tap_count);
	} else {
		char disk[512];
		snprintf(disk, sizeof disk, "%s/hardinit-disk-XXXXXX", on_disk);
		if (!tap_ok(mkdtemp(disk) != NULL, "a directory on the disk %s", on_disk))
			return tap_done();
		snprintf(p, sizeof p, "%s/file", disk);
		hi_fs_write_new(p, "data");
		long r = hi_initramfs_clean(disk, &failed, err, sizeof err);
		tap_ok(r < 0, "a root that is not ramfs/tmpfs (%s) is refused", on_disk);
		tap_contains(err, "not a ramfs or tmpfs", "refusal says why");
		tap_ok(access(p, F_OK) == 0, "nothing deleted on refusal");
		unlink(p);
		rmdir(disk);
	}
	umount2(root, MNT_DETACH);
	return tap_done();
}
