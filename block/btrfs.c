/* btrfs's superblock (struct btrfs_super_block in the kernel's
 * include/uapi/linux/btrfs_tree.h) and its control device
 * (fs/btrfs/super.c: btrfs_control_ioctl). */
#include "btrfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>


#define SB_NUM_DEVICES   0x88
#define SB_DEV_ITEM      0xc9   /* struct btrfs_dev_item: devid first */
#define SB_DEV_TOTAL     (SB_DEV_ITEM + 8)   /* the dev_item's total_bytes */

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int hi_btrfs_sb_parse(const unsigned char *sb, size_t len, struct btrfs_sb *out)
{
	memset(out, 0, sizeof *out);
	if (len < BTRFS_SB_READ_BYTES || memcmp(sb + BTRFS_SB_MAGIC, BTRFS_MAGIC, 8) != 0)
		return -1;
	uint64_t devid = le64(sb + SB_DEV_ITEM), n = le64(sb + SB_NUM_DEVICES);
	/* devids count from 1; a replaced device's may exceed num_devices
	 * (btrfs replace keeps the new devid), so only the count is bounded. */
	if (devid == 0 || n == 0 || n > BTRFS_MEMBERS_MAX)
		return -1;
	memcpy(out->fsid, sb + BTRFS_SB_FSID, sizeof out->fsid);
	out->devid = devid;
	out->num_devices = n;
	out->total_bytes = le64(sb + SB_DEV_TOTAL);
	return 0;
}

void hi_btrfs_members_init(struct btrfs_members *set, const char *fsid, uint64_t num_devices)
{
	memset(set, 0, sizeof *set);
	snprintf(set->fsid, sizeof set->fsid, "%s", fsid);
	set->num_devices = num_devices;
}

int hi_btrfs_members_add(struct btrfs_members *set, const char *fsid, uint64_t devid, uint64_t num_devices,
			 const char *node)
{
	if (strcmp(fsid, set->fsid) != 0 || num_devices != set->num_devices || devid == 0)
		return 1;
	for (size_t i = 0; i < set->n; i++)
		if (set->m[i].devid == devid)
			return strcmp(set->m[i].node, node) == 0 ? 0 : -1;
	/* More devices than the superblocks count: one of them is not a
	 * member (a planted device with the root's fsid and a devid of its
	 * own, or an old member never wiped), and the kernel would take the
	 * one with the newest generation for the whole file system. Not one
	 * file system: the duplicate check decides. */
	if (set->n >= set->num_devices || set->n >= BTRFS_MEMBERS_MAX)
		return 1;
	if (strlen(node) >= sizeof set->m[0].node)
		return -2;
	set->m[set->n].devid = devid;
	snprintf(set->m[set->n].node, sizeof set->m[0].node, "%s", node);
	set->n++;
	return 0;
}

static int has_devid(const struct btrfs_members *set, uint64_t devid)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->m[i].devid == devid)
			return 1;
	return 0;
}

/* Members are counted, not numbered 1..n: after a device is removed or
 * replaced the devids have gaps. */
int hi_btrfs_members_complete(const struct btrfs_members *set)
{
	return set->num_devices > 0 && set->n >= set->num_devices;
}

void hi_btrfs_members_missing(const struct btrfs_members *set, char *out, size_t cap)
{
	size_t used = 0, missing = set->num_devices > set->n ? set->num_devices - set->n : 0, named = 0;
	char one[40];

	if (cap == 0)
		return;
	out[0] = '\0';
	/* The devids that are not there, while they run 1..num_devices (no
	 * device removed since); past the room, how many more. */
	for (uint64_t d = 1; d <= set->num_devices && named < missing; d++) {
		if (has_devid(set, d))
			continue;
		size_t len = (size_t)snprintf(one, sizeof one, "%sdevid %llu", named ? ", " : "", (unsigned long long)d);
		if (used + len + 24 >= cap)
			break;
		memcpy(out + used, one, len + 1);
		used += len;
		named++;
	}
	if (named < missing && named)
		snprintf(out + used, cap - used, " and %zu more", missing - named);
	else if (named < missing)
		snprintf(out + used, cap - used, "%zu device%s", missing, missing == 1 ? "" : "s");
}

void hi_btrfs_members_found(const struct btrfs_members *set, char *out, size_t cap)
{
	size_t used = 0;

	if (cap == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < set->n; i++) {
		int w = snprintf(out + used, cap - used, "%sdevid %llu on %s", i ? ", " : "",
				 (unsigned long long)set->m[i].devid, set->m[i].node);
		if (w < 0 || (size_t)w >= cap - used) {
			out[used] = '\0';
			return;
		}
		used += (size_t)w;
	}
}

