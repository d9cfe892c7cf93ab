/* md assembly as mdadm --assemble does it for a persistent superblock:
 * SET_ARRAY_INFO with only the superblock's version (the kernel then reads
 * each member's superblock itself), ADD_NEW_DISK per member, RUN_ARRAY.
 * The choice of members is mdadm's: the freshest event count wins, one
 * behind is kept (a clean shutdown leaves that), further behind is left
 * out; faulty members are left out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/major.h>
#include <linux/raid/md_u.h>

#include "fsutil.h"
#include "md_assemble.h"

static int same_array(const struct md_sb *a, const struct md_sb *b)
{
	return memcmp(a->uuid, b->uuid, MD_SB_UUID_LEN) == 0 && a->major == b->major && a->minor == b->minor;
}

unsigned hi_md_plan(const struct md_member *m, unsigned n, struct md_array *arrays, unsigned cap)
{
	unsigned na = 0;

	if (n > MD_MAX_MEMBERS)
		n = MD_MAX_MEMBERS;
	/* The arrays, each with its freshest superblock. */
	for (unsigned i = 0; i < n; i++) {
		unsigned k;
		for (k = 0; k < na && !same_array(&arrays[k].sb, &m[i].sb); k++)
			;
		if (k == na) {
			if (na == cap)
				continue;
			memset(&arrays[na], 0, sizeof arrays[na]);
			arrays[na++].sb = m[i].sb;
		} else if (m[i].sb.events > arrays[k].sb.events) {
			arrays[k].sb = m[i].sb;
		}
	}
	/* Each member: added, or left out as stale or faulty. */
	for (unsigned k = 0; k < na; k++) {
		struct md_array *a = &arrays[k];
		static uint8_t held[MD_SB_MAX_DISKS];
		memset(held, 0, sizeof held);
		for (unsigned i = 0; i < n; i++) {
			const struct md_sb *s = &m[i].sb;
			if (!same_array(&a->sb, s))
				continue;
			int fresh = s->events + MD_EVENT_MARGIN >= a->sb.events;
			int slot = s->role < a->sb.raid_disks && s->role < MD_SB_MAX_DISKS;
			/* Two members claiming one slot: the first seen is
			 * added, as the kernel would refuse the second. */
			if (!fresh || s->role == MD_SB_ROLE_FAULTY || s->role == MD_SB_ROLE_JOURNAL || (slot && held[s->role])) {
				a->stale[a->n_stale++] = i;
				if (!fresh)
					a->n_behind++;
				else if (slot && held[s->role])
					a->n_dup++;
				continue;
			}
			if (slot) {
				held[s->role] = 1;
				a->n_active++;
			}
			a->member[a->n_member++] = i;
		}
		a->first_missing = a->sb.raid_disks;
		for (unsigned r = 0; r < a->sb.raid_disks && r < MD_SB_MAX_DISKS; r++)
			if (!held[r]) {
				a->first_missing = r;
				break;
			}
	}
	return na;
}

int hi_md_complete(const struct md_array *a)
{
	return a->n_active == a->sb.raid_disks && a->n_behind == 0 && a->n_dup == 0;
}

int hi_md_can_degrade(const struct md_array *a)
{
	unsigned missing = a->sb.raid_disks - a->n_active;

	if (a->n_active == 0)
		return 0;
	switch (a->sb.level) {
	case 1:
		return 1;
	case 4:
	case 5:
		return missing <= 1;
	case 6:
		return missing <= 2;
	case 10:
		return a->n_active * 2 >= a->sb.raid_disks;
	default:
		return missing == 0;
	}
}

const char *hi_md_level_name(int32_t level)
{
	switch (level) {
	case -4: return "multipath";
	case -1: return "linear";
	case 0: return "raid0";
	case 1: return "raid1";
	case 4: return "raid4";
	case 5: return "raid5";
	case 6: return "raid6";
	case 10: return "raid10";
	default: return "an unknown level";
	}
}

/* md<minor> is free: no such device, or one holding nothing ("clear"). */
static int minor_free(const char *sys_dir, int minor)
{
	char path[512], state[32];

	snprintf(path, sizeof path, "%s/block/md%d", sys_dir, minor);
	if (access(path, F_OK) != 0)
		return 1;
	snprintf(path, sizeof path, "%s/block/md%d/md/array_state", sys_dir, minor);
	if (hi_fs_read(path, state, sizeof state, NULL) < 0)
		return 0;
	state[strcspn(state, "\n")] = '\0';
	return strcmp(state, "clear") == 0;
}

