/* Hand-off: exec the real init with the words and environment the kernel
 * gave PID 1, on a clean console, in a fresh session, with no stray fds.
 * From an initramfs to systemd, as systemd's own initrd hands over:
 * "--switched-root --system --deserialize=FD" with a serialization that
 * holds only the initrd's start time (handoff.h), so systemd-analyze
 * shows hardinit's time as "(initrd)". systemd 252 (src/core/main.c,
 * early_skip_setup_check) skips its early setup for --deserialize only
 * without --switched-root: with it, every setup step of a normal boot
 * runs. */
#define _GNU_SOURCE   /* memfd_create */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "boot_pace.h"
#include "clock.h"
#include "early.h"
#include "fsutil.h"
#include "handoff.h"
#include "log.h"

#define HANDOFF_MAX_ARGS 64
#define FD_SCAN_MAX      4096

/* The kernel's own fallback list (init/main.c, kernel_init). */
static const char *const default_inits[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };

#define INIT_LINK_HOPS   8
#define SHEBANG_MAX      256

/* stat() of path as the root sees it: below b->newroot, with a final
 * absolute link resolved there too (a dry run with --root DIR must not
 * look at the host's /lib/systemd/systemd for DIR/sbin/init). */
static int root_stat(struct boot *b, const char *path, struct stat *st, char *real, size_t reallen)
{
	char cur[BOOT_PATH_MAX], target[BOOT_PATH_MAX], full[BOOT_PATH_MAX * 2];

	snprintf(cur, sizeof cur, "%s", path);
	for (int hop = 0; hop < INIT_LINK_HOPS; hop++) {
		if (!hi_boot_path(full, sizeof full, b->newroot, cur))
			return -1;
		ssize_t n = readlink(full, target, sizeof target - 1);
		if (n <= 0) {
			snprintf(real, reallen, "%s", full);
			return stat(full, st);
		}
		target[n] = '\0';
		if (target[0] == '/') {
			snprintf(cur, sizeof cur, "%s", target);
		} else {
			char *slash = strrchr(cur, '/');
			size_t dlen = slash ? (size_t)(slash - cur) : 0;
			char next[BOOT_PATH_MAX];
			if (snprintf(next, sizeof next, "%.*s/%s", (int)dlen, cur, target) >= (int)sizeof next)
				return -1;
			snprintf(cur, sizeof cur, "%s", next);
		}
	}
	errno = ELOOP;
	return -1;
}

/* Not ourselves: with init=/sbin/hardinit on a root whose /sbin/init is a
 * link to hardinit, exec'ing it would loop. */
static int is_self(struct boot *b, const struct stat *a)
{
	struct stat self;
	char exe[BOOT_PATH_MAX + 16];

	snprintf(exe, sizeof exe, "%s/self/exe", b->proc);
	return stat(exe, &self) == 0 && a->st_dev == self.st_dev && a->st_ino == self.st_ino;
}

/* A script's interpreter, from its "#!" line: true for a script. */
static bool shebang_interpreter(const char *file, char *out, size_t outlen)
{
	char head[SHEBANG_MAX];

	out[0] = '\0';
	if (hi_fs_read_prefix(file, head, sizeof head, NULL) < 0 || strncmp(head, "#!", 2) != 0)
		return false;
	const char *p = head + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, " \t\n");
	snprintf(out, outlen, "%.*s", (int)n, p);
	return true;
}

/* Why path cannot be the real init, as the root sees it; NULL when it can.
 * A script whose #! interpreter is missing fails execve with ENOENT just
 * like a missing init: name the interpreter, not the script. */
static const char *init_problem(struct boot *b, const char *path, char *why, size_t whylen)
{
	char real[BOOT_PATH_MAX * 2], interp[SHEBANG_MAX];
	struct stat st;

	if (root_stat(b, path, &st, real, sizeof real) < 0)
		return snprintf(why, whylen, "%s is missing or not executable", path), why;
	if (!S_ISREG(st.st_mode) || access(real, X_OK) != 0)
		return snprintf(why, whylen, "%s is missing or not executable (not an executable file)", path), why;
	if (is_self(b, &st))
		return snprintf(why, whylen, "%s is hardinit itself", path), why;
	bool script = shebang_interpreter(real, interp, sizeof interp);
	if (script && !interp[0])
		return snprintf(why, whylen, "%s is a script with an empty #! line (no interpreter); "
				"fix its first line", path), why;
	if (script && root_stat(b, interp, &st, real, sizeof real) < 0)
		return snprintf(why, whylen, "%s is a script whose interpreter %s (its #! line) is missing; "
				"install %s or fix the #! line", path, interp, interp), why;
	return NULL;
}

