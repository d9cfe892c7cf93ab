/* md RAID (block/md_sb.c, block/md_assemble.c, stages/md.c): superblocks
 * built byte by byte with the kernel's layout (md_bytes.h), their checks,
 * the grouping of members and mdadm's event rule, the stage's refusal of
 * a degraded array against a temporary tree, and what an md member is to
 * the stages that look for a volume (the root stage here);
 * tests/vm/hostonly_md.bats checks the same code against arrays Debian's
 * mdadm made. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fixture.h"
#include "md.h"
#include "md_assemble.h"
#include "md_bytes.h"
#include "md_sb.h"
#include "root.h"
#include "tap.h"

#define DEV_BYTES (1024u * 1024u)   /* each member: 1 MiB */

struct mem { const uint8_t *data; size_t size; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;
	if (off > m->size || len > m->size - off)
		return -1;
	memcpy(buf, m->data + off, len);
	return 0;
}

static uint8_t disk[DEV_BYTES];

static void test_parse_v12(void)
{
	struct md_sb sb;
	char why[MD_SB_ERR_MAX] = "", uuid[MD_SB_UUID_TEXT], name[MD_SB_NAME_MAX];
	uint8_t *p = disk + 4096;

	memset(disk, 0, sizeof disk);
	md_make_v1(p, 8, "debian:0", 1, 2, 1, 42);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == 1, "1.2: parsed (%s)", why);
	tap_ok(sb.major == 1 && sb.minor == 2 && sb.level == 1 && sb.raid_disks == 2 && sb.role == 1 && sb.events == 42 &&
	       sb.data_offset == 64 && sb.data_size == 1024 && sb.in_sync, "1.2: version, level, disks, role, events, data");
	tap_streq(sb.name, "debian:0", "1.2: the set name");
	hi_md_sb_uuid_format(sb.uuid, uuid);
	tap_streq(uuid, "5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9", "1.2: the UUID as mdadm prints it");
	hi_md_sb_dev_name(&sb, name, sizeof name);
	tap_streq(name, "0", "1.2: /dev/md/0 for debian:0, as mdadm names it");
	tap_ok(hi_md_sb_minor(&sb) == 0, "1.2: the name 0 is md0");

	struct mem m = { disk, sizeof disk };
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == 1 && sb.kind == MD_SB_1_2,
	       "read: the 1.2 superblock 4 KiB in is found");

	p[100] ^= 1;
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == -1, "1.2: a flipped bit is refused");
	tap_contains(why, "checksum", "1.2: ... by its checksum");
	p[100] ^= 1;
	md_make_v1(p, 0, "debian:0", 1, 2, 1, 42);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == -1,
	       "1.2: a superblock written for another place (a copy) is refused");
	tap_contains(why, "written for sector 0, found at sector 8", "1.2: ... saying where");
	md_make_v1(p, 8, "debian:0", 1, 300, 1, 42);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == -1, "1.2: 300 raid disks are refused");
	md_put32(p + 220, 5000);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == -1,
	       "1.2: more roles than the 4 KiB read holds are refused");
	md_make_v1(p, 8, "debian:0", 1, 2, 1, 42);
	md_put64(p + 136, 4096);   /* data_size past the end */
	md_seal_v1(p);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == -1, "1.2: data past the end is refused");
	md_make_v1(p, 8, "debian:0", 1, 2, 7, 42);   /* dev_number past max_dev */
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == 1 && sb.role == MD_SB_ROLE_SPARE,
	       "1.2: a device number without a role is a spare");
	memset(p, 0, 4096);
	tap_ok(hi_md_sb_parse(p, 4096, MD_SB_1_2, DEV_BYTES, &sb, why, sizeof why) == 0, "no magic: no superblock");
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == 0, "read: an empty disk is no member");
}

