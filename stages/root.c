/* Root: wait, bounded, for the device root= names, then mount it on the
 * new-root directory, read-only unless rw. No udev: the block devices are
 * polled in sysfs and devtmpfs and identified by their superblocks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "btrfs.h"
#include "clock.h"
#include "dev_wait.h"
#include "fsutil.h"
#include "log.h"
#include "md_assemble.h"
#include "measure_queue.h"
#include "root.h"
#include "root_probe.h"
#include "root_resume.h"

#define ROOT_MAX_DEVICES     256   /* block devices compared; past it the boot stops */
#define ROOT_FSTYPES_MAX     16

struct seen_dev {
	char name[32];
	int probed;          /* superblock read (a miss is not read again) */
	int md_asked, md;    /* whether it is an md member, asked once it matched */
	struct fs_info fs;
};

struct root_search {
	struct root_spec spec;
	struct seen_dev devs[ROOT_MAX_DEVICES];
	size_t n_devs;
	char found[BOOT_PATH_MAX];   /* device node of the root */
	struct fs_info found_fs;
	struct btrfs_members btrfs;  /* a btrfs root's members seen so far (n 0: none) */
	int more;                    /* more devices than ROOT_MAX_DEVICES: some went uncompared */
	const char *btrfs_flags;     /* a btrfs root's mount options (root_subvol); NULL: rootflags */
	char md_name[32];            /* the first md member that matched, and why it is one */
	char md_what[MD_MEMBER_WHAT_MAX];
};

/* Devices whose probe can hang or that never hold a root: optical and
 * floppy drives, RAM disks, unconfigured loop, nbd and zram devices, an
 * md device that runs no array (the md stage's are running). */
static int skip_device(struct boot *b, const char *name)
{
	static const char *const prefixes[] = { "sr", "fd", "ram", "zram", "nbd", "mtdblock" };
	char path[BOOT_PATH_MAX + 64], buf[32];

	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	if (strncmp(name, "md", 2) == 0 &&
	    (hi_boot_sys_block_attr(b, name, "md/array_state", buf, sizeof buf) < 0 || !strcmp(buf, "clear") ||
	     !strcmp(buf, "inactive")))
		return 1;
	if (strncmp(name, "loop", 4) == 0) {
		snprintf(path, sizeof path, "%s/class/block/%s/loop/backing_file", b->sys, name);
		if (access(path, F_OK) != 0)
			return 1;
	}
	snprintf(path, sizeof path, "%s/class/block/%s/size", b->sys, name);
	if (hi_fs_read(path, buf, sizeof buf, NULL) == 0 && strtoull(buf, NULL, 10) == 0)
		return 1;
	return 0;
}

static struct seen_dev *seen(struct root_search *s, const char *name)
{
	for (size_t i = 0; i < s->n_devs; i++)
		if (strcmp(s->devs[i].name, name) == 0)
			return &s->devs[i];
	if (strlen(name) >= sizeof s->devs[0].name)
		return NULL;
	if (s->n_devs >= ROOT_MAX_DEVICES) {
		s->more = 1;
		return NULL;
	}
	struct seen_dev *d = &s->devs[s->n_devs++];
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	return d;
}

static int match_partition(struct boot *b, const char *name, const struct root_spec *spec)
{
	char path[BOOT_PATH_MAX + 64], disk[64], num[16], ss[16];
	struct part_info pi;

	if (hi_boot_sys_block_attr(b, name, "partition", num, sizeof num) < 0 ||
	    !hi_fs_sys_whole_disk(b->sys, name, disk, sizeof disk))
		return 0;
	if (hi_boot_sys_block_attr(b, disk, "queue/logical_block_size", ss, sizeof ss) < 0)
		snprintf(ss, sizeof ss, "512");
	snprintf(path, sizeof path, "%s/%s", b->dev, disk);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	int rc = hi_probe_partition(fd, (unsigned)atoi(num), (unsigned)atoi(ss), &pi);
	close(fd);
	if (rc < 0)
		return 0;
	if (spec->kind == ROOT_PARTUUID)
		return strcmp(pi.partuuid, spec->value) == 0;
	return strcmp(pi.partlabel, spec->value) == 0;
}

