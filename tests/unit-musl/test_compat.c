/* The glibc fortify entry points of init/compat.c, built with musl exactly
 * as in build/hardinit and called the way Debian's static archives call
 * them: each must do what the plain function does. (The aborting paths are
 * glibc's contract too; they are not exercised here.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, ...);
int __vsnprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, va_list ap);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int __printf_chk(int flag, const char *fmt, ...);
int __asprintf_chk(char **out, int flag, const char *fmt, ...);
int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);
void *__memcpy_chk(void *dst, const void *src, size_t len, size_t dstlen);
char *__strcpy_chk(char *dst, const char *src, size_t dstlen);
char *__stpcpy_chk(char *dst, const char *src, size_t dstlen);
int __open_2(const char *path, int flags);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

static int call_vsnprintf(char *s, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vsnprintf_chk(s, n, 1, n, fmt, ap);
	va_end(ap);
	return r;
}

static int call_vasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vasprintf_chk(out, 1, fmt, ap);
	va_end(ap);
	return r;
}

static int call_vfprintf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vfprintf_chk(fp, 1, fmt, ap);
	va_end(ap);
	return r;
}

int main(void)
{
	char buf[64], path[PATH_MAX], *heap = NULL;

	tap_ok(__snprintf_chk(buf, sizeof buf, 1, sizeof buf, "%s-%d", "ab", 42) == 5 &&
	       strcmp(buf, "ab-42") == 0, "__snprintf_chk formats like snprintf");
	tap_ok(__snprintf_chk(buf, 4, 1, sizeof buf, "%s", "abcdef") == 6 && strcmp(buf, "abc") == 0,
	       "__snprintf_chk truncates at maxlen and returns the full length");
	tap_ok(call_vsnprintf(buf, sizeof buf, "%x", 255) == 2 && strcmp(buf, "ff") == 0,
	       "__vsnprintf_chk formats like vsnprintf");
	tap_ok(__sprintf_chk(buf, 1, sizeof buf, "%05d", 7) == 5 && strcmp(buf, "00007") == 0,
	       "__sprintf_chk formats like sprintf");
	tap_ok(__asprintf_chk(&heap, 1, "%s/%s", "a", "b") == 3 && heap && strcmp(heap, "a/b") == 0,
	       "__asprintf_chk allocates and formats");
	free(heap);
	heap = NULL;
	tap_ok(call_vasprintf(&heap, "%c%c", 'o', 'k') == 2 && heap && strcmp(heap, "ok") == 0,
	       "__vasprintf_chk allocates and formats");
	free(heap);

	FILE *fp = tmpfile();
	tap_ok(fp && __fprintf_chk(fp, 1, "%d,", 1) == 2 && call_vfprintf(fp, "%d", 2) == 1,
	       "__fprintf_chk and __vfprintf_chk write to a stream");
	if (fp) {
		rewind(fp);
		memset(buf, 0, sizeof buf);
		tap_ok(fread(buf, 1, sizeof buf - 1, fp) == 3 && strcmp(buf, "1,2") == 0, "what they wrote reads back");
		fclose(fp);
	}
	tap_ok(__printf_chk(1, "%s", "") == 0, "__printf_chk prints (nothing)");

	tap_ok(__memcpy_chk(buf, "xyz", 4, sizeof buf) == buf && strcmp(buf, "xyz") == 0, "__memcpy_chk copies");
	tap_ok(__strcpy_chk(buf, "hello", sizeof buf) == buf && strcmp(buf, "hello") == 0, "__strcpy_chk copies");
	tap_ok(__stpcpy_chk(buf, "hi", sizeof buf) == buf + 2 && strcmp(buf, "hi") == 0,
	       "__stpcpy_chk copies and returns the end");
	int fd = __open_2("/proc/self/status", O_RDONLY);
	tap_ok(fd >= 0, "__open_2 opens a file for reading");
	if (fd >= 0)
		close(fd);
	tap_ok(__realpath_chk("/proc/self/../self", path, sizeof path) == path && strncmp(path, "/proc/", 6) == 0,
	       "__realpath_chk resolves a path");
	return tap_done();
}
