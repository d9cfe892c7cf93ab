/* libFuzzer target for /proc/self/mountinfo (stages/mounts.c): the first
 * line of the input is the mount point looked for, the rest the table.
 * mountinfo is the kernel's, but the mount points in it are paths the root
 * chose (a directory named with blanks, backslashes, "\040"): none of it may
 * crash PID 1 or make it misread a line.
 *
 * Invariants: every field of a found entry is NUL-terminated inside its
 * buffer and the point is the one asked for; each option of mnt_opts is
 * found by mount_opts_has; unescape_octal never lengthens a string; and the
 * round trip: the point, escaped as the kernel escapes it (seq_path's
 * " \t\n\\" as octal), in a well-formed line, is found again with the same
 * fields. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mounts.h"

/* The stage's limit on one line (mountinfo_find_text). */
#define LINE_MAX_BYTES 4096

static void check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static void check_opts(const char *opts)
{
	char copy[256], *save = NULL;

	snprintf(copy, sizeof copy, "%s", opts);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (!hi_mount_opts_has(opts, w))
			abort();
}

static void check_entry(const struct mountinfo_entry *m, const char *point)
{
	check_terminated(m->point, sizeof m->point);
	check_terminated(m->fstype, sizeof m->fstype);
	check_terminated(m->mnt_opts, sizeof m->mnt_opts);
	check_terminated(m->super_opts, sizeof m->super_opts);
	if (strcmp(m->point, point) != 0)
		abort();
	check_opts(m->mnt_opts);
	check_opts(m->super_opts);
}

/* The kernel's mangling of a path in mountinfo (fs/proc_namespace.c). */
static size_t escape_point(const char *point, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = point; *p; p++) {
		if (n + 5 >= cap)
			return 0;
		if (strchr(" \t\n\\", *p))
			n += (size_t)snprintf(out + n, cap - n, "\\%03o", (unsigned char)*p);
		else
			out[n++] = *p;
	}
	out[n] = '\0';
	return n;
}

static void check_round_trip(const char *point)
{
	char escaped[LINE_MAX_BYTES], text[LINE_MAX_BYTES + 128];
	struct mountinfo_entry m;

	if (!point[0] || escape_point(point, escaped, sizeof escaped) == 0 ||
	    strlen(point) >= sizeof m.point)
		return;
	int n = snprintf(text, sizeof text,
			 "22 1 0:5 / /other rw - tmpfs tmpfs rw\n"
			 "36 35 98:0 /root %s rw,nosuid,nodev shared:7 master:1 - ext4 /dev/vda1 rw,errors=remount-ro\n",
			 escaped);
	if (n < 0 || (size_t)n >= sizeof text)
		return;
	/* Longer than a line the stage reads: skipped, never misread. */
	if (strlen(escaped) + 80 >= LINE_MAX_BYTES)
		return;
	int rc = hi_mountinfo_find_text(text, point, &m);
	/* The stage keeps only points whose escaped form fits in m.point:
	 * a longer one may be not found (a known defect, see
	 * tests/unit/test_fuzz_findings.c), never found wrong. */
	if (rc == 0 && strlen(escaped) >= sizeof m.point)
		return;
	if (rc != 1)
		abort();
	check_entry(&m, point);
	if (strcmp(m.fstype, "ext4") != 0 || strcmp(m.mnt_opts, "rw,nosuid,nodev") != 0 ||
	    strcmp(m.super_opts, "rw,errors=remount-ro") != 0 || !m.shared)
		abort();
}

static void check_unescape(const char *s, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, s, len + 1);
	hi_unescape_octal(copy);
	if (strlen(copy) > len)
		abort();
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so ASan sees a read past the end. */
	char *buf = malloc(size + 1);
	struct mountinfo_entry m;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';

	char *nl = strchr(buf, '\n');
	const char *point = buf, *text = nl ? nl + 1 : "";
	if (nl)
		*nl = '\0';
	int rc = hi_mountinfo_find_text(text, point, &m);
	if (rc != 0 && rc != 1)
		abort();
	if (rc == 1)
		check_entry(&m, point);
	check_unescape(text, strlen(text));
	check_round_trip(point);
	free(buf);
	return 0;
}
