/* md RAID: when the builder put md in the image (BOOT_MD_MARKER), the
 * arrays the marker names by UUID (the root's; none named: every array
 * on the disks) assembled as mdadm --assemble --scan would, without
 * mdadm: every block device's md superblock read (block/md_sb.c), the
 * members grouped by array UUID and the stale ones left out, each array
 * run through the md ioctls (block/md_assemble.c) as /dev/mdN with
 * mdadm's /dev/md/NAME link. The wait for the members is bounded as the
 * root's; an array still missing a member after it runs degraded only
 * with Debian's bootdegraded=true, else the boot stops with one line
 * naming the missing slot, as it does when the kernel, after the run,
 * counts a member missing. The root stage then finds the array. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "clock.h"
#include "cmdline_lock.h"
#include "dev_wait.h"
#include "fsutil.h"
#include "log.h"
#include "md.h"
#include "md_assemble.h"
#include "md_sb.h"
#include "root.h"
#include "root_probe.h"

#define MD_MAX_DEVICES  256     /* block devices looked at per scan */
#define MD_NODE_MAX     (BOOT_PATH_MAX + 16)
#define MD_MARKER_BYTES (MD_MAX_ARRAYS * (MD_SB_UUID_TEXT + 1) + 1)   /* a UUID a line, one per array */

struct md_scan {
	struct md_member members[MD_MAX_MEMBERS];
	unsigned n_members, n_devs, n_bad;
	char bad[MD_DEV_NAME_MAX + MD_SB_ERR_MAX + 4];   /* the first damaged superblock, for the log */
	struct md_array arrays[MD_MAX_ARRAYS + 1];   /* one more: past the bound is seen */
	unsigned n_arrays;
	int more;   /* a bound was reached: a member may have gone unread */
	uint8_t want[MD_MAX_ARRAYS][MD_SB_UUID_LEN];   /* the marker's arrays; none: every array */
	unsigned n_want;
	unsigned n_foreign;   /* members of arrays the marker does not name, left alone */
	char foreign[MD_DEV_NAME_MAX + MD_SB_UUID_TEXT + 4];   /* the first of them, for the log */
};

/* The arrays the builder named (their UUIDs, one a line): the root's.
 * Only these are assembled, so a stick with one member of some other
 * array neither stops the boot nor gets an array run; an empty marker (a
 * generic image) names none: every array found. */
static int read_marker(struct boot *b, struct md_scan *s)
{
	char text[MD_MARKER_BYTES], *line, *save = NULL;

	s->n_want = 0;
	if (hi_fs_read(b->md_marker, text, sizeof text, NULL) < 0)
		return hi_boot_error(b, "md: cannot read %s: %s; rebuild the image with hardinit-mkinitramfs", b->md_marker,
				     errno == E2BIG ? "more arrays than MD_MAX_ARRAYS" : strerror(errno));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (s->n_want == MD_MAX_ARRAYS || hi_md_sb_uuid_parse(line, s->want[s->n_want]) < 0)
			return hi_boot_error(b, "md: %s: '%.40s' is not an md array UUID (or more than %d lines); rebuild the image with hardinit-mkinitramfs",
					     b->md_marker, line, MD_MAX_ARRAYS);
		s->n_want++;
	}
	return 0;
}

static int wanted(const struct md_scan *s, const uint8_t uuid[MD_SB_UUID_LEN])
{
	if (!s->n_want)
		return 1;
	for (unsigned i = 0; i < s->n_want; i++)
		if (!memcmp(s->want[i], uuid, MD_SB_UUID_LEN))
			return 1;
	return 0;
}

int hi_md_degraded_allowed(const char *value, int present)
{
	if (!value)
		return present;
	return !strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1") || !strcmp(value, "on");
}

/* Never an md member, or a read that can hang: as the root stage skips. An
 * md array is skipped too (nested md is not assembled), and dm: a LUKS or
 * LVM volume is opened after this stage. */
