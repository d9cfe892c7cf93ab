/* Unit tests: block/btrfs.c, the btrfs superblock's member fields, the set
 * of members the root stage waits for, and the control device's ioctls
 * refused by a file that is not it; the root stage over a btrfs of two
 * devices in a temporary tree (dev/NAME files holding member superblocks),
 * stopped before any mount(2): its control device is a plain file; the
 * root's subvolume, the image's against the command line's rootflags,
 * and the root stage refusing a command line's other one under the lock
 * before it waits for any disk. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "btrfs.h"
#include "fixture.h"
#include "log.h"
#include "root.h"
#include "tap.h"

/* A superblock of fsid byte f, member devid of n devices. */
static void sb_bytes(unsigned char *sb, unsigned char f, unsigned devid, unsigned n)
{
	memset(sb, 0, BTRFS_SB_READ_BYTES);
	memcpy(sb + 0x40, "_BHRfS_M", 8);
	memset(sb + 0x20, f, 16);
	sb[0xc9] = (unsigned char)devid;
	sb[0x88] = (unsigned char)n;
}

static void test_parse(void)
{
	unsigned char sb[BTRFS_SB_READ_BYTES];
	struct btrfs_sb b;

	sb_bytes(sb, 0x11, 1, 2);
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) == 0, "a member's superblock parses");
	tap_ok(b.fsid[0] == 0x11 && b.fsid[15] == 0x11, "  fsid");
	tap_ok(b.devid == 1 && b.num_devices == 2, "  devid 1 of 2");
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb - 1, &b) < 0, "a short read is refused");
	sb[0x40] = 'X';
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) < 0 && b.fsid[0] == 0 && b.devid == 0, "no magic: refused, nothing kept");
	sb_bytes(sb, 0x11, 0, 2);
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) < 0, "devid 0 refused");
	sb_bytes(sb, 0x11, 1, 0);
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) < 0, "no devices refused");
	sb_bytes(sb, 0x11, 1, BTRFS_MEMBERS_MAX + 1);
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) < 0, "more devices than BTRFS_MEMBERS_MAX refused");
	sb_bytes(sb, 0x11, 1, 1);
	sb[0x8f] = 0x80;   /* the count's top byte */
	tap_ok(hi_btrfs_sb_parse(sb, sizeof sb, &b) < 0, "a 64-bit count is not truncated into range");
}

static void test_members(void)
{
	struct btrfs_members set;
	const char *fs = "22222222-2222-2222-2222-222222222222";
	char text[256];

	hi_btrfs_members_init(&set, fs, 3);
	tap_ok(hi_btrfs_members_add(&set, fs, 1, 3, "/dev/vda1") == 0, "first member added");
	tap_ok(hi_btrfs_members_add(&set, fs, 1, 3, "/dev/vda1") == 0 && set.n == 1, "  the same node again: one member");
	tap_ok(!hi_btrfs_members_complete(&set), "1 of 3: not complete");
	hi_btrfs_members_missing(&set, text, sizeof text);
	tap_streq(text, "devid 2, devid 3", "  names the missing devids");
	tap_ok(hi_btrfs_members_add(&set, "33333333-3333-3333-3333-333333333333", 2, 3, "/dev/vdz") == 1,
	       "another file system's device: not a member");
	tap_ok(hi_btrfs_members_add(&set, fs, 2, 2, "/dev/vdz") == 1, "a device counting other members: not one");
	tap_ok(hi_btrfs_members_add(&set, fs, 0, 3, "/dev/vdz") == 1, "devid 0: not a member");
	tap_ok(hi_btrfs_members_add(&set, fs, 3, 3, "/dev/vdc1") == 0, "devid 3 added");
	hi_btrfs_members_missing(&set, text, sizeof text);
	tap_streq(text, "devid 2", "  devid 2 missing");
	tap_ok(hi_btrfs_members_add(&set, fs, 3, 3, "/dev/vdd1") == -1, "devid 3 on a second device: a copy, refused");
	tap_ok(hi_btrfs_members_add(&set, fs, 2, 3, "/dev/vdb1") == 0 && hi_btrfs_members_complete(&set), "3 of 3: complete");
	hi_btrfs_members_found(&set, text, sizeof text);
	tap_streq(text, "devid 1 on /dev/vda1, devid 3 on /dev/vdc1, devid 2 on /dev/vdb1", "  the members found");
	/* A fourth device with the fsid and a devid of its own: the set is
	 * full, so it is no member (the kernel would mount the newest). */
	tap_ok(hi_btrfs_members_add(&set, fs, 4, 3, "/dev/sdz1") == 1 && set.n == 3,
	       "a device past the members' count: not one file system");
	hi_btrfs_members_found(&set, text, 20);
	tap_ok(strlen(text) < 20, "  found: bounded by the buffer");

	/* A file system of many devices, one seen: the message stays bounded. */
	hi_btrfs_members_init(&set, fs, BTRFS_MEMBERS_MAX);
	hi_btrfs_members_add(&set, fs, 1, BTRFS_MEMBERS_MAX, "/dev/sda");
	hi_btrfs_members_missing(&set, text, 64);
	tap_ok(strlen(text) < 64 && strstr(text, "devid 2, ") == text && strstr(text, " more"),
	       "  missing: the first devids, then how many more (%s)", text);
	hi_btrfs_members_missing(&set, text, 8);
	tap_ok(strlen(text) < 8, "  missing: bounded by a tiny buffer");
	char long_node[100];
	memset(long_node, 'n', sizeof long_node - 1);
	long_node[sizeof long_node - 1] = '\0';
	tap_ok(hi_btrfs_members_add(&set, fs, 2, BTRFS_MEMBERS_MAX, long_node) == -2, "a node name too long is refused");
}