static void test_parse_v10_v090(void)
{
	struct md_sb sb;
	char why[MD_SB_ERR_MAX] = "", name[MD_SB_NAME_MAX];
	struct mem m = { disk, sizeof disk };
	uint64_t sectors = DEV_BYTES / 512;

	memset(disk, 0, sizeof disk);
	uint64_t at = ((sectors - 16) & ~7ull);
	tap_ok(hi_md_sb_offset(MD_SB_1_0, DEV_BYTES) == at * 512, "1.0: 8 KiB from the end, 4 KiB aligned");
	md_make_v1(disk + at * 512, at, "web:root", 10, 4, 2, 7);
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == 1 && sb.kind == MD_SB_1_0 && sb.minor == 0 &&
	       sb.level == 10 && sb.role == 2, "read: a 1.0 superblock at the end is found (%s)", why);
	hi_md_sb_dev_name(&sb, name, sizeof name);
	tap_streq(name, "root", "1.0: /dev/md/root for web:root");
	tap_ok(hi_md_sb_minor(&sb) == MD_SB_NO_MINOR, "1.0: a name that is no number asks for no minor");

	/* 0.90: 1024 words, this disk's descriptor at word 992. */
	memset(disk, 0, sizeof disk);
	uint64_t off = hi_md_sb_offset(MD_SB_0_90, DEV_BYTES);
	tap_ok(off == ((sectors & ~127ull) - 128) * 512, "0.90: 64 KiB from the 64 KiB-aligned end");
	uint8_t *p = disk + off;
	md_put32(p, 0xa92b4efc);
	md_put32(p + 4 * 2, 90);
	md_put32(p + 4 * 5, 0x11223344);
	md_put32(p + 4 * 13, 0x55667788);
	md_put32(p + 4 * 7, 1);         /* raid1 */
	md_put32(p + 4 * 8, 256);       /* KiB */
	md_put32(p + 4 * 10, 2);
	md_put32(p + 4 * 11, 3);        /* md3 */
	md_put32(p + 4 * 33, 1);        /* clean */
	md_put32(p + 4 * 39, 9);        /* events */
	md_put32(p + 4 * 995, 1);       /* slot 1 */
	md_put32(p + 4 * 996, 6);       /* active, sync */
	uint64_t sum = 0;
	for (int i = 0; i < 1024; i++)
		sum += md_get32(p + 4 * i);
	md_put32(p + 4 * 38, (uint32_t)((sum & 0xffffffffu) + (sum >> 32)));
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == 1 && sb.kind == MD_SB_0_90 && sb.major == 0 &&
	       sb.minor == 90 && sb.role == 1 && sb.events == 9 && sb.preferred_minor == 3 && sb.in_sync,
	       "read: a 0.90 superblock is found, its slot, events and preferred minor (%s)", why);
	tap_ok(hi_md_sb_minor(&sb) == 3, "0.90: the preferred minor is md3");
	md_put32(p + 4 * 996, 1);       /* faulty */
	sum = 0;
	md_put32(p + 4 * 38, 0);
	for (int i = 0; i < 1024; i++)
		sum += md_get32(p + 4 * i);
	md_put32(p + 4 * 38, (uint32_t)((sum & 0xffffffffu) + (sum >> 32)));
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == 1 && sb.role == MD_SB_ROLE_FAULTY,
	       "0.90: a faulty member says so");
	p[4 * 39] = 10;
	tap_ok(hi_md_sb_read(mem_read, &m, DEV_BYTES, &sb, why, sizeof why) == -1, "0.90: a changed word fails the checksum");
}

static void test_names(void)
{
	struct md_sb sb;
	char name[MD_SB_NAME_MAX];
	uint8_t u[16];

	memset(&sb, 0, sizeof sb);
	sb.major = 1;
	snprintf(sb.name, sizeof sb.name, "host:../etc");
	hi_md_sb_dev_name(&sb, name, sizeof name);
	tap_streq(name, "", "a name that is no path component makes no /dev/md/ link");
	snprintf(sb.name, sizeof sb.name, "127");
	tap_ok(hi_md_sb_minor(&sb) == 127, "a name without a host: 127 is md127");
	snprintf(sb.name, sizeof sb.name, "h:007");
	tap_ok(hi_md_sb_minor(&sb) == MD_SB_NO_MINOR, "007 is no minor mdadm would take");
	tap_ok(hi_md_sb_uuid_parse("5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9", u) == 0 && !memcmp(u, MD_UUID, 16),
	       "UUID text back to bytes");
	tap_ok(hi_md_sb_uuid_parse("5a1b2c3d", u) == -1, "a short UUID is refused");
	tap_ok(hi_md_degraded_allowed("true", 0) && hi_md_degraded_allowed("1", 0) && hi_md_degraded_allowed(NULL, 1) &&
	       !hi_md_degraded_allowed("false", 0) && !hi_md_degraded_allowed(NULL, 0),
	       "bootdegraded=true, =1 and the bare word allow; =false and none do not");
}

static void member(struct md_member *m, const char *name, uint32_t role, uint64_t events, int level, unsigned raid_disks)
{
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	m->sb.major = 1;
	m->sb.minor = 2;
	memcpy(m->sb.uuid, MD_UUID, 16);
	m->sb.level = level;
	m->sb.raid_disks = raid_disks;
	m->sb.role = role;
	m->sb.events = events;
}