static int skip_name(const char *name)
{
	static const char *const prefixes[] = { ".", "sr", "fd", "ram", "zram", "nbd", "mtdblock", "md", "dm-", "loop" };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* A directory under sys/class/block/NAME/ with an entry: holders/ (the
 * device is in use: a running array already has it) or the disk's own
 * partitions (their superblocks are the members, not the disk's). */
static int has_entries(struct boot *b, const char *name, const char *sub)
{
	char path[BOOT_PATH_MAX + 2 * MD_DEV_NAME_MAX + 32];
	struct dirent *e;
	int found = 0;

	snprintf(path, sizeof path, "%s/class/block/%s%s%s", b->sys, name, sub[0] ? "/" : "", sub);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.' && (sub[0] || (strncmp(e->d_name, name, strlen(name)) == 0 &&
							   e->d_name[strlen(name)] != '\0'));
	closedir(d);
	return found;
}

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return hi_fs_pread_all(*(int *)ctx, buf, len, off);
}

static void scan_device(struct boot *b, struct md_scan *s, const char *name)
{
	char path[BOOT_PATH_MAX + MD_DEV_NAME_MAX + 8], buf[32], why[MD_SB_ERR_MAX];
	unsigned maj, min;

	if (strlen(name) >= MD_DEV_NAME_MAX || has_entries(b, name, "holders") || has_entries(b, name, ""))
		return;
	if (s->n_members >= MD_MAX_MEMBERS) {
		s->more = 1;
		return;
	}
	if (hi_boot_sys_block_attr(b, name, "size", buf, sizeof buf) < 0)
		return;
	uint64_t bytes = strtoull(buf, NULL, 10) * 512u;
	if (!bytes || hi_boot_sys_block_attr(b, name, "dev", buf, sizeof buf) < 0 || sscanf(buf, "%u:%u", &maj, &min) != 2)
		return;
	snprintf(path, sizeof path, "%s/%s", b->dev, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	struct md_member *m = &s->members[s->n_members];
	int rc = hi_md_sb_read(fd_read, &fd, bytes, &m->sb, why, sizeof why);
	/* A superblock at the end inside a file system that spans it is a
	 * file's bytes (hi_md_sb_outside): a user's, not a member's, and it
	 * must not stand beside the real members with "newer" events. Only
	 * one at the end is read against it: the probe costs reads on every
	 * member of a 1.2 array, the boot's common case, for nothing. */
	struct fs_info fi;
	bool at_end = m->sb.kind == MD_SB_1_0 || m->sb.kind == MD_SB_0_90;
	if (rc > 0 && at_end && hi_probe_fs(fd, &fi) == 0 && !hi_md_sb_outside(m->sb.kind, bytes, fi.bytes))
		rc = 0;
	close(fd);
	if (rc < 0 && s->n_bad++ == 0)
		snprintf(s->bad, sizeof s->bad, "%s: %s", name, why);
	if (rc <= 0)
		return;
	if (!wanted(s, m->sb.uuid)) {
		char uuid[MD_SB_UUID_TEXT];
		hi_md_sb_uuid_format(m->sb.uuid, uuid);
		if (s->n_foreign++ == 0)
			snprintf(s->foreign, sizeof s->foreign, "%s of %s", name, uuid);
		return;
	}
	snprintf(m->name, sizeof m->name, "%s", name);
	m->major = maj;
	m->minor = min;
	s->n_members++;
}

static void scan(struct boot *b, struct md_scan *s)
{
	char path[BOOT_PATH_MAX + 16];
	struct dirent *e;

	s->n_members = s->n_devs = s->n_bad = s->n_foreign = 0;
	s->more = 0;
	s->bad[0] = '\0';
	snprintf(path, sizeof path, "%s/class/block", b->sys);
	DIR *dir = opendir(path);
	if (dir) {
		while ((e = readdir(dir)) != NULL) {
			if (skip_name(e->d_name))
				continue;
			if (s->n_devs == MD_MAX_DEVICES) {
				s->more = 1;
				break;
			}
			s->n_devs++;
			scan_device(b, s, e->d_name);
		}
		closedir(dir);
	}
	s->n_arrays = hi_md_plan(s->members, s->n_members, s->arrays, MD_MAX_ARRAYS + 1);
	if (s->n_arrays > MD_MAX_ARRAYS) {
		s->n_arrays = MD_MAX_ARRAYS;
		s->more = 1;
	}
}

static int all_complete(const struct md_scan *s)
{
	for (unsigned i = 0; i < s->n_arrays; i++)
		if (!hi_md_complete(&s->arrays[i]))
			return 0;
	return s->n_arrays > 0 && s->n_arrays >= s->n_want;
}

/* "vda1 in slot 0, vdb1 in slot 1" into out. */
static void list_members(const struct md_scan *s, const struct md_array *a, char *out, size_t cap)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < a->n_member && used < cap; i++) {
		const struct md_member *m = &s->members[a->member[i]];
		int n = m->sb.role < a->sb.raid_disks ?
				snprintf(out + used, cap - used, "%s%s in slot %u", i ? ", " : "", m->name, m->sb.role) :
				snprintf(out + used, cap - used, "%s%s as a spare", i ? ", " : "", m->name);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* Why a member was left out, for the one line: the first of them. */
static void list_stale(const struct md_scan *s, const struct md_array *a, char *out, size_t cap)
{
	out[0] = '\0';
	if (!a->n_stale)
		return;
	/* A member behind or in a held slot says more than a faulty one. */
	unsigned pick = a->stale[0];
	for (unsigned i = 0; i < a->n_stale; i++)
		if (s->members[a->stale[i]].sb.role != MD_SB_ROLE_FAULTY &&
		    s->members[a->stale[i]].sb.role != MD_SB_ROLE_JOURNAL) {
			pick = a->stale[i];
			break;
		}
	const struct md_member *m = &s->members[pick];
	if (m->sb.role == MD_SB_ROLE_FAULTY || m->sb.role == MD_SB_ROLE_JOURNAL)
		snprintf(out, cap, "; %s left out: marked %s", m->name, m->sb.role == MD_SB_ROLE_FAULTY ? "faulty" : "journal");
	else if (m->sb.events + MD_EVENT_MARGIN < a->sb.events)
		snprintf(out, cap, "; %s left out: its event count %llu is behind the array's %llu (it missed writes; mdadm --re-add it once booted)",
			 m->name, (unsigned long long)m->sb.events, (unsigned long long)a->sb.events);
	else
		snprintf(out, cap, "; %s left out: a second member in slot %u", m->name, m->sb.role);
}

/* /dev/md/NAME -> ../mdN, as mdadm's udev rule leaves it. */
static void make_link(struct boot *b, const char *devname, int minor)
{
	char path[BOOT_PATH_MAX + MD_SB_NAME_MAX + 8], target[32];

	snprintf(path, sizeof path, "%s/md", b->dev);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		log_warn("md: cannot create %s: %s; /dev/md/%s will be missing until udev runs", path, strerror(errno), devname);
		return;
	}
	snprintf(path, sizeof path, "%s/md/%s", b->dev, devname);
	snprintf(target, sizeof target, "../md%d", minor);
	if (symlink(target, path) < 0 && errno != EEXIST)
		log_warn("md: cannot create %s: %s", path, strerror(errno));
}