static int probe_dev(struct boot *b, struct seen_dev *d)
{
	char path[BOOT_PATH_MAX + 40];

	if (d->probed)
		return 0;
	snprintf(path, sizeof path, "%s/%s", b->dev, d->name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;   /* the node may not be there yet: try again */
	/* The superblocks' span asked for at once and waited for by asking
	 * again (init/fsutil.h: a PID 1 asleep on the disk loses the CPU to
	 * the kernel's self-tests for milliseconds); the probe's reads below
	 * then find it cached. A short device or a failed read leaves them to
	 * read as before. */
	if (hi_fs_dev_spins(d->name)) {
		static char span[PROBE_SPAN_BYTES];
		posix_fadvise(fd, 0, sizeof span, POSIX_FADV_WILLNEED);
		(void)hi_fs_pread_spin(fd, span, sizeof span, 0, FS_SPIN_NS);
	}
	hi_probe_fs(fd, &d->fs);
	close(fd);
	d->probed = 1;
	return 0;
}

static int matches(struct boot *b, struct root_search *s, struct seen_dev *d)
{
	const struct root_spec *spec = &s->spec;
	char buf[32];

	switch (spec->kind) {
	case ROOT_PATH:
		/* /dev/mapper/NAME is udev's link, not a kernel name: the
		 * device-mapper device of that name (the luks stage's). */
		if (!strncmp(spec->value, "/dev/mapper/", 12)) {
			char dm[130];
			return hi_boot_sys_block_attr(b, d->name, "dm/name", dm, sizeof dm) == 0 && !strcmp(dm, spec->value + 12);
		}
		return strcmp(spec->value + strlen("/dev/"), d->name) == 0;
	case ROOT_DEVNUM:
		if (hi_boot_sys_block_attr(b, d->name, "dev", buf, sizeof buf) < 0)
			return 0;
		snprintf(buf + 16, 16, "%u:%u", spec->major, spec->minor);
		return strcmp(buf, buf + 16) == 0;
	case ROOT_UUID:
		return d->probed && strcmp(d->fs.uuid, spec->value) == 0;
	case ROOT_LABEL:
		return d->probed && strcmp(d->fs.label, spec->value) == 0;
	case ROOT_PARTUUID:
	case ROOT_PARTLABEL:
		return match_partition(b, d->name, spec);
	}
	return 0;
}

/* A match that is an md member (1.0 and 0.90 keep their superblock at
 * the end, so a member shows the array's file system, its UUID and label,
 * at its start): the array is the root, never a member, which mounted
 * alone would take writes its mirror never sees. */
static int md_member(struct boot *b, struct root_search *s, struct seen_dev *d)
{
	char what[MD_MEMBER_WHAT_MAX];

	if (d->md_asked)
		return d->md;
	d->md_asked = 1;
	d->md = hi_md_member(b->sys, b->dev, d->name, d->fs.bytes, what, sizeof what);
	if (d->md && !s->md_name[0]) {
		snprintf(s->md_name, sizeof s->md_name, "%s", d->name);
		snprintf(s->md_what, sizeof s->md_what, "%s", what);
	}
	return d->md;
}

static int cmp_dev_names(const void *a, const void *b)
{
	return strcmp((*(const struct seen_dev *const *)a)->name, (*(const struct seen_dev *const *)b)->name);
}

/* Two devices with the root's LABEL= (or UUID=, PARTUUID=, PARTLABEL=):
 * a disk plugged in with a colliding label must not take over the boot
 * in silence. Refused by default, every match named; with
 * root_duplicates = warn, the first by device name, said so. */
static int choose_between(struct boot *b, struct root_search *s, struct seen_dev **m, size_t n,
			  const char *spec_text)
{
	char list[512] = "";

	qsort(m, n, sizeof m[0], cmp_dev_names);
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(list);
		snprintf(list + used, sizeof list - used, "%s%s/%s (TYPE=%s UUID=%s)", i ? ", " : "", b->dev,
			 m[i]->name, m[i]->fs.type[0] ? m[i]->fs.type : "unknown", m[i]->fs.uuid);
		hi_report_add(&b->rep, "root", m[i]->name, "duplicate", "matches %s", spec_text);
	}
	if (b->cfg.root_duplicates != ROOT_DUP_WARN)
		return hi_boot_error(b, "root=%s matches %zu devices: %s; refusing to choose between them (a disk "
				  "with a colliding label could take over the boot); relabel or remove one, name "
				  "the device by another root= (PARTUUID=...), or set [boot] root_duplicates = warn",
				  spec_text, n, list);
	log_warn("root=%s matches %zu devices: %s; taking %s/%s, the first by name (root_duplicates = warn)",
		 spec_text, n, list, b->dev, m[0]->name);
	hi_report_add(&b->rep, "root", "duplicates", "warn", "%zu devices match; took %s", n, m[0]->name);
	snprintf(s->found, sizeof s->found, "%s/%s", b->dev, m[0]->name);
	s->found_fs = m[0]->fs;
	return 1;
}

