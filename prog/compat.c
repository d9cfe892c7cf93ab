/* glibc's _FORTIFY_SOURCE entry points. Debian builds libselinux.a,
 * libsepol.a, libcap-ng.a and libpcre2-8.a with fortification, so the
 * archives call these; musl does not provide them. Each checks what glibc
 * checks (the destination size) and then does the plain call. */
#define _GNU_SOURCE   /* vasprintf */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static void fortify_fail(const char *what)
{
	static const char msg[] = "hardinit: buffer overflow detected in ";
	ssize_t unused = write(2, msg, sizeof msg - 1);
	(void)unused;
	unused = write(2, what, __builtin_strlen(what));
	unused = write(2, "\n", 1);
	abort();
}

int __vsnprintf_chk(char *s, size_t maxlen, int flag, size_t slen,
		    const char *fmt, va_list ap)
{
	(void)flag;
	if (slen < maxlen)
		fortify_fail("vsnprintf");
	return vsnprintf(s, maxlen, fmt, ap);
}

int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen,
		   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = __vsnprintf_chk(s, maxlen, flag, slen, fmt, ap);
	va_end(ap);
	return n;
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	int n = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= slen)
		fortify_fail("sprintf");
	return n;
}

int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vfprintf(fp, fmt, ap);
}

int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	int n = vfprintf(fp, fmt, ap);
	va_end(ap);
	return n;
}

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vasprintf(out, fmt, ap);
}

int __asprintf_chk(char **out, int flag, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	int n = vasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}

void __syslog_chk(int prio, int flag, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	vsyslog(prio, fmt, ap);
	va_end(ap);
}

void *__memcpy_chk(void *dst, const void *src, size_t len, size_t dstlen)
{
	if (dstlen < len)
		fortify_fail("memcpy");
	return memcpy(dst, src, len);
}

/* Debian's libbearssl.a (the TPM2 session's ECDH, RSA-OAEP, AES). */
void *__memmove_chk(void *dst, const void *src, size_t len, size_t dstlen)
{
	if (dstlen < len)
		fortify_fail("memmove");
	return memmove(dst, src, len);
}

void *__memset_chk(void *dst, int c, size_t len, size_t dstlen)
{
	if (dstlen < len)
		fortify_fail("memset");
	return memset(dst, c, len);
}

char *__strcpy_chk(char *dst, const char *src, size_t dstlen)
{
	if (strlen(src) >= dstlen)
		fortify_fail("strcpy");
	return strcpy(dst, src);
}

char *__stpcpy_chk(char *dst, const char *src, size_t dstlen)
{
	if (strlen(src) >= dstlen)
		fortify_fail("stpcpy");
	return stpcpy(dst, src);
}

/* glibc calls this for open() without a mode where the flags might need
 * one; O_CREAT or O_TMPFILE there is the caller's bug. */
int __open_2(const char *path, int flags)
{
	if (flags & (O_CREAT | O_TMPFILE))
		fortify_fail("open without a mode");
	return open(path, flags);
}

/* The same under the name Debian 13's libselinux.a calls on arm64 (glibc's
 * open64, which is open on a 64-bit architecture). */
int __open64_2(const char *path, int flags)
{
	return __open_2(path, flags);
}

/* Debian 13's libargon2.a clears its memory with this. */
void __explicit_bzero_chk(void *dst, size_t len, size_t dstlen)
{
	if (dstlen < len)
		fortify_fail("explicit_bzero");
	explicit_bzero(dst, len);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (resolved && resolvedlen < PATH_MAX)
		fortify_fail("realpath");
	return realpath(path, resolved);
}
