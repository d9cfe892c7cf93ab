/* LVM: when root= names a logical volume (/dev/mapper/VG-LV or /dev/VG/LV,
 * as Debian's installer writes it), and when resume= names one (the swap
 * LV the root stage's resume_check reads), activate that LV the way lvm2
 * would, without lvm2: read the PV labels and the VG's text metadata
 * (block/lvm2*.c), build its linear/striped table and create the
 * device-mapper device with lvm2's name and uuid (block/dm.c), so the
 * real root's udev, systemd and fstab find what they expect. Every other
 * LV type is refused by name. The root stage then mounts it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "clock.h"
#include "dev_wait.h"
#include "dm.h"
#include "dm_udev.h"
#include "fsutil.h"
#include "log.h"
#include "luks2.h"
#include "lvm.h"
#include "lvm2.h"
#include "lvm2_label.h"
#include "lvm2_meta.h"
#include "md_assemble.h"

#define LVM_MAX_DEVICES   256    /* block devices looked at per scan */
#define LVM_MAX_TARGETS   64     /* segments of the root LV (one ioctl buffer) */
#define LVM_DEVNUM_MAX    24
#define LVM_DM_NAME_MAX   128    /* DM_NAME_LEN */

/* Two-level names under /dev that are never VG/LV. */
static const char *const not_vgs[] = { "disk", "mapper", "md", "block", "char", "bus", "cpu", "input",
				       "net", "pts", "shm", "snd", "dri", "mqueue", "hugepages", "vfio", "xen" };

struct lvm_pv_seen {
	char id[LVM2_ID_LEN + 1];
	char name[64];                  /* vdb */
	char devnum[LVM_DEVNUM_MAX];    /* 254:16 */
};

struct lvm_scan {
	char vg_name[LVM2_NAME_MAX], lv_name[LVM2_NAME_MAX];
	unsigned n_devs, n_pvs, n_bad;
	int on_opened;                  /* the VG was found on an opened volume: only those count */
	struct lvm_pv_seen pvs[LVM_MAX_DEVICES];
	char bad[LVM2_ERR_MAX];         /* the first damaged PV, for the message */
	unsigned n_md;                  /* PV labels on md members, left for the array's */
	char md[64 + MD_MEMBER_WHAT_MAX + 4];   /* the first of them, for the message */
	int have_vg;
	uint64_t scan_start, scan_end;  /* the scan that found the VG whole */
	uint64_t create_ns[2], load_ns[2];  /* the setup's two waits: elapsed, PID 1's CPU */
	struct lvm2_vg vg;              /* the highest seqno seen */
};

/* root= as an LV: 1 with vg and lv filled, 0 when it names no LV. */
static int lvm_root_names(const char *root, char *vg, size_t vgcap, char *lv, size_t lvcap)
{
	if (!root || strncmp(root, "/dev/", 5) != 0)
		return 0;
	const char *rest = root + 5;
	if (strncmp(rest, "mapper/", 7) == 0)
		return hi_lvm2_dm_name_split(rest + 7, vg, vgcap, lv, lvcap) == 0;
	const char *slash = strchr(rest, '/');
	if (!slash || strchr(slash + 1, '/') || (size_t)(slash - rest) >= vgcap || strlen(slash + 1) >= lvcap)
		return 0;
	snprintf(vg, vgcap, "%.*s", (int)(slash - rest), rest);
	snprintf(lv, lvcap, "%s", slash + 1);
	for (size_t i = 0; i < sizeof not_vgs / sizeof not_vgs[0]; i++)
		if (!strcmp(vg, not_vgs[i]))
			return 0;
	return hi_lvm2_name_valid(vg) && hi_lvm2_name_valid(lv);
}

/* The disks are read as lvm2's label scan reads them: the first
 * LVM_SCAN_BYTES of every candidate asked for at once (one request each,
 * all in flight together), then each waited for in turn, by asking again
 * rather than by sleeping where the device allows it (hi_fs_pread_spin,
 * hi_fs_dev_spins: init/fsutil.h says why). */
#define LVM_SCAN_BYTES  (128 * 1024)            /* lvm2's scan size: label, mda header, text */