static int usable(struct boot *b, const char *path)
{
	char why[BOOT_PATH_MAX * 2];

	return init_problem(b, path, why, sizeof why) == NULL;
}

static void close_other_fds(void)
{
#ifdef SYS_close_range
	/* Linux 5.9; on older kernels fall back to the bounded loop. */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = 3; fd < FD_SCAN_MAX; fd++)
		close(fd);
}

/* fds 0-2 on the console, freshly opened, in a new session: the real init
 * decides itself whether to make the console its controlling terminal.
 * Without a console, /dev/null and /dev/kmsg (console_std_fds), so the
 * real init never writes into a pipe nobody reads. */
static void clean_console(struct boot *b)
{
	char what[BOOT_PATH_MAX * 2 + 64];

	if (hi_console_std_fds(b->dev, 0, what, sizeof what) == 0 && strstr(what, "no console"))
		log_warn("the real init gets %s", what);
	setsid();
}

long hi_handoff_systemd_serialization(char *out, size_t cap, uint64_t start_ns, uint64_t now_boot_ns,
				      uint64_t now_mono_ns, uint64_t now_real_ns)
{
	uint64_t ago = now_boot_ns > start_ns ? now_boot_ns - start_ns : 0;
	uint64_t mono = now_mono_ns > ago ? now_mono_ns - ago : 0;
	uint64_t real = now_real_ns > ago ? now_real_ns - ago : 0;
	int n = snprintf(out, cap, "initrd-timestamp=%llu %llu\n\n", (unsigned long long)(real / 1000),
			 (unsigned long long)(mono / 1000));

	return n < 0 || (size_t)n >= cap ? -1 : n;
}

bool hi_handoff_is_systemd(struct boot *b, const char *init)
{
	char real[BOOT_PATH_MAX * 2];
	struct stat st;

	if (root_stat(b, init, &st, real, sizeof real) < 0 || !S_ISREG(st.st_mode))
		return false;
	const char *base = strrchr(real, '/');
	return strcmp(base ? base + 1 : real, "systemd") == 0;
}

/* The serialization in a memfd left open across the exec (systemd closes
 * it once read): its fd, or -1 when it cannot be made (systemd then
 * starts as after no initrd; nothing else changes). */
