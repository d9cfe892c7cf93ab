#include "root_probe.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

/* On-disk offsets, from the file systems' own headers: ext4's struct
 * ext4_super_block, xfs_sb, btrfs_super_block, squashfs_super_block and
 * the UEFI specification's GPT header and entry. */
#define EXT_SB_OFFSET        1024
#define EXT_MAGIC            0xEF53
#define EXT_COMPAT_JOURNAL   0x4
#define EXT_INCOMPAT_EXT3    0x1e     /* filetype, recover, journal_dev, meta_bg */
#define EXT_RO_COMPAT_EXT2   0x7      /* sparse_super, large_file, btree_dir */
#define BTRFS_SB_OFFSET      0x10000
#define EROFS_SB_OFFSET      1024
#define EROFS_MAGIC          0xE0F5E1E2
#define SQUASHFS_MAGIC       0x73717368
#define GPT_ENTRY_MAX_BYTES  512
#define GPT_MAX_ENTRIES      256

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }


void format_uuid(const unsigned char *b, int mixed, char *out)
{
	unsigned char u[16];

	memcpy(u, b, 16);
	if (mixed) {
		unsigned char t;
		t = u[0]; u[0] = u[3]; u[3] = t;
		t = u[1]; u[1] = u[2]; u[2] = t;
		t = u[4]; u[4] = u[5]; u[5] = t;
		t = u[6]; u[6] = u[7]; u[7] = t;
	}
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Labels are fixed-size, NUL-padded fields; copy only printable bytes. */
static void copy_label(char *dst, size_t cap, const unsigned char *src, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && src[i] && n + 1 < cap; i++)
		if (src[i] >= 0x20 && src[i] != 0x7f)
			dst[n++] = (char)src[i];
	dst[n] = '\0';
}

static int probe_ext(int fd, struct fs_info *out)
{
	unsigned char sb[256];

	if (fs_pread_all(fd, sb, sizeof sb, EXT_SB_OFFSET) < 0 || le16(sb + 0x38) != EXT_MAGIC)
		return -1;
	uint32_t compat = le32(sb + 0x5c), incompat = le32(sb + 0x60), ro_compat = le32(sb + 0x64);
	const char *type = "ext2";
	if ((incompat & ~(uint32_t)EXT_INCOMPAT_EXT3) || (ro_compat & ~(uint32_t)EXT_RO_COMPAT_EXT2))
		type = "ext4";
	else if (compat & EXT_COMPAT_JOURNAL)
		type = "ext3";
	snprintf(out->type, sizeof out->type, "%s", type);
	format_uuid(sb + 0x68, 0, out->uuid);
	copy_label(out->label, sizeof out->label, sb + 0x78, 16);
	return 0;
}

static int probe_xfs(int fd, struct fs_info *out)
{
	unsigned char sb[128];

	if (fs_pread_all(fd, sb, sizeof sb, 0) < 0 || memcmp(sb, "XFSB", 4) != 0)
		return -1;
	snprintf(out->type, sizeof out->type, "xfs");
	format_uuid(sb + 32, 0, out->uuid);
	copy_label(out->label, sizeof out->label, sb + 108, 12);
	return 0;
}

static int probe_btrfs(int fd, struct fs_info *out)
{
	unsigned char sb[0x12b + 256];

	if (fs_pread_all(fd, sb, sizeof sb, BTRFS_SB_OFFSET) < 0 || memcmp(sb + 0x40, "_BHRfS_M", 8) != 0)
		return -1;
	snprintf(out->type, sizeof out->type, "btrfs");
	format_uuid(sb + 0x20, 0, out->uuid);
	copy_label(out->label, sizeof out->label, sb + 0x12b, 256);
	return 0;
}

static int probe_erofs(int fd, struct fs_info *out)
{
	unsigned char sb[0x50];

	if (fs_pread_all(fd, sb, sizeof sb, EROFS_SB_OFFSET) < 0 || le32(sb) != EROFS_MAGIC)
		return -1;
	snprintf(out->type, sizeof out->type, "erofs");
	format_uuid(sb + 0x30, 0, out->uuid);
	copy_label(out->label, sizeof out->label, sb + 0x40, 16);
	return 0;
}

static int probe_squashfs(int fd, struct fs_info *out)
{
	unsigned char sb[4];

	/* squashfs has neither UUID nor label: found by path or devnum only. */
	if (fs_pread_all(fd, sb, sizeof sb, 0) < 0 || le32(sb) != SQUASHFS_MAGIC)
		return -1;
	snprintf(out->type, sizeof out->type, "squashfs");
	return 0;
}