/* subvol=/@rootfs, @rootfs and @rootfs/ name one subvolume: btrfs walks
 * the path from the top level. Its components joined by single slashes
 * into out ("" for the top level); -1 when it does not fit. */
static int subvol_norm(const char *p, size_t len, char *out, size_t cap)
{
	size_t used = 0;

	for (size_t i = 0; i < len;) {
		if (p[i] == '/') {
			i++;
			continue;
		}
		size_t n = strcspn(p + i, "/");
		if (n > len - i)
			n = len - i;
		if (used + n + 2 > cap)
			return -1;
		if (used)
			out[used++] = '/';
		memcpy(out + used, p + i, n);
		used += n;
		i += n;
	}
	if (cap == 0)
		return -1;
	out[used] = '\0';
	return 0;
}

/* The lock's verdict on one option of rootflags (of len bytes): 0 it
 * stands, -1 refused with err set. */
static int locked_option(const char *opt, size_t len, const char *image, const char *want, char *err, size_t errlen)
{
	static char got[BTRFS_SUBVOL_MAX];
	int w = len > 200 ? 200 : (int)len;

	if (len >= 7 && strncmp(opt, "subvol=", 7) == 0) {
		if (subvol_norm(opt + 7, len - 7, got, sizeof got) == 0 && strcmp(got, want) == 0)
			return 0;
		snprintf(err, errlen, "rootflags=%.*s names another btrfs subvolume than the image's %s, refused under the "
			 "lock (lock_cmdline = yes): an older snapshot there can be a weaker system; remove the word, or "
			 "rebuild the image on the system booted from that subvolume", w, opt, image);
		return -1;
	}
	if (len >= 9 && strncmp(opt, "subvolid=", 9) == 0) {
		snprintf(err, errlen, "rootflags=%.*s is refused under the lock (lock_cmdline = yes): it can name any btrfs "
			 "subvolume, an older snapshot among them; remove it: the image's subvolume %s is mounted without it",
			 w, opt, image);
		return -1;
	}
	if (len >= 7 && strncmp(opt, "device=", 7) == 0) {
		snprintf(err, errlen, "rootflags=%.*s is refused under the lock (lock_cmdline = yes): it adds a device to the "
			 "btrfs root beside the members the root stage checked; remove it: the root stage registers the "
			 "root's members itself", w, opt);
		return -1;
	}
	return 0;
}

int hi_btrfs_root_flags(const char *rootflags, const char *image, int locked, char *data, size_t cap, char *err,
			size_t errlen)
{
	static char want[BTRFS_SUBVOL_MAX];
	const char *flags = rootflags ? rootflags : "";
	int named = 0;

	if (cap == 0)
		return -1;
	data[0] = '\0';
	if (image && (image[0] != '/' || strpbrk(image, ",\n") ||
		      subvol_norm(image, strlen(image), want, sizeof want) < 0)) {
		snprintf(err, errlen, "the image's btrfs subvolume '%.200s' is not a path from the top level without a "
			 "comma; rebuild the image with hardinit-mkinitramfs", image);
		return -1;
	}
	for (const char *p = flags; image && *p;) {
		size_t n = strcspn(p, ",");
		if (locked && locked_option(p, n, image, want, err, errlen) < 0)
			return -1;
		if ((n >= 7 && strncmp(p, "subvol=", 7) == 0) || (n >= 9 && strncmp(p, "subvolid=", 9) == 0))
			named = 1;
		p += n + (p[n] == ',');
	}
	int w = image && !named ? snprintf(data, cap, "%s%ssubvol=%s", flags, flags[0] ? "," : "", image)
				: snprintf(data, cap, "%s", flags);
	if (w < 0 || (size_t)w >= cap) {
		snprintf(err, errlen, "rootflags= with the image's btrfs subvolume is longer than %zu bytes; shorten it",
			 cap - 1);
		return -1;
	}
	return 0;
}

static int control_ioctl(const char *control, unsigned long req, const char *node)
{
	struct btrfs_ioctl_vol_args args;

	memset(&args, 0, sizeof args);
	if (strlen(node) >= sizeof args.name) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(args.name, sizeof args.name, "%s", node);
	int fd = open(control, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = ioctl(fd, req, &args);
	int err = errno;
	close(fd);
	errno = err;
	return rc;
}

int hi_btrfs_register(const char *control, const char *node)
{
	return control_ioctl(control, BTRFS_IOC_SCAN_DEV, node) < 0 ? -1 : 0;
}

/* The kernel answers 0 when its count of the file system's devices is
 * the superblock's, 1 when not. */
int hi_btrfs_ready(const char *control, const char *node)
{
	int rc = control_ioctl(control, BTRFS_IOC_DEVICES_READY, node);
	return rc < 0 ? -1 : rc == 0;
}
