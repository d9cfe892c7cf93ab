/* Write a sysctl, read it back, say what happened: the one piece of logic
 * the memory, sysctl and locks stages share. Every access goes through a
 * struct sysctl_io so a test can stand in for a kernel that refuses a
 * value (a regular file in a temporary tree accepts anything). */
#ifndef HARDINIT_SYSCTL_APPLY_H
#define HARDINIT_SYSCTL_APPLY_H

#include <stddef.h>

#define SYSCTL_VALUE_MAX 256

enum sysctl_outcome {
	SYSCTL_APPLIED,   /* written and read back at the value */
	SYSCTL_ALREADY,   /* was at the value before; nothing written */
	SYSCTL_ABSENT,    /* this kernel has no such sysctl (ENOENT) */
	SYSCTL_REFUSED,   /* the write failed or the read-back differs */
};

struct sysctl_io {
	/* Same contracts as hi_sysctl_read()/hi_sysctl_write() in init/fsutil.h:
	 * 0, or -1 with errno. */
	int (*read)(void *ctx, const char *key, char *buf, size_t cap);
	int (*write)(void *ctx, const char *key, const char *value);
	void *ctx;
	/* Optional: write and read back in one go, as hi_sysctl_write_read();
	 * without it, write then read. */
	int (*write_read)(void *ctx, const char *key, const char *value, char *buf, size_t cap);
};

struct sysctl_result {
	enum sysctl_outcome outcome;
	int err;                        /* errno of the failed step, else 0 */
	char before[SYSCTL_VALUE_MAX];  /* "" when unreadable */
	char after[SYSCTL_VALUE_MAX];   /* what the kernel holds now */
};

/* The real thing: sysctl_read/sysctl_write under proc ("/proc"). proc must
 * outlive the returned struct. */
struct sysctl_io hi_sysctl_io_proc(const char *proc);

/* Read; if not already at value, write and read back; classify. */
enum sysctl_outcome hi_sysctl_apply_one(const struct sysctl_io *io, const char *key,
				     const char *value, struct sysctl_result *res);

/* Read only, for dry runs: ALREADY when at value, ABSENT, or REFUSED with
 * err 0 meaning "would be written". */
enum sysctl_outcome hi_sysctl_check_one(const struct sysctl_io *io, const char *key,
				     const char *value, struct sysctl_result *res);

/* Raise an integer sysctl to the largest value the kernel accepts, trying
 * top, top-1, ... down to one above the current value and keeping the first
 * that reads back (vm.mmap_rnd_bits: the range is per architecture and
 * configuration, and the kernel only tells by refusing with EINVAL).
 * ALREADY when nothing above the current value sticks; *best gets the
 * value in force. */
enum sysctl_outcome hi_sysctl_raise_to_max(const struct sysctl_io *io, const char *key,
					long top, long *best, struct sysctl_result *res);

/* "applied", "already", "absent", "refused": the report's status words. */
const char *hi_sysctl_outcome_name(enum sysctl_outcome o);

#endif
