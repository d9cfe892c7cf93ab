#include "root_probe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "btrfs.h"
#include "fsutil.h"

/* On-disk offsets, from the file systems' own headers: ext4's struct
 * ext4_super_block, xfs_sb, btrfs_super_block, jfs_superblock,
 * squashfs_super_block and the UEFI specification's GPT header and
 * entry. */
#define EXT_SB_OFFSET        1024
#define EXT_MAGIC            0xEF53
#define EXT_COMPAT_JOURNAL   0x4
#define EXT_INCOMPAT_EXT3    0x1e     /* filetype, recover, journal_dev, meta_bg */
#define EXT_RO_COMPAT_EXT2   0x7      /* sparse_super, large_file, btree_dir */
#define JFS_SB_OFFSET        0x8000
#define EROFS_SB_OFFSET      1024
#define EROFS_MAGIC          0xE0F5E1E2
#define SQUASHFS_MAGIC       0x73717368
#define GPT_ENTRY_MAX_BYTES  512
#define GPT_MAX_ENTRIES      256

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }


void hi_format_uuid(const unsigned char *b, int mixed, char *out)
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

/* ext2/3/4 share a magic: the features say which. */
static const char *ext_type(const unsigned char *sb)
{
	uint32_t compat = le32(sb + 0x5c), incompat = le32(sb + 0x60), ro_compat = le32(sb + 0x64);

	if ((incompat & ~(uint32_t)EXT_INCOMPAT_EXT3) || (ro_compat & ~(uint32_t)EXT_RO_COMPAT_EXT2))
		return "ext4";
	return compat & EXT_COMPAT_JOURNAL ? "ext3" : "ext2";
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* What the file system spans from the device's start (0: not known, or
 * past any device): ext's block count (its high word with the 64bit
 * feature) times its block size; XFS's data blocks times its block size. */
#define EXT_INCOMPAT_64BIT 0x80
#define FS_BYTES_MAX (UINT64_C(1) << 62)
static unsigned long long ext_bytes(const unsigned char *sb)
{
	uint32_t log = le32(sb + 0x18);
	uint64_t blocks = le32(sb + 0x04);

	if (le32(sb + 0x60) & EXT_INCOMPAT_64BIT)
		blocks |= (uint64_t)le32(sb + 0x150) << 32;
	if (log > 6 || blocks > FS_BYTES_MAX >> (10 + log))
		return 0;
	return blocks << (10 + log);
}

static unsigned long long xfs_bytes(const unsigned char *sb)
{
	uint32_t bsize = be32(sb + 4);
	uint64_t blocks = be64(sb + 8);

	if (bsize < 512 || bsize > 65536 || blocks > FS_BYTES_MAX / bsize)
		return 0;
	return blocks * bsize;
}

/* A btrfs member: which device of how many; a superblock whose member
 * fields are out of range is not taken for btrfs. */
static int btrfs_members(const unsigned char *sb, struct fs_info *out)
{
	struct btrfs_sb b;

	if (hi_btrfs_sb_parse(sb, BTRFS_SB_READ_BYTES, &b) < 0)
		return -1;
	out->devid = b.devid;
	out->num_devices = b.num_devices;
	out->bytes = b.total_bytes;
	return 0;
}

/* The file systems found by one superblock: where it is, its magic (a
 * byte string, or a little-endian number of magic_width bytes), where its
 * UUID (-1: none) and label are. Tried in this order. */
static const struct sb_format {
	const char *type;
	const char *(*type_of)(const unsigned char *sb);   /* NULL: type */
	int (*members)(const unsigned char *sb, struct fs_info *out);   /* NULL: one device */
	unsigned long long (*bytes_of)(const unsigned char *sb);   /* NULL: not known (btrfs: members) */
	uint64_t offset;
	size_t bytes, magic_at;
	const char *magic;             /* NULL: magic_le */
	uint32_t magic_le;
	size_t magic_width;
	long uuid_at;
	size_t label_at, label_len;
} sb_formats[] = {
	{ "ext", ext_type, NULL, ext_bytes, EXT_SB_OFFSET, 0x154, 0x38, NULL, EXT_MAGIC, 2, 0x68, 0x78, 16 },
	{ "xfs", NULL, NULL, xfs_bytes, 0, 128, 0, "XFSB", 0, 4, 32, 108, 12 },
	{ "btrfs", NULL, btrfs_members, NULL, BTRFS_SB_OFFSET, BTRFS_SB_READ_BYTES, BTRFS_SB_MAGIC, BTRFS_MAGIC, 0, 8,
	  BTRFS_SB_FSID, BTRFS_SB_LABEL, BTRFS_LABEL_BYTES },
	{ "jfs", NULL, NULL, NULL, JFS_SB_OFFSET, 168, 0, "JFS1", 0, 4, 136, 152, 16 },
	{ "erofs", NULL, NULL, NULL, EROFS_SB_OFFSET, 0x50, 0, NULL, EROFS_MAGIC, 4, 0x30, 0x40, 16 },
	/* squashfs has neither UUID nor label: found by path or devnum only. */
	{ "squashfs", NULL, NULL, NULL, 0, 4, 0, NULL, SQUASHFS_MAGIC, 4, -1, 0, 0 },
};