/* A block device of the scan, opened with its first bytes asked for. */
struct lvm_dev {
	char name[64];
	char devnum[LVM_DEVNUM_MAX];
	int fd;
	int skip;                       /* no PV can be here: left unopened */
	int spin;                       /* its reads wait by asking again */
	int opened;                     /* a LUKS2 volume the luks stage opened */
};

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct lvm_dev *d = ctx;

	if (!d->spin)
		return hi_fs_pread_all(d->fd, buf, len, off);
	return hi_fs_pread_spin(d->fd, buf, len, off, FS_SPIN_NS);
}

/* As the root stage skips them: devices whose reads can hang or that hold
 * no PV. dm devices are read: a PV may sit on one an earlier stage opened
 * (LVM on LUKS, as Debian's installer makes it). */
static int skip_name(const char *name)
{
	static const char *const prefixes[] = { ".", "sr", "fd", "ram", "zram", "nbd", "mtdblock" };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* What lvm2's default filters leave out without reading it: an empty
 * device (a loop device without a file, a drive without a medium), an LV
 * (scan_lvs = 0: an active LV is not a PV of its own VG), and a whole disk
 * whose partitions are listed (filter-partitioned): its PVs are those.
 * An md array's member is left out once its label is read (scan_device). */
static int cannot_be_pv(struct boot *b, const char *name)
{
	char buf[LVM2_NAME_MAX];

	if (hi_boot_sys_block_attr(b, name, "size", buf, sizeof buf) < 0 || strtoull(buf, NULL, 10) == 0)
		return 1;
	return strncmp(name, "dm-", 3) == 0 && hi_boot_sys_block_attr(b, name, "dm/uuid", buf, sizeof buf) == 0 &&
	       strncmp(buf, "LVM-", 4) == 0;
}

/* The disk NAME is a partition of, from its sysfs link (.../block/vda/vda1). */
static void mark_parent(struct boot *b, struct lvm_dev *devs, unsigned n, const char *name)
{
	char path[BOOT_PATH_MAX + 96], link[BOOT_PATH_MAX];

	snprintf(path, sizeof path, "%s/class/block/%s", b->sys, name);
	ssize_t len = readlink(path, link, sizeof link - 1);
	if (len <= 0)
		return;
	link[len] = '\0';
	char *last = strrchr(link, '/');
	if (!last)
		return;
	*last = '\0';
	const char *parent = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(devs[i].name, parent))
			devs[i].skip = 1;
}

/* One device: if it is a PV, remember it; if its text is our VG's with a
 * higher seqno, keep that metadata. Every PV of a VG carries the same
 * text: one that equals the last parsed is not parsed again. */
static void scan_device(struct boot *b, struct lvm_scan *s, struct lvm_dev *d)
{
	static char text[LVM2_META_MAX], parsed[LVM2_META_MAX];
	static size_t parsed_len = (size_t)-1;
	static struct lvm2_vg vg;
	char why[LVM2_ERR_MAX], what[MD_MEMBER_WHAT_MAX];
	struct lvm2_label label;

	int rc = hi_lvm2_pv_read(fd_read, d, &label, text, sizeof text, why, sizeof why);
	if (rc < 0 && s->n_bad++ == 0)
		snprintf(s->bad, sizeof s->bad, "%s: %s", d->name, why);
	if (rc <= 0)
		return;
	/* md_component_detection: an md member (a 1.0 or 0.90 one shows the
	 * array's PV label at its start) is not a PV; the array is. */
	if (hi_md_member(b->sys, b->dev, d->name, label.dev_size, what, sizeof what)) {
		if (s->n_md++ == 0)
			snprintf(s->md, sizeof s->md, "%s: %s", d->name, what);
		return;
	}
	if (s->n_pvs < LVM_MAX_DEVICES) {
		struct lvm_pv_seen *p = &s->pvs[s->n_pvs++];
		snprintf(p->id, sizeof p->id, "%s", label.pv_id);
		snprintf(p->name, sizeof p->name, "%s", d->name);
		snprintf(p->devnum, sizeof p->devnum, "%s", d->devnum);
	}
	size_t len = strlen(text);
	if (!len)
		return;
	if (len != parsed_len || memcmp(text, parsed, len) != 0) {
		parsed_len = (size_t)-1;
		if (hi_lvm2_meta_parse(text, len, &vg, why, sizeof why) < 0) {
			if (s->n_bad++ == 0)
				snprintf(s->bad, sizeof s->bad, "%s: %s", d->name, why);
			return;
		}
		memcpy(parsed, text, len);
		parsed_len = len;
	}
	if (strcmp(vg.name, s->vg_name) != 0)
		return;
	if (s->have_vg && strcmp(vg.id, s->vg.id) != 0) {
		log_warn("lvm: two volume groups named %s (%s on %s, and another); using the one seen first",
			 vg.name, vg.id, d->name);
		return;
	}
	if (!s->have_vg || vg.seqno > s->vg.seqno) {
		s->vg = vg;
		s->have_vg = 1;
	}
}