/* The devices that match are one btrfs (they share its UUID), whose
 * members are every device seen with that UUID (root=UUID= matches them
 * all, root=/dev/vda1 one): not duplicates, but one root. It is mounted
 * once every member is there and registered with the control device
 * (BTRFS_IOC_SCAN_DEV), since the kernel's mount scans only the device it
 * is given, and the kernel agrees all are there (BTRFS_IOC_DEVICES_READY).
 * Returns 1 found, 0 not yet (s->btrfs says what is missing), -1 after
 * boot_error, 2 not one btrfs of several devices, or one devid on two
 * devices (the caller's duplicate check decides). */
static int btrfs_root(struct boot *b, struct root_search *s, struct seen_dev **m, size_t n)
{
	char control[BOOT_PATH_MAX + 32], node[BOOT_PATH_MAX + 40], list[512];
	struct seen_dev *members[ROOT_MAX_DEVICES];
	size_t n_members = 0;

	s->btrfs.n = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i]->fs.type, "btrfs") != 0 || strcmp(m[i]->fs.uuid, m[0]->fs.uuid) != 0 ||
		    m[i]->fs.num_devices < 2)
			return 2;
	for (size_t i = 0; i < s->n_devs; i++)
		if (s->devs[i].probed && !s->devs[i].md && !strcmp(s->devs[i].fs.type, "btrfs") && !strcmp(s->devs[i].fs.uuid, m[0]->fs.uuid))
			members[n_members++] = &s->devs[i];
	qsort(members, n_members, sizeof members[0], cmp_dev_names);
	qsort(m, n, sizeof m[0], cmp_dev_names);
	hi_btrfs_members_init(&s->btrfs, m[0]->fs.uuid, m[0]->fs.num_devices);
	for (size_t i = 0; i < n_members; i++) {
		snprintf(node, sizeof node, "%s/%s", b->dev, members[i]->name);
		/* Not one file system: one devid twice (a copied disk), more
		 * devices than the superblocks count (a planted one with a devid
		 * of its own), counts that differ, or a node too long. The
		 * duplicate check decides. */
		if (hi_btrfs_members_add(&s->btrfs, members[i]->fs.uuid, members[i]->fs.devid,
					 members[i]->fs.num_devices, node) != 0) {
			s->btrfs.n = 0;
			return 2;
		}
	}
	if (!hi_btrfs_members_complete(&s->btrfs))
		return 0;
	snprintf(control, sizeof control, "%s/%s", b->dev, BTRFS_CONTROL_NAME);
	for (size_t i = 0; i < s->btrfs.n; i++)
		if (hi_btrfs_register(control, s->btrfs.m[i].node) < 0)
			return hi_boot_error(b, "cannot register %s, a device of the btrfs root %s, with %s: %s; is the "
					     "btrfs module in the initramfs (hardinit-mkinitramfs --modules btrfs)?",
					     s->btrfs.m[i].node, s->btrfs.fsid, control, strerror(errno));
	snprintf(node, sizeof node, "%s/%s", b->dev, m[0]->name);
	int ready = hi_btrfs_ready(control, node);
	if (ready < 0)
		return hi_boot_error(b, "cannot ask %s whether the btrfs root %s has all its devices: %s", control,
				     s->btrfs.fsid, strerror(errno));
	if (!ready)
		return 0;
	hi_btrfs_members_found(&s->btrfs, list, sizeof list);
	hi_report_add(&b->rep, "root", "btrfs_devices", "ok", "%llu: %s", (unsigned long long)s->btrfs.num_devices, list);
	log_notice("btrfs root %s: all %llu devices registered (%s)", s->btrfs.fsid,
		   (unsigned long long)s->btrfs.num_devices, list);
	snprintf(s->found, sizeof s->found, "%s", node);
	s->found_fs = m[0]->fs;
	return 1;
}

