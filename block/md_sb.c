/* md RAID superblocks on disk (the kernel's linux/raid/md_p.h layout):
 *   1.x: 256 bytes of little-endian fields, then max_dev 16-bit roles;
 *     the checksum is the 32-bit words of those bytes summed in 64 bits
 *     (a trailing 16-bit word too) with the checksum field zero, the
 *     carries folded back once; super_offset says where it was written.
 *   0.90: 1024 32-bit words in the creating machine's order (little
 *     endian here: a big-endian array is not taken), the same checksum
 *     over all of them; this device's descriptor at word 992.
 * Every number is bounds-checked before it is used; nothing is trusted
 * that the kernel would refuse. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "md_sb.h"
#include "sha256.h"

#define MD_MAGIC          0xa92b4efcu
#define SECTOR            512u

/* 1.x field offsets (bytes). */
#define V1_MAJOR          4u
#define V1_FEATURES       8u
#define V1_UUID           16u
#define V1_NAME           32u
#define V1_NAME_LEN       32u
#define V1_LEVEL          72u
#define V1_RAID_DISKS     92u
#define V1_DATA_OFFSET    128u
#define V1_DATA_SIZE      136u
#define V1_SUPER_OFFSET   144u
#define V1_DEV_NUMBER     160u
#define V1_EVENTS         200u
#define V1_RESYNC_OFFSET  208u
#define V1_CSUM           216u
#define V1_MAX_DEV        220u
#define V1_ROLES          256u
#define V1_MAX_DEV_LIMIT  ((MD_SB_READ_BYTES - V1_ROLES) / 2)   /* roles that fit the 4 KiB read */
#define V1_FEATURE_RESHAPE 4u   /* MD_FEATURE_RESHAPE_ACTIVE */

/* 0.90 word indexes. */
#define V0_WORDS          1024u
#define V0_MAJOR          1u
#define V0_MINOR          2u
#define V0_UUID0          5u
#define V0_LEVEL          7u
#define V0_SIZE_KIB       8u
#define V0_RAID_DISKS     10u
#define V0_MD_MINOR       11u
#define V0_UUID1          13u
#define V0_STATE          33u
#define V0_CSUM           38u
#define V0_EVENTS_LO      39u
#define V0_EVENTS_HI      40u
#define V0_THIS_DISK      992u   /* number, major, minor, raid_disk, state */
#define V0_DISK_FAULTY    1u     /* 1 << MD_DISK_FAULTY */
#define V0_DISK_ACTIVE    2u
#define V0_DISK_SYNC      4u
#define V0_SB_CLEAN       1u     /* 1 << MD_SB_CLEAN */
#define V0_RESERVED_SECTORS 128u /* 64 KiB at the end, 64 KiB aligned */
#define V0_MAX_DISKS      27u    /* MD_SB_DISKS */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The md checksum over len bytes (len even), the field at csum_off
 * counted as zero. */
static uint32_t md_csum(const uint8_t *p, size_t len, size_t csum_off)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4)
		if (i != csum_off)
			sum += le32(p + i);
	if (i < len)
		sum += le16(p + i);
	return (uint32_t)((sum & 0xffffffffu) + (sum >> 32));
}

uint64_t hi_md_sb_offset(enum md_sb_kind kind, uint64_t dev_bytes)
{
	uint64_t sectors = dev_bytes / SECTOR;

	switch (kind) {
	case MD_SB_1_2:
		return sectors >= 16 ? 8u * SECTOR : UINT64_MAX;
	case MD_SB_1_1:
		return sectors >= 8 ? 0 : UINT64_MAX;
	case MD_SB_1_0:
		return sectors >= 16 ? ((sectors - 16) & ~(uint64_t)7) * SECTOR : UINT64_MAX;
	case MD_SB_0_90:
		return sectors >= 2 * V0_RESERVED_SECTORS ?
			       ((sectors & ~(uint64_t)(V0_RESERVED_SECTORS - 1)) - V0_RESERVED_SECTORS) * SECTOR :
			       UINT64_MAX;
	default:
		return UINT64_MAX;
	}
}

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *kind_text(enum md_sb_kind kind)
{
	static const char *const t[MD_SB_KINDS] = { "1.2", "1.1", "1.0", "0.90" };
	return kind < MD_SB_KINDS ? t[kind] : "?";
}