/* A device the luks stage opened: dm, with cryptsetup's LUKS2 dm uuid
 * (nothing else makes a dm device before this stage). */
static int opened_volume(struct boot *b, const char *name)
{
	char uuid[LVM2_NAME_MAX];
	return strncmp(name, "dm-", 3) == 0 && hi_boot_sys_block_attr(b, name, "dm/uuid", uuid, sizeof uuid) == 0 &&
	       strncmp(uuid, LUKS2_DM_UUID_PREFIX, strlen(LUKS2_DM_UUID_PREFIX)) == 0;
}

/* The block devices of /sys/class/block into devs (*n of them), a
 * partitioned disk marked through its partitions (mark_parent). */
static int list_devices(struct boot *b, struct lvm_dev *devs, unsigned *n)
{
	char path[BOOT_PATH_MAX + 96];
	struct dirent *e;

	snprintf(path, sizeof path, "%s/class/block", b->sys);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	while ((e = readdir(dir)) != NULL && *n < LVM_MAX_DEVICES) {
		if (skip_name(e->d_name) || strlen(e->d_name) >= sizeof devs[*n].name)
			continue;
		snprintf(devs[*n].name, sizeof devs[*n].name, "%s", e->d_name);
		devs[*n].fd = -1;
		devs[*n].skip = 0;
		devs[*n].opened = 0;
		(*n)++;
	}
	closedir(dir);
	for (unsigned i = 0; i < *n; i++) {
		snprintf(path, sizeof path, "%s/class/block/%s/partition", b->sys, devs[i].name);
		if (access(path, F_OK) == 0)
			mark_parent(b, devs, *n, devs[i].name);
	}
	return 0;
}

