/* Unit tests: the superblock and partition-table readers, on images made
 * here (byte-exact fakes) and, when mke2fs is present, a real ext4. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "root_probe.h"
#include "tap.h"

static char dir[] = "/tmp/hardinit-probe-XXXXXX";

static int image(const char *name, const void *data, size_t len, off_t off, size_t total)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)total) < 0 || pwrite(fd, data, len, off) != (ssize_t)len)
		return -1;
	return fd;
}

static void test_ext4_fake(void)
{
	unsigned char sb[256] = { 0 };
	struct fs_info fi;
	sb[0x38] = 0x53; sb[0x39] = 0xef;              /* magic */
	sb[0x60] = 0x40;                               /* incompat extents */
	for (int i = 0; i < 16; i++) sb[0x68 + i] = (unsigned char)(0x10 + i);
	memcpy(sb + 0x78, "rootfs", 6);
	int fd = image("ext4", sb, sizeof sb, 1024, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0, "fake ext4 recognised");
	tap_streq(fi.type, "ext4", "ext4 type from extents feature");
	tap_streq(fi.uuid, "10111213-1415-1617-1819-1a1b1c1d1e1f", "ext4 UUID byte order");
	tap_streq(fi.label, "rootfs", "ext4 label");
	tap_ok(fi.bytes == 0, "ext4 of no blocks: its size not known");
	close(fd);

	/* Its size, what an md superblock at the device's end is weighed
	 * against: blocks (the high word only with 64bit) times the block size. */
	unsigned char big[0x154] = { 0 };
	memcpy(big, sb, sizeof sb);
	big[0x04] = 0x00; big[0x05] = 0x08;            /* 2048 blocks */
	big[0x18] = 2;                                 /* of 4 KiB */
	big[0x150] = 1;                                /* high word: only with 64bit */
	fd = image("ext4-size", big, sizeof big, 1024, 8192);
	int rc = fd >= 0 ? hi_probe_fs(fd, &fi) : -1;
	tap_ok(rc == 0 && fi.bytes == 2048ull * 4096, "ext4 size: blocks times 4 KiB (%llu)", fi.bytes);
	close(fd);
	big[0x60] |= 0x80;                             /* 64bit */
	fd = image("ext4-64", big, sizeof big, 1024, 8192);
	rc = fd >= 0 ? hi_probe_fs(fd, &fi) : -1;
	tap_ok(rc == 0 && fi.bytes == ((1ull << 32) + 2048) * 4096, "ext4 64bit size: the high word counts (%llu)", fi.bytes);
	close(fd);

	sb[0x60] = 0x02; sb[0x5c] = 0x04;              /* filetype + journal */
	fd = image("ext3", sb, sizeof sb, 1024, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "ext3") == 0, "journal without ext4 features is ext3");
	close(fd);
	sb[0x5c] = 0;
	fd = image("ext2", sb, sizeof sb, 1024, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "ext2") == 0, "no journal is ext2");
	close(fd);
}