/* The last 10 bytes of a swap area's first page (union swap_header in the
 * kernel's include/linux/swap.h): "SWAPSPACE2" (mkswap), or, once the
 * kernel hibernated into it, HIBERNATE_SIG "S1SUSPEND" (kernel/power/
 * swap.c), or uswsusp's "ULSUSPEND". */
const char *swap_signature(const unsigned char tail[SWAP_SIG_BYTES])
{
	static const struct { const char *sig; size_t len; const char *kind; } sigs[] = {
		{ "SWAPSPACE2", 10, "swap" },
		{ "SWAP-SPACE", 10, "swap" },
		{ "S1SUSPEND", 9, "swsuspend" },
		{ "ULSUSPEND", 9, "swsuspend" },
	};

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (memcmp(tail, sigs[i].sig, sigs[i].len) == 0)
			return sigs[i].kind;
	return NULL;
}

/* A swap area: its header is the first page, of the page size of the
 * kernel that wrote it; the UUID and label follow the 1024 boot bytes and
 * three 32-bit words. */
static int probe_swap(int fd, struct fs_info *out)
{
	static const unsigned pages[] = { 4096, 8192, 16384, 65536 };
	unsigned char tail[SWAP_SIG_BYTES], hdr[44];

	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		if (fs_pread_all(fd, tail, sizeof tail, (uint64_t)pages[i] - SWAP_SIG_BYTES) < 0)
			return -1;
		const char *kind = swap_signature(tail);
		if (!kind)
			continue;
		if (fs_pread_all(fd, hdr, sizeof hdr, 1024) < 0)
			return -1;
		snprintf(out->type, sizeof out->type, "%s", kind);
		format_uuid(hdr + 12, 0, out->uuid);
		copy_label(out->label, sizeof out->label, hdr + 28, 16);
		return 0;
	}
	return -1;
}

int probe_fs(int fd, struct fs_info *out)
{
	static int (*const probes[])(int, struct fs_info *) = {
		probe_ext, probe_xfs, probe_btrfs, probe_erofs, probe_squashfs, probe_swap,
	};

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
		if (probes[i](fd, out) == 0)
			return 0;
	memset(out, 0, sizeof *out);
	return -1;
}

static int probe_gpt(int fd, unsigned partno, unsigned ss, struct part_info *out)
{
	unsigned char hdr[92], entry[GPT_ENTRY_MAX_BYTES];

	if (fs_pread_all(fd, hdr, sizeof hdr, ss) < 0 || memcmp(hdr, "EFI PART", 8) != 0)
		return -1;
	uint64_t entries_lba = le64(hdr + 72);
	uint32_t n_entries = le32(hdr + 80), entry_size = le32(hdr + 84);
	if (partno == 0 || partno > n_entries || partno > GPT_MAX_ENTRIES ||
	    entry_size < 128 || entry_size > sizeof entry)
		return -1;
	if (fs_pread_all(fd, entry, entry_size, entries_lba * ss + (uint64_t)(partno - 1) * entry_size) < 0)
		return -1;
	format_uuid(entry + 16, 1, out->partuuid);
	/* The name is UTF-16LE; names are almost always ASCII: keep the printable
	 * ones, '?' for the rest. */
	size_t n = 0;
	for (size_t i = 56; i + 1 < 128 && n + 1 < sizeof out->partlabel; i += 2) {
		uint16_t ch = le16(entry + i);
		if (ch == 0)
			break;
		out->partlabel[n++] = ch < 0x7f && ch >= 0x20 ? (char)ch : '?';
	}
	out->partlabel[n] = '\0';
	return 0;
}

int probe_partition(int disk_fd, unsigned partno, unsigned sector_size, struct part_info *out)
{
	unsigned char mbr[512];

	memset(out, 0, sizeof *out);
	if (partno == 0)
		return -1;   /* partitions count from 1: 0 is an unreadable sysfs attribute */
	if (sector_size < 512 || sector_size > 4096)
		sector_size = 512;
	if (probe_gpt(disk_fd, partno, sector_size, out) == 0)
		return 0;
	if (fs_pread_all(disk_fd, mbr, sizeof mbr, 0) < 0 || mbr[510] != 0x55 || mbr[511] != 0xaa)
		return -1;
	/* The kernel's MBR PARTUUID: the disk signature and the number. */
	snprintf(out->partuuid, sizeof out->partuuid, "%08x-%02x", le32(mbr + 440), partno);
	return 0;
}
