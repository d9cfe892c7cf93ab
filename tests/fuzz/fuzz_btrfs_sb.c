/* libFuzzer target for block/btrfs.c: the btrfs superblock's member fields
 * and the set of members the root stage builds from what the disks say. A
 * disk's contents are whoever's plugged it in.
 *
 * Input: the first BTRFS_SB_READ_BYTES bytes are the superblock (zero
 * padded; with byte 0's bit 0 set the magic is written in, so the member
 * fields are reached); the rest, 11 bytes a step, adds members to a set:
 * fsid choice, devid (4 bytes), count (4 bytes), node name length and
 * byte.
 *
 * Invariants: a parse that succeeds gives devid >= 1 and 1 <= count <=
 * BTRFS_MEMBERS_MAX, the fsid the superblock's 16 bytes; a failed one
 * leaves all zero. The set never holds more than BTRFS_MEMBERS_MAX, more
 * than its count (a device past it is not a member), nor two of one devid, every member its fsid and count; complete means as many
 * members as the count; the texts of found and missing members are
 * NUL-terminated inside buffers of any size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btrfs.h"

static void check_text(void (*fn)(const struct btrfs_members *, char *, size_t), const struct btrfs_members *set,
		       size_t cap)
{
	char *buf = malloc(cap ? cap : 1);
	if (!buf)
		return;
	fn(set, buf, cap);
	if (cap && !memchr(buf, '\0', cap))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char sb[BTRFS_SB_READ_BYTES] = { 0 };
	struct btrfs_sb out;
	size_t n = size < sizeof sb ? size : sizeof sb;

	memcpy(sb, data, n);
	if (size && (data[0] & 1))
		memcpy(sb + BTRFS_SB_MAGIC, BTRFS_MAGIC, 8);
	if (hi_btrfs_sb_parse(sb, sizeof sb, &out) == 0) {
		if (out.devid < 1 || out.num_devices < 1 || out.num_devices > BTRFS_MEMBERS_MAX ||
		    memcmp(out.fsid, sb + BTRFS_SB_FSID, sizeof out.fsid) != 0)
			abort();
	} else {
		static const struct btrfs_sb zero;
		if (memcmp(&out, &zero, sizeof out) != 0)
			abort();
	}
	if (hi_btrfs_sb_parse(sb, sizeof sb - 1, &out) == 0)
		abort();   /* a short read is never a superblock */

	static const char *const fsids[] = { "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222" };
	static struct btrfs_members set;
	uint64_t count = size > n + 1 ? (uint64_t)data[n] % (BTRFS_MEMBERS_MAX + 2) : 2;
	hi_btrfs_members_init(&set, fsids[0], count);
	for (size_t at = n + 1; at + 11 <= size; at += 11) {
		const uint8_t *p = data + at;
		uint64_t devid = (uint64_t)p[1] | (uint64_t)p[2] << 8 | (uint64_t)p[3] << 16 | (uint64_t)p[4] << 24;
		uint64_t num = (uint64_t)p[5] | (uint64_t)p[6] << 8 | (uint64_t)p[7] << 16 | (uint64_t)p[8] << 24;
		char node[128];
		size_t len = p[9] % sizeof node;
		memset(node, p[10] ? p[10] : 'x', len);
		node[len] = '\0';
		size_t before = set.n;
		int rc = hi_btrfs_members_add(&set, fsids[p[0] & 1], devid, num, node);
		if (rc < -2 || rc > 1 || (rc != 0 && set.n != before) || set.n > BTRFS_MEMBERS_MAX ||
		    set.n > set.num_devices)
			abort();
	}
	for (size_t i = 0; i < set.n; i++)
		for (size_t j = i + 1; j < set.n; j++)
			if (set.m[i].devid == set.m[j].devid)
				abort();
	if (hi_btrfs_members_complete(&set) != (set.num_devices > 0 && set.n >= set.num_devices))
		abort();
	size_t cap = size ? data[size - 1] : 0;
	check_text(hi_btrfs_members_missing, &set, cap);
	check_text(hi_btrfs_members_found, &set, cap);
	check_text(hi_btrfs_members_missing, &set, 4096);
	check_text(hi_btrfs_members_found, &set, 16384);
	return 0;
}
