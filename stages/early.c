/* Early: the API file systems, fds 0-2 on the console, the kernel command
 * line and the kernel log. Everything later stands on these. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "boot.h"
#include "boot_pace.h"
#include "early.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"


struct api_mount {
	const char *what;    /* file system type and source */
	size_t path_off;     /* which path of struct boot */
	unsigned long flags;
	const char *data;
	unsigned long magic; /* already mounted when the path has this magic */
};

/* /run gets nosuid,nodev from the start; /dev keeps exec for the few
 * programs that map device memory, as every init does. */
static const struct api_mount api_mounts[] = {
	{ "proc",     offsetof(struct boot, proc), MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, PROC_SUPER_MAGIC },
	{ "sysfs",    offsetof(struct boot, sys),  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, SYSFS_MAGIC },
	{ "devtmpfs", offsetof(struct boot, dev),  MS_NOSUID, "mode=0755", 0 },
	{ "tmpfs",    offsetof(struct boot, run),  MS_NOSUID | MS_NODEV, "mode=0755,size=20%", TMPFS_MAGIC },
};

/* devtmpfs has tmpfs's magic (or ramfs's), so "already mounted" for /dev
 * means: a different device from its parent. */
static int is_mountpoint(const char *path)
{
	struct stat st, parent;
	char up[BOOT_PATH_MAX + 4];

	snprintf(up, sizeof up, "%s/..", path);
	if (stat(path, &st) < 0 || stat(up, &parent) < 0)
		return 0;
	return st.st_dev != parent.st_dev;
}

static int mount_api(struct boot *b, const struct api_mount *m)
{
	const char *path = (const char *)b + m->path_off;
	struct statfs sfs;

	if (m->magic && statfs(path, &sfs) == 0 && (unsigned long)sfs.f_type == m->magic &&
	    is_mountpoint(path))
		return 0;
	if (!m->magic && is_mountpoint(path))
		return 0;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return hi_boot_error(b, "cannot create %s: %s; the initramfs or root must have it", path, strerror(errno));
	if (mount(m->what, path, m->what, m->flags, m->data) < 0)
		return hi_boot_error(b, "cannot mount %s on %s: %s; check that the kernel has %s", m->what, path,
				  strerror(errno), m->what);
	return 0;
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Before devtmpfs is mounted there may be no /dev/null to hold fds 0-2
 * with: "/" opened read-only holds them instead (a write to it fails with
 * EBADF, nothing can block), so no later open() lands on 0-2. Never a
 * pipe: one nobody reads blocks its writer after 64 KiB, for ever. */
int hi_console_std_fds(const char *dev, int only_closed, char *what, size_t whatlen)
{
	char path[BOOT_PATH_MAX + 16];
	int in, out;

	snprintf(path, sizeof path, "%s/console", dev);
	in = out = open(path, O_RDWR | O_NOCTTY);
	if (in >= 0) {
		snprintf(what, whatlen, "%s", path);
	} else {
		/* No console (console=hvc0 without an hvc device): input from
		 * /dev/null, output to the kernel log, else /dev/null too. */
		snprintf(path, sizeof path, "%s/null", dev);
		in = open(path, O_RDWR | O_NOCTTY);
		snprintf(path, sizeof path, "%s/kmsg", dev);
		out = open(path, O_WRONLY | O_NOCTTY);
		if (out >= 0)
			snprintf(what, whatlen, "%s/null (input), %s/kmsg (output): no console", dev, dev);
		else if ((out = in) >= 0)
			snprintf(what, whatlen, "%s/null: no console, no kmsg", dev);
	}
	if (in < 0 || out < 0) {
		if (in >= 0)
			close(in);
		if (out >= 0 && out != in)
			close(out);
		snprintf(what, whatlen, "none: no console, null or kmsg under %s", dev);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (!only_closed || !fd_is_open(i))
			dup2(i == 0 ? in : out, i);
	if (in > 2)
		close(in);
	if (out > 2 && out != in)
		close(out);
	return 0;
}

/* Before the mounts: fill the closed ones of fds 0-2 with what the
 * initramfs has. After them: all three afresh from devtmpfs, and the
 * report says what they are (what the real init will get, too). */
static void ensure_std_fds(struct boot *b, bool mounted)
{
	char what[BOOT_PATH_MAX * 2 + 64];

	if (mounted) {
		bool ok = hi_console_std_fds(b->dev, 0, what, sizeof what) == 0;
		bool console = ok && !strstr(what, "no console");
		hi_report_add(&b->rep, "early", "stdio", console ? "ok" : "warn", "%s", what);
		/* fd 2 is then /dev/kmsg or /dev/null: every line reaches the
		 * kernel log through log_open_kmsg already, once is enough. */
		if (!console)
			hi_log_set_console_fd(-1);
		if (ok)
			return;
	} else if (fd_is_open(0) && fd_is_open(1) && fd_is_open(2)) {
		return;
	} else if (hi_console_std_fds(b->dev, 1, what, sizeof what) == 0) {
		return;
	}
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < 3 && fd >= 0; i++)
		if (!fd_is_open(i))
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

static void read_console_level(struct boot *b)
{
	char buf[64];

	if (hi_sysctl_read(b->proc, "kernel.printk", buf, sizeof buf) == 0)
		hi_log_set_console_level(atoi(buf));
}

static int read_cmdline(struct boot *b)
{
	char text[CMDLINE_MAX_BYTES], path[BOOT_PATH_MAX + 16], err[256];
	size_t len = 0;

	if (b->cmdline_text) {
		len = strlen(b->cmdline_text);
		if (len >= sizeof text)
			return hi_boot_error(b, "kernel command line is too long (limit %d bytes)", CMDLINE_MAX_BYTES);
		memcpy(text, b->cmdline_text, len + 1);
	} else {
		snprintf(path, sizeof path, "%s/cmdline", b->proc);
		if (hi_fs_read(path, text, sizeof text, &len) < 0)
			return hi_boot_error(b, "cannot read %s: %s; is /proc mounted?", path, strerror(errno));
	}
	if (hi_cmdline_parse(&b->cmd, text, len, err, sizeof err) < 0)
		return hi_boot_error(b, "bad kernel command line: %s", err);
	return 0;
}

int hi_stage_early(struct boot *b)
{
	if (b->mode != MODE_DRY_RUN) {
		umask(022);
		/* Before /dev is mounted the initramfs's own /dev/console is
		 * the only console there is. */
		ensure_std_fds(b, false);
		for (size_t i = 0; i < sizeof api_mounts / sizeof api_mounts[0]; i++)
			if (mount_api(b, &api_mounts[i]) < 0)
				return -1;
		ensure_std_fds(b, true);
		read_console_level(b);
		hi_log_open_kmsg(b->dev);
		hi_boot_pace_start(b);
	}
	if (read_cmdline(b) < 0)
		return -1;
	bool debug = false;
	for (size_t i = 0; i < b->cmd.n_overrides; i++)
		if (strcmp(b->cmd.overrides[i].key, "debug") == 0)
			debug = true;
	hi_log_set_debug(debug);
	log_notice("hardinit %s starting (%s)", HARDINIT_VERSION,
		 b->mode == MODE_INITRAMFS ? "initramfs" : b->mode == MODE_ON_ROOT ? "on root" : "dry run");
	if (b->mode == MODE_DRY_RUN)
		log_info("dry run: would mount proc, sysfs, devtmpfs and /run (tmpfs, nosuid,nodev)");
	return 0;
}
