/* glibc's newer names for calls musl has under their plain names. The
 * arm64 build links Debian 13's static libselinux, libsepol and libcap-ng
 * (scripts/build-bti: Debian 12's are built without branch protection,
 * and one object without the BTI note drops it from the whole binary);
 * they were compiled against glibc 2.41, whose headers send
 * - strtol, strtoul, strtoull and sscanf to glibc 2.38's C23 names
 *   __isoc23_*. What C23 changed: a "0b" or "0B" prefix is binary for
 *   strtol and friends with base 0 or 2 (C17 read the "0" and stopped),
 *   and scanf gained %b and binary %i. The strto* shims read the prefix as
 *   C23 does; sscanf is musl's, without %b or binary %i (the formats of
 *   the archives' callers use neither: tests/bats/arm64.bats);
 * - fcntl to fcntl64 (glibc 2.28's name for the 64-bit-offset locks, the
 *   same call on a 64-bit architecture).
 * Tested by tests/unit/test_glibc_names.c, on the host and under qemu-user. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int fcntl64(int fd, int cmd, ...);

/* Where the binary digits start when S has C23's binary prefix for BASE
 * (after white space and a sign, "0b" and a binary digit), or NULL; *neg
 * says whether the sign was a minus. */
static const char *binary_digits(const char *s, int base, int *neg)
{
	const char *p = s;

	*neg = 0;
	if (base != 0 && base != 2)
		return NULL;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1'))
		return p + 2;
	return NULL;
}

unsigned long long __isoc23_strtoull(const char *s, char **end, int base)
{
	int neg, saved;
	const char *d = binary_digits(s, base, &neg);
	unsigned long long v;

	if (!d)
		return strtoull(s, end, base);
	saved = errno;
	errno = 0;
	v = strtoull(d, end, 2);
	if (errno == ERANGE)
		return ULLONG_MAX;
	errno = saved;
	return neg ? -v : v;
}

unsigned long __isoc23_strtoul(const char *s, char **end, int base)
{
	int neg, saved;
	const char *d = binary_digits(s, base, &neg);
	unsigned long v;

	if (!d)
		return strtoul(s, end, base);
	saved = errno;
	errno = 0;
	v = strtoul(d, end, 2);
	if (errno == ERANGE)
		return ULONG_MAX;
	errno = saved;
	return neg ? -v : v;
}

long __isoc23_strtol(const char *s, char **end, int base)
{
	int neg, saved;
	const char *d = binary_digits(s, base, &neg);
	unsigned long v;

	if (!d)
		return strtol(s, end, base);
	saved = errno;
	errno = 0;
	v = strtoul(d, end, 2);
	if (!neg && (errno == ERANGE || v > (unsigned long)LONG_MAX)) {
		errno = ERANGE;
		return LONG_MAX;
	}
	if (neg && (errno == ERANGE || v > (unsigned long)LONG_MAX + 1)) {
		errno = ERANGE;
		return LONG_MIN;
	}
	errno = saved;
	return neg ? (long)(0 - v) : (long)v;
}

int __isoc23_sscanf(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsscanf(s, fmt, ap);
	va_end(ap);
	return n;
}

/* fcntl's third argument is an int, a pointer or absent: passed on as
 * musl's fcntl reads it, one unsigned long. */
int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}
