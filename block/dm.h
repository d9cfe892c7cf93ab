/* Device-mapper through its ioctls on /dev/mapper/control, without
 * libdevmapper: what the verity and LVM stages need to create their
 * read-only devices, and what hardinit audit needs to read a table back. */
#ifndef HARDINIT_BLOCK_DM_H
#define HARDINIT_BLOCK_DM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DM_CONTROL_PATH_MAX 300

/* Open DEV/mapper/control, creating the node from
 * SYS/class/misc/device-mapper/dev when devtmpfs has not (create = 1).
 * Returns the fd, or -1 with why set. */
int hi_dm_control_open(const char *dev, const char *sys, int create, char *why, size_t whylen);

/* DEV/mapper/NAME, the block node of the dm device devnum (devtmpfs makes
 * only dm-N; udev would make this name): mapper/ made when missing, a node
 * already there kept. path gets it. Returns 0, or -1 with why set. The
 * one place a /dev/mapper node is made (tests/bats/onehome.bats). */
int hi_dm_mapper_node(const char *dev, const char *name, dev_t devnum, char *path, size_t cap, char *why,
		      size_t whylen);

/* DM_VERSION: fills "4.48.0". Returns 0 or -1 with errno. */
int hi_dm_version(int fd, char *out, size_t cap);

/* One target of a table: sectors [start, start + length) of the device. */
struct dm_target {
	uint64_t start, length;
	const char *type;      /* "linear", "striped", "verity" */
	const char *params;
};

/* DM_DEV_CREATE name (with uuid when not NULL), DM_TABLE_LOAD the n
 * targets (read-only when readonly), DM_DEV_SUSPEND to resume. *dev gets
 * its device number. Returns 0, or -1 with errno (E2BIG: the table does
 * not fit one ioctl buffer) and *step naming the ioctl that failed; a
 * created device is removed on failure. */
int hi_dm_create_table(int fd, const char *name, const char *uuid, const struct dm_target *t, size_t n,
		    int readonly, dev_t *dev, const char **step);

/* DM_DEV_CREATE alone (uuid NULL: none), so a caller can time it apart
 * from the table load. *dev gets its device number. Returns 0, or -1 with
 * errno (EEXIST/EBUSY: the name or uuid is taken). */
int hi_dm_create_device(int fd, const char *name, const char *uuid, dev_t *dev);

/* DM_TABLE_LOAD the n targets into the created device name (read-only
 * when readonly), DM_DEV_SUSPEND to resume. Returns 0, or -1 with errno
 * and *step naming the ioctl that failed; the device is removed then. */
int hi_dm_load_table(int fd, const char *name, const struct dm_target *t, size_t n, int readonly,
		     const char **step);

/* DM_DEV_CREATE name, then DM_TABLE_LOAD one read-only target_type over
 * sectors with params, then DM_DEV_SUSPEND to resume (make it live).
 * *dev gets its device number. Returns 0, or -1 with errno and *step
 * naming the ioctl that failed; a created device is removed on failure. */
int hi_dm_create_readonly(int fd, const char *name, const char *target_type, uint64_t sectors,
		       const char *params, dev_t *dev, const char **step);

/* Replace the live table of name (load, suspend, resume). */
int hi_dm_reload_readonly(int fd, const char *name, const char *target_type, uint64_t sectors,
		       const char *params, const char **step);

/* DM_TABLE_STATUS: the first target's params (table = 1, as loaded) or
 * status ("V" or "C" for verity). target_type gets its type when not
 * NULL. Returns 0, or -1 with errno (ENXIO: no such device, or no table). */
int hi_dm_target_text(int fd, const char *name, int table, char *out, size_t cap,
		   char *target_type, size_t typecap);

/* DM_DEV_REMOVE. Returns 0 or -1 with errno. */
int hi_dm_remove(int fd, const char *name);

#endif