static int run_array(struct boot *b, struct md_scan *s, const struct md_array *a, int degraded_ok, int timeout)
{
	char uuid[MD_SB_UUID_TEXT], devname[MD_SB_NAME_MAX], node[MD_NODE_MAX], why[256];
	static char members[2048], stale[512];
	const char *level = hi_md_level_name(a->sb.level);

	hi_md_sb_uuid_format(a->sb.uuid, uuid);
	hi_md_sb_dev_name(&a->sb, devname, sizeof devname);
	list_members(s, a, members, sizeof members);
	list_stale(s, a, stale, sizeof stale);
	const char *label = a->sb.name[0] ? a->sb.name : uuid;
	int complete = hi_md_complete(a);
	const char *word_hint = b->cfg.lock_cmdline ?
		"boot with lock_cmdline = no (" MD_DEGRADED_WORD "= is refused under the lock)" :
		"add " MD_DEGRADED_WORD "=true to the kernel command line";
	/* Two members in one slot: which one runs would be the order the
	 * disks appear in, a planted one's as well as the real one's. */
	if (a->n_dup)
		return hi_boot_error(b, "md: array %s (%s, %s): two members claim one slot (%s)%s; which one would run depends on the order the disks appear: remove the disk that is not the array's, or clear its superblock (mdadm --zero-superblock)",
				  label, uuid, level, members[0] ? members : "none", stale);
	/* Every slot held, but a member with the array's UUID is behind: a
	 * disk that missed writes, or the real member beside a planted disk
	 * claiming a newer event count. Only the word takes the newest. */
	if (!complete && !degraded_ok && a->first_missing >= a->sb.raid_disks)
		return hi_boot_error(b, "md: array %s (%s, %s) has its %u slots held (%s)%s: another history of the array is present (a member that missed writes, or a disk planted with a newer event count); remove the disk that is not the array's, or %s to run the newest as mdadm would",
				  label, uuid, level, a->sb.raid_disks, members[0] ? members : "none", stale, word_hint);
	if (!complete && !degraded_ok)
		return hi_boot_error(b, "md: array %s (%s, %s) has %u of %u members after %d s (%s), slot %u missing%s; attach the missing disk, or %s to boot it degraded",
				  label, uuid, level, a->n_active, a->sb.raid_disks, timeout, members[0] ? members : "none", a->first_missing, stale, word_hint);
	if (!complete && !hi_md_can_degrade(a))
		return hi_boot_error(b, "md: array %s (%s, %s) has %u of %u members (%s)%s, too few to run even degraded; attach the missing disks",
				  label, uuid, level, a->n_active, a->sb.raid_disks, members[0] ? members : "none", stale);
	int minor = hi_md_pick_minor(b->sys, &a->sb);
	if (hi_md_assemble(b->dev, b->sys, a, s->members, minor, node, sizeof node, why, sizeof why) < 0)
		return hi_boot_error(b, "md: array %s (%s, %s, %s): %s; the kernel log (md:) says why, and the image needs the %s module (hardinit-mkinitramfs --modules %s)",
				  label, uuid, level, members, why, level, a->sb.level == 5 || a->sb.level == 4 || a->sb.level == 6 ? "raid456" : level);
	/* The kernel's count of what is missing, not hardinit's: a forged
	 * role table can make them differ. */
	if (hi_md_check_run(b->sys, a, minor, degraded_ok, why, sizeof why) < 0) {
		hi_md_stop(node);
		return hi_boot_error(b, "md: array %s (%s, %s, %s) stopped: %s; remove the disk that is not the array's, or %s to boot it degraded",
				  label, uuid, level, members, why, word_hint);
	}
	if (devname[0])
		make_link(b, devname, minor);
	if (!complete)
		log_warn("md: array %s (%s) runs degraded with %u of %u members (" MD_DEGRADED_WORD "): slot %u missing%s",
			 label, uuid, a->n_active, a->sb.raid_disks, a->first_missing, stale);
	log_notice("md: assembled %s as md%d (%s, metadata %u.%u, %s, events %llu%s)", label, minor, level, a->sb.major,
		   a->sb.minor, members, (unsigned long long)a->sb.events, a->sb.in_sync ? "" : ", resync pending");
	hi_report_add(&b->rep, "md", node + strlen(b->dev) + 1, complete ? "ok" : "warn", "%s %s %s %u/%u%s", label, uuid,
		      level, a->n_active, a->sb.raid_disks, complete ? "" : " degraded");
	return 0;
}