/* One pass over the block devices the kernel has registered so far; every
 * one is compared, so a second match is seen. Returns 1 found, 0 not yet,
 * -1 after boot_error (duplicates refused). */
static int find_root(struct boot *b, struct root_search *s, const char *spec_text)
{
	char path[BOOT_PATH_MAX + 16];
	struct seen_dev *m[ROOT_MAX_DEVICES];
	size_t n = 0;
	struct dirent *e;

	snprintf(path, sizeof path, "%s/class/block", b->sys);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.' || skip_device(b, e->d_name))
			continue;
		struct seen_dev *d = seen(s, e->d_name);
		if (!d)
			continue;
		if (probe_dev(b, d) < 0)
			continue;
		if (n < ROOT_MAX_DEVICES && matches(b, s, d) && !md_member(b, s, d))
			m[n++] = d;
	}
	closedir(dir);
	/* A device not compared could be the real root, behind a disk of
	 * many partitions planted with one that matches: no match is taken. */
	if (s->more)
		return hi_boot_error(b, "more than %d block devices; hardinit cannot check that only one matches "
				     "root=%s, so it mounts none: remove the disks the machine does not boot from",
				     ROOT_MAX_DEVICES, spec_text);
	if (n == 0)
		return 0;
	int btrfs = btrfs_root(b, s, m, n);
	if (btrfs != 2)
		return btrfs;
	if (n > 1)
		return choose_between(b, s, m, n, spec_text);
	snprintf(s->found, sizeof s->found, "%s/%s", b->dev, m[0]->name);
	s->found_fs = m[0]->fs;
	return 1;
}

static void list_seen(struct boot *b, struct root_search *s)
{
	if (s->n_devs == 0)
		log_err("no block devices appeared; is the disk driver in the initramfs (hardinit-mkinitramfs --modules)?");
	for (size_t i = 0; i < s->n_devs; i++) {
		const struct seen_dev *d = &s->devs[i];
		log_err("  seen %s: TYPE=%s UUID=%s LABEL=%s", d->name,
			d->fs.type[0] ? d->fs.type : "unknown", d->fs.uuid, d->fs.label);
		hi_report_add(&b->rep, "root", d->name, "info", "TYPE=%s UUID=%s LABEL=%s",
			   d->fs.type, d->fs.uuid, d->fs.label);
	}
}

/* The wait ended with some of a multi-device btrfs root's members: which
 * appeared, which did not, or that the kernel did not count them all. */
static int btrfs_members_missing(struct boot *b, struct root_search *s, const char *spec_text, int timeout)
{
	char have[512], missing[256];

	hi_btrfs_members_found(&s->btrfs, have, sizeof have);
	hi_btrfs_members_missing(&s->btrfs, missing, sizeof missing);
	if (hi_btrfs_members_complete(&s->btrfs))
		return hi_boot_error(b, "the btrfs root %s (%s) has %llu devices, all here (%s), but "
				     "within %d s the kernel did not count them all registered "
				     "(BTRFS_IOC_DEVICES_READY); see the kernel log (dmesg)",
				     s->btrfs.fsid, spec_text, (unsigned long long)s->btrfs.num_devices,
				     have, timeout);
	return hi_boot_error(b, "the btrfs root %s (%s) has %llu devices; within %d s only %s appeared, "
			     "not %s: attach the missing disk, or check its driver is in the initramfs",
			     s->btrfs.fsid, spec_text, (unsigned long long)s->btrfs.num_devices, timeout,
			     have, missing);
}

