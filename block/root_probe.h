/* Superblock and partition-table readers for finding root without udev or
 * libblkid: the few file systems a root is made of, GPT and MBR. Pure
 * reads from an open fd, so unit tests can run them on image files. */
#ifndef HARDINIT_ROOT_PROBE_H
#define HARDINIT_ROOT_PROBE_H

#include <stddef.h>

struct fs_info {
	char type[16];    /* ext2, ext3, ext4, xfs, btrfs, jfs, squashfs, erofs, swap, swsuspend */
	char uuid[40];    /* lower-case 8-4-4-4-12, empty when the fs has none */
	char label[256];
	unsigned long long devid, num_devices;   /* btrfs: this member, and how many */
	unsigned long long bytes;  /* from the device's start, what the file system spans; 0: not known */
};

struct part_info {
	char partuuid[40];   /* GPT unique GUID, or MBR "xxxxxxxx-NN" */
	char partlabel[128]; /* GPT name (ASCII subset of UTF-16), else empty */
};

#define SWAP_SIG_BYTES 10

/* The kind of swap signature in the last SWAP_SIG_BYTES of a swap area's
 * first page: "swap", "swsuspend" (a hibernated system is in it), or NULL. */
const char *hi_swap_signature(const unsigned char tail[SWAP_SIG_BYTES]);

/* The first bytes of a device hi_probe_fs can read: every superblock it
 * knows (btrfs's, at 64 KiB, is the farthest) and a swap area's first page
 * of the largest size. A caller may bring them in at once beforehand. */
#define PROBE_SPAN_BYTES (68 * 1024)

/* Identify the file system on fd (also a swap area: type "swap", or
 * "swsuspend" while it holds a hibernated system). Returns 0, or -1 when
 * unknown/unreadable. */
int hi_probe_fs(int fd, struct fs_info *out);

/* Partition partno (1-based) of the disk open on fd. Returns 0 or -1. */
int hi_probe_partition(int disk_fd, unsigned partno, unsigned sector_size, struct part_info *out);

/* Format 16 bytes as a UUID; mixed is the GPT byte order (first three
 * fields little-endian). out must hold 37 bytes. */
void hi_format_uuid(const unsigned char *b, int mixed, char *out);

#endif