static void test_plan(void)
{
	struct md_member m[4];
	struct md_array a[2];

	member(&m[0], "vda1", 0, 100, 1, 2);
	member(&m[1], "vdb1", 1, 100, 1, 2);
	tap_ok(hi_md_plan(m, 2, a, 2) == 1 && hi_md_complete(&a[0]) && a[0].n_member == 2, "plan: two members, one array, whole");
	member(&m[1], "vdb1", 1, 99, 1, 2);
	tap_ok(hi_md_plan(m, 2, a, 2) == 1 && hi_md_complete(&a[0]) && a[0].n_stale == 0,
	       "plan: one event behind is kept (mdadm's margin: a clean shutdown)");
	member(&m[1], "vdb1", 1, 90, 1, 2);
	tap_ok(hi_md_plan(m, 2, a, 2) == 1 && !hi_md_complete(&a[0]) && a[0].n_stale == 1 && a[0].first_missing == 1 &&
	       a[0].sb.events == 100, "plan: ten events behind is left out, its slot missing");
	tap_ok(hi_md_can_degrade(&a[0]), "plan: raid1 runs with one member");
	member(&m[0], "vda1", 0, 100, 0, 2);
	member(&m[1], "vdb1", 1, 90, 0, 2);
	hi_md_plan(m, 2, a, 2);
	tap_ok(!hi_md_can_degrade(&a[0]), "plan: raid0 never runs without a member");
	member(&m[0], "vda1", 0, 100, 1, 2);
	member(&m[1], "vdb1", MD_SB_ROLE_FAULTY, 100, 1, 2);
	member(&m[2], "vdc1", MD_SB_ROLE_SPARE, 100, 1, 2);
	member(&m[3], "vdd1", 1, 100, 1, 2);
	m[3].sb.uuid[0] ^= 1;   /* another array */
	tap_ok(hi_md_plan(m, 4, a, 2) == 2 && a[0].n_member == 2 && a[0].n_stale == 1 && a[0].n_active == 1 &&
	       a[1].n_member == 1, "plan: a faulty member is left out, a spare added, another UUID another array");
	tap_ok(hi_md_plan(m, 4, a, 1) == 1, "plan: no more arrays than asked for");
	member(&m[1], "vdb1", 0, 100, 1, 2);
	tap_ok(hi_md_plan(m, 2, a, 2) == 1 && a[0].n_member == 1 && a[0].n_stale == 1,
	       "plan: a second member claiming one slot is left out");
	tap_ok(!hi_md_complete(&a[0]) && a[0].n_dup == 1,
	       "plan: ... and the array is not whole: which one holds the slot is the disks' order");

	/* A planted disk with the array's UUID, one slot of one and a newer
	 * event count: the real members fall behind. The slots it holds are
	 * all there are, yet the array is not whole: the real one is present
	 * with another history. */
	member(&m[0], "sdz1", 0, 200, 1, 1);
	member(&m[1], "vda1", 0, 100, 1, 2);
	member(&m[2], "vdb1", 1, 100, 1, 2);
	tap_ok(hi_md_plan(m, 3, a, 2) == 1 && a[0].n_active == 1 && a[0].sb.raid_disks == 1 && a[0].n_behind == 2 &&
	       !hi_md_complete(&a[0]), "plan: a planted member with newer events does not make a whole array of itself");
}

/* A member of another array: its UUID's first byte xor'd with this. */
static uint8_t other_uuid;

static void put_member(const char *root, const char *name, const char *devnum, uint32_t dev_number, uint64_t events)
{
	char rel[128], num[32];

	memset(disk, 0, sizeof disk);
	md_make_v1(disk + 4096, 8, "debian:0", 1, 2, dev_number, events);
	disk[4096 + 16] ^= other_uuid;
	md_seal_v1(disk + 4096);
	snprintf(rel, sizeof rel, "dev/%s", name);
	fixture_put_bytes(root, rel, disk, sizeof disk);
	snprintf(rel, sizeof rel, "sys/class/block/%s/dev", name);
	fixture_put(root, rel, devnum);
	snprintf(rel, sizeof rel, "sys/class/block/%s/size", name);
	snprintf(num, sizeof num, "%u\n", DEV_BYTES / 512);
	fixture_put(root, rel, num);
}

/* A device gone: its node and its sysfs directory. */
static void drop_member(const char *root, const char *name)
{
	char rel[128], path[1024];

	snprintf(rel, sizeof rel, "dev/%s", name);
	fixture_path(path, sizeof path, root, rel);
	fixture_rm_path(path);
	snprintf(rel, sizeof rel, "sys/class/block/%s", name);
	fixture_path(path, sizeof path, root, rel);
	fixture_rm_path(path);
}