#define SB_BYTES_MAX BTRFS_SB_READ_BYTES
/* The farthest superblock and the largest swap page (probe_swap) inside
 * the span a caller may read beforehand. */
_Static_assert(BTRFS_SB_OFFSET + SB_BYTES_MAX <= PROBE_SPAN_BYTES, "btrfs's superblock past PROBE_SPAN_BYTES");
#define SWAP_PAGE_MAX 65536
_Static_assert(SWAP_PAGE_MAX <= PROBE_SPAN_BYTES, "the largest swap page past PROBE_SPAN_BYTES");

static bool magic_matches(const struct sb_format *f, const unsigned char *sb)
{
	if (f->magic)
		return memcmp(sb + f->magic_at, f->magic, f->magic_width) == 0;
	uint32_t v = f->magic_width == 2 ? le16(sb + f->magic_at) : le32(sb + f->magic_at);
	return v == f->magic_le;
}

static int probe_sb(int fd, const struct sb_format *f, struct fs_info *out)
{
	unsigned char sb[SB_BYTES_MAX];

	if (f->bytes > sizeof sb || hi_fs_pread_all(fd, sb, f->bytes, f->offset) < 0 || !magic_matches(f, sb))
		return -1;
	if (f->members && f->members(sb, out) < 0)
		return -1;
	if (f->bytes_of)
		out->bytes = f->bytes_of(sb);
	snprintf(out->type, sizeof out->type, "%s", f->type_of ? f->type_of(sb) : f->type);
	if (f->uuid_at >= 0)
		hi_format_uuid(sb + f->uuid_at, 0, out->uuid);
	if (f->label_len)
		copy_label(out->label, sizeof out->label, sb + f->label_at, f->label_len);
	return 0;
}

/* The last 10 bytes of a swap area's first page (union swap_header in the
 * kernel's include/linux/swap.h): "SWAPSPACE2" (mkswap), or, once the
 * kernel hibernated into it, HIBERNATE_SIG "S1SUSPEND" (kernel/power/
 * swap.c), or uswsusp's "ULSUSPEND". */
const char *hi_swap_signature(const unsigned char tail[SWAP_SIG_BYTES])
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
	static const unsigned pages[] = { 4096, 8192, 16384, SWAP_PAGE_MAX };
	unsigned char tail[SWAP_SIG_BYTES], hdr[44];

	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		if (hi_fs_pread_all(fd, tail, sizeof tail, (uint64_t)pages[i] - SWAP_SIG_BYTES) < 0)
			return -1;
		const char *kind = hi_swap_signature(tail);
		if (!kind)
			continue;
		if (hi_fs_pread_all(fd, hdr, sizeof hdr, 1024) < 0)
			return -1;
		snprintf(out->type, sizeof out->type, "%s", kind);
		hi_format_uuid(hdr + 12, 0, out->uuid);
		copy_label(out->label, sizeof out->label, hdr + 28, 16);
		return 0;
	}
	return -1;
}

int hi_probe_fs(int fd, struct fs_info *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof sb_formats / sizeof sb_formats[0]; i++)
		if (probe_sb(fd, &sb_formats[i], out) == 0)
			return 0;
	if (probe_swap(fd, out) == 0)
		return 0;
	memset(out, 0, sizeof *out);
	return -1;
}

static int probe_gpt(int fd, unsigned partno, unsigned ss, struct part_info *out)
{
	unsigned char hdr[92], entry[GPT_ENTRY_MAX_BYTES];

	if (hi_fs_pread_all(fd, hdr, sizeof hdr, ss) < 0 || memcmp(hdr, "EFI PART", 8) != 0)
		return -1;
	uint64_t entries_lba = le64(hdr + 72);
	uint32_t n_entries = le32(hdr + 80), entry_size = le32(hdr + 84);
	if (partno == 0 || partno > n_entries || partno > GPT_MAX_ENTRIES ||
	    entry_size < 128 || entry_size > sizeof entry)
		return -1;
	if (hi_fs_pread_all(fd, entry, entry_size, entries_lba * ss + (uint64_t)(partno - 1) * entry_size) < 0)
		return -1;
	hi_format_uuid(entry + 16, 1, out->partuuid);
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

int hi_probe_partition(int disk_fd, unsigned partno, unsigned sector_size, struct part_info *out)
{
	unsigned char mbr[512];

	memset(out, 0, sizeof *out);
	if (partno == 0)
		return -1;   /* partitions count from 1: 0 is an unreadable sysfs attribute */
	if (sector_size < 512 || sector_size > 4096)
		sector_size = 512;
	if (probe_gpt(disk_fd, partno, sector_size, out) == 0)
		return 0;
	if (hi_fs_pread_all(disk_fd, mbr, sizeof mbr, 0) < 0 || mbr[510] != 0x55 || mbr[511] != 0xaa)
		return -1;
	/* The kernel's MBR PARTUUID: the disk signature and the number. */
	snprintf(out->partuuid, sizeof out->partuuid, "%08x-%02x", le32(mbr + 440), partno);
	return 0;
}
