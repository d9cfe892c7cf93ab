/* Minimal TAP producer for the C unit tests: tests/run-suites counts the
 * "ok"/"not ok" lines of every suite into the final summary. */
#ifndef HARDINIT_TAP_H
#define HARDINIT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	if (!pass)
		tap_failed++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return pass;
}

/* Equality of strings with a diagnostic showing both on failure. */
static inline int tap_streq(const char *got, const char *want, const char *name)
{
	int pass = got && want ? strcmp(got, want) == 0 : got == want;
	tap_ok(pass, "%s", name);
	if (!pass)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return pass;
}

/* Substring check, for error messages that must name a line or a fix. */
static inline int tap_contains(const char *hay, const char *needle, const char *name)
{
	int pass = hay && needle && strstr(hay, needle) != NULL;
	tap_ok(pass, "%s", name);
	if (!pass)
		printf("#   '%s' does not contain '%s'\n", hay ? hay : "(null)", needle);
	return pass;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