static void test_other_fs(void)
{
	unsigned char xfs[128] = { 'X', 'F', 'S', 'B' };
	struct fs_info fi;
	memset(xfs + 32, 0xab, 16);
	memcpy(xfs + 108, "xroot", 5);
	int fd = image("xfs", xfs, sizeof xfs, 0, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "xfs") == 0, "xfs recognised");
	tap_streq(fi.label, "xroot", "xfs label");
	close(fd);
	xfs[4 + 2] = 0x10;                             /* block size 4096, big-endian */
	xfs[8 + 6] = 0x0a;                             /* 2560 data blocks */
	fd = image("xfs-size", xfs, sizeof xfs, 0, 8192);
	int rc = fd >= 0 ? hi_probe_fs(fd, &fi) : -1;
	tap_ok(rc == 0 && fi.bytes == 2560ull * 4096, "xfs size: data blocks times block size (%llu)", fi.bytes);
	close(fd);

	unsigned char btrfs[0x12b + 256] = { 0 };
	memcpy(btrfs + 0x40, "_BHRfS_M", 8);
	memset(btrfs + 0x20, 0x01, 16);
	memcpy(btrfs + 0x12b, "broot", 5);
	btrfs[0xc9] = 2;     /* dev_item.devid */
	btrfs[0x88] = 3;     /* num_devices */
	btrfs[0xd1 + 3] = 0x40;   /* dev_item.total_bytes: 1 GiB */
	fd = image("btrfs", btrfs, sizeof btrfs, 0x10000, 0x20000);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "btrfs") == 0, "btrfs recognised");
	tap_streq(fi.uuid, "01010101-0101-0101-0101-010101010101", "btrfs fsid");
	tap_streq(fi.label, "broot", "btrfs label");
	tap_ok(fi.devid == 2 && fi.num_devices == 3, "btrfs member: devid 2 of 3 devices (%llu of %llu)",
	       fi.devid, fi.num_devices);
	tap_ok(fi.bytes == 1ull << 30, "btrfs member: its size in the file system (%llu)", fi.bytes);
	close(fd);
	/* Member fields the kernel never writes: not taken for a btrfs. */
	btrfs[0xc9] = 0;
	fd = image("btrfs0", btrfs, sizeof btrfs, 0x10000, 0x20000);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) < 0, "btrfs with devid 0: unknown");
	close(fd);
	btrfs[0xc9] = 1;
	btrfs[0x88] = 0;
	btrfs[0x89] = 1;     /* 256 devices, past BTRFS_MEMBERS_MAX */
	fd = image("btrfsN", btrfs, sizeof btrfs, 0x10000, 0x20000);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) < 0, "btrfs claiming 256 devices: unknown");
	close(fd);

	/* JFS (jfs_mkfs), as the installer offers it: at 32 KiB. */
	unsigned char jfs[168] = { 'J', 'F', 'S', '1' };
	memset(jfs + 136, 0x5a, 16);
	memcpy(jfs + 152, "jroot", 5);
	fd = image("jfs", jfs, sizeof jfs, 0x8000, 0x10000);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "jfs") == 0, "jfs recognised");
	tap_streq(fi.uuid, "5a5a5a5a-5a5a-5a5a-5a5a-5a5a5a5a5a5a", "jfs UUID");
	tap_streq(fi.label, "jroot", "jfs label");
	close(fd);

	unsigned char sq[4] = { 'h', 's', 'q', 's' };
	fd = image("squash", sq, sizeof sq, 0, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "squashfs") == 0 && fi.uuid[0] == '\0',
	       "squashfs recognised, no UUID");
	close(fd);

	unsigned char zero[16] = { 0 };
	fd = image("empty", zero, sizeof zero, 0, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) < 0, "all-zero device is unknown");
	close(fd);
	fd = image("short", zero, sizeof zero, 0, 16);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) < 0, "a device shorter than any superblock is unknown, not a crash");
	close(fd);
}

static void test_label_sanitised(void)
{
	unsigned char sb[256] = { 0 };
	struct fs_info fi;
	sb[0x38] = 0x53; sb[0x39] = 0xef;
	memcpy(sb + 0x78, "a\nb\033c", 5);
	int fd = image("evil", sb, sizeof sb, 1024, 8192);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0, "label with control bytes parses");
	tap_streq(fi.label, "abc", "control bytes dropped from the label");
	close(fd);
}

static void test_gpt_mbr(void)
{
	unsigned char disk[8192] = { 0 };
	struct part_info pi;
	/* GPT header at LBA 1, entries at LBA 2, 128-byte entries. */
	memcpy(disk + 512, "EFI PART", 8);
	disk[512 + 72] = 2;
	disk[512 + 80] = 4;
	disk[512 + 84] = 128;
	unsigned char *e2 = disk + 1024 + 128;          /* partition 2 */
	static const unsigned char guid[16] = { 0x78, 0x56, 0x34, 0x12, 0xbc, 0x9a, 0xf0, 0xde,
						0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	memcpy(e2 + 16, guid, 16);
	const char *name = "rootpart";
	for (int i = 0; name[i]; i++)
		e2[56 + 2 * i] = (unsigned char)name[i];
	int fd = image("gpt", disk, sizeof disk, 0, sizeof disk);
	tap_ok(fd >= 0 && hi_probe_partition(fd, 2, 512, &pi) == 0, "GPT partition 2 read");
	tap_streq(pi.partuuid, "12345678-9abc-def0-0123-456789abcdef", "GPT unique GUID in mixed byte order");
	tap_streq(pi.partlabel, "rootpart", "GPT name");
	tap_ok(hi_probe_partition(fd, 9, 512, &pi) < 0, "partition beyond the table refused");
	close(fd);

	unsigned char mbr[512] = { 0 };
	mbr[440] = 0xef; mbr[441] = 0xbe; mbr[442] = 0xad; mbr[443] = 0xde;
	mbr[510] = 0x55; mbr[511] = 0xaa;
	fd = image("mbr", mbr, sizeof mbr, 0, 8192);
	tap_ok(fd >= 0 && hi_probe_partition(fd, 1, 512, &pi) == 0, "MBR partition read");
	tap_streq(pi.partuuid, "deadbeef-01", "MBR PARTUUID is signature-NN");
	close(fd);
}

static void test_real_ext4(void)
{
	char cmd[512], path[256];
	struct fs_info fi;
	snprintf(path, sizeof path, "%s/real.img", dir);
	snprintf(cmd, sizeof cmd, "mke2fs -q -F -t ext4 -L hardroot -U 3f1e7c2a-9b8d-4e6f-a1b2-c3d4e5f60718 %s 4M >/dev/null 2>&1", path);
	if (system(cmd) != 0) {
		printf("ok %d - real ext4 # skip mke2fs not available\n", ++tap_count);
		return;
	}
	int fd = open(path, O_RDONLY);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0, "mke2fs image recognised");
	tap_streq(fi.type, "ext4", "mke2fs ext4 type");
	tap_streq(fi.uuid, "3f1e7c2a-9b8d-4e6f-a1b2-c3d4e5f60718", "mke2fs UUID");
	tap_streq(fi.label, "hardroot", "mke2fs label");
	close(fd);
}