static void test_flags(void)
{
	char data[256], err[512];

	tap_ok(hi_btrfs_root_flags(NULL, "/@rootfs", 0, data, sizeof data, err, sizeof err) == 0,
	       "no rootflags, the image's subvolume: mounted");
	tap_streq(data, "subvol=/@rootfs", "  as subvol=");
	tap_ok(hi_btrfs_root_flags("compress=zstd", "/@rootfs", 1, data, sizeof data, err, sizeof err) == 0,
	       "other options, locked: kept, the image's subvolume added");
	tap_streq(data, "compress=zstd,subvol=/@rootfs", "  after them");
	tap_ok(hi_btrfs_root_flags("compress=zstd", NULL, 1, data, sizeof data, err, sizeof err) == 0,
	       "no subvolume in the image: rootflags as they are");
	tap_streq(data, "compress=zstd", "  unchanged");
	tap_ok(hi_btrfs_root_flags(NULL, "/", 1, data, sizeof data, err, sizeof err) == 0 &&
		       !strcmp(data, "subvol=/"), "the top level: subvol=/, not btrfs's default subvolume (%s)", data);

	/* The same subvolume, spelled as GRUB's 10_linux spells it. */
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs", "/@rootfs", 1, data, sizeof data, err, sizeof err) == 0,
	       "locked: rootflags=subvol=@rootfs is the image's /@rootfs");
	tap_streq(data, "subvol=@rootfs", "  mounted as the command line says, nothing added");
	tap_ok(hi_btrfs_root_flags("subvol=//@rootfs/", "/@rootfs", 1, data, sizeof data, err, sizeof err) == 0,
	       "  slashes doubled and trailing: the same subvolume");

	/* Another subvolume: the command line's when unlocked... */
	tap_ok(hi_btrfs_root_flags("subvol=@snap1", "/@rootfs", 0, data, sizeof data, err, sizeof err) == 0,
	       "unlocked: rootflags=subvol=@snap1 is mounted");
	tap_streq(data, "subvol=@snap1", "  the command line's alone");
	tap_ok(hi_btrfs_root_flags("subvolid=256", "/@rootfs", 0, data, sizeof data, err, sizeof err) == 0 &&
		       !strcmp(data, "subvolid=256"), "unlocked: subvolid= alone, no subvol= beside it");
	/* ...refused under the lock: an older snapshot is a downgrade. */
	tap_ok(hi_btrfs_root_flags("subvol=@snap1", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: rootflags=subvol=@snap1 beside the image's /@rootfs is refused");
	tap_contains(err, "rootflags=subvol=@snap1 names another btrfs subvolume than the image's /@rootfs, refused under the lock",
		     "  what and why");
	tap_contains(err, "remove the word, or rebuild the image", "  what to do");
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs,subvol=@snap1", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: the image's, then another (the kernel takes the last): refused");
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs/sub", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: a subvolume below the image's: refused");
	tap_ok(hi_btrfs_root_flags("subvol=/", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: the top level beside the image's subvolume: refused");
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs,subvol=", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: an empty subvol= last: refused");
	/* The kernel resolves subvol= as a path from the top level: "..",
	 * "." and a link are followed there, so only the image's own
	 * components name its subvolume. */
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs/../@snap1", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: the image's subvolume, then .. to another: refused");
	tap_ok(hi_btrfs_root_flags("subvol=@rootfs/.", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: a . component is not the image's spelling: refused");
	/* Empty options are skipped by the kernel; quotes do not join words
	 * for btrfs (only an LSM's own options are read quoted). */
	tap_ok(hi_btrfs_root_flags(",,subvol=@snap1,", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: another subvolume between empty options: refused");
	tap_ok(hi_btrfs_root_flags("context=\"a,subvol=@snap1\"", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: another subvolume inside a quoted value: refused");
	tap_ok(hi_btrfs_root_flags("subvolid=5", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: subvolid= is refused");
	tap_contains(err, "rootflags=subvolid=5 is refused under the lock", "  named");
	tap_ok(hi_btrfs_root_flags("ssd,device=/dev/sdz1", "/@rootfs", 1, data, sizeof data, err, sizeof err) < 0,
	       "locked: device= is refused");
	tap_contains(err, "rootflags=device=/dev/sdz1 is refused under the lock", "  named");
	tap_ok(hi_btrfs_root_flags("device=/dev/sdz1", NULL, 1, data, sizeof data, err, sizeof err) == 0,
	       "  an image without a btrfs root: rootflags are not its to judge");

	tap_ok(hi_btrfs_root_flags(NULL, "@rootfs", 0, data, sizeof data, err, sizeof err) < 0,
	       "the image's subvolume not from the top level: refused");
	tap_ok(hi_btrfs_root_flags(NULL, "/@a,device=/dev/sdz", 0, data, sizeof data, err, sizeof err) < 0,
	       "the image's subvolume with a comma (an option smuggled in): refused");
	tap_contains(err, "rebuild the image", "  what to do");
	tap_ok(hi_btrfs_root_flags("compress=zstd", "/@rootfs", 0, data, 20, err, sizeof err) < 0,
	       "longer than the buffer: refused, not cut");
}

static void test_control(void)
{
	char path[] = "/tmp/hardinit-btrfs-XXXXXX";
	int fd = mkstemp(path);

	tap_ok(fd >= 0, "a plain file");
	if (fd >= 0)
		close(fd);
	errno = 0;
	tap_ok(hi_btrfs_register(path, "/dev/vda1") < 0 && errno == ENOTTY, "SCAN_DEV on a file that is not the control device: refused (ENOTTY)");
	tap_ok(hi_btrfs_ready(path, "/dev/vda1") < 0, "DEVICES_READY likewise");
	unlink(path);
	tap_ok(hi_btrfs_register(path, "/dev/vda1") < 0 && errno == ENOENT, "no control device: ENOENT");
}

static char base[] = "/tmp/hardinit-btrfs-root-XXXXXX";
static struct boot b;

/* sys/class/block/NAME and dev/NAME holding a member of the btrfs of
 * fsid byte 0x55: devid of n. */
static void fake_member(const char *name, unsigned devid, unsigned n)
{
	unsigned char sb[BTRFS_SB_READ_BYTES];
	char rel[64], path[600];

	snprintf(rel, sizeof rel, "sys/class/block/%s/size", name);
	fixture_put(base, rel, "8192\n");
	fixture_mkdir(base, "dev", 0755);
	snprintf(path, sizeof path, "%s/dev/%s", base, name);
	sb_bytes(sb, 0x55, devid, n);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 2 * BTRFS_SB_OFFSET) < 0 ||
	    pwrite(fd, sb, sizeof sb, BTRFS_SB_OFFSET) != (ssize_t)sizeof sb)
		fixture_die("cannot write", path);
	close(fd);
}

static void drop_member(const char *name)
{
	char rel[64];

	snprintf(rel, sizeof rel, "%s/sys/class/block/%s", base, name);
	fixture_rmtree(rel);
	snprintf(rel, sizeof rel, "%s/dev/%s", base, name);
	unlink(rel);
}

static int root_boot(int timeout)
{
	boot_at(&b, base, MODE_INITRAMFS);
	b.cfg.root_timeout = timeout;
	b.cmd.root = "UUID=55555555-5555-5555-5555-555555555555";
	/* The control device is a plain file: the register fails with
	 * ENOTTY, which shows how far the stage got, before any mount. */
	fixture_put(base, "dev/" BTRFS_CONTROL_NAME, "");
	return hi_stage_root(&b);
}

static void test_root_stage(void)
{
	if (!mkdtemp(base))
		fixture_die("mkdtemp", base);
	fake_member("vdb1", 2, 2);
	fake_member("vda1", 1, 2);
	tap_ok(root_boot(1) < 0, "btrfs over vda1 and vdb1, root=UUID=: stops at the control device here");
	tap_ok(!strstr(b.err, "matches 2 devices"), "  the two members are one root, not duplicates (%s)", b.err);
	tap_contains(b.err, "cannot register ", "  every member is registered before the mount");
	/* A regular file stands for the control device: the ioctl fails with
	 * ENOTTY, in the C library's own words (glibc's and musl's differ). */
	char through[128];
	snprintf(through, sizeof through, "/dev/" BTRFS_CONTROL_NAME ": %s", strerror(ENOTTY));
	tap_contains(b.err, through, "  through the control device");

	/* root= naming one member's path: the other is found by its UUID. */
	boot_at(&b, base, MODE_INITRAMFS);
	b.cfg.root_timeout = 1;
	b.cmd.root = "/dev/vdb1";
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot register "),
	       "root=/dev/vdb1: its fellow member found by UUID, both registered (%s)", b.err);

	drop_member("vdb1");
	tap_ok(root_boot(0) < 0, "only devid 1 present: the bounded wait ends");
	tap_contains(b.err, "the btrfs root 55555555-5555-5555-5555-555555555555 (UUID=55555555-5555-5555-5555-555555555555) has 2 devices",
		     "  one line naming the file system");
	tap_contains(b.err, "only devid 1 on ", "  what appeared");
	tap_contains(b.err, "/dev/vda1 appeared, not devid 2: attach the missing disk", "  and what is missing");

	/* devid 1 twice (a copied disk) beside devid 2: duplicates. */
	fake_member("vdb1", 2, 2);
	fake_member("vdc1", 1, 2);
	tap_ok(root_boot(1) < 0, "a copy of devid 1 beside the members: refused");
	tap_contains(b.err, "matches 3 devices", "  as duplicates, every match named");

	/* A planted device with the root's fsid, the same count and a devid
	 * of its own (devids can pass the count after a replace): a third
	 * device of a two-device btrfs is not registered beside the two. */
	fake_member("vdc1", 3, 2);
	tap_ok(root_boot(1) < 0, "a third device claiming the two-device root: refused");
	tap_contains(b.err, "matches 3 devices", "  as duplicates, not registered as a member");

	/* One device of its own: mounted as before, nothing registered. */
	drop_member("vdb1");
	drop_member("vdc1");
	fake_member("vda1", 1, 1);
	boot_at(&b, base, MODE_INITRAMFS);
	b.cfg.root_timeout = 1;
	b.cmd.root = "UUID=55555555-5555-5555-5555-555555555555";
	/* Under a directory that does not exist: the stage's mkdir fails
	 * before any mount(2) is tried on the host. */
	snprintf(b.newroot, sizeof b.newroot, "%s/none/root", base);
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot create"),
	       "a one-device btrfs goes straight to the mount (%s)", b.err);
	fixture_rmtree(base);
}

/* The image's subvolume against the command line's, in the stage. */
static void test_root_subvol(void)
{
	snprintf(base, sizeof base, "/tmp/hardinit-btrfs-root-XXXXXX");
	if (!mkdtemp(base))
		fixture_die("mkdtemp", base);
	fake_member("vda1", 1, 2);
	fake_member("vdb1", 2, 2);
	fixture_put(base, "image/etc/hardinit/root-subvol", "/@rootfs\n");
	boot_at(&b, base, MODE_INITRAMFS);
	fixture_path(b.root_subvol, sizeof b.root_subvol, base, "image/etc/hardinit/root-subvol");
	b.cfg.root_timeout = 1;
	b.cfg.lock_cmdline = true;
	b.cmd.root = "UUID=55555555-5555-5555-5555-555555555555";
	b.cmd.rootflags = "subvol=@snap1";
	fixture_put(base, "dev/" BTRFS_CONTROL_NAME, "");
	tap_ok(hi_stage_root(&b) < 0, "locked, rootflags=subvol=@snap1, the image's /@rootfs: refused");
	tap_contains(b.err, "rootflags=subvol=@snap1 names another btrfs subvolume than the image's /@rootfs",
		     "  by the subvolume, before any device is registered");
	b.cfg.lock_cmdline = false;
	b.err[0] = '\0';
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot register "),
	       "unlocked: the command line's subvolume, on to the members (%s)", b.err);
	b.cfg.lock_cmdline = true;
	b.cmd.rootflags = NULL;
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "cannot register "),
	       "locked, no rootflags: the image's subvolume, on to the members (%s)", b.err);
	fixture_put(base, "image/etc/hardinit/root-subvol", "@rootfs\n");
	tap_ok(hi_stage_root(&b) < 0 && strstr(b.err, "rebuild the image"),
	       "a subvolume file the builder never writes: refused (%s)", b.err);
	fixture_rmtree(base);
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	test_parse();
	test_members();
	test_flags();
	test_control();
	test_root_stage();
	test_root_subvol();
	return tap_done();
}