static int run_stage(const char *root, const char *cmdline, struct boot *b)
{
	char err[256];

	boot_at(b, root, MODE_INITRAMFS);
	fixture_path(b->md_marker, sizeof b->md_marker, root, "etc/hardinit/md");
	b->cfg.root_timeout = 1;
	if (hi_cmdline_parse(&b->cmd, cmdline, strlen(cmdline), err, sizeof err) < 0)
		fixture_die("cmdline", err);
	return hi_stage_md(b);
}

static void test_stage(void)
{
	static struct boot b;
	const char *root = fixture_tree("md-stage");

	fixture_mkdir(root, "sys/class/block", 0755);
	put_member(root, "vda1", "254:1\n", 0, 100);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == 0 && !b.err[0], "stage: no marker in the image: nothing done");
	fixture_put(root, "etc/hardinit/md", "");

	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1, "stage: one member of a RAID1 of two is refused");
	tap_contains(b.err, "array debian:0 (5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9, raid1) has 1 of 2 members", "stage: names the array");
	tap_contains(b.err, "vda1 in slot 0), slot 1 missing", "stage: ... what it has and the missing slot");
	tap_contains(b.err, "add bootdegraded=true to the kernel command line", "stage: ... and what to do");

	put_member(root, "vdb1", "254:17\n", 1, 80);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1, "stage: a member behind in events does not count");
	tap_contains(b.err, "vdb1 left out: its event count 80 is behind the array's 100", "stage: ... and says so");

	/* Two planted members with the array's UUID and a newer event
	 * count hold both slots; the real vda1 and vdb1 fall behind. */
	put_member(root, "vdb1", "254:17\n", 1, 100);
	put_member(root, "sdy1", "8:1\n", 0, 200);
	put_member(root, "sdz1", "8:17\n", 1, 200);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1, "stage: planted members with newer events do not replace the array");
	tap_contains(b.err, "has its 2 slots held", "stage: ... the slots are held");
	tap_contains(b.err, "another history of the array is present", "stage: ... but the real members are there too");
	tap_contains(b.err, "event count 100 is behind the array's 200", "stage: ... named");
	/* Same events: two members in slot 0, the first seen would run. */
	put_member(root, "sdy1", "8:1\n", 0, 100);
	drop_member(root, "sdz1");
	tap_ok(run_stage(root, "root=/dev/md0 bootdegraded=true", &b) == -1, "stage: two members in one slot are refused");
	tap_contains(b.err, "two members claim one slot", "stage: ... even with bootdegraded=true");
	/* Another whole array named as the real one (debian:0, so md0 and
	 * /dev/md/0): a root named by the array's name is refused. */
	other_uuid = 1;
	put_member(root, "sdy1", "8:1\n", 0, 300);
	put_member(root, "sdz1", "8:17\n", 1, 300);
	other_uuid = 0;
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1, "stage: two arrays asking for md0, root=/dev/md0: refused");
	tap_contains(b.err, "both ask for the name 0: root=/dev/md0 would be whichever came first", "stage: ... saying why");
	tap_ok(run_stage(root, "root=/dev/md/0", &b) == -1 && strstr(b.err, "both ask for the name 0"),
	       "stage: ... and root=/dev/md/0");
	/* Here the first array is whole and goes to the assembly: a regular
	 * file where its node would be stops it (no mknod, no ioctl). */
	fixture_put(root, "dev/md0", "");
	tap_ok(run_stage(root, "root=UUID=0d0d0d0d-0000-0000-0000-000000000000", &b) == -1 &&
	       !strstr(b.err, "both ask for") && strstr(b.err, "exists and is not block device"),
	       "stage: root=UUID= is the root stage's duplicate check, not this");
	drop_member(root, "sdy1");
	drop_member(root, "sdz1");
	put_member(root, "vdb1", "254:17\n", 1, 80);

	fixture_put(root, "sys/class/block/vdb1/holders/md9", "");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "vdb1") == NULL,
	       "stage: a device already held (a running array's member) is not read");

	/* With the word, the degraded array goes to the assembly. A regular
	 * file where its node would be stops it there: no block node is
	 * made or opened, so no ioctl can reach the host's md driver. */
	fixture_put(root, "dev/md0", "");
	tap_ok(run_stage(root, "root=/dev/md0 bootdegraded=true", &b) == -1 && !strstr(b.err, "bootdegraded"),
	       "stage: bootdegraded=true takes a degraded RAID1 to the assembly");
	tap_contains(b.err, "exists and is not block device 9:0", "stage: ... as md0, the minor its name debian:0 asks for");

	/* Under lock_cmdline the word is refused: the array stays refused. */
	boot_at(&b, root, MODE_INITRAMFS);
	fixture_path(b.md_marker, sizeof b.md_marker, root, "etc/hardinit/md");
	b.cfg.root_timeout = 1;
	b.cfg.lock_cmdline = true;
	{
		char err[256];
		const char *text = "root=/dev/md0 bootdegraded=true";
		if (hi_cmdline_parse(&b.cmd, text, strlen(text), err, sizeof err) < 0)
			fixture_die("cmdline", err);
	}
	tap_ok(hi_stage_md(&b) == -1 && strstr(b.err, "slot 1 missing"),
	       "stage: under lock_cmdline, bootdegraded=true does not run a degraded array");
	tap_contains(b.err, "boot with lock_cmdline = no (bootdegraded= is refused under the lock)",
		     "stage: ... and the line says what would");

	b.mode = MODE_DRY_RUN;
	b.err[0] = '\0';
	tap_ok(hi_stage_md(&b) == 0 && !b.err[0], "stage: a dry run only says");
	fixture_rmtree(root);
}

