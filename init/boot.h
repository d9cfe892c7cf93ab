/* The boot context: everything a stage may read or change, and the only
 * way it reaches the system. Paths are held here, never spelled out in a
 * stage, so tests can point a stage at a temporary tree. */
#ifndef HARDINIT_BOOT_H
#define HARDINIT_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "config.h"
#include "report.h"

struct sysctl_early;

enum boot_mode {
	MODE_INITRAMFS,   /* /init of an initramfs: find root, switch, harden, exec */
	MODE_ON_ROOT,     /* init=/.../hardinit on a kernel-mounted root: harden, exec */
	MODE_DRY_RUN,     /* not PID 1: print what would be done, touch nothing */
};

#define BOOT_PATH_MAX 256
#define BOOT_ERR_MAX  512

struct boot {
	enum boot_mode mode;

	/* Where the system is. Before the switch proc/sys/dev/run are the
	 * initramfs's mounts and newroot is where root gets mounted; after the
	 * switch they are the real root's and newroot is "/". */
	char proc[BOOT_PATH_MAX];
	char sys[BOOT_PATH_MAX];
	char dev[BOOT_PATH_MAX];
	char run[BOOT_PATH_MAX];
	char newroot[BOOT_PATH_MAX];
	char config_path[BOOT_PATH_MAX];   /* /etc/hardinit.conf of the initramfs */
	char modules_list[BOOT_PATH_MAX];  /* the builder's ordered module list */

	struct cmdline cmd;
	struct config cfg;
	struct report rep;

	/* What the kernel gave PID 1; the real init gets the same words and
	 * environment (the kernel already filtered its own options out). */
	int argc;
	char **argv;
	char **envp;
	const char *cmdline_text;  /* dry run: this instead of /proc/cmdline */

	/* The SELinux file contexts (struct selabel_handle *), opened once by
	 * the selinux stage and shared by the stages that create files. */
	void *selabel;

	/* The slow sysctl writes the sysctl_start stage began on a child
	 * (stages/sysctl_early.h); the sysctl stage collects them. NULL: none. */
	struct sysctl_early *sysctl_early;

	bool switched;           /* a switch happened: the new root is now "/" */
	int kmsg_fd;             /* -1 until /dev/kmsg is open */

	char init_path[BOOT_PATH_MAX];     /* chosen by the handoff stage */
	char err[BOOT_ERR_MAX];            /* the fatal error of the failing stage */
};

/* A stage: one file in stages/, one entry point. Returns 0 on success or
 * -1 after boot_error() said what failed; the runner in init/main.c logs
 * it and takes the configured failure action. Warnings are logged by the
 * stage itself and carried on. */
typedef int (*stage_fn)(struct boot *b);

/* Record the fatal error of a stage: what, why, what to do. Returns -1. */
int boot_error(struct boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Fill in the default paths and config for a mode. */
void boot_init_paths(struct boot *b, enum boot_mode mode);

/* Join a context directory and a relative path into out (bounded). Returns
 * out, or NULL when the result would not fit. */
char *boot_path(char *out, size_t outlen, const char *dir, const char *rel);

#endif