/* root=/dev/md/NAME or /dev/mdN names an array by what its superblock
 * asks for: two arrays asking the same (a planted one with the real one's
 * name, or a second Debian install's HOST:0) would leave the root to
 * whichever came first. Returns -1 after boot_error then. */
static int names_unique(struct boot *b, const struct md_scan *s)
{
	const char *root = b->cmd.root;

	if (!root || strncmp(root, "/dev/md", 7) != 0)
		return 0;
	for (unsigned i = 0; i < s->n_arrays; i++)
		for (unsigned j = i + 1; j < s->n_arrays; j++) {
			const struct md_sb *x = &s->arrays[i].sb, *y = &s->arrays[j].sb;
			char nx[MD_SB_NAME_MAX], ny[MD_SB_NAME_MAX], ux[MD_SB_UUID_TEXT], uy[MD_SB_UUID_TEXT];
			uint32_t mx = hi_md_sb_minor(x);

			hi_md_sb_dev_name(x, nx, sizeof nx);
			hi_md_sb_dev_name(y, ny, sizeof ny);
			if (!(nx[0] && !strcmp(nx, ny)) && !(mx != MD_SB_NO_MINOR && mx == hi_md_sb_minor(y)))
				continue;
			hi_md_sb_uuid_format(x->uuid, ux);
			hi_md_sb_uuid_format(y->uuid, uy);
			return hi_boot_error(b, "md: arrays %s and %s both ask for the name %s: root=%s would be whichever "
					     "came first; remove the disks of the one that is not the root's, or give root= "
					     "the file system's UUID=",
					     ux, uy, nx[0] ? nx : ny, root);
		}
	return 0;
}

