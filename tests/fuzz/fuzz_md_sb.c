/* Fuzz target: md RAID superblocks (block/md_sb.c) and the grouping of
 * members (block/md_assemble.c: hi_md_plan), bytes an attacker who can
 * write a disk controls. Input: bytes 0-3 the device's size in sectors
 * (little endian, at most 2^24), then the superblock: every read of the
 * device, at any of the four places a superblock can sit, gets those
 * bytes (zero-padded to 4 KiB), so each kind parses them against the
 * offset and size it expects.
 * Invariants: a parsed superblock has a NUL-terminated name, 1 to
 * MD_SB_MAX_DISKS raid disks, data inside the device; its /dev/md/ name
 * is one path component; the plan of it with a stale and a second copy
 * holds no more active slots than raid disks and names a missing slot
 * within them, and is never whole with a member left out for its event
 * count or its slot. */
#include <stdint.h>
#include <string.h>

#include "md_assemble.h"
#include "md_sb.h"

struct dev { const uint8_t *data; size_t size; };

static int dev_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct dev *d = ctx;
	size_t n = d->size < len ? d->size : len;
	(void)off;
	memset(buf, 0, len);
	memcpy(buf, d->data, n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct md_member m[3];
	static struct md_array a[2];
	char why[MD_SB_ERR_MAX], name[MD_SB_NAME_MAX], uuid[MD_SB_UUID_TEXT];

	if (size < 4)
		return 0;
	uint64_t sectors = (uint64_t)(data[0] | data[1] << 8 | data[2] << 16);
	struct dev d = { data + 4, size - 4 };
	memset(m, 0, sizeof m);
	int rc = hi_md_sb_read(dev_read, &d, sectors * 512, &m[0].sb, why, sizeof why);
	if (rc < 0 && strnlen(why, sizeof why) == sizeof why)
		__builtin_trap();
	if (rc != 1)
		return 0;
	const struct md_sb *sb = &m[0].sb;
	if (strnlen(sb->name, sizeof sb->name) == sizeof sb->name || sb->raid_disks == 0 ||
	    sb->raid_disks > MD_SB_MAX_DISKS || sb->data_offset > sectors || sb->data_size > sectors - sb->data_offset)
		__builtin_trap();
	hi_md_sb_dev_name(sb, name, sizeof name);
	if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		__builtin_trap();
	hi_md_sb_uuid_format(sb->uuid, uuid);
	if (strlen(uuid) != MD_SB_UUID_TEXT - 1)
		__builtin_trap();
	uint32_t minor = hi_md_sb_minor(sb);
	if (minor != MD_SB_NO_MINOR && minor > MD_MAX_MINOR)
		__builtin_trap();

	m[1] = m[0];
	m[1].sb.events = m[0].sb.events - 5;
	m[2] = m[0];
	m[2].sb.role = m[0].sb.role + 1;
	unsigned n = hi_md_plan(m, 3, a, 2);
	if (n != 1 || a[0].n_active > a[0].sb.raid_disks || a[0].first_missing > a[0].sb.raid_disks ||
	    a[0].n_member + a[0].n_stale != 3)
		__builtin_trap();
	/* A member left out for its events or its slot never leaves a whole
	 * array: a planted newer history must not pass as one. */
	if (a[0].n_behind + a[0].n_dup > a[0].n_stale || (hi_md_complete(&a[0]) && a[0].n_behind + a[0].n_dup))
		__builtin_trap();
	(void)hi_md_can_degrade(&a[0]);
	(void)hi_md_level_name(a[0].sb.level);
	return 0;
}