/* The mdN holding NAME (its holders/ entry) into out: 1, else 0. */
static int held_by_md(const char *sys_dir, const char *name, char *out, size_t cap)
{
	char path[512];
	struct dirent *e;
	int found = 0;

	if ((size_t)snprintf(path, sizeof path, "%s/class/block/%s/holders", sys_dir, name) >= sizeof path)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "md", 2) == 0) {
			snprintf(out, cap, "%s", e->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return hi_fs_pread_all(*(int *)ctx, buf, len, off);
}

bool hi_md_sb_outside(enum md_sb_kind kind, uint64_t bytes, uint64_t content_end)
{
	/* More than the device holds: the start is an array's whose data is
	 * striped or concatenated over its members (raid0, linear, raid4/5/6,
	 * raid10), seen on member 0; no file system on the device itself
	 * claims that (the kernel mounts none). */
	if (kind == MD_SB_1_1 || kind == MD_SB_1_2 || content_end == 0 || content_end > bytes)
		return true;
	uint64_t at = hi_md_sb_offset(kind == MD_SB_KINDS ? MD_SB_0_90 : kind, bytes);
	return at != UINT64_MAX && at >= content_end;
}

/* An md superblock on NAME (its size from sysfs: the node may be a test's
 * file) outside content_end: 1 with what, 0 none or unreadable. */
static int carries_sb(const char *sys_dir, const char *dev_dir, const char *name, uint64_t content_end, char *what,
		      size_t cap)
{
	char path[512], size[32], why[MD_SB_ERR_MAX], uuid[MD_SB_UUID_TEXT];
	struct md_sb sb;

	if ((size_t)snprintf(path, sizeof path, "%s/class/block/%s/size", sys_dir, name) >= sizeof path ||
	    hi_fs_read(path, size, sizeof size, NULL) < 0)
		return 0;
	uint64_t bytes = strtoull(size, NULL, 10) * 512u;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dev_dir, name) >= sizeof path)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	int rc = hi_md_sb_read(fd_read, &fd, bytes, &sb, why, sizeof why);
	close(fd);
	if (rc == 0 || !hi_md_sb_outside(rc > 0 ? sb.kind : MD_SB_KINDS, bytes, content_end))
		return 0;
	hi_md_sb_uuid_format(sb.uuid, uuid);
	if (rc > 0)
		snprintf(what, cap, "an md %u.%u member of array %s", sb.major, sb.minor, uuid);
	else
		snprintf(what, cap, "a device with a damaged md superblock (%s)", why);
	return 1;
}

int hi_md_member(const char *sys_dir, const char *dev_dir, const char *name, uint64_t content_end, char *what,
		 size_t cap)
{
	char holder[MD_DEV_NAME_MAX], disk[MD_DEV_NAME_MAX];

	if (held_by_md(sys_dir, name, holder, sizeof holder))
		return snprintf(what, cap, "held by %s", holder), 1;
	/* A whole disk in an array: its partitions are the array's, read
	 * through the member. */
	if (hi_fs_sys_whole_disk(sys_dir, name, disk, sizeof disk) && held_by_md(sys_dir, disk, holder, sizeof holder))
		return snprintf(what, cap, "a partition of %s, held by %s", disk, holder), 1;
	if (strncmp(name, "md", 2) == 0 || strncmp(name, "dm-", 3) == 0)
		return 0;
	return carries_sb(sys_dir, dev_dir, name, content_end, what, cap);
}

int hi_md_pick_minor(const char *sys_dir, const struct md_sb *sb)
{
	uint32_t want = hi_md_sb_minor(sb);

	if (want != MD_SB_NO_MINOR && want <= MD_MAX_MINOR && minor_free(sys_dir, (int)want))
		return (int)want;
	for (int m = MD_AUTO_MINOR; m >= 0; m--)
		if (minor_free(sys_dir, m))
			return m;
	return -1;
}

/* md<minor> made by the md module (new_array, as mdadm asks for it), and
 * its node under dev_dir: devtmpfs makes it; mknod when it did not. */