int hi_md_spec_node(const struct boot *b, const char *spec, char *out, size_t cap)
{
	char path[BOOT_PATH_MAX + BOOT_PATH_MAX], link[64];

	if (!spec || strncmp(spec, "/dev/md/", 8) != 0 || strchr(spec + 8, '/'))
		return 0;
	snprintf(path, sizeof path, "%s/md/%s", b->dev, spec + 8);
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	if (strncmp(link, "../md", 5) != 0 || strchr(link + 3, '/'))
		return 0;
	return (size_t)snprintf(out, cap, "/dev/%s", link + 3) < cap;
}

/* Whether an array may run degraded: the command line's word, refused
 * under the lock (the config stage said so): it is what lets a planted
 * newer history of an array run. */
static int degraded_allowed(const struct boot *b)
{
	bool present = false;
	const char *word = hi_cmdline_get(&b->cmd, MD_DEGRADED_WORD, &present);
	int degraded_ok = hi_md_degraded_allowed(word, present);

	if (degraded_ok && b->cfg.lock_cmdline && hi_kernel_word_refused(MD_DEGRADED_WORD, word))
		degraded_ok = 0;
	return degraded_ok;
}

/* What the scan found, said before anything is assembled. Past a bound
 * the real members may be the ones unread, and a planted array the only
 * one seen (disks of many partitions, or many md superblocks, ahead of
 * them): nothing is assembled (-1). No array: 1, nothing to do. */
static int scan_findings(struct boot *b, const struct md_scan *s, int timeout)
{
	if (s->more)
		return hi_boot_error(b, "md: more than %d block devices, %d md members or %d arrays; hardinit cannot "
				     "see every member of the arrays, so it assembles none: remove the disks the "
				     "machine does not boot from", MD_MAX_DEVICES, MD_MAX_MEMBERS, MD_MAX_ARRAYS);
	if (s->n_bad)
		log_warn("md: a damaged md superblock was skipped: %s", s->bad);
	if (s->n_foreign)
		log_warn("md: %u md member(s) of arrays the image does not name left alone (%s); the image assembles only the root's arrays",
			 s->n_foreign, s->foreign);
	if (!s->n_arrays) {
		log_warn("md: no md array found on %u block devices within %d s; the root stage looks for root= without one",
			 s->n_devs, timeout);
		hi_report_add(&b->rep, "md", "arrays", "warn", "none found");
		return 1;
	}
	return 0;
}

int hi_stage_md(struct boot *b)
{
	static struct md_scan s;
	static char root_spec[BOOT_PATH_MAX];

	if (access(b->md_marker, F_OK) != 0)
		return 0;
	if (read_marker(b, &s) < 0)
		return -1;
	int degraded_ok = degraded_allowed(b);
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would assemble the md arrays on the disks%s", degraded_ok ? ", degraded if need be" : "");
		return 0;
	}
	int timeout = b->cmd.rootwait ? b->cfg.rootwait_timeout : b->cfg.root_timeout;
	uint64_t start = hi_boottime_ns();
	struct dev_wait w;

	/* Until every array seen has all its slots, bounded as root= is: a
	 * slow disk is waited for before anything runs degraded. */
	hi_dev_wait_begin(&w, timeout * 1000L);
	for (;;) {
		scan(b, &s);
		if (all_complete(&s) || !hi_dev_wait_next(&w))
			break;
	}
	int found = scan_findings(b, &s, timeout);
	if (found != 0)
		return found < 0 ? -1 : 0;
	if (names_unique(b, &s) < 0)
		return -1;
	for (unsigned i = 0; i < s.n_arrays; i++)
		if (run_array(b, &s, &s.arrays[i], degraded_ok, timeout) < 0)
			return -1;
	uint64_t took = hi_boottime_ns() - start;
	hi_report_add(&b->rep, "md", "assemble_ms", "info", "%llu.%03llu", (unsigned long long)(took / 1000000),
		      (unsigned long long)(took / 1000 % 1000));
	/* /dev/md/NAME is a link the root stage does not follow: the node. */
	if (hi_md_spec_node(b, b->cmd.root, root_spec, sizeof root_spec))
		b->cmd.root = root_spec;
	return 0;
}