static int parse_v1(const uint8_t *buf, enum md_sb_kind kind, uint64_t dev_bytes, struct md_sb *out, char *why,
		    size_t whylen)
{
	const char *k = kind_text(kind);
	uint64_t dev_sectors = dev_bytes / SECTOR;

	if (le32(buf + V1_MAJOR) != 1)
		return fail(why, whylen, "md %s superblock: major version %u, not 1", k, le32(buf + V1_MAJOR));
	uint32_t max_dev = le32(buf + V1_MAX_DEV);
	if (max_dev > V1_MAX_DEV_LIMIT)
		return fail(why, whylen, "md %s superblock: %u device roles, more than %u", k, max_dev,
			    (unsigned)V1_MAX_DEV_LIMIT);
	size_t len = V1_ROLES + 2u * max_dev;
	uint32_t want = md_csum(buf, len, V1_CSUM), have = le32(buf + V1_CSUM);
	if (want != have)
		return fail(why, whylen, "md %s superblock: checksum %08x, computed %08x", k, have, want);
	uint64_t super_offset = le64(buf + V1_SUPER_OFFSET);
	if (super_offset != hi_md_sb_offset(kind, dev_bytes) / SECTOR)
		return fail(why, whylen, "md %s superblock: written for sector %llu, found at sector %llu", k,
			    (unsigned long long)super_offset, (unsigned long long)(hi_md_sb_offset(kind, dev_bytes) / SECTOR));
	uint32_t raid_disks = le32(buf + V1_RAID_DISKS);
	if (raid_disks == 0 || raid_disks > MD_SB_MAX_DISKS)
		return fail(why, whylen, "md %s superblock: %u raid disks (1 to %u)", k, raid_disks, (unsigned)MD_SB_MAX_DISKS);
	if (le32(buf + V1_FEATURES) & V1_FEATURE_RESHAPE)
		return fail(why, whylen, "md %s superblock: the array is being reshaped; finish the reshape with mdadm first", k);
	uint64_t data_offset = le64(buf + V1_DATA_OFFSET), data_size = le64(buf + V1_DATA_SIZE);
	if (data_offset > dev_sectors || data_size > dev_sectors - data_offset)
		return fail(why, whylen, "md %s superblock: data at sector %llu for %llu sectors, past the device's end", k,
			    (unsigned long long)data_offset, (unsigned long long)data_size);
	/* The data must not overlap the superblock: 1.1 and 1.2 keep it
	 * after, 1.0 before. */
	if (kind == MD_SB_1_0 ? data_offset + data_size > super_offset : data_offset < super_offset + 8)
		return fail(why, whylen, "md %s superblock: data at sector %llu overlaps the superblock at sector %llu", k,
			    (unsigned long long)data_offset, (unsigned long long)super_offset);

	memset(out, 0, sizeof *out);
	out->kind = kind;
	out->major = 1;
	out->minor = kind == MD_SB_1_2 ? 2 : kind == MD_SB_1_1 ? 1 : 0;
	memcpy(out->uuid, buf + V1_UUID, MD_SB_UUID_LEN);
	size_t n = strnlen((const char *)buf + V1_NAME, V1_NAME_LEN);
	memcpy(out->name, buf + V1_NAME, n);
	out->name[n] = '\0';
	out->level = (int32_t)le32(buf + V1_LEVEL);
	out->raid_disks = raid_disks;
	uint32_t dev_number = le32(buf + V1_DEV_NUMBER);
	out->role = dev_number < max_dev ? le16(buf + V1_ROLES + 2u * dev_number) : MD_SB_ROLE_SPARE;
	out->preferred_minor = MD_SB_NO_MINOR;
	out->events = le64(buf + V1_EVENTS);
	out->data_offset = data_offset;
	out->data_size = data_size;
	out->in_sync = le64(buf + V1_RESYNC_OFFSET) == UINT64_MAX;
	return 1;
}

static int parse_v090(const uint8_t *buf, uint64_t dev_bytes, struct md_sb *out, char *why, size_t whylen)
{
	const char *k = kind_text(MD_SB_0_90);
#define W(i) le32(buf + 4u * (i))
	if (W(V0_MAJOR) != 0 || W(V0_MINOR) != 90)
		return fail(why, whylen, "md %s superblock: version %u.%u (0.90 only: 0.91 is a reshape)", k, W(V0_MAJOR),
			    W(V0_MINOR));
	uint32_t want = md_csum(buf, 4u * V0_WORDS, 4u * V0_CSUM), have = W(V0_CSUM);
	if (want != have)
		return fail(why, whylen, "md %s superblock: checksum %08x, computed %08x", k, have, want);
	uint32_t raid_disks = W(V0_RAID_DISKS);
	if (raid_disks == 0 || raid_disks > V0_MAX_DISKS)
		return fail(why, whylen, "md %s superblock: %u raid disks (1 to %u)", k, raid_disks, V0_MAX_DISKS);
	uint64_t data_size = (uint64_t)W(V0_SIZE_KIB) * 2;
	if (data_size > hi_md_sb_offset(MD_SB_0_90, dev_bytes) / SECTOR)
		return fail(why, whylen, "md %s superblock: %llu sectors of data, past the superblock at sector %llu", k,
			    (unsigned long long)data_size,
			    (unsigned long long)(hi_md_sb_offset(MD_SB_0_90, dev_bytes) / SECTOR));

	memset(out, 0, sizeof *out);
	out->kind = MD_SB_0_90;
	out->major = 0;
	out->minor = 90;
	/* mdadm's order: uuid0, then uuid1-3, each word as its hex reads. */
	static const unsigned uw[4] = { V0_UUID0, V0_UUID1, V0_UUID1 + 1, V0_UUID1 + 2 };
	for (unsigned i = 0; i < 4; i++) {
		uint32_t v = W(uw[i]);
		out->uuid[4 * i] = (uint8_t)(v >> 24);
		out->uuid[4 * i + 1] = (uint8_t)(v >> 16);
		out->uuid[4 * i + 2] = (uint8_t)(v >> 8);
		out->uuid[4 * i + 3] = (uint8_t)v;
	}
	out->level = (int32_t)W(V0_LEVEL);
	out->raid_disks = raid_disks;
	uint32_t state = W(V0_THIS_DISK + 4), slot = W(V0_THIS_DISK + 3);
	if (state & V0_DISK_FAULTY)
		out->role = MD_SB_ROLE_FAULTY;
	else if ((state & (V0_DISK_ACTIVE | V0_DISK_SYNC)) == (V0_DISK_ACTIVE | V0_DISK_SYNC) && slot < raid_disks)
		out->role = slot;
	else
		out->role = MD_SB_ROLE_SPARE;
	out->preferred_minor = W(V0_MD_MINOR) < 256 ? W(V0_MD_MINOR) : MD_SB_NO_MINOR;
	out->events = (uint64_t)W(V0_EVENTS_HI) << 32 | W(V0_EVENTS_LO);
	out->data_offset = 0;
	out->data_size = data_size;
	out->in_sync = (W(V0_STATE) & V0_SB_CLEAN) != 0;
#undef W
	return 1;
}

