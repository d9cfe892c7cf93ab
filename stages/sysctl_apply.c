#include "sysctl_apply.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"

static int proc_read(void *ctx, const char *key, char *buf, size_t cap)
{
	return hi_sysctl_read(ctx, key, buf, cap);
}

static int proc_write(void *ctx, const char *key, const char *value)
{
	return hi_sysctl_write(ctx, key, value);
}

static int proc_write_read(void *ctx, const char *key, const char *value, char *buf, size_t cap)
{
	return hi_sysctl_write_read(ctx, key, value, buf, cap);
}

struct sysctl_io hi_sysctl_io_proc(const char *proc)
{
	struct sysctl_io io = { .read = proc_read, .write = proc_write, .ctx = (void *)proc, .write_read = proc_write_read };
	return io;
}

const char *hi_sysctl_outcome_name(enum sysctl_outcome o)
{
	switch (o) {
	case SYSCTL_APPLIED: return "applied";
	case SYSCTL_ALREADY: return "already";
	case SYSCTL_ABSENT:  return "absent";
	case SYSCTL_REFUSED: return "refused";
	}
	return "refused";
}

static enum sysctl_outcome finish(struct sysctl_result *res, enum sysctl_outcome o, int err)
{
	res->outcome = o;
	res->err = err;
	return o;
}

/* 0, SYSCTL_WR_WRITE or SYSCTL_WR_READ (init/fsutil.h), with errno. */
static int write_read_back(const struct sysctl_io *io, const char *key, const char *value,
			   char *buf, size_t cap)
{
	if (io->write_read)
		return io->write_read(io->ctx, key, value, buf, cap);
	if (io->write(io->ctx, key, value) < 0)
		return SYSCTL_WR_WRITE;
	return io->read(io->ctx, key, buf, cap) < 0 ? SYSCTL_WR_READ : 0;
}

/* The first read decides between absent, already and "needs a write". */
static int read_before(const struct sysctl_io *io, const char *key, struct sysctl_result *res)
{
	memset(res, 0, sizeof *res);
	if (io->read(io->ctx, key, res->before, sizeof res->before) == 0) {
		memcpy(res->after, res->before, sizeof res->after);
		return 0;
	}
	res->err = errno;
	res->before[0] = '\0';
	return -1;
}

enum sysctl_outcome hi_sysctl_check_one(const struct sysctl_io *io, const char *key,
				     const char *value, struct sysctl_result *res)
{
	if (read_before(io, key, res) < 0)
		return finish(res, res->err == ENOENT ? SYSCTL_ABSENT : SYSCTL_REFUSED, res->err);
	if (hi_sysctl_value_equal(res->before, value))
		return finish(res, SYSCTL_ALREADY, 0);
	return finish(res, SYSCTL_REFUSED, 0);
}

enum sysctl_outcome hi_sysctl_apply_one(const struct sysctl_io *io, const char *key,
				     const char *value, struct sysctl_result *res)
{
	/* An unreadable but writable sysctl (mode 0200) is rare but real
	 * (e.g. vm.compact_memory); only ENOENT means "not on this kernel". */
	if (read_before(io, key, res) < 0 && res->err == ENOENT)
		return finish(res, SYSCTL_ABSENT, ENOENT);
	if (res->err == 0 && hi_sysctl_value_equal(res->before, value))
		return finish(res, SYSCTL_ALREADY, 0);

	/* Writing an unchanged value is skipped above on purpose: the one-way
	 * sysctls (modules_disabled, kexec_load_disabled) refuse even a
	 * rewrite of their locked value on some kernels. */
	int rc = write_read_back(io, key, value, res->after, sizeof res->after);
	if (rc == SYSCTL_WR_WRITE) {
		int err = errno;
		return finish(res, err == ENOENT ? SYSCTL_ABSENT : SYSCTL_REFUSED, err);
	}
	if (rc == SYSCTL_WR_READ) {
		int err = errno;
		res->after[0] = '\0';
		return finish(res, SYSCTL_REFUSED, err);
	}
	/* Some handlers accept a write and clamp or ignore it (proc_dointvec
	 * without bounds reports success); the read-back is the truth. */
	if (!hi_sysctl_value_equal(res->after, value))
		return finish(res, SYSCTL_REFUSED, 0);
	return finish(res, SYSCTL_APPLIED, 0);
}

static int parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* Bound on the walk down, whatever top the caller asks for. */
#define SYSCTL_RAISE_MAX_STEPS 64

enum sysctl_outcome hi_sysctl_raise_to_max(const struct sysctl_io *io, const char *key,
					long top, long *best, struct sysctl_result *res)
{
	long current;

	if (read_before(io, key, res) < 0)
		return finish(res, res->err == ENOENT ? SYSCTL_ABSENT : SYSCTL_REFUSED, res->err);
	if (parse_long(res->before, &current) < 0)
		return finish(res, SYSCTL_REFUSED, EINVAL);
	*best = current;

	int last_err = 0;
	for (long v = top, steps = 0; v > current && steps < SYSCTL_RAISE_MAX_STEPS; v--, steps++) {
		char want[32], got[SYSCTL_VALUE_MAX];
		long now;

		snprintf(want, sizeof want, "%ld", v);
		int rc = write_read_back(io, key, want, got, sizeof got);
		if (rc == SYSCTL_WR_WRITE) {
			last_err = errno;   /* EINVAL: above this kernel's maximum */
			continue;
		}
		if (rc == 0 && parse_long(got, &now) == 0 && now == v) {
			*best = v;
			snprintf(res->after, sizeof res->after, "%ld", v);
			return finish(res, SYSCTL_APPLIED, 0);
		}
	}
	/* EINVAL for every value above the current one: it is the maximum.
	 * Any other error (EPERM, EROFS) means we could not try. */
	if (last_err != 0 && last_err != EINVAL)
		return finish(res, SYSCTL_REFUSED, last_err);
	return finish(res, SYSCTL_ALREADY, 0);
}
