/* glibc's _FORTIFY_SOURCE entry points. Debian builds libselinux.a,
 * libsepol.a, libcap-ng.a and libpcre2-8.a with fortification, so the
 * archives call these; musl does not provide them. Each checks what glibc
 * checks (the destination size) and then does the plain call. */
#define _GNU_SOURCE   /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