/* n md members, each of an array of its own (the first UUID byte i), a
 * 1.2 superblock in the first 8 KiB of its node. */
static void put_arrays(const char *root, unsigned n)
{
	char rel[128], num[32];

	for (unsigned i = 0; i < n; i++) {
		memset(disk, 0, 8192);
		md_make_v1(disk + 4096, 8, "other:x", 1, 1, 0, 10);
		disk[4096 + 16] = (uint8_t)i;
		disk[4096 + 17] = (uint8_t)(i >> 8);
		md_seal_v1(disk + 4096);
		snprintf(rel, sizeof rel, "dev/sdp%u", i);
		fixture_put_bytes(root, rel, disk, 8192);
		snprintf(rel, sizeof rel, "sys/class/block/sdp%u/dev", i);
		snprintf(num, sizeof num, "8:%u\n", i);
		fixture_put(root, rel, num);
		snprintf(rel, sizeof rel, "sys/class/block/sdp%u/size", i);
		snprintf(num, sizeof num, "%u\n", DEV_BYTES / 512);
		fixture_put(root, rel, num);
	}
}

/* Past each bound the real members could be the ones left unread and a
 * planted array the only one seen: the stage assembles nothing. */
static void test_bounds(void)
{
	static struct boot b;
	char rel[128];
	const char *root = fixture_tree("md-bounds");

	fixture_put(root, "etc/hardinit/md", "");
	put_arrays(root, MD_MAX_ARRAYS + 1);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "cannot see every member"),
	       "bounds: one array more than MD_MAX_ARRAYS is refused");
	put_arrays(root, MD_MAX_MEMBERS + 1);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "cannot see every member"),
	       "bounds: one member more than MD_MAX_MEMBERS is refused");
	fixture_rmtree(root);

	root = fixture_tree("md-bounds");
	fixture_put(root, "etc/hardinit/md", "");
	for (unsigned i = 0; i <= 256; i++) {
		snprintf(rel, sizeof rel, "sys/class/block/sdq%u", i);
		fixture_mkdir(root, rel, 0755);
	}
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "more than 256 block devices"),
	       "bounds: more block devices than the scan reads are refused");
	fixture_rmtree(root);
}

/* The marker names the root's array: a foreign array on another disk,
 * one member of two (a USB stick, an old RAID disk), is neither waited
 * for nor assembled, nor does its name (the root's debian:0) count. */
static void test_marker(void)
{
	static struct boot b;
	const char *root = fixture_tree("md-marker");

	fixture_mkdir(root, "sys/class/block", 0755);
	put_member(root, "vda1", "254:1\n", 0, 100);
	put_member(root, "vdb1", "254:17\n", 1, 100);
	other_uuid = 1;
	put_member(root, "sdz1", "8:17\n", 0, 300);
	other_uuid = 0;
	fixture_put(root, "dev/md0", "");   /* the assembly stops at a regular file: no ioctl */
	fixture_put(root, "etc/hardinit/md", "5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9\n");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1, "marker: the named array goes to the assembly");
	tap_contains(b.err, "md: array debian:0 (5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9, raid1, vda1 in slot 0, vdb1 in slot 1): /",
		     "marker: ... the named array alone, whole");
	tap_ok(!strstr(b.err, "5b1b2c3d") && !strstr(b.err, "sdz1") && !strstr(b.err, "both ask"),
	       "marker: the foreign incomplete array is left alone, not waited for");
	/* An empty marker (a generic image): every array, as before. */
	fixture_put(root, "etc/hardinit/md", "");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "both ask for the name 0"),
	       "marker: empty, every array found is assembled");
	/* The named array missing a member is still waited for and refused. */
	drop_member(root, "vdb1");
	fixture_put(root, "etc/hardinit/md", "5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9\n");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "slot 1 missing") && strstr(b.err, "5a1b2c3d:"),
	       "marker: the named array one member short is refused");
	fixture_put(root, "etc/hardinit/md", "not-a-uuid\n");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && strstr(b.err, "'not-a-uuid' is not an md array UUID"),
	       "marker: a line that is not a UUID stops the boot");
	fixture_rmtree(root);
}

