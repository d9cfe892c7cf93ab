/* Device-mapper ioctls (<linux/dm-ioctl.h>, interface 4): every call is
 * one struct dm_ioctl followed by its data in one bounded buffer. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsutil.h"
#include "dm.h"

#define DM_BUF_SIZE 16384   /* one table of one target, or its status, fits */

static union {
	struct dm_ioctl io;
	char bytes[DM_BUF_SIZE];
} dm_buf;

static struct dm_ioctl *dm_init(const char *name, uint32_t flags)
{
	struct dm_ioctl *io = &dm_buf.io;

	memset(&dm_buf, 0, sizeof dm_buf);
	io->version[0] = DM_VERSION_MAJOR;
	io->version[1] = 0;
	io->version[2] = 0;
	io->data_size = sizeof dm_buf;
	io->data_start = sizeof *io;
	io->flags = flags;
	if (name)
		snprintf(io->name, sizeof io->name, "%s", name);
	return io;
}

static int dm_call(int fd, unsigned long cmd, struct dm_ioctl *io)
{
	int rc;
	while ((rc = ioctl(fd, cmd, io)) < 0 && errno == EINTR)
		;
	return rc;
}

int hi_dm_control_open(const char *dev, const char *sys, int create, char *why, size_t whylen)
{
	char path[DM_CONTROL_PATH_MAX], devnum[32];
	unsigned maj, mnr;

	snprintf(path, sizeof path, "%s/mapper/control", dev);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || !create) {
		if (fd < 0)
			snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return fd;
	}
	/* devtmpfs names it mapper/control when dm-mod registers the misc
	 * device; a /dev that is not devtmpfs needs the node made here. */
	char sysdev[DM_CONTROL_PATH_MAX];
	snprintf(sysdev, sizeof sysdev, "%s/class/misc/device-mapper/dev", sys);
	if (hi_fs_read(sysdev, devnum, sizeof devnum, NULL) < 0 || sscanf(devnum, "%u:%u", &maj, &mnr) != 2) {
		snprintf(why, whylen, "the kernel has no device-mapper (%s missing): dm-mod is not loaded", sysdev);
		return -1;
	}
	snprintf(sysdev, sizeof sysdev, "%s/mapper", dev);
	if ((mkdir(sysdev, 0755) < 0 && errno != EEXIST) ||
	    (mknod(path, S_IFCHR | 0600, makedev(maj, mnr)) < 0 && errno != EEXIST)) {
		snprintf(why, whylen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
	return fd;
}

int hi_dm_mapper_node(const char *dev, const char *name, dev_t devnum, char *path, size_t cap, char *why,
		      size_t whylen)
{
	int err = 0;

	if ((size_t)snprintf(path, cap, "%s/mapper", dev) >= cap)
		err = ENAMETOOLONG;
	else if (mkdir(path, 0755) < 0 && errno != EEXIST)
		err = errno;
	else if ((size_t)snprintf(path, cap, "%s/mapper/%s", dev, name) >= cap)
		err = ENAMETOOLONG;
	else if (mknod(path, S_IFBLK | 0600, devnum) < 0 && errno != EEXIST)
		err = errno;
	if (err)
		snprintf(why, whylen, "cannot create %s: %s", path, strerror(err));
	return err ? -1 : 0;
}

int hi_dm_version(int fd, char *out, size_t cap)
{
	struct dm_ioctl *io = dm_init(NULL, 0);

	if (dm_call(fd, DM_VERSION, io) < 0)
		return -1;
	snprintf(out, cap, "%u.%u.%u", io->version[0], io->version[1], io->version[2]);
	return 0;
}

/* DM_TABLE_LOAD of n targets, each spec followed by its NUL-terminated
 * params padded so the next spec is 8-byte aligned (spec->next is the
 * offset from this spec to the next). */
static int dm_load(int fd, const char *name, const struct dm_target *t, size_t n, int readonly)
{
	struct dm_ioctl *io = dm_init(name, readonly ? DM_READONLY_FLAG : 0);
	size_t at = sizeof *io;

	for (size_t i = 0; i < n; i++) {
		size_t plen = strlen(t[i].params) + 1;
		size_t step = (sizeof(struct dm_target_spec) + plen + 7) & ~(size_t)7;
		if (step > sizeof dm_buf - at) {
			errno = E2BIG;
			return -1;
		}
		struct dm_target_spec *spec = (struct dm_target_spec *)(dm_buf.bytes + at);
		spec->sector_start = t[i].start;
		spec->length = t[i].length;
		snprintf(spec->target_type, sizeof spec->target_type, "%s", t[i].type);
		memcpy(spec + 1, t[i].params, plen);
		spec->next = (uint32_t)step;
		at += step;
	}
	io->target_count = (uint32_t)n;
	io->data_size = (uint32_t)at;
	return dm_call(fd, DM_TABLE_LOAD, io);
}

static int dm_load_one(int fd, const char *name, const char *target_type, uint64_t sectors, const char *params)
{
	struct dm_target t = { 0, sectors, target_type, params };
	return dm_load(fd, name, &t, 1, 1);
}

static int dm_suspend(int fd, const char *name, int suspend)
{
	return dm_call(fd, DM_DEV_SUSPEND, dm_init(name, suspend ? DM_SUSPEND_FLAG : 0));
}

int hi_dm_remove(int fd, const char *name)
{
	return dm_call(fd, DM_DEV_REMOVE, dm_init(name, 0));
}

int hi_dm_create_device(int fd, const char *name, const char *uuid, dev_t *dev)
{
	struct dm_ioctl *io = dm_init(name, 0);

	if (uuid && strlen(uuid) >= sizeof io->uuid) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (uuid)
		snprintf(io->uuid, sizeof io->uuid, "%s", uuid);
	if (dm_call(fd, DM_DEV_CREATE, io) < 0)
		return -1;
	*dev = (dev_t)io->dev;
	return 0;
}

int hi_dm_load_table(int fd, const char *name, const struct dm_target *t, size_t n, int readonly,
		     const char **step)
{
	*step = "DM_TABLE_LOAD";
	if (dm_load(fd, name, t, n, readonly) == 0) {
		*step = "DM_DEV_SUSPEND (resume)";
		if (dm_suspend(fd, name, 0) == 0)
			return 0;
	}
	int saved = errno;
	hi_dm_remove(fd, name);
	errno = saved;
	return -1;
}

int hi_dm_create_table(int fd, const char *name, const char *uuid, const struct dm_target *t, size_t n,
		    int readonly, dev_t *dev, const char **step)
{
	*step = "DM_DEV_CREATE";
	if (hi_dm_create_device(fd, name, uuid, dev) < 0)
		return -1;
	return hi_dm_load_table(fd, name, t, n, readonly, step);
}

int hi_dm_create_readonly(int fd, const char *name, const char *target_type, uint64_t sectors,
		       const char *params, dev_t *dev, const char **step)
{
	struct dm_target t = { 0, sectors, target_type, params };
	return hi_dm_create_table(fd, name, NULL, &t, 1, 1, dev, step);
}

int hi_dm_reload_readonly(int fd, const char *name, const char *target_type, uint64_t sectors,
		       const char *params, const char **step)
{
	*step = "DM_TABLE_LOAD";
	if (dm_load_one(fd, name, target_type, sectors, params) < 0)
		return -1;
	*step = "DM_DEV_SUSPEND";
	if (dm_suspend(fd, name, 1) < 0)
		return -1;
	*step = "DM_DEV_SUSPEND (resume)";
	return dm_suspend(fd, name, 0);
}

int hi_dm_target_text(int fd, const char *name, int table, char *out, size_t cap,
		   char *target_type, size_t typecap)
{
	struct dm_ioctl *io = dm_init(name, table ? DM_STATUS_TABLE_FLAG : 0);

	if (dm_call(fd, DM_TABLE_STATUS, io) < 0)
		return -1;
	if ((io->flags & DM_BUFFER_FULL_FLAG) || io->target_count == 0 ||
	    io->data_start + sizeof(struct dm_target_spec) >= sizeof dm_buf ||
	    io->data_size > sizeof dm_buf) {
		errno = ENXIO;
		return -1;
	}
	struct dm_target_spec *spec = (struct dm_target_spec *)(dm_buf.bytes + io->data_start);
	const char *text = (const char *)(spec + 1);
	size_t room = io->data_size - io->data_start - sizeof *spec;
	size_t n = strnlen(text, room);
	if (n >= cap || n == room) {
		errno = E2BIG;
		return -1;
	}
	memcpy(out, text, n);
	out[n] = '\0';
	if (target_type)
		snprintf(target_type, typecap, "%.*s", (int)sizeof spec->target_type, spec->target_type);
	return 0;
}
