#define _GNU_SOURCE   /* O_PATH */
/* Usr: a separate /usr, mounted on the new root's /usr before the switch,
 * as initramfs-tools does. On a merged-/usr system (Debian 12) /sbin/init,
 * the shell and the libraries live there: a root whose fstab lists /usr
 * cannot run its init without it. Its line in the root's /etc/fstab says
 * the device (found as root= is: UUID=, LABEL=, PARTUUID=, PARTLABEL=,
 * /dev/NAME, or udev's /dev/disk/by-* links to those), the type (auto:
 * its superblock) and the options; read-only unless they say rw, as the
 * root is, since the real init's fsck and remount come later. */
#include "usr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "boot.h"
#include "fstab.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "root.h"
#include "root_probe.h"
#include "safepath.h"

#define USR_POINT "/usr"

/* The file system type: the line's, or its superblock's for "auto". */
static int usr_type(struct boot *b, const char *dev, const char *line_type, char *out, size_t cap)
{
	struct fs_info fs;

	if (strcmp(line_type, "auto") != 0) {
		snprintf(out, cap, "%s", line_type);
		return 0;
	}
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int rc = fd >= 0 ? hi_probe_fs(fd, &fs) : -1;
	if (fd >= 0)
		close(fd);
	if (rc < 0 || !fs.type[0])
		return hi_boot_error(b, "cannot tell the file system of /usr on %s (its fstab type is auto; ext2/3/4, "
				     "xfs, btrfs, jfs, erofs, squashfs are recognised): write its type in the root's "
				     "/etc/fstab", dev);
	snprintf(out, cap, "%s", fs.type);
	return 0;
}

static int usr_mount(struct boot *b, const struct fstab_line *l, const char *dev)
{
	char type[32], data[FSTAB_DATA_MAX], target[BOOT_PATH_MAX + 32];
	unsigned long flags;

	if (usr_type(b, dev, l->type, type, sizeof type) < 0)
		return -1;
	if (hi_fstab_mount_opts(l->opts, &flags, data, sizeof data) < 0)
		return hi_boot_error(b, "the options of /usr in the root's /etc/fstab are longer than FSTAB_DATA_MAX "
				     "(%d bytes): shorten them", FSTAB_DATA_MAX);
	/* The mount point as the root has it, no link followed. */
	int fd = hi_safe_open(b->newroot, USR_POINT, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return hi_boot_error(b, "cannot open %s%s to mount /usr on: %s; the root's /etc/fstab lists /usr, "
				     "so the root needs an empty directory there", b->newroot, USR_POINT,
				     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	int rc = -1;
	if (!hi_safe_fd_path(target, sizeof target, b->proc, fd))
		hi_boot_error(b, "the path of %s%s does not fit", b->newroot, USR_POINT);
	else if (hi_fs_mount(dev, target, type, flags, data[0] ? data : NULL) < 0)
		hi_boot_error(b, "cannot mount /usr (%s, %s, options %s) from the root's /etc/fstab: %s; the real "
			      "init lives on /usr: check that line, and the kernel log (dmesg)",
			      dev, type, l->opts, strerror(errno));
	else
		rc = 0;
	close(fd);
	if (rc < 0)
		return -1;
	log_notice("mounted /usr %s (%s) on %s%s %s", dev, type, b->newroot, USR_POINT,
		   flags & MS_RDONLY ? "read-only" : "read-write");
	hi_report_add(&b->rep, "usr", "device", "ok", "%s", dev);
	hi_report_add(&b->rep, "usr", "fstype", "ok", "%s", type);
	hi_report_add(&b->rep, "usr", "mode", "ok", "%s", flags & MS_RDONLY ? "ro" : "rw");
	return 0;
}

int hi_stage_usr(struct boot *b)
{
	char path[BOOT_PATH_MAX + 16], spec[FSTAB_LINE_MAX], dev[BOOT_PATH_MAX];
	static struct fstab_line l;
	size_t len;

	char *text = malloc(FSTAB_MAX_BYTES);
	if (!text)
		return hi_boot_error(b, "out of memory reading the root's /etc/fstab");
	if (!hi_boot_path(path, sizeof path, b->newroot, "/etc/fstab") ||
	    hi_fs_read(path, text, FSTAB_MAX_BYTES, &len) < 0) {
		int err = errno;
		free(text);
		if (err == ENOENT) {
			hi_report_add(&b->rep, "usr", "mount", "absent", "no /etc/fstab in the root");
			return 0;
		}
		/* The root's own file, and /usr may be on it: a boot that goes
		 * on without it might not find its init. */
		return hi_boot_error(b, "cannot read %s (%s): a separate /usr it lists would not be mounted; "
				     "fix the root's /etc/fstab", path, hi_fs_read_why(err));
	}
	int found = hi_fstab_find(text, USR_POINT, &l);
	free(text);
	if (!found) {
		hi_report_add(&b->rep, "usr", "mount", "absent", "/usr is on the root");
		return 0;
	}
	/* The image's verity root hash covers / alone: a separate /usr
	 * holds the real init and its libraries on a device nothing checks. */
	if (b->verity_anchored)
		return hi_boot_error(b, "/usr (%s in the root's /etc/fstab) is a separate file system, but the image's "
				     "verity root hash covers / alone: the real init would run from an unchecked device; "
				     "move /usr onto the verity root", l.spec);
	if (hi_fstab_device_spec(l.spec, spec, sizeof spec) < 0)
		return hi_boot_error(b, "the device of /usr in the root's /etc/fstab is too long");
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would wait for /usr's device %s and mount it (%s, %s) on %s%s", spec, l.type,
			 l.opts, b->newroot, USR_POINT);
		return 0;
	}
	if (hi_root_device_wait(b, spec, dev, sizeof dev) < 0) {
		char why[BOOT_ERR_MAX];
		snprintf(why, sizeof why, "%s", b->err);
		return hi_boot_error(b, "/usr (%s in the root's /etc/fstab): %s", l.spec, why);
	}
	return usr_mount(b, &l, dev);
}