/* After RUN_ARRAY the kernel's md/degraded decides, not hardinit's count. */
static void test_check_run(void)
{
	const char *root = fixture_tree("md-run");
	char sys[1024], why[256];
	struct md_array a;

	memset(&a, 0, sizeof a);
	a.sb.level = 1;
	a.sb.raid_disks = 2;
	a.n_active = 2;
	fixture_path(sys, sizeof sys, root, "sys");
	fixture_put(root, "sys/block/md0/md/degraded", "0\n");
	tap_ok(hi_md_check_run(sys, &a, 0, 0, why, sizeof why) == 0, "check run: degraded 0 runs");
	fixture_put(root, "sys/block/md0/md/degraded", "1\n");
	tap_ok(hi_md_check_run(sys, &a, 0, 0, why, sizeof why) == -1, "check run: the kernel runs it degraded: refused");
	tap_contains(why, "the kernel runs it with 1 of 2 members missing", "check run: ... saying so");
	tap_ok(hi_md_check_run(sys, &a, 0, 1, why, sizeof why) == 0, "check run: ... unless a degraded boot is allowed");
	tap_ok(hi_md_check_run(sys, &a, 1, 0, why, sizeof why) == -1 && strstr(why, "cannot read"),
	       "check run: an unreadable count is refused");
	a.sb.level = 0;
	tap_ok(hi_md_check_run(sys, &a, 1, 0, why, sizeof why) == 0, "check run: raid0 has no count to read");
	fixture_rmtree(root);
}

static void test_spec_node(void)
{
	static struct boot b;
	char out[BOOT_PATH_MAX], link[512];
	const char *root = fixture_tree("md-spec");

	boot_at(&b, root, MODE_INITRAMFS);
	fixture_mkdir(root, "dev/md", 0755);
	fixture_path(link, sizeof link, root, "dev/md/root");
	if (symlink("../md127", link) < 0)
		fixture_die("symlink", link);
	tap_ok(hi_md_spec_node(&b, "/dev/md/root", out, sizeof out) == 1, "root=/dev/md/NAME: found");
	tap_streq(out, "/dev/md127", "root=/dev/md/NAME: the node the root stage matches");
	tap_ok(hi_md_spec_node(&b, "/dev/md/none", out, sizeof out) == 0 && hi_md_spec_node(&b, "/dev/md0", out, sizeof out) == 0,
	       "root=/dev/md/NAME without a link, and /dev/md0: left as they are");
	fixture_rmtree(root);
}

/* A device whose first bytes are an ext4 superblock of UUID 77777777-...
 * and, with end_sb, a 1.0 md superblock at its end: a member of a 1.0
 * array shows the array's file system at its start; the array itself
 * (end_sb 0) shows the same. */
#define EXT_UUID "77777777-7777-7777-7777-777777777777"
static void put_end_dev(const char *root, const char *name, const char *devnum, int end_sb, uint32_t role)
{
	char rel[128], num[32];
	uint64_t at = (DEV_BYTES / 512 - 16) & ~7ull;

	memset(disk, 0, sizeof disk);
	md_put16(disk + 1024 + 0x38, 0xef53);
	memset(disk + 1024 + 0x68, 0x77, 16);
	if (end_sb)
		md_make_v1(disk + at * 512, at, "debian:1", 1, 2, role, 10);
	snprintf(rel, sizeof rel, "dev/%s", name);
	fixture_put_bytes(root, rel, disk, sizeof disk);
	snprintf(rel, sizeof rel, "sys/class/block/%s/dev", name);
	fixture_put(root, rel, devnum);
	snprintf(rel, sizeof rel, "sys/class/block/%s/size", name);
	snprintf(num, sizeof num, "%u\n", DEV_BYTES / 512);
	fixture_put(root, rel, num);
}