static void scan(struct boot *b, struct lvm_scan *s)
{
	static struct lvm_dev devs[LVM_MAX_DEVICES];
	char path[BOOT_PATH_MAX + 96];
	unsigned n = 0;

	s->n_devs = s->n_pvs = s->n_bad = s->n_md = 0;
	s->on_opened = 0;
	s->bad[0] = '\0';
	if (list_devices(b, devs, &n) < 0)
		return;
	s->n_devs = n;
	/* Every candidate's first bytes asked for before any is waited for. */
	for (unsigned i = 0; i < n; i++) {
		struct lvm_dev *d = &devs[i];
		if (d->skip || cannot_be_pv(b, d->name) ||
		    hi_boot_sys_block_attr(b, d->name, "dev", d->devnum, sizeof d->devnum) < 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", b->dev, d->name);
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (d->fd < 0)
			continue;
		d->spin = hi_fs_dev_spins(d->name);
		d->opened = opened_volume(b, d->name);
		/* Exactly what is asked for, no readahead behind it: a close
		 * with pages still in flight would wait for them. */
		posix_fadvise(d->fd, 0, 0, POSIX_FADV_RANDOM);
		posix_fadvise(d->fd, 0, LVM_SCAN_BYTES, POSIX_FADV_WILLNEED);
	}
	/* The volumes the luks stage opened first: when the VG is on one, no
	 * other device is read for it. A disk plugged in (a USB stick with a
	 * PV of the same VG id and a higher seqno, or another VG of the same
	 * name) then cannot replace the metadata or a PV of the VG that the
	 * passphrase or the TPM opened. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			s->on_opened = s->have_vg;
		for (unsigned i = 0; i < n; i++) {
			struct lvm_dev *d = &devs[i];
			if (d->fd < 0 || d->opened != (pass == 0))
				continue;
			if (!s->on_opened)
				scan_device(b, s, d);
			close(d->fd);
			d->fd = -1;
		}
	}
}


/* The device of each PV of the VG, or the first missing one's index. */
static int match_pvs(const struct lvm_scan *s, const char *dev[], unsigned *missing)
{
	for (unsigned i = 0; i < s->vg.n_pvs; i++) {
		dev[i] = NULL;
		for (unsigned k = 0; k < s->n_pvs && !dev[i]; k++)
			if (!strcmp(s->pvs[k].id, s->vg.pvs[i].id))
				dev[i] = s->pvs[k].devnum;
		if (!dev[i]) {
			*missing = i;
			return -1;
		}
	}
	return 0;
}

/* Bounded as root= is: until the VG and all its PVs are seen. */
static int wait_for_vg(struct boot *b, struct lvm_scan *s, const char *dev[], const char *what, const char *spec)
{
	int timeout = b->cmd.rootwait ? b->cfg.rootwait_timeout : b->cfg.root_timeout;
	struct dev_wait w;
	unsigned missing = 0;

	hi_dev_wait_begin(&w, timeout * 1000L);
	do {
		s->have_vg = 0;
		s->scan_start = hi_boottime_ns();
		scan(b, s);
		s->scan_end = hi_boottime_ns();
		if (s->have_vg && match_pvs(s, dev, &missing) == 0)
			return 0;
	} while (hi_dev_wait_next(&w));
	if (s->n_bad)
		log_err("lvm: a damaged PV was skipped: %s", s->bad);
	char md[sizeof s->md + 200] = "";
	if (s->n_md)
		snprintf(md, sizeof md, "; %u md member(s) carry a PV label, left for their array (%s): put md in the "
			 "image or attach the array's missing members", s->n_md, s->md);
	if (!s->have_vg)
		return hi_boot_error(b, "lvm: %s=%s names volume group %s, which no disk holds (%u block devices, %u PVs seen in %d s); check %s=, or add the disk's driver to the image (hardinit-mkinitramfs --modules)%s%s",
				  what, spec, s->vg_name, s->n_devs, s->n_pvs, timeout, what,
				  b->cmd.rootwait ? "" : "; rootwait waits longer", md);
	char id[LVM2_ID_LEN + 8];
	hi_lvm2_id_format(s->vg.pvs[missing].id, id, sizeof id);
	return hi_boot_error(b, "lvm: volume group %s is missing PV %s (%s of %u, seqno %llu); attach that disk or add its driver to the image%s",
			  s->vg.name, id, s->vg.pvs[missing].name, s->vg.n_pvs, (unsigned long long)s->vg.seqno, md);
}

/* /dev/mapper/NAME and /dev/VG/LV -> ../mapper/NAME, as lvm2 with udev
 * leaves them (devtmpfs only makes dm-N). */
static int make_nodes(struct boot *b, const char *dm_name, dev_t dev, const struct lvm_scan *s)
{
	char path[BOOT_PATH_MAX + 2 * LVM2_NAME_MAX + 16], target[LVM_DM_NAME_MAX + 16];

	char why[sizeof path + 64];

	if (hi_dm_mapper_node(b->dev, dm_name, dev, path, sizeof path, why, sizeof why) < 0)
		return hi_boot_error(b, "lvm: %s", why);
	snprintf(path, sizeof path, "%s/%s", b->dev, s->vg.name);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return hi_boot_error(b, "lvm: cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/%s/%s", b->dev, s->vg.name, s->lv_name);
	snprintf(target, sizeof target, "../mapper/%s", dm_name);
	if (symlink(target, path) < 0 && errno != EEXIST)
		return hi_boot_error(b, "lvm: cannot create %s: %s", path, strerror(errno));
	return 0;
}

static int activate(struct boot *b, struct lvm_scan *s, const struct lvm2_lv *lv,
		    const struct lvm2_target *t, unsigned n, const char *what)
{
	char dm_name[LVM_DM_NAME_MAX], uuid[4 + 2 * LVM2_ID_LEN + 1], why[256];
	struct dm_target dt[LVM_MAX_TARGETS];
	const char *step;
	dev_t dev;

	if (hi_lvm2_dm_name(s->vg.name, lv->name, dm_name, sizeof dm_name) < 0 ||
	    hi_lvm2_dm_uuid(&s->vg, lv, uuid, sizeof uuid) < 0)
		return hi_boot_error(b, "lvm: %s/%s: the device-mapper name is longer than %d bytes; rename the LV",
				  s->vg.name, lv->name, LVM_DM_NAME_MAX - 1);
	for (unsigned i = 0; i < n; i++)
		dt[i] = (struct dm_target){ t[i].start, t[i].length, t[i].type, t[i].params };
	int fd = hi_dm_control_open(b->dev, b->sys, 1, why, sizeof why);
	if (fd < 0)
		return hi_boot_error(b, "lvm: %s; build the image with dm-mod (hardinit-mkinitramfs --modules dm-mod)", why);
	/* Made, then loaded and resumed, each timed (elapsed and PID 1's CPU):
	 * DM_DEV_CREATE sleeps while kthreadd makes the device's kdmflush
	 * thread, DM_TABLE_LOAD while devtmpfs makes dm-N; what the elapsed
	 * time has over the CPU went to other threads (make bench). */
	uint64_t t0 = hi_boottime_ns(), c0 = hi_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	step = "DM_DEV_CREATE";
	int rc = hi_dm_create_device(fd, dm_name, uuid, &dev);
	int err = errno;
	uint64_t t1 = hi_boottime_ns(), c1 = hi_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (rc == 0) {
		rc = hi_dm_load_table(fd, dm_name, dt, n, !lv->writable, &step);
		err = errno;
	}
	s->create_ns[0] = t1 - t0;
	s->create_ns[1] = c1 - c0;
	s->load_ns[0] = hi_boottime_ns() - t1;
	s->load_ns[1] = hi_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c1;
	close(fd);
	if (rc < 0) {
		if (err == EEXIST || err == EBUSY)
			return hi_boot_error(b, "lvm: %s: a device-mapper device named %s already exists; boot again", step, dm_name);
		return hi_boot_error(b, "lvm: the kernel refused the table of %s/%s (%s: %s); the kernel log (device-mapper:) says why",
				  s->vg.name, lv->name, step, strerror(err));
	}
	if (make_nodes(b, dm_name, dev, s) < 0)
		return -1;
	/* So the real root's udev and systemd take the device as lvm2's. */
	if (hi_dm_udev_db_write(b->run, major(dev), minor(dev), why, sizeof why) < 0)
		log_warn("lvm: %s; the real root's udev will not link /dev/disk/* to %s, and systemd units naming it wait for it",
			 why, dm_name);
	if (!strcmp(what, "root")) {
		hi_report_add(&b->rep, "lvm", "lv", "ok", "%s/%s", s->vg.name, lv->name);
		hi_report_add(&b->rep, "lvm", "dm_name", "ok", "%s", dm_name);
		hi_report_add(&b->rep, "lvm", "targets", "info", "%u %s", n, n == 1 ? t[0].type : "segments");
		hi_report_add(&b->rep, "lvm", "pvs", "info", "%u", s->vg.n_pvs);
	} else {
		hi_report_add(&b->rep, "lvm", "resume_lv", "ok", "%s/%s as %s", s->vg.name, lv->name, dm_name);
	}
	log_notice("lvm: activated %s/%s as /dev/mapper/%s (%u target%s over %u PV%s, seqno %llu%s)", s->vg.name,
		   lv->name, dm_name, n, n == 1 ? "" : "s", s->vg.n_pvs, s->vg.n_pvs == 1 ? "" : "s",
		   (unsigned long long)s->vg.seqno, s->on_opened ? ", PVs from opened LUKS2 volumes only" : "");
	return 0;
}

/* Under -icount (make bench): the wait for the disks, the scan that found
 * the VG (labels, metadata, parse) and the setup (table, ioctls, nodes),
 * with the setup's two ioctl waits, elapsed and on PID 1's CPU. */
static void report_ms(struct boot *b, const char *key, uint64_t ns)
{
	hi_report_add(&b->rep, "lvm", key, "info", "%llu.%03llu", (unsigned long long)(ns / 1000000),
		   (unsigned long long)(ns / 1000 % 1000));
}

/* One LV named by SPEC (root= or resume=, WHAT says which): found, its
 * table built, activated. 0 when SPEC names no LV. */
static int activate_spec(struct boot *b, const char *what, const char *spec)
{
	static struct lvm_scan s;
	static struct lvm2_target t[LVM_MAX_TARGETS];
	const char *dev[LVM2_MAX_PVS];
	char why[LVM2_ERR_MAX], vg_name[LVM2_NAME_MAX], lv_name[LVM2_NAME_MAX];

	/* The names first, and s cleared only for an LV: clearing all of s
	 * (about 390 KB) on every boot touched each of its pages, about 96
	 * page faults for a root that is no LV, each a trap through Xen in a
	 * PV guest (bench/xen). */
	if (!lvm_root_names(spec, vg_name, sizeof vg_name, lv_name, sizeof lv_name))
		return 0;
	memset(&s, 0, sizeof s);
	memcpy(s.vg_name, vg_name, sizeof vg_name);
	memcpy(s.lv_name, lv_name, sizeof lv_name);
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would activate LVM logical volume %s/%s for %s=%s", s.vg_name, s.lv_name, what, spec);
		return 0;
	}
	uint64_t start = hi_boottime_ns();
	if (wait_for_vg(b, &s, dev, what, spec) < 0)
		return -1;
	const struct lvm2_lv *lv = hi_lvm2_lv_find(&s.vg, s.lv_name);
	if (!lv)
		return hi_boot_error(b, "lvm: volume group %s has no logical volume %s (seqno %llu, %u LVs); check %s=",
				  s.vg.name, s.lv_name, (unsigned long long)s.vg.seqno, s.vg.n_lvs, what);
	if (!lv->visible)
		return hi_boot_error(b, "lvm: %s/%s is a hidden LV (part of another LV); %s= must name a visible one",
				  s.vg.name, s.lv_name, what);
	int n = hi_lvm2_lv_table(&s.vg, lv, dev, t, LVM_MAX_TARGETS, why, sizeof why);
	if (n < 0)
		return hi_boot_error(b, "lvm: %s; put %s on a linear or striped LV, or boot this one with an initramfs that carries lvm2",
				  why, strcmp(what, "root") ? "swap" : "/");
	if (activate(b, &s, lv, t, (unsigned)n, what) < 0)
		return -1;
	if (!strcmp(what, "root")) {
		report_ms(b, "wait_ms", s.scan_start - start);
		report_ms(b, "scan_ms", s.scan_end - s.scan_start);
		report_ms(b, "setup_ms", hi_boottime_ns() - s.scan_end);
		report_ms(b, "create_ms", s.create_ns[0]);
		report_ms(b, "create_cpu_ms", s.create_ns[1]);
		report_ms(b, "load_ms", s.load_ns[0]);
		report_ms(b, "load_cpu_ms", s.load_ns[1]);
	}
	return 0;
}

int hi_lvm_spec_mapper(const char *spec, char *out, size_t cap)
{
	char vg[LVM2_NAME_MAX], lv[LVM2_NAME_MAX], dm_name[LVM_DM_NAME_MAX];

	if (!spec || !strncmp(spec, "/dev/mapper/", 12) || !lvm_root_names(spec, vg, sizeof vg, lv, sizeof lv))
		return 0;
	if (hi_lvm2_dm_name(vg, lv, dm_name, sizeof dm_name) < 0 ||
	    (size_t)snprintf(out, cap, "/dev/mapper/%s", dm_name) >= cap)
		return 0;
	return 1;
}

int hi_stage_lvm(struct boot *b)
{
	static char root_spec[BOOT_PATH_MAX];   /* /dev/VG/LV as the root stage matches it */
	bool noresume = false;
	const char *resume = hi_cmdline_get(&b->cmd, "resume", NULL);

	if (!b->cfg.root_lvm)
		return 0;
	if (activate_spec(b, "root", b->cmd.root) < 0)
		return -1;
	/* resume= on an LV: activated so resume_check (the root stage) can
	 * read its swap signature; not with noresume or a swap file, which
	 * resume_check does not read. */
	hi_cmdline_get(&b->cmd, "noresume", &noresume);
	if (resume && !noresume && !hi_cmdline_get(&b->cmd, "resume_offset", NULL) &&
	    (!b->cmd.root || strcmp(resume, b->cmd.root) != 0) && activate_spec(b, "resume", resume) < 0)
		return -1;
	/* /dev/VG/LV is lvm2's link to /dev/mapper/VG-LV: the root stage
	 * finds that by the dm device's name. */
	if (b->mode != MODE_DRY_RUN && hi_lvm_spec_mapper(b->cmd.root, root_spec, sizeof root_spec))
		b->cmd.root = root_spec;
	return 0;
}
