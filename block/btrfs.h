/* block/btrfs.c: what the root stage needs of btrfs without btrfs-progs:
 * the superblock's member fields (which file system, which device of it,
 * how many it has), the set of members found so far, and the control
 * device's two ioctls that tell the kernel of a member before the mount;
 * the root's subvolume, the image's against the command line's. The parsers
 * are pure and fuzzed by tests/fuzz/fuzz_btrfs_sb.c and fuzz_btrfs_flags.c. */
#ifndef HARDINIT_BTRFS_H
#define HARDINIT_BTRFS_H

#include <stddef.h>
#include <stdint.h>

#define BTRFS_SB_OFFSET      0x10000   /* the primary superblock, on every member */
#define BTRFS_SB_FSID        0x20      /* struct btrfs_super_block's fields */
#define BTRFS_SB_MAGIC       0x40
#define BTRFS_MAGIC          "_BHRfS_M"
#define BTRFS_SB_LABEL       0x12b
#define BTRFS_LABEL_BYTES    256
#define BTRFS_SB_READ_BYTES  (BTRFS_SB_LABEL + BTRFS_LABEL_BYTES)   /* up to the end of the label */
#define BTRFS_MEMBERS_MAX    64        /* members of one file system the boot waits for */
#define BTRFS_CONTROL_NAME   "btrfs-control"   /* under /dev: the misc device */
#define BTRFS_SUBVOL_MAX     4096      /* a subvolume's path from the top level (PATH_MAX) */

struct btrfs_sb {
	unsigned char fsid[16];   /* the file system's UUID (blkid's UUID=) */
	uint64_t devid;           /* this member's number, from 1 */
	uint64_t num_devices;     /* members of the file system */
	uint64_t total_bytes;     /* this member's bytes the file system uses */
};

/* The superblock's first BTRFS_SB_READ_BYTES bytes (read at
 * BTRFS_SB_OFFSET). Returns 0, or -1 when it is not btrfs's or its
 * member fields are out of range (devid 0, more than BTRFS_MEMBERS_MAX
 * devices). */
int hi_btrfs_sb_parse(const unsigned char *sb, size_t len, struct btrfs_sb *out);

/* The members of one file system seen so far, each with its device node. */
struct btrfs_members {
	char fsid[40];            /* as the probe formats it (block/root_probe.h) */
	uint64_t num_devices;
	size_t n;
	struct {
		uint64_t devid;
		char node[64];
	} m[BTRFS_MEMBERS_MAX];
};

/* Start a set for the file system fsid of num_devices members. */
void hi_btrfs_members_init(struct btrfs_members *set, const char *fsid, uint64_t num_devices);

/* Add the member devid of fsid (of num_devices members) found on node.
 * Returns 0 added, 1 another file system (or a member count that
 * differs, or a device past the count the set already has), -1 a second
 * device with a devid already in the set (a copied
 * disk: not a member to choose silently), -2 a node name too long. */
int hi_btrfs_members_add(struct btrfs_members *set, const char *fsid, uint64_t devid, uint64_t num_devices,
			 const char *node);

/* 1 when every devid from 1 to num_devices is in the set. */
int hi_btrfs_members_complete(const struct btrfs_members *set);

/* "devid 2, devid 3": the devids missing from the set, for a message;
 * "devid 2 and 5 more" past what fits. */
void hi_btrfs_members_missing(const struct btrfs_members *set, char *out, size_t cap);

/* "devid 1 on /dev/vda1, devid 3 on /dev/vdc1": the members found. */
void hi_btrfs_members_found(const struct btrfs_members *set, char *out, size_t cap);

/* The options a btrfs root is mounted with when the image carries the
 * subvolume the builder found / on (image: "/@rootfs", "/" for the top
 * level; NULL: none, and rootflags is used as it is). rootflags is the
 * command line's (NULL: none). Without a subvol= or subvolid= there, the
 * image's subvolume is added; with one, the command line's is mounted,
 * unless locked (lock_cmdline = yes): then a subvol= naming another
 * subvolume, any subvolid= (it can name any subvolume) and any device=
 * (it adds a device beside the members the root stage checked) are
 * refused. Returns 0 with data set, or -1 with err set ("what; why;
 * what to do"). Pure: fuzzed by tests/fuzz/fuzz_btrfs_flags.c. */
int hi_btrfs_root_flags(const char *rootflags, const char *image, int locked, char *data, size_t cap, char *err,
			size_t errlen);

/* BTRFS_IOC_SCAN_DEV through the control device: the kernel registers
 * node as a member of its file system (what `btrfs device scan` does).
 * Returns 0, or -1 with errno. */
int hi_btrfs_register(const char *control, const char *node);

/* BTRFS_IOC_DEVICES_READY: 1 when the kernel has registered every member
 * of node's file system, 0 when some are missing, -1 with errno. */
int hi_btrfs_ready(const char *control, const char *node);

#endif