/* hi_md_member: the one answer to "is this device an md member". */
static void test_member(void)
{
	const char *root = fixture_tree("md-member");
	char sys[1024], dev[1024], what[MD_MEMBER_WHAT_MAX], link[1024];

	fixture_path(sys, sizeof sys, root, "sys");
	fixture_path(dev, sizeof dev, root, "dev");
	put_end_dev(root, "vda1", "254:1\n", 1, 0);
	put_end_dev(root, "vdc1", "254:33\n", 0, 0);
	put_end_dev(root, "md1", "9:1\n", 1, 0);
	tap_ok(hi_md_member(sys, dev, "vda1", 0, what, sizeof what) == 1, "member: a 1.0 superblock at the end, no array running");
	tap_contains(what, "an md 1.0 member of array 5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9", "member: ... said so");
	tap_ok(hi_md_member(sys, dev, "vdc1", 0, what, sizeof what) == 0, "member: a plain file system is none");
	uint64_t sb_at = ((DEV_BYTES / 512 - 16) & ~7ull) * 512;
	tap_ok(hi_md_member(sys, dev, "vda1", sb_at, what, sizeof what) == 1,
	       "member: a file system that ends where the 1.0 superblock starts is the array's");
	tap_ok(hi_md_member(sys, dev, "vda1", DEV_BYTES, what, sizeof what) == 0,
	       "member: a 1.0 superblock inside a file system spanning the device is file data, not md's");
	tap_ok(hi_md_member(sys, dev, "vda1", 2ull * DEV_BYTES, what, sizeof what) == 1,
	       "member: a start claiming more than the device (member 0 of a raid0 or raid5) is an array's member");
	tap_ok(hi_md_sb_outside(MD_SB_0_90, DEV_BYTES, 3ull * DEV_BYTES) && hi_md_sb_outside(MD_SB_1_0, DEV_BYTES, 3ull * DEV_BYTES),
	       "member: ... at the 0.90 and the 1.0 offsets alike");
	tap_ok(hi_md_member(sys, dev, "md1", 0, what, sizeof what) == 0,
	       "member: an array is not read for a superblock (no nested arrays are assembled)");
	disk[((DEV_BYTES / 512 - 16) & ~7u) * 512 + 100] ^= 1;
	fixture_put_bytes(root, "dev/vda1", disk, sizeof disk);
	tap_ok(hi_md_member(sys, dev, "vda1", 0, what, sizeof what) == 1 && strstr(what, "damaged"),
	       "member: a damaged md superblock still marks a member (%s)", what);
	tap_ok(hi_md_member(sys, dev, "vda1", DEV_BYTES, what, sizeof what) == 0,
	       "member: ... but not inside a file system spanning the device");
	fixture_mkdir(root, "sys/class/block/vdc1/holders/md0", 0755);
	tap_ok(hi_md_member(sys, dev, "vdc1", 0, what, sizeof what) == 1 && !strcmp(what, "held by md0"),
	       "member: held by a running array (%s)", what);
	/* vdd is in an array whole: its partition vdd1 is the array's. */
	fixture_put(root, "sys/devices/pci/block/vdd/vdd1/partition", "1\n");
	fixture_mkdir(root, "sys/class/block/vdd/holders/md2", 0755);
	fixture_path(link, sizeof link, root, "sys/class/block/vdd1");
	if (symlink("../../devices/pci/block/vdd/vdd1", link) < 0)
		fixture_die("symlink", link);
	tap_ok(hi_md_member(sys, dev, "vdd1", 0, what, sizeof what) == 1 && strstr(what, "a partition of vdd, held by md2"),
	       "member: a partition of a whole disk in an array (%s)", what);
	tap_ok(hi_md_member(sys, dev, "nosuch", 0, what, sizeof what) == 0, "member: no such device is none");
	fixture_rmtree(root);
}

/* The root stage's device wait, root=UUID= of a file system on a 1.0
 * RAID1: the members carry its UUID at their start too; the array is
 * the root, never a member. */
