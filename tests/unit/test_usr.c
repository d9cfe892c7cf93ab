/* Unit tests: the root's /etc/fstab as stages/fstab.c reads it (lines,
 * the /usr entry, options into mount(2)'s flags and data, udev's links
 * into what the device wait finds), and the usr stage against a temporary
 * tree, stopped before any mount(2): its /usr is a symbolic link there. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "boot.h"
#include "fixture.h"
#include "fstab.h"
#include "log.h"
#include "report.h"
#include "tap.h"
#include "usr.h"

static void test_lines(void)
{
	struct fstab_line l;
	const char *text = "# /etc/fstab\n\n  \nUUID=1 / ext4 errors=remount-ro 0 1\nshort line\n"
			   "/dev/vda2\t/usr/\txfs\n/dev/a\\040b /srv\\040data ext4 rw 0 2\n";
	const char *c = text;

	tap_ok(hi_fstab_next(&c, &l) == 1 && !strcmp(l.spec, "UUID=1") && !strcmp(l.file, "/") &&
	       !strcmp(l.type, "ext4") && !strcmp(l.opts, "errors=remount-ro"), "the first line with fields; comments and short lines skipped");
	tap_ok(hi_fstab_next(&c, &l) == 1 && !strcmp(l.file, "/usr") && !strcmp(l.opts, "defaults"),
	       "  tabs; the trailing slash gone; no options: defaults");
	tap_ok(hi_fstab_next(&c, &l) == 1 && !strcmp(l.spec, "/dev/a b") && !strcmp(l.file, "/srv data"),
	       "  \\040 is a blank");
	tap_ok(hi_fstab_next(&c, &l) == 0, "  then the end");

	char big[FSTAB_LINE_MAX + 64];
	memset(big, 'x', sizeof big);
	memcpy(big, "/dev/x /usr ext4 ", 17);
	snprintf(big + FSTAB_LINE_MAX, 64, "\nLABEL=u /usr xfs ro 0 2\n");
	tap_ok(hi_fstab_find(big, "/usr", &l) == 1 && !strcmp(l.spec, "LABEL=u"), "a line past FSTAB_LINE_MAX is skipped, never cut");

	text = "LABEL=a /usr ext4 ro 0 2\nLABEL=b /usr xfs rw,nosuid 0 2\n/dev/c /usr/local ext4 defaults 0 2\n";
	tap_ok(hi_fstab_find(text, "/usr", &l) == 1 && !strcmp(l.spec, "LABEL=b") && !strcmp(l.type, "xfs") &&
	       !strcmp(l.opts, "rw,nosuid"), "/usr: the last line for it (mount -a leaves it on top), not /usr/local");
	tap_ok(hi_fstab_find("UUID=1 / ext4 defaults 0 1\n", "/usr", &l) == 0, "no /usr line: none");
}

static void test_opts(void)
{
	char data[FSTAB_DATA_MAX];
	unsigned long flags;

	tap_ok(hi_fstab_mount_opts("defaults", &flags, data, sizeof data) == 0 && flags == MS_RDONLY && !data[0],
	       "defaults: read-only, nothing for the file system");
	tap_ok(hi_fstab_mount_opts("rw,nosuid,nodev,relatime,x-systemd.device-timeout=5,nofail,noauto,comment=x",
				   &flags, data, sizeof data) == 0 &&
	       flags == (MS_NOSUID | MS_NODEV | MS_RELATIME) && !data[0], "rw and the flag words; what only user space reads is left out");
	tap_ok(hi_fstab_mount_opts("defaults,subvol=@usr,compress=zstd:3,ro,noatime", &flags, data, sizeof data) == 0 &&
	       flags == (MS_RDONLY | MS_NOATIME), "ro, noatime");
	tap_streq(data, "subvol=@usr,compress=zstd:3", "  the file system's own options in data");
	tap_ok(hi_fstab_mount_opts("rw,ro", &flags, data, sizeof data) == 0 && flags == MS_RDONLY, "the last of rw and ro wins");
	tap_ok(hi_fstab_mount_opts("inode64,logbsize=256k", &flags, data, 10) < 0, "data past its room: refused, never cut");
	tap_ok(hi_fstab_mount_opts(",,exec,,", &flags, data, sizeof data) == 0 && flags == MS_RDONLY && !data[0],
	       "empty words are nothing");
}

static void test_device_spec(void)
{
	char out[256];

	tap_ok(hi_fstab_device_spec("/dev/disk/by-uuid/0a1b-2c3d", out, sizeof out) == 0, "by-uuid");
	tap_streq(out, "UUID=0a1b-2c3d", "  is UUID=");
	hi_fstab_device_spec("/dev/disk/by-label/my\\x20usr\\x2fx", out, sizeof out);
	tap_streq(out, "LABEL=my usr/x", "by-label: udev's \\x escapes undone");
	hi_fstab_device_spec("/dev/disk/by-partuuid/abcd-02", out, sizeof out);
	tap_streq(out, "PARTUUID=abcd-02", "by-partuuid");
	hi_fstab_device_spec("/dev/disk/by-partlabel/usr", out, sizeof out);
	tap_streq(out, "PARTLABEL=usr", "by-partlabel");
	hi_fstab_device_spec("UUID=0a1b", out, sizeof out);
	tap_streq(out, "UUID=0a1b", "UUID= as it is");
	hi_fstab_device_spec("/dev/disk/by-label/a\\x00b\\xzz", out, sizeof out);
	tap_streq(out, "LABEL=a\\x00b\\xzz", "no NUL made, a broken escape kept");
	tap_ok(hi_fstab_device_spec("/dev/disk/by-uuid/0a1b", out, 8) < 0, "too long for the buffer: refused");
}

static char base[] = "/tmp/hardinit-usr-XXXXXX";
static struct boot b;

static const char *status(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "usr", key);
	return it ? it->status : "";
}

static void usr_boot(enum boot_mode mode)
{
	boot_at(&b, base, mode);
	b.cfg.root_timeout = 1;
}

static void test_stage(void)
{
	char cmd[700], path[600];

	if (!mkdtemp(base))
		fixture_die("mkdtemp", base);
	usr_boot(MODE_INITRAMFS);
	tap_ok(hi_stage_usr(&b) == 0 && !strcmp(status("mount"), "absent"), "no fstab in the root: nothing to do");
	fixture_put(base, "root/etc/fstab", "UUID=1 / ext4 defaults 0 1\n");
	usr_boot(MODE_INITRAMFS);
	tap_ok(hi_stage_usr(&b) == 0 && !strcmp(status("mount"), "absent"), "no /usr line: nothing to do");

	/* /usr on vdb2, an ext4 image named by its label. */
	fixture_put(base, "sys/class/block/vdb2/size", "8192\n");
	fixture_mkdir(base, "dev", 0755);
	snprintf(cmd, sizeof cmd, "mke2fs -q -F -t ext4 -L hiusr %s/dev/vdb2 4M >/dev/null 2>&1", base);
	if (system(cmd) != 0) {
		tap_ok(1, "the usr stage finds its device # skip mke2fs not available");
		fixture_rmtree(base);
		return;
	}
	fixture_put(base, "root/etc/fstab", "UUID=1 / ext4 defaults 0 1\n/dev/disk/by-label/hiusr /usr auto ro,nodev 0 2\n");
	/* A link where the mount point should be: found before any mount. */
	snprintf(path, sizeof path, "%s/root/usr", base);
	if (symlink("/usr", path) < 0)
		fixture_die("symlink", path);
	usr_boot(MODE_DRY_RUN);
	snprintf(b.newroot, sizeof b.newroot, "%s/root", base);
	tap_ok(hi_stage_usr(&b) == 0, "dry run: says what it would do, nothing else");
	usr_boot(MODE_INITRAMFS);
	tap_ok(hi_stage_usr(&b) < 0, "the /usr line's device found by its label, then its mount point checked");
	tap_contains(b.err, "cannot open ", "  the mount point is opened without following links");
	tap_contains(b.err, "/root/usr to mount /usr on: it is a symbolic link", "  and refused as one");

	/* The device does not appear: one line naming the fstab's line. */
	fixture_put(base, "root/etc/fstab", "/dev/disk/by-uuid/0a1b2c3d-0000-4000-8000-000000000009 /usr xfs defaults 0 2\n");
	usr_boot(MODE_INITRAMFS);
	b.cfg.root_timeout = 0;
	tap_ok(hi_stage_usr(&b) < 0, "/usr's device missing: the boot stops");
	tap_contains(b.err, "/usr (/dev/disk/by-uuid/0a1b2c3d-0000-4000-8000-000000000009 in the root's /etc/fstab): ",
		     "  naming the line");
	tap_contains(b.err, "UUID=0a1b2c3d-0000-4000-8000-000000000009 did not appear", "  and the device looked for");

	/* A root under the image's verity root hash: a separate /usr is
	 * unchecked and holds the real init, so it is refused, not mounted. */
	usr_boot(MODE_INITRAMFS);
	b.verity_anchored = true;
	tap_ok(hi_stage_usr(&b) < 0 && strstr(b.err, "the image's verity root hash covers / alone"),
	       "a separate /usr beside an embedded verity root hash stops the boot (%s)", b.err);
	usr_boot(MODE_DRY_RUN);
	b.verity_anchored = true;
	tap_ok(hi_stage_usr(&b) < 0, "  in a dry run too");

	/* An fstab that is not a regular file is not read: the boot stops. */
	unlink(path);
	snprintf(path, sizeof path, "%s/root/etc/fstab", base);
	unlink(path);
	if (mkdir(path, 0755) < 0)
		fixture_die("mkdir", path);
	usr_boot(MODE_INITRAMFS);
	tap_ok(hi_stage_usr(&b) < 0 && strstr(b.err, "a separate /usr it lists would not be mounted"),
	       "an unreadable fstab stops the boot (%s)", b.err);
	fixture_rmtree(base);
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	test_lines();
	test_opts();
	test_device_spec();
	test_stage();
	return tap_done();
}
