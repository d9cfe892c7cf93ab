#include "boot.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int boot_error(struct boot *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof b->err, fmt, ap);
	va_end(ap);
	return -1;
}

char *boot_path(char *out, size_t outlen, const char *dir, const char *rel)
{
	size_t dlen = strlen(dir);

	/* "/" + "/etc" must give "/etc", not "//etc". */
	while (dlen > 0 && dir[dlen - 1] == '/')
		dlen--;
	while (*rel == '/')
		rel++;
	int n = snprintf(out, outlen, "%.*s/%s", (int)dlen, dir, rel);
	if (n < 0 || (size_t)n >= outlen)
		return NULL;
	return out;
}