int hi_md_sb_parse(const uint8_t *buf, size_t len, enum md_sb_kind kind, uint64_t dev_bytes, struct md_sb *out,
		   char *why, size_t whylen)
{
	if (kind >= MD_SB_KINDS || len < MD_SB_READ_BYTES || hi_md_sb_offset(kind, dev_bytes) == UINT64_MAX ||
	    le32(buf) != MD_MAGIC)
		return 0;
	if (kind == MD_SB_0_90)
		return parse_v090(buf, dev_bytes, out, why, whylen);
	return parse_v1(buf, kind, dev_bytes, out, why, whylen);
}

int hi_md_sb_read(md_sb_read_fn rd, void *ctx, uint64_t dev_bytes, struct md_sb *out, char *why, size_t whylen)
{
	static uint8_t buf[MD_SB_READ_BYTES];
	int bad = 0;

	for (int k = 0; k < MD_SB_KINDS; k++) {
		uint64_t off = hi_md_sb_offset((enum md_sb_kind)k, dev_bytes);
		if (off == UINT64_MAX || rd(ctx, off, buf, sizeof buf) < 0)
			continue;
		/* The first damaged one's reason is kept; another kind may
		 * still be whole (a 1.0 left at the end of a 1.2 member). */
		char w[MD_SB_ERR_MAX];
		int rc = hi_md_sb_parse(buf, sizeof buf, (enum md_sb_kind)k, dev_bytes, out, w, sizeof w);
		if (rc == 1)
			return 1;
		if (rc < 0 && !bad++)
			snprintf(why, whylen, "%s", w);
	}
	return bad ? -1 : 0;
}

void hi_md_sb_uuid_format(const uint8_t uuid[MD_SB_UUID_LEN], char out[MD_SB_UUID_TEXT])
{
	char *p = out;
	for (unsigned i = 0; i < MD_SB_UUID_LEN; i++) {
		if (i && i % 4 == 0)
			*p++ = ':';
		p += sprintf(p, "%02x", uuid[i]);
	}
	*p = '\0';
}

int hi_md_sb_uuid_parse(const char *text, uint8_t uuid[MD_SB_UUID_LEN])
{
	unsigned n = 0;
	for (const char *p = text; *p; p++) {
		if (*p == ':' || *p == '-')
			continue;
		int v = hi_hex_nibble(*p);
		if (v < 0 || n >= 2 * MD_SB_UUID_LEN)
			return -1;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(v << 4);
		else
			uuid[n / 2] |= (uint8_t)v;
		n++;
	}
	return n == 2 * MD_SB_UUID_LEN ? 0 : -1;
}

/* A name safe as one path component under /dev/md/. */
static int name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-' || *s == '.' || *s == '+'))
			return 0;
	return 1;
}

void hi_md_sb_dev_name(const struct md_sb *sb, char *out, size_t cap)
{
	out[0] = '\0';
	if (sb->major == 0) {
		if (sb->preferred_minor != MD_SB_NO_MINOR)
			snprintf(out, cap, "%u", sb->preferred_minor);
		return;
	}
	const char *colon = strchr(sb->name, ':');
	const char *n = colon ? colon + 1 : sb->name;
	if (name_ok(n) && strlen(n) < cap)
		snprintf(out, cap, "%s", n);
}

uint32_t hi_md_sb_minor(const struct md_sb *sb)
{
	char name[MD_SB_NAME_MAX];

	if (sb->major == 0)
		return sb->preferred_minor;
	hi_md_sb_dev_name(sb, name, sizeof name);
	if (!name[0] || strlen(name) > 3 || (name[0] == '0' && name[1]))
		return MD_SB_NO_MINOR;
	uint32_t v = 0;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9')
			return MD_SB_NO_MINOR;
		v = v * 10 + (uint32_t)(*p - '0');
	}
	return v < 512 ? v : MD_SB_NO_MINOR;
}
