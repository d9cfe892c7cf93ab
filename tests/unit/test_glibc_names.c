/* prog/glibc_names.c: glibc 2.38's C23 strtol, strtoul, strtoull and
 * sscanf names and glibc 2.28's fcntl64, which Debian 13's static
 * libselinux, libsepol and libcap-ng call in the arm64 build. Linked into this test on the host (glibc 2.36 has
 * none of them) and in the cross build (musl), run under qemu-user. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>

#include "tap.h"

long __isoc23_strtol(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int fcntl64(int fd, int cmd, ...);

static void test_decimal_and_hex(void)
{
	char *end;

	tap_ok(__isoc23_strtol(" -42x", &end, 10) == -42 && *end == 'x', "strtol: decimal, sign, end");
	tap_ok(__isoc23_strtol("0x1f", &end, 0) == 31 && *end == 0, "strtol: 0x with base 0");
	tap_ok(__isoc23_strtol("017", &end, 0) == 15, "strtol: octal with base 0");
	tap_ok(__isoc23_strtoul("4294967295", &end, 10) == 4294967295ul, "strtoul: decimal");
	tap_ok(__isoc23_strtoull("ffffffffffffffff", &end, 16) == ULLONG_MAX && *end == 0, "strtoull: hex");
	errno = 0;
	tap_ok(__isoc23_strtol("99999999999999999999", &end, 10) == LONG_MAX && errno == ERANGE,
	       "strtol: overflow is LONG_MAX, ERANGE");
	tap_ok(__isoc23_strtol("zz", &end, 10) == 0 && strcmp(end, "zz") == 0, "strtol: no digits: end at the start");
}

/* C23: a 0b prefix is binary with base 0 or 2 (C17 read "0" and stopped). */
static void test_binary(void)
{
	char *end;

	tap_ok(__isoc23_strtol("0b101z", &end, 0) == 5 && *end == 'z', "strtol: 0b101 with base 0 is 5");
	tap_ok(__isoc23_strtol(" -0B11", &end, 2) == -3 && *end == 0, "strtol: -0B11 with base 2 is -3");
	tap_ok(__isoc23_strtoul("0b1111", &end, 0) == 15, "strtoul: 0b1111 is 15");
	tap_ok(__isoc23_strtoull("+0b1", &end, 0) == 1 && *end == 0, "strtoull: +0b1 is 1");
	tap_ok(__isoc23_strtoul("-0b1", &end, 0) == ULONG_MAX, "strtoul: -0b1 negated as unsigned");
	tap_ok(__isoc23_strtol("0b2", &end, 0) == 0 && strcmp(end, "b2") == 0,
	       "strtol: 0b without a binary digit reads the 0");
	tap_ok(__isoc23_strtol("0b11", &end, 10) == 0 && strcmp(end, "b11") == 0,
	       "strtol: 0b with base 10 reads the 0");
	tap_ok(__isoc23_strtol("0b11", &end, 16) == 0xb11, "strtol: 0b11 with base 16 is hex");
	errno = EINTR;
	tap_ok(__isoc23_strtol("0b10", &end, 0) == 2 && errno == EINTR, "strtol: errno untouched on success");
	errno = 0;
	tap_ok(__isoc23_strtol("0b1000000000000000000000000000000000000000000000000000000000000000", &end, 0) ==
		       LONG_MAX && errno == ERANGE,
	       "strtol: binary over LONG_MAX is LONG_MAX, ERANGE");
	errno = 0;
	tap_ok(__isoc23_strtol("-0b1000000000000000000000000000000000000000000000000000000000000000", &end, 0) ==
		       LONG_MIN && errno == 0,
	       "strtol: -2^63 in binary is LONG_MIN");
	errno = 0;
	tap_ok(__isoc23_strtol("-0b1000000000000000000000000000000000000000000000000000000000000001", &end, 0) ==
		       LONG_MIN && errno == ERANGE,
	       "strtol: below LONG_MIN is LONG_MIN, ERANGE");
	errno = 0;
	tap_ok(__isoc23_strtoull("0b11111111111111111111111111111111111111111111111111111111111111111", &end, 0) ==
		       ULLONG_MAX && errno == ERANGE,
	       "strtoull: 65 binary ones overflow");
}

/* The formats the archives' callers use (libselinux's compute_av,
 * libcap-ng's status reader). */
static void test_sscanf(void)
{
	unsigned a = 0, b = 0;
	char s1[16] = "", s2[16] = "";
	unsigned short h = 0;

	tap_ok(__isoc23_sscanf("CapBnd:  000001ff00000003", "CapBnd:  %08x%08x", &a, &b) == 2 && a == 0x1ff && b == 3,
	       "sscanf: libcap-ng's CapBnd line");
	tap_ok(__isoc23_sscanf("u_t x_t 7", "%15s %15s %hu", s1, s2, &h) == 3 && strcmp(s2, "x_t") == 0 && h == 7,
	       "sscanf: strings and %%hu");
	tap_ok(__isoc23_sscanf("12", "%u", &a) == 1 && a == 12, "sscanf: %%u");
}

/* libselinux's uses: F_GETFD, F_SETFD with FD_CLOEXEC, F_GETFL. */
static void test_fcntl64(void)
{
	int p[2];

	if (!tap_ok(pipe(p) == 0, "fcntl64: a pipe"))
		return;
	tap_ok(fcntl64(p[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl64(p[0], F_GETFD) == FD_CLOEXEC,
	       "fcntl64: F_SETFD's argument reaches the kernel, F_GETFD reads it back");
	tap_ok(fcntl64(p[1], F_SETFL, O_NONBLOCK) == 0 && (fcntl64(p[1], F_GETFL) & O_NONBLOCK),
	       "fcntl64: F_SETFL O_NONBLOCK");
	tap_ok(fcntl64(-1, F_GETFD) == -1 && errno == EBADF, "fcntl64: EBADF");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	test_decimal_and_hex();
	test_binary();
	test_sscanf();
	test_fcntl64();
	return tap_done();
}