static void test_sysctl_path(void)
{
	char out[128];
	tap_ok(hi_sysctl_path(out, sizeof out, "/proc", "kernel.kptr_restrict") == 0, "dotted key");
	tap_streq(out, "/proc/sys/kernel/kptr_restrict", "dotted key path");
	tap_ok(hi_sysctl_path(out, sizeof out, "/p", "net/ipv4/conf/all/rp_filter") == 0, "slash key");
	tap_streq(out, "/p/sys/net/ipv4/conf/all/rp_filter", "slash key path");
	tap_ok(hi_sysctl_path(out, sizeof out, "/p", "net.ipv4.conf.eth0/100.rp_filter") == 0, "dotted key with a literal dot");
	tap_streq(out, "/p/sys/net/ipv4/conf/eth0.100/rp_filter", "'/' inside a dotted part is a dot (sysctl.d)");
	tap_ok(hi_sysctl_path(out, sizeof out, "/p", "net/ipv4/conf/eth0.100/rp_filter") == 0, "slash key with a literal dot");
	tap_streq(out, "/p/sys/net/ipv4/conf/eth0.100/rp_filter", "dots are literal in the slash form");
	tap_ok(hi_sysctl_path(out, sizeof out, "/proc", "kernel./.x") < 0, "a part that would become '.' refused");
	tap_ok(hi_sysctl_path(out, sizeof out, "/proc", "kernel..x") < 0, "empty part refused");
	tap_ok(hi_sysctl_path(out, sizeof out, "/proc", "../../etc/shadow") < 0, "escape refused");
	tap_ok(hi_sysctl_path(out, sizeof out, "/proc", "") < 0, "empty key refused");
	tap_ok(hi_sysctl_path(out, 20, "/proc", "kernel.a_very_long_name_indeed") < 0, "overlong path refused");
	tap_ok(hi_sysctl_value_equal("4096\t65536 ", "4096 65536"), "values compared ignoring whitespace");
}

/* The read that waits by asking again: the same bytes as a plain read,
 * the end of the device an error, and a file that cannot be asked
 * without waiting (a pipe: no RWF_NOWAIT, no offsets) a plain error. */
static void test_pread_spin(void)
{
	static unsigned char data[100 * 1024], got[20000];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	int fd = image("spin", data, sizeof data, 0, sizeof data);
	tap_ok(fd >= 0 && hi_fs_pread_spin(fd, got, sizeof got, 70000, FS_SPIN_NS) == 0 &&
	       memcmp(got, data + 70000, sizeof got) == 0, "pread_spin: the bytes at the offset");
	tap_ok(fd >= 0 && hi_fs_pread_spin(fd, got, sizeof got, sizeof data - 100, FS_SPIN_NS) < 0,
	       "pread_spin: past the end is an error");
	tap_ok(fd >= 0 && hi_fs_pread_spin(fd, got, 16, 0, 0) == 0 && memcmp(got, data, 16) == 0,
	       "pread_spin: no time to ask again still reads");
	if (fd >= 0)
		close(fd);
	int p[2];
	tap_ok(pipe(p) == 0 && hi_fs_pread_spin(p[0], got, 16, 0, FS_SPIN_NS) < 0, "pread_spin: a pipe is an error, not a wait");
	close(p[0]);
	close(p[1]);
	tap_ok(hi_fs_dev_spins("vda") && hi_fs_dev_spins("sda2") && hi_fs_dev_spins("nvme0n1p1") && hi_fs_dev_spins("xvda"),
	       "disks' reads end without a thread of their own: asked again");
	tap_ok(!hi_fs_dev_spins("dm-0") && !hi_fs_dev_spins("loop7") && !hi_fs_dev_spins("md127"),
	       "dm, loop and md reads end on a kernel thread: not asked again");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_ext4_fake();
	test_other_fs();
	test_label_sanitised();
	test_gpt_mbr();
	test_real_ext4();
	test_sysctl_path();
	test_pread_spin();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
