/* Hand-off: exec the real init with the words and environment the kernel
 * gave PID 1, on a clean console, in a fresh session, with no stray fds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "stages.h"

#define HANDOFF_MAX_ARGS 64
#define FD_SCAN_MAX      4096

/* The kernel's own fallback list (init/main.c, kernel_init). */
static const char *const default_inits[] = { "/sbin/init", "/etc/init", "/bin/init", "/bin/sh" };

/* Not ourselves: with init=/sbin/hardinit on a root whose /sbin/init is a
 * link to hardinit, exec'ing it would loop. */
static int is_self(struct boot *b, const char *path)
{
	struct stat a, self;
	char exe[BOOT_PATH_MAX + 16];

	snprintf(exe, sizeof exe, "%s/self/exe", b->proc);
	return stat(path, &a) == 0 && stat(exe, &self) == 0 &&
	       a.st_dev == self.st_dev && a.st_ino == self.st_ino;
}

static int usable(struct boot *b, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 && !is_self(b, path);
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
 * decides itself whether to make the console its controlling terminal. */
static void clean_console(struct boot *b)
{
	char console[BOOT_PATH_MAX + 16];

	snprintf(console, sizeof console, "%s/console", b->dev);
	int fd = open(console, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		for (int i = 0; i < 3; i++)
			dup2(fd, i);
		if (fd > 2)
			close(fd);
	}
	setsid();
}

static void try_exec(struct boot *b, const char *path)
{
	char *argv[HANDOFF_MAX_ARGS + 1];
	int n = 0;

	argv[n++] = (char *)path;
	for (int i = 1; i < b->argc && n < HANDOFF_MAX_ARGS; i++)
		argv[n++] = b->argv[i];
	argv[n] = NULL;
	log_notice("handing off to %s", path);
	execve(path, argv, b->envp);
	log_warn("cannot execute %s: %s; trying the next init", path, strerror(errno));
}

static const char *choose_init(struct boot *b, const char **tried, size_t *n_tried)
{
	const char *first[2] = { b->cmd.init, b->cfg.init[0] ? b->cfg.init : NULL };

	*n_tried = 0;
	for (size_t i = 0; i < 2; i++) {
		if (!first[i])
			continue;
		tried[(*n_tried)++] = first[i];
		if (usable(b, first[i]))
			return first[i];
		if (!is_self(b, first[i]))
			log_warn("init %s is missing or not executable; falling back to the default list", first[i]);
	}
	for (size_t i = 0; i < sizeof default_inits / sizeof default_inits[0]; i++) {
		tried[(*n_tried)++] = default_inits[i];
		if (usable(b, default_inits[i]))
			return default_inits[i];
	}
	return NULL;
}

int handoff_exec(struct boot *b)
{
	const char *tried[8];
	size_t n_tried;
	const char *init = choose_init(b, tried, &n_tried);

	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would exec %s with %d argument(s) from the kernel", init ? init : "(no init found)", b->argc - 1);
		if (!init)
			return boot_error(b, "no init found in %s", b->newroot);
		return 0;
	}
	if (init) {
		clean_console(b);
		log_close_kmsg();
		close_other_fds();
		try_exec(b, init);
		log_open_kmsg(b->dev);
		/* The chosen init failed at exec: give the rest of the list a chance. */
		for (size_t i = 0; i < sizeof default_inits / sizeof default_inits[0]; i++)
			if (strcmp(default_inits[i], init) != 0 && usable(b, default_inits[i]))
				try_exec(b, default_inits[i]);
	}
	char list[256] = "";
	for (size_t i = 0; i < n_tried; i++) {
		strncat(list, tried[i], sizeof list - strlen(list) - 1);
		strncat(list, i + 1 < n_tried ? ", " : "", sizeof list - strlen(list) - 1);
	}
	return boot_error(b, "no init could be executed (tried %s); install one in the root or set init=", list);
}
