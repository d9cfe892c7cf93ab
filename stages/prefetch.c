/* The prefetch stage, right after root is mounted: look up, in parallel,
 * the files of the new root that the later stages read one after another
 * (the SELinux config, namespace.conf, passwd, fstab, the polydirs, the
 * real init), so that the disk waits overlap instead of adding up. Each
 * path gets a thread that only looks it up and asks the kernel to read a
 * regular file's data ahead (posix_fadvise WILLNEED); nothing is decided
 * from what it finds, and a failure costs nothing but the prefetch. The
 * prefetch_join stage waits for the threads (bounded) before the tty and
 * caps stages, so the filters and capability drops apply to a PID 1
 * with one thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "log.h"
#include "prefetch.h"
#include "report.h"

#define PREFETCH_MAX_PATHS     16
#define PREFETCH_STACK_BYTES   (64 * 1024)
#define PREFETCH_DIR_BYTES     4096       /* one getdents: the first directory block */
#define PREFETCH_FILE_BYTES    (8L << 20) /* readahead cap for one file (an init binary) */
#define PREFETCH_JOIN_MS       5000

/* What the stages after the switch read from the root (relative to it). */
static const char *const fixed_paths[] = {
	"etc/selinux/config",            /* selinux */
	"etc/security/namespace.conf",   /* mounts: polyinstantiation */
	"etc/security/namespace.d",
	"etc/passwd",
	"etc/fstab",
	"lib/init/bootclean.sh",         /* mounts: sysvinit's /tmp cleaning */
};

struct prefetch_job {
	char rel[BOOT_PATH_MAX];
	pthread_t thread;
	bool started;
	int found;                       /* set by the thread: 1 found, 0 not */
};

static struct {
	int root_fd;
	size_t n;
	struct prefetch_job jobs[PREFETCH_MAX_PATHS];
} pf = { -1, 0, { { "", 0, false, 0 } } };

/* RESOLVE_IN_ROOT (5.6): absolute symlinks (/sbin/init -> /lib/systemd/systemd)
 * resolve inside the new root, not in the initramfs (nor, after the switch,
 * anywhere else): the threads run while PID 1 moves the mounts. */
static int open_in_root(int root_fd, const char *rel, int flags)
{
	struct open_how how = { .flags = (unsigned)(flags | O_CLOEXEC), .resolve = RESOLVE_IN_ROOT };
	int fd = (int)syscall(SYS_openat2, root_fd, rel, &how, sizeof how);

	if (fd < 0 && errno == ENOSYS)
		fd = openat(root_fd, rel, flags | O_CLOEXEC);
	return fd;
}

/* Only files and directories are opened for reading (a FIFO or a device
 * could block or act on open); the second lookup finds what the first
 * one brought into the cache. */
static void warm(int root_fd, int path_fd, const char *rel)
{
	struct stat st;

	if (fstat(path_fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return;
	int fd = open_in_root(root_fd, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK |
				(S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t len = st.st_size < PREFETCH_FILE_BYTES ? st.st_size : PREFETCH_FILE_BYTES;
		(void)posix_fadvise(fd, 0, len, POSIX_FADV_WILLNEED);
	} else if (S_ISDIR(st.st_mode)) {
		static __thread char buf[PREFETCH_DIR_BYTES];
		(void)syscall(SYS_getdents64, fd, buf, sizeof buf);
	}
	close(fd);
}

static void *prefetch_one(void *arg)
{
	struct prefetch_job *j = arg;
	int fd = open_in_root(pf.root_fd, j->rel, O_PATH);

	if (fd >= 0) {
		warm(pf.root_fd, fd, j->rel);
		close(fd);
	}
	__atomic_store_n(&j->found, fd >= 0, __ATOMIC_RELEASE);
	return NULL;
}

static void add_path(const char *path)
{
	while (*path == '/')
		path++;
	if (!*path || pf.n >= PREFETCH_MAX_PATHS)
		return;
	for (size_t i = 0; i < pf.n; i++)
		if (strcmp(pf.jobs[i].rel, path) == 0)
			return;
	snprintf(pf.jobs[pf.n++].rel, sizeof pf.jobs[0].rel, "%s", path);
}

static void collect_paths(const struct boot *b)
{
	char parent[BOOT_PATH_MAX];

	for (size_t i = 0; i < sizeof fixed_paths / sizeof fixed_paths[0]; i++)
		add_path(fixed_paths[i]);
	if (b->cfg.polyinstantiate)
		for (size_t i = 0; i < b->cfg.n_polydirs && i < CONFIG_MAX_POLYDIRS; i++) {
			snprintf(parent, sizeof parent, "%s/tmp-inst", b->cfg.polydirs[i]);
			add_path(parent);
		}
	add_path(b->cmd.init ? b->cmd.init : b->cfg.init[0] ? b->cfg.init : "sbin/init");
}

int hi_stage_prefetch(struct boot *b)
{
	pthread_attr_t attr;

	pf.n = 0;
	if (pf.root_fd >= 0)
		close(pf.root_fd);
	pf.root_fd = -1;
	if (b->mode == MODE_DRY_RUN)
		return 0;
	pf.root_fd = open(b->newroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pf.root_fd < 0) {
		log_debug("prefetch: cannot open %s: %s; nothing prefetched", b->newroot, strerror(errno));
		return 0;
	}
	collect_paths(b);
	if (pthread_attr_init(&attr) != 0)
		return 0;
	pthread_attr_setstacksize(&attr, PREFETCH_STACK_BYTES);
	size_t started = 0;
	for (size_t i = 0; i < pf.n; i++) {
		struct prefetch_job *j = &pf.jobs[i];
		j->found = 0;
		j->started = pthread_create(&j->thread, &attr, prefetch_one, j) == 0;
		started += j->started;
	}
	pthread_attr_destroy(&attr);
	log_debug("prefetch: %zu lookups in the new root started on %zu threads", pf.n, started);
	return 0;
}

int hi_stage_prefetch_join(struct boot *b)
{
	struct timespec deadline;
	size_t found = 0, late = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += PREFETCH_JOIN_MS / 1000;
	for (size_t i = 0; i < pf.n; i++) {
		struct prefetch_job *j = &pf.jobs[i];
		if (!j->started)
			continue;
		if (pthread_timedjoin_np(j->thread, NULL, &deadline) != 0) {
			late++;
			log_warn("prefetch: the lookup of %s in the new root is still waiting after %d ms "
				 "(a slow or stuck disk); the hand-off will wait for it", j->rel, PREFETCH_JOIN_MS);
			continue;
		}
		j->started = false;
		found += (size_t)__atomic_load_n(&j->found, __ATOMIC_ACQUIRE);
	}
	if (pf.root_fd >= 0)
		close(pf.root_fd);
	pf.root_fd = -1;
	if (pf.n > 0)
		hi_report_add(&b->rep, "prefetch", "paths", late ? "warn" : "info", "%zu looked up, %zu found%s",
			   pf.n, found, late ? ", some still waiting" : "");
	pf.n = 0;
	return 0;
}
