/* md RAID: when the builder put md in the image (BOOT_MD_MARKER), the
 * arrays on the disks assembled as mdadm --assemble --scan would, without
 * mdadm: every block device's md superblock read (block/md_sb.c), the
 * members grouped by array UUID and the stale ones left out, each array
 * run through the md ioctls (block/md_assemble.c) as /dev/mdN with
 * mdadm's /dev/md/NAME link. The wait for the members is bounded as the
 * root's; an array still missing a member after it runs degraded only
 * with Debian's bootdegraded=true, else the boot stops with one line
 * naming the missing slot. The root stage then finds the array. */
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
#include "fsutil.h"
#include "log.h"
#include "md.h"
#include "md_assemble.h"
#include "md_sb.h"
#include "root.h"

#define MD_MAX_DEVICES  256     /* block devices looked at per scan */
#define MD_NODE_MAX     (BOOT_PATH_MAX + 16)

struct md_scan {
	struct md_member members[MD_MAX_MEMBERS];
	unsigned n_members, n_devs, n_bad;
	char bad[MD_DEV_NAME_MAX + MD_SB_ERR_MAX + 4];   /* the first damaged superblock, for the log */
	struct md_array arrays[MD_MAX_ARRAYS];
	unsigned n_arrays;
};

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

	if (s->n_members >= MD_MAX_MEMBERS || strlen(name) >= MD_DEV_NAME_MAX || has_entries(b, name, "holders") ||
	    has_entries(b, name, ""))
		return;
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
	close(fd);
	if (rc < 0 && s->n_bad++ == 0)
		snprintf(s->bad, sizeof s->bad, "%s: %s", name, why);
	if (rc <= 0)
		return;
	snprintf(m->name, sizeof m->name, "%s", name);
	m->major = maj;
	m->minor = min;
	s->n_members++;
}

static void scan(struct boot *b, struct md_scan *s)
{
	char path[BOOT_PATH_MAX + 16];
	struct dirent *e;

	s->n_members = s->n_devs = s->n_bad = 0;
	s->bad[0] = '\0';
	snprintf(path, sizeof path, "%s/class/block", b->sys);
	DIR *dir = opendir(path);
	if (dir) {
		while ((e = readdir(dir)) != NULL && s->n_devs < MD_MAX_DEVICES) {
			if (skip_name(e->d_name))
				continue;
			s->n_devs++;
			scan_device(b, s, e->d_name);
		}
		closedir(dir);
	}
	s->n_arrays = hi_md_plan(s->members, s->n_members, s->arrays, MD_MAX_ARRAYS);
}

static int all_complete(const struct md_scan *s)
{
	for (unsigned i = 0; i < s->n_arrays; i++)
		if (!hi_md_complete(&s->arrays[i]))
			return 0;
	return s->n_arrays > 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
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
	const struct md_member *m = &s->members[a->stale[0]];
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
	if (!complete && !degraded_ok)
		return hi_boot_error(b, "md: array %s (%s, %s) has %u of %u members after %d s (%s), slot %u missing%s; attach the missing disk, or add " MD_DEGRADED_WORD "=true to the kernel command line to boot it degraded",
				  label, uuid, level, a->n_active, a->sb.raid_disks, timeout, members[0] ? members : "none", a->first_missing, stale);
	if (!complete && !hi_md_can_degrade(a))
		return hi_boot_error(b, "md: array %s (%s, %s) has %u of %u members (%s)%s, too few to run even degraded; attach the missing disks",
				  label, uuid, level, a->n_active, a->sb.raid_disks, members[0] ? members : "none", stale);
	int minor = hi_md_pick_minor(b->sys, &a->sb);
	if (hi_md_assemble(b->dev, b->sys, a, s->members, minor, node, sizeof node, why, sizeof why) < 0)
		return hi_boot_error(b, "md: array %s (%s, %s, %s): %s; the kernel log (md:) says why, and the image needs the %s module (hardinit-mkinitramfs --modules %s)",
				  label, uuid, level, members, why, level, a->sb.level == 5 || a->sb.level == 4 || a->sb.level == 6 ? "raid456" : level);
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

int hi_stage_md(struct boot *b)
{
	static struct md_scan s;
	static char root_spec[BOOT_PATH_MAX];
	bool present = false;

	if (access(b->md_marker, F_OK) != 0)
		return 0;
	const char *word = hi_cmdline_get(&b->cmd, MD_DEGRADED_WORD, &present);
	int degraded_ok = hi_md_degraded_allowed(word, present);
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would assemble the md arrays on the disks%s", degraded_ok ? ", degraded if need be" : "");
		return 0;
	}
	int timeout = b->cmd.rootwait ? b->cfg.rootwait_timeout : b->cfg.root_timeout;
	uint64_t start = hi_boottime_ns();
	uint64_t deadline = start + (uint64_t)timeout * 1000000000u;
	long poll_ms = ROOT_POLL_MIN_MS;

	/* Until every array seen has all its slots, bounded as root= is: a
	 * slow disk is waited for before anything runs degraded. */
	for (;;) {
		scan(b, &s);
		if (all_complete(&s) || hi_boottime_ns() >= deadline)
			break;
		sleep_ms(poll_ms);
		poll_ms = hi_root_poll_next_ms(poll_ms);
	}
	if (s.n_bad)
		log_warn("md: a damaged md superblock was skipped: %s", s.bad);
	if (!s.n_arrays) {
		log_warn("md: no md array found on %u block devices within %d s; the root stage looks for root= without one",
			 s.n_devs, timeout);
		hi_report_add(&b->rep, "md", "arrays", "warn", "none found");
		return 0;
	}
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