static int wait_for_root(struct boot *b, struct root_search *s, const char *spec_text)
{
	int timeout = b->cmd.rootwait ? b->cfg.rootwait_timeout : b->cfg.root_timeout;
	struct dev_wait w;
	unsigned left;

	hi_dev_wait_begin(&w, timeout * 1000L);
	for (;;) {
		int found = find_root(b, s, spec_text);
		if (found != 0)
			return found > 0 ? 0 : -1;
		if (hi_dev_wait_progress(&w, &left))
			log_info("waiting for root device %s (%u s left)", spec_text, left);
		if (!hi_dev_wait_next(&w))
			break;
	}
	list_seen(b, s);
	if (s->btrfs.n)
		return btrfs_members_missing(b, s, spec_text, timeout);
	if (s->md_name[0])
		return hi_boot_error(b, "root device %s: only an md member matched within %d s (%s/%s, %s), and a "
				     "member is never mounted alone (its mirror would miss the writes); put md in the "
				     "image (hardinit-mkinitramfs --host-only finds the array), attach the array's "
				     "missing members, or name the array in root=", spec_text, timeout, b->dev,
				     s->md_name, s->md_what);
	return hi_boot_error(b, "root device %s did not appear within %d s; check root= against the devices listed above, or add its driver to the initramfs%s",
			  spec_text, timeout, b->cmd.rootwait ? "" : " (rootwait waits longer)");
}