static void test_root_on_end_members(void)
{
	static struct boot b;
	char found[BOOT_PATH_MAX], want[BOOT_PATH_MAX];
	const char *root = fixture_tree("md-root");

	fixture_mkdir(root, "sys/class/block", 0755);
	put_end_dev(root, "vda1", "254:1\n", 1, 0);
	put_end_dev(root, "vdb1", "254:17\n", 1, 1);
	put_end_dev(root, "md1", "9:1\n", 0, 0);
	fixture_put(root, "sys/class/block/md1/md/array_state", "clean\n");
	fixture_mkdir(root, "sys/class/block/vda1/holders/md1", 0755);
	fixture_mkdir(root, "sys/class/block/vdb1/holders/md1", 0755);
	boot_at(&b, root, MODE_INITRAMFS);
	b.cfg.root_timeout = 1;
	fixture_path(want, sizeof want, root, "dev/md1");
	tap_ok(hi_root_device_wait(&b, "UUID=" EXT_UUID, found, sizeof found) == 0 && !strcmp(found, want),
	       "root: UUID= on a running 1.0 array is the array, not a member (%s%s)", found, b.err);
	/* No array running (md not in the image): only members carry it. */
	fixture_rmtree(root);
	root = fixture_tree("md-root");
	fixture_mkdir(root, "sys/class/block", 0755);
	put_end_dev(root, "vda1", "254:1\n", 1, 0);
	boot_at(&b, root, MODE_INITRAMFS);
	b.cfg.root_timeout = 0;
	tap_ok(hi_root_device_wait(&b, "UUID=" EXT_UUID, found, sizeof found) == -1,
	       "root: one 1.0 member alone, no array: never mounted");
	tap_contains(b.err, "only an md member matched", "root: ... saying why");
	tap_contains(b.err, "vda1, an md 1.0 member of array 5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9", "root: ... naming it");
	tap_ok(hi_root_device_wait(&b, "/dev/vda1", found, sizeof found) == -1 && strstr(b.err, "only an md member"),
	       "root: nor when root= names the member's path");
	put_end_dev(root, "vdb1", "254:17\n", 1, 1);
	b.cfg.root_timeout = 0;
	b.cfg.root_duplicates = ROOT_DUP_WARN;
	tap_ok(hi_root_device_wait(&b, "UUID=" EXT_UUID, found, sizeof found) == -1 && !strstr(b.err, "matches 2"),
	       "root: both members, root_duplicates = warn: neither is taken (%s)", b.err);
	fixture_rmtree(root);

	/* A plain ext file system over the whole partition, md's magic in a
	 * file near its end (any user can write one): the root, not a member. */
	root = fixture_tree("md-root");
	fixture_mkdir(root, "sys/class/block", 0755);
	put_end_dev(root, "vda1", "254:1\n", 1, 0);
	md_put32(disk + 1024 + 0x04, DEV_BYTES / 1024);   /* blocks of 1 KiB (log 0) */
	fixture_put_bytes(root, "dev/vda1", disk, sizeof disk);
	boot_at(&b, root, MODE_INITRAMFS);
	b.cfg.root_timeout = 0;
	fixture_path(want, sizeof want, root, "dev/vda1");
	tap_ok(hi_root_device_wait(&b, "UUID=" EXT_UUID, found, sizeof found) == 0 && !strcmp(found, want),
	       "root: md's bytes inside a file system spanning its partition do not hide the root (%s)", b.err);
	fixture_rmtree(root);
}

/* A user's file near the end of a plain partition can hold a 1.0
 * superblock with the root array's UUID and "newer" events: inside the
 * file system that spans it, it is file data, not a member beside the
 * real ones; outside any file system it still counts. */
static void test_stage_sb_in_fs(void)
{
	static struct boot b;
	const char *root = fixture_tree("md-stage-fs");
	uint64_t at = (DEV_BYTES / 512 - 16) & ~7ull;

	fixture_mkdir(root, "sys/class/block", 0755);
	fixture_put(root, "etc/hardinit/md", "");
	put_member(root, "vda1", "254:1\n", 0, 100);
	put_member(root, "vdb1", "254:17\n", 1, 100);
	put_member(root, "sdy1", "8:1\n", 0, 300);
	memset(disk, 0, sizeof disk);
	md_put16(disk + 1024 + 0x38, 0xef53);
	md_put32(disk + 1024 + 0x04, DEV_BYTES / 1024);   /* an ext spanning the partition */
	md_make_v1(disk + at * 512, at, "debian:0", 1, 2, 0, 300);
	fixture_put_bytes(root, "dev/sdy1", disk, sizeof disk);
	fixture_put(root, "dev/md0", "");
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && !strstr(b.err, "another history") &&
	       strstr(b.err, "exists and is not block device"),
	       "stage: md's bytes inside a file system are no member: the real array goes to the assembly (%s)", b.err);
	md_put32(disk + 1024 + 0x04, (uint32_t)(at * 512 / 1024 / 2));   /* the ext ends well before them */
	fixture_put_bytes(root, "dev/sdy1", disk, sizeof disk);
	tap_ok(run_stage(root, "root=/dev/md0", &b) == -1 && !strstr(b.err, "exists and is not block device"),
	       "stage: ... outside the file system they count, and the planted member stops the assembly (%s)", b.err);
	fixture_rmtree(root);
}

int main(void)
{
	test_parse_v12();
	test_parse_v10_v090();
	test_names();
	test_plan();
	test_stage();
	test_bounds();
	test_marker();
	test_check_run();
	test_spec_node();
	test_member();
	test_root_on_end_members();
	test_stage_sb_in_fs();
	return tap_done();
}
