/* md RAID superblocks (block/md_sb.c), read without mdadm: the 1.x
 * superblock (1.0 at the device's end, 1.1 at its start, 1.2 4 KiB in,
 * the Debian installer's default) and the old 0.90 one (64 KiB from the
 * end, 64 KiB aligned). Pure functions over bytes: the md stage reads the
 * devices, the unit test and fuzz target feed them memory. */
#ifndef HARDINIT_BLOCK_MD_SB_H
#define HARDINIT_BLOCK_MD_SB_H

#include <stddef.h>
#include <stdint.h>

#define MD_SB_READ_BYTES   4096u   /* one superblock, 1.x or 0.90 */
#define MD_SB_UUID_LEN     16
#define MD_SB_NAME_MAX     33      /* 1.x set_name: 32 bytes, not always NUL-ended */
#define MD_SB_ERR_MAX      160
#define MD_SB_MAX_DISKS    256     /* raid_disks of an array hardinit assembles */
#define MD_SB_ROLE_SPARE   0xffffu
#define MD_SB_ROLE_FAULTY  0xfffeu
#define MD_SB_ROLE_JOURNAL 0xfffdu
#define MD_SB_ROLE_MAX     0xff00u /* below it: a slot in the array */
#define MD_SB_NO_MINOR     0xffffffffu

/* The four places a superblock can sit, in the order they are tried. */
enum md_sb_kind { MD_SB_1_2, MD_SB_1_1, MD_SB_1_0, MD_SB_0_90, MD_SB_KINDS };

struct md_sb {
	enum md_sb_kind kind;
	unsigned major, minor;          /* 1.2 -> 1, 2; 0.90 -> 0, 90 (SET_ARRAY_INFO's) */
	uint8_t uuid[MD_SB_UUID_LEN];   /* the array's */
	char name[MD_SB_NAME_MAX];      /* 1.x "host:name", "" for 0.90 */
	int32_t level;                  /* -1 linear, 0, 1, 4, 5, 6, 10 */
	uint32_t raid_disks;
	uint32_t role;                  /* this device's slot, or MD_SB_ROLE_* */
	uint32_t preferred_minor;       /* 0.90's md_minor, else MD_SB_NO_MINOR */
	uint64_t events;
	uint64_t data_offset, data_size;   /* sectors */
	int in_sync;                    /* resync_offset past the end: clean */
};

/* Byte offset of a KIND superblock on a device of dev_bytes; UINT64_MAX
 * when the device is too small to hold one there. */
uint64_t hi_md_sb_offset(enum md_sb_kind kind, uint64_t dev_bytes);

/* The MD_SB_READ_BYTES (len may be less: then no superblock) read at
 * hi_md_sb_offset(kind, dev_bytes). Returns 1 with *out filled, 0 when
 * there is no md superblock of that kind, -1 with why when its magic is
 * there but it is damaged or names what cannot be assembled (a bad
 * checksum, a superblock not where it says, more than MD_SB_MAX_DISKS). */
int hi_md_sb_parse(const uint8_t *buf, size_t len, enum md_sb_kind kind, uint64_t dev_bytes, struct md_sb *out,
		   char *why, size_t whylen);

/* Reads len bytes at offset of a device: 0 or -1. */
typedef int (*md_sb_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

/* Every kind tried in turn through rd, as mdadm's examine does; the first
 * found wins. Returns 1, 0 (no md member) or -1 with why (damaged). */
int hi_md_sb_read(md_sb_read_fn rd, void *ctx, uint64_t dev_bytes, struct md_sb *out, char *why, size_t whylen);

/* The UUID as mdadm prints it: 8:8:8:8 hex digits (36 bytes with NUL). */
#define MD_SB_UUID_TEXT 36
void hi_md_sb_uuid_format(const uint8_t uuid[MD_SB_UUID_LEN], char out[MD_SB_UUID_TEXT]);
/* 32 hex digits, with or without mdadm's colons or dashes: 0 or -1. */
int hi_md_sb_uuid_parse(const char *text, uint8_t uuid[MD_SB_UUID_LEN]);

/* The name mdadm gives the array under /dev/md/: the part of a 1.x name
 * after "host:", the 0.90 preferred minor's number; "" when none. */
void hi_md_sb_dev_name(const struct md_sb *sb, char *out, size_t cap);

/* The md minor mdadm would use: a name that is a number (0-511, "debian:0"
 * from Debian's installer) or the 0.90 preferred minor; MD_SB_NO_MINOR
 * when the array has none (then the caller picks a free one). */
uint32_t hi_md_sb_minor(const struct md_sb *sb);

#endif