int hi_root_kmsg_pick(const char *records, const char *devname, char *out, size_t outlen)
{
	char want1[48], want2[48];
	int found = 0;

	snprintf(want1, sizeof want1, "(%s)", devname);
	snprintf(want2, sizeof want2, "%s:", devname);
	for (const char *l = records; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *semi = memchr(l, ';', len);
		/* Not hardinit's own lines: the kernel's reason is wanted. */
		if (l[0] != ' ' && semi && strncmp(semi + 1, "hardinit:", 9) != 0) {
			size_t tlen = len - (size_t)(semi + 1 - l);
			char text[512];
			snprintf(text, sizeof text, "%.*s", (int)tlen, semi + 1);
			if (strstr(text, want1) || strstr(text, want2)) {
				snprintf(out, outlen, "%s", text);
				found = 1;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return found;
}

/* Words of the kernel's own messages for a damaged ext4, xfs or btrfs. */
static int klog_says_damaged(const char *klog)
{
	static const char *const words[] = { "journal", "corrupt", "checksum", "fsck", "superblock",
					     "group descriptor", "bad geometry", "Structure needs cleaning",
					     "log recovery", "metadata", "inconsisten" };

	for (size_t i = 0; klog && i < sizeof words / sizeof words[0]; i++)
		if (strstr(klog, words[i]))
			return 1;
	return 0;
}

void hi_root_mount_message(char *out, size_t outlen, const char *dev, const char *types, int err,
			const char *klog)
{
	/* EUCLEAN is also EFSCORRUPTED, what ext4 and xfs return for a
	 * damaged file system. */
	int damaged = err == EUCLEAN || err == EIO || err == EBADMSG || klog_says_damaged(klog);
	char said[600] = "";

	if (klog)
		snprintf(said, sizeof said, "; the kernel logged: \"%s\"", klog);
	if (damaged)
		snprintf(out, outlen, "cannot mount root %s as %s: %s%s; the file system looks damaged: read "
			 "the kernel log (dmesg) and run fsck on %s from a rescue system", dev, types,
			 strerror(err), said, dev);
	else if (klog && !strstr(klog, "option"))
		snprintf(out, outlen, "cannot mount root %s as %s: %s%s; see the kernel log (dmesg), then "
			 "check rootfstype= and rootflags=", dev, types, strerror(err), said);
	else
		snprintf(out, outlen, "cannot mount root %s as %s: %s%s; check rootfstype= and rootflags=",
			 dev, types, strerror(err), said);
}

/* What the kernel logged about the device since boot: /dev/kmsg read
 * without blocking, bounded in bytes and records. */
static int kmsg_about(struct boot *b, const char *devpath, char *out, size_t outlen)
{
	char path[BOOT_PATH_MAX + 16], rec[1024];
	const char *name = strrchr(devpath, '/') ? strrchr(devpath, '/') + 1 : devpath;
	char *text = malloc(ROOT_KMSG_MAX_BYTES);
	size_t used = 0;
	int found = 0;

	snprintf(path, sizeof path, "%s/kmsg", b->dev);
	int fd = text ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	for (int i = 0; fd >= 0 && i < ROOT_KMSG_MAX_RECORDS; i++) {
		ssize_t n = read(fd, rec, sizeof rec - 1);
		if (n < 0 && errno == EPIPE)
			continue;   /* overwritten records: go on with the next */
		if (n <= 0)
			break;      /* EAGAIN: the end of the log */
		if (used + (size_t)n + 1 >= ROOT_KMSG_MAX_BYTES)
			used = 0;   /* keep the latest records only */
		memcpy(text + used, rec, (size_t)n);
		used += (size_t)n;
	}
	if (text) {
		text[used] = '\0';
		found = hi_root_kmsg_pick(text, name, out, outlen);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	return found;
}

/* A device-mapper root is mounted by its /dev/mapper/NAME (the node the
 * luks and lvm stages make), as Debian's initramfs mounts it: findmnt, df
 * and the real root's tools then show the name its fstab and crypttab
 * use, not dm-N. The kernel name when that node is not the same device. */
static void mount_source(struct boot *b, const struct root_search *s, char *out, size_t cap)
{
	const char *kname = strrchr(s->found, '/');
	char dm[130], path[BOOT_PATH_MAX + 140];
	struct stat dev, node;

	snprintf(out, cap, "%s", s->found);
	if (!kname || hi_boot_sys_block_attr(b, kname + 1, "dm/name", dm, sizeof dm) < 0 || !dm[0])
		return;
	snprintf(path, sizeof path, "%s/mapper/%s", b->dev, dm);
	if (stat(s->found, &dev) == 0 && stat(path, &node) == 0 && S_ISBLK(node.st_mode) &&
	    node.st_rdev == dev.st_rdev)
		snprintf(out, cap, "%s", path);
}

/* Try rootfstype (a comma-separated list, as the kernel takes it), else the
 * detected type. */
static int mount_root(struct boot *b, struct root_search *s)
{
	char types[256], src[BOOT_PATH_MAX + 140];
	unsigned long flags = b->cmd.rw && !b->root_device[0] ? 0 : MS_RDONLY;
	const char *data = b->cmd.rootflags;
	int last_errno = 0;

	if (b->cmd.rootfstype)
		snprintf(types, sizeof types, "%s", b->cmd.rootfstype);
	else if (s->found_fs.type[0])
		snprintf(types, sizeof types, "%s", s->found_fs.type);
	else
		return hi_boot_error(b, "cannot tell the file system on %s (ext2/3/4, xfs, btrfs, jfs, erofs, squashfs are recognised); add rootfstype=", s->found);
	/* What protects the root is measured before it is mounted. */
	if (hi_measure_queue_wait_root(b) < 0)
		return -1;
	if (mkdir(b->newroot, 0755) < 0 && errno != EEXIST)
		return hi_boot_error(b, "cannot create %s: %s", b->newroot, strerror(errno));
	mount_source(b, s, src, sizeof src);
	char *save = NULL;
	int tries = 0;
	for (char *t = strtok_r(types, ",", &save); t && tries < ROOT_FSTYPES_MAX; t = strtok_r(NULL, ",", &save), tries++) {
		const char *d = s->btrfs_flags && strcmp(t, "btrfs") == 0 ? s->btrfs_flags : data;
		if (hi_fs_mount(src, b->newroot, t, flags, d) == 0) {
			log_notice("mounted root %s (%s) on %s %s", src, t, b->newroot, flags & MS_RDONLY ? "read-only" : "read-write");
			hi_report_add(&b->rep, "root", "device", "ok", "%s", src);
			hi_report_add(&b->rep, "root", "fstype", "ok", "%s", t);
			hi_report_add(&b->rep, "root", "mode", "ok", "%s", flags & MS_RDONLY ? "ro" : "rw");
			if (d && d != data)
				hi_report_add(&b->rep, "root", "options", "ok", "%s", d);
			return 0;
		}
		last_errno = errno;
	}
	char klog[512], msg[BOOT_ERR_MAX];
	int said = kmsg_about(b, s->found, klog, sizeof klog);
	hi_root_mount_message(msg, sizeof msg, s->found, b->cmd.rootfstype ? b->cmd.rootfstype : s->found_fs.type,
			   last_errno, said ? klog : NULL);
	return hi_boot_error(b, "%s", msg);
}

int hi_root_device_wait(struct boot *b, const char *spec_text, char *found, size_t cap)
{
	static struct root_search s;
	char err[256];

	memset(&s, 0, sizeof s);
	if (hi_root_spec_parse(&s.spec, spec_text, err, sizeof err) < 0)
		return hi_boot_error(b, "%s", err);
	if (wait_for_root(b, &s, spec_text) < 0)
		return -1;
	snprintf(found, cap, "%s", s.found);
	return 0;
}

/* The verity stage made the root device: mount that, never root= itself
 * (it would be the data device without verification). */
static int mount_verity_root(struct boot *b, struct root_search *s)
{
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would mount the verity root %s read-only on %s", b->root_device, b->newroot);
		return 0;
	}
	snprintf(s->found, sizeof s->found, "%s", b->root_device);
	int fd = open(s->found, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hi_boot_error(b, "cannot open the verity root %s: %s", s->found, strerror(errno));
	hi_probe_fs(fd, &s->found_fs);
	close(fd);
	if (b->cmd.rw)
		log_warn("rw ignored: a verity root is read-only");
	return mount_root(b, s);
}

/* The btrfs subvolume the builder found / on (b->root_subvol), decided
 * against the command line's rootflags before any wait: a refusal under
 * the lock needs no disk. No file: rootflags as it is. */
static int root_subvol(struct boot *b, struct root_search *s)
{
	static char image[BTRFS_SUBVOL_MAX + 2], data[CMDLINE_MAX_BYTES + BTRFS_SUBVOL_MAX + 16];
	char err[BOOT_ERR_MAX - 64];
	size_t len = 0;

	if (hi_fs_read(b->root_subvol, image, sizeof image, &len) < 0) {
		if (errno == ENOENT)
			return 0;
		return hi_boot_error(b, "root: cannot read %s: %s; rebuild the image with hardinit-mkinitramfs",
				     b->root_subvol, errno == E2BIG ? "too large" : strerror(errno));
	}
	if (len && image[len - 1] == '\n')
		image[len - 1] = '\0';
	if (hi_btrfs_root_flags(b->cmd.rootflags, image, b->cfg.lock_cmdline, data, sizeof data, err, sizeof err) < 0)
		return hi_boot_error(b, "%s", err);
	s->btrfs_flags = data;
	log_info("a btrfs root is mounted with %s (the image's subvolume is %s)", data, image);
	return 0;
}

int hi_stage_root(struct boot *b)
{
	static struct root_search s;
	char err[256];

	memset(&s, 0, sizeof s);
	if (root_subvol(b, &s) < 0)
		return -1;
	if (hi_resume_check(b, hi_root_device_wait) < 0)
		return -1;
	if (b->root_device[0])
		return mount_verity_root(b, &s);
	if (hi_root_spec_parse(&s.spec, b->cmd.root, err, sizeof err) < 0)
		return hi_boot_error(b, "%s", err);
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would wait up to %d s for root %s and mount it %s on %s",
			 b->cmd.rootwait ? b->cfg.rootwait_timeout : b->cfg.root_timeout, b->cmd.root,
			 b->cmd.rw ? "read-write" : "read-only", b->newroot);
		return 0;
	}
	if (b->cmd.rootdelay > 0) {
		log_info("rootdelay: waiting %d s before looking for root", b->cmd.rootdelay);
		hi_sleep_ms(b->cmd.rootdelay * 1000L);
	}
	if (wait_for_root(b, &s, b->cmd.root) < 0)
		return -1;
	return mount_root(b, &s);
}