static int systemd_serialization(struct boot *b)
{
	char text[HANDOFF_SERIALIZATION_MAX];
	long len = hi_handoff_systemd_serialization(text, sizeof text, b->rep.start_ns, hi_boottime_ns(),
						    hi_clock_ns(CLOCK_MONOTONIC), hi_clock_ns(CLOCK_REALTIME));
	int fd = len < 0 ? -1 : memfd_create("hardinit-serialization", 0);

	if (fd >= 0 && (write(fd, text, (size_t)len) != len || lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		log_warn("systemd is not told the initrd's time (no serialization: %s); systemd-analyze "
			 "counts hardinit's time as the kernel's", strerror(errno));
	return fd;
}

size_t hi_handoff_env(const struct boot *b, char **out, size_t cap)
{
	size_t n = 0, dropped = 0;

	for (char **e = b->envp; e && *e; e++) {
		bool kernel_own = strncmp(*e, "HOME=", 5) == 0 || strncmp(*e, "TERM=", 5) == 0;
		if ((b->cfg.lock_cmdline && !kernel_own) || n + 1 >= cap) {
			dropped++;
			continue;
		}
		out[n++] = *e;
	}
	out[n] = NULL;
	return dropped;
}

static void try_exec(struct boot *b, const char *path)
{
	char *argv[HANDOFF_MAX_ARGS + 1], deserialize[32];
	int n = 0, fd = -1;

	argv[n++] = (char *)path;
	if (b->mode == MODE_INITRAMFS && hi_handoff_is_systemd(b, path) && (fd = systemd_serialization(b)) >= 0) {
		snprintf(deserialize, sizeof deserialize, "--deserialize=%d", fd);
		argv[n++] = "--switched-root";
		argv[n++] = "--system";
		argv[n++] = deserialize;
	}
	for (int i = 1; i < b->argc && n < HANDOFF_MAX_ARGS; i++)
		argv[n++] = b->argv[i];
	argv[n] = NULL;
	log_notice("handing off to %s%s", path, fd >= 0 ? " (with the initrd's start time, as systemd's initrd)" : "");
	char *envp[HANDOFF_MAX_ENV + 1];
	size_t dropped = hi_handoff_env(b, envp, sizeof envp / sizeof envp[0]);
	if (dropped)
		log_warn("%zu environment word(s) of the kernel command line not handed to %s%s", dropped, path,
			 b->cfg.lock_cmdline ? ": the config is locked (lock_cmdline = yes); only HOME and TERM are"
					     : " (more than the hand-off takes)");
	execve(path, argv, envp);
	int e = errno;
	if (fd >= 0)
		close(fd);
	char why[BOOT_PATH_MAX * 2];
	if (e == ENOENT && init_problem(b, path, why, sizeof why))
		log_warn("cannot execute %s; trying the next init", why);
	else
		log_warn("cannot execute %s: %s; trying the next init", path, strerror(e));
}

static const char *choose_init(struct boot *b, const char **tried, size_t *n_tried,
			       char *script_why, size_t whylen, bool quiet)
{
	const char *first[2] = { b->cmd.init, b->cfg.init[0] ? b->cfg.init : NULL };
	char why[BOOT_PATH_MAX * 2];

	*n_tried = 0;
	script_why[0] = '\0';
	for (size_t i = 0; i < 2; i++) {
		if (!first[i])
			continue;
		tried[(*n_tried)++] = first[i];
		if (!init_problem(b, first[i], why, sizeof why))
			return first[i];
		if (!strstr(why, "hardinit itself") && !quiet)
			log_warn("init %s; falling back to the default list", why);
		if (strstr(why, "interpreter") && !script_why[0])
			snprintf(script_why, whylen, "%s", why);
	}
	for (size_t i = 0; i < sizeof default_inits / sizeof default_inits[0]; i++) {
		tried[(*n_tried)++] = default_inits[i];
		if (!init_problem(b, default_inits[i], why, sizeof why))
			return default_inits[i];
		/* A script there is what the kernel would run; say what it lacks. */
		if (strstr(why, "interpreter") && !script_why[0]) {
			if (!quiet)
				log_warn("init %s", why);
			snprintf(script_why, whylen, "%s", why);
		}
	}
	return NULL;
}

const char *hi_handoff_program(struct boot *b)
{
	const char *tried[8];
	size_t n_tried;
	char script_why[BOOT_PATH_MAX * 2];

	return choose_init(b, tried, &n_tried, script_why, sizeof script_why, true);
}

const char *hi_handoff_named(const struct boot *b)
{
	if (b->cmd.init)
		return b->cmd.init;
	return b->cfg.init[0] ? b->cfg.init : default_inits[0];
}

int hi_handoff_exec(struct boot *b)
{
	const char *tried[8];
	size_t n_tried;
	char script_why[BOOT_PATH_MAX * 2];
	const char *init = choose_init(b, tried, &n_tried, script_why, sizeof script_why, false);

	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would exec %s with %d argument(s) from the kernel", init ? init : "(no init found)", b->argc - 1);
		if (!init && script_why[0])
			return hi_boot_error(b, "no init can be executed in %s: %s", b->newroot, script_why);
		if (!init)
			return hi_boot_error(b, "no init found in %s", b->newroot);
		return 0;
	}
	if (init) {
		clean_console(b);
		/* After setsid(): a new session makes a new scheduler autogroup,
		 * which waits for an RCU grace period, 4-30 ms of guest time
		 * when not expedited. */
		hi_boot_pace_end(b);
		hi_log_close_kmsg();
		close_other_fds();
		try_exec(b, init);
		hi_log_open_kmsg(b->dev);
		/* The chosen init failed at exec: give the rest of the list a
		 * chance, unless the measured hand-off named it: another
		 * program would run under a PCR that says this one. */
		if (b->handoff_init[0] && strcmp(b->handoff_init, init) == 0)
			return hi_boot_error(b, "cannot execute %s, the measured hand-off; no other init is tried, "
					  "since the PCR names this one: fix it in the root", init);
		for (size_t i = 0; i < sizeof default_inits / sizeof default_inits[0]; i++)
			if (strcmp(default_inits[i], init) != 0 && usable(b, default_inits[i]))
				try_exec(b, default_inits[i]);
	}
	char list[256] = "";
	for (size_t i = 0; i < n_tried; i++) {
		strncat(list, tried[i], sizeof list - strlen(list) - 1);
		strncat(list, i + 1 < n_tried ? ", " : "", sizeof list - strlen(list) - 1);
	}
	if (script_why[0])
		return hi_boot_error(b, "no init could be executed (tried %s): %s", list, script_why);
	return hi_boot_error(b, "no init could be executed (tried %s); install one in the root or set init=", list);
}