static int make_node(const char *dev_dir, const char *sys_dir, int minor, char *node, size_t cap, char *why,
		     size_t whylen)
{
	char path[512], name[16], devnum[32];
	unsigned maj = MD_MAJOR, min = (unsigned)minor;
	struct stat st;

	snprintf(name, sizeof name, "md%d", minor);
	snprintf(path, sizeof path, "%s/module/md_mod/parameters/new_array", sys_dir);
	if (hi_fs_write(path, name) < 0 && errno != EEXIST && errno != ENOENT && errno != EINVAL)
		return snprintf(why, whylen, "%s: %s", path, strerror(errno)), -1;
	snprintf(path, sizeof path, "%s/block/%s/dev", sys_dir, name);
	if (hi_fs_read(path, devnum, sizeof devnum, NULL) == 0 && sscanf(devnum, "%u:%u", &maj, &min) != 2) {
		maj = MD_MAJOR;
		min = (unsigned)minor;
	}
	if ((size_t)snprintf(node, cap, "%s/%s", dev_dir, name) >= cap)
		return snprintf(why, whylen, "%s/%s: path too long", dev_dir, name), -1;
	if (stat(node, &st) == 0) {
		if (S_ISBLK(st.st_mode) && st.st_rdev == makedev(maj, min))
			return 0;
		return snprintf(why, whylen, "%s exists and is not block device %u:%u", node, maj, min), -1;
	}
	if (mknod(node, S_IFBLK | 0600, makedev(maj, min)) < 0 && errno != EEXIST)
		return snprintf(why, whylen, "cannot create %s: %s", node, strerror(errno)), -1;
	return 0;
}

int hi_md_assemble(const char *dev_dir, const char *sys_dir, const struct md_array *a, const struct md_member *m,
		   int minor, char *node, size_t nodecap, char *why, size_t whylen)
{
	if (minor < 0 || minor > MD_MAX_MINOR)
		return snprintf(why, whylen, "no free md device number"), -1;
	if (make_node(dev_dir, sys_dir, minor, node, nodecap, why, whylen) < 0)
		return -1;
	int fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return snprintf(why, whylen, "cannot open %s: %s", node, strerror(errno)), -1;

	/* Only the version: the kernel reads the superblocks (raid_disks 0). */
	mdu_array_info_t info;
	memset(&info, 0, sizeof info);
	info.major_version = (int)a->sb.major;
	info.minor_version = (int)a->sb.minor;
	const char *step = "SET_ARRAY_INFO";
	int rc = ioctl(fd, SET_ARRAY_INFO, &info);
	for (unsigned i = 0; rc == 0 && i < a->n_member; i++) {
		mdu_disk_info_t disk;
		memset(&disk, 0, sizeof disk);
		disk.major = (int)m[a->member[i]].major;
		disk.minor = (int)m[a->member[i]].minor;
		step = "ADD_NEW_DISK";
		rc = ioctl(fd, ADD_NEW_DISK, &disk);
		if (rc < 0)
			snprintf(why, whylen, "ADD_NEW_DISK %s: %s", m[a->member[i]].name, strerror(errno));
	}
	if (rc == 0) {
		step = "RUN_ARRAY";
		rc = ioctl(fd, RUN_ARRAY, 0);
	}
	if (rc < 0) {
		int err = errno;
		if (strcmp(step, "ADD_NEW_DISK") != 0)
			snprintf(why, whylen, "%s on %s: %s", step, node, strerror(err));
		ioctl(fd, STOP_ARRAY, 0);   /* nothing half-made left for a shell or a retry */
		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	return 0;
}

int hi_md_check_run(const char *sys_dir, const struct md_array *a, int minor, int degraded_ok, char *why,
		    size_t whylen)
{
	char path[512], text[32], *end;

	/* linear and raid0 have no md/degraded: they never run degraded. */
	if (a->sb.level != 1 && a->sb.level != 4 && a->sb.level != 5 && a->sb.level != 6 && a->sb.level != 10)
		return 0;
	snprintf(path, sizeof path, "%s/block/md%d/md/degraded", sys_dir, minor);
	if (hi_fs_read(path, text, sizeof text, NULL) < 0) {
		if (degraded_ok)
			return 0;
		return snprintf(why, whylen, "cannot read %s (%s), so whether the kernel runs it degraded is unknown", path,
				strerror(errno)), -1;
	}
	errno = 0;
	unsigned long n = strtoul(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		return snprintf(why, whylen, "%s reads '%.16s', not a count", path, text), -1;
	if (n == 0 || degraded_ok)
		return 0;
	return snprintf(why, whylen, "the kernel runs it with %lu of %u members missing (%s) where hardinit counted %u held: "
			"a member's role table disagrees with the others (a disk planted as a spare?)",
			n, a->sb.raid_disks, path, a->n_active), -1;
}

void hi_md_stop(const char *node)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	ioctl(fd, STOP_ARRAY, 0);
	close(fd);
}
