/* libFuzzer target for the root's /etc/fstab as the stages read it: the
 * mounts stage's fstab_mount_point_for (stages/mounts_polyinst.c) and
 * stages/fstab.c's lines, the entry for a mount point, its options and
 * its device as the usr stage takes them. The first line of the input is
 * the path asked about, the rest the fstab. The root's administrator, or
 * whoever made the image, wrote the fstab.
 *
 * Invariants: a mount point found is NUL-terminated inside the caller's
 * buffer (sized by the input, so ASan sees an overflow), is not "/", has no
 * trailing slash, and the path lies under it at a component boundary; a
 * buffer one byte too small for it makes the same call find nothing longer
 * (never a truncated point); and the round trip: the path itself, escaped
 * as fstab(5) escapes blanks, on a well-formed line, is found as its own
 * mount point. The entry for the path has that path as its mount point
 * and a device, a type and options; its options give only mount(2)'s
 * flag bits and data NUL-terminated inside a buffer of any size, holding
 * no word only user space reads; its device as the device wait takes it
 * fits or is refused, and a udev link becomes its tag. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mount.h>

#include "fstab.h"
#include "mounts.h"

#define LINE_MAX_BYTES 1024   /* the parser's line buffer */

static void check_found(const char *path, const char *best, size_t cap)
{
	if (memchr(best, '\0', cap) == NULL)
		abort();
	size_t n = strlen(best);
	if (n == 0 || strcmp(best, "/") == 0 || best[0] != '/' || (n > 1 && best[n - 1] == '/'))
		abort();
	if (strncmp(path, best, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		abort();
}

/* fstab(5): blanks in a field are written \040 (and tabs \011). */
static bool escape_path(const char *path, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = path; *p; p++) {
		if (n + 5 >= cap)
			return false;
		if (*p == ' ' || *p == '\t' || *p == '\\')
			n += (size_t)snprintf(out + n, cap - n, "\\%03o", (unsigned char)*p);
		else
			out[n++] = *p;
	}
	out[n] = '\0';
	return true;
}

static void check_round_trip(const char *path)
{
	char escaped[LINE_MAX_BYTES], text[3 * LINE_MAX_BYTES], best[CONFIG_PATH_MAX];
	size_t len = strlen(path);

	/* A path the parser can hold and that is a mount point it reports. */
	if (len < 2 || len >= sizeof best || path[0] != '/' || path[len - 1] == '/' ||
	    strchr(path, '#') || !escape_path(path, escaped, sizeof escaped) ||
	    strlen(escaped) + 40 >= LINE_MAX_BYTES)
		return;
	snprintf(text, sizeof text, "# comment\nUUID=1 / ext4 defaults 0 1\n"
		 "/dev/vdb1 %s xfs defaults,nofail 0 2\n/dev/vdc none swap sw 0 0\n", escaped);
	if (!hi_fstab_mount_point_for(text, path, best, sizeof best) || strcmp(best, path) != 0)
		abort();
}

static const unsigned long known_flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS |
					 MS_DIRSYNC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME |
					 MS_LAZYTIME | MS_I_VERSION | MS_SILENT;

/* Is word one of the comma-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static void check_entry(const char *fstab, const char *path, size_t cap)
{
	static struct fstab_line l;
	char spec[FSTAB_LINE_MAX + 16];
	unsigned long flags;

	if (!hi_fstab_find(fstab, path, &l))
		return;
	if (strcmp(l.file, path) != 0 || !l.spec[0] || !l.type[0] || !l.opts || !l.opts[0])
		abort();
	char *out = malloc(cap ? cap : 1);
	if (!out)
		return;
	if (hi_fstab_mount_opts(l.opts, &flags, out, cap) == 0) {
		if ((flags & ~known_flags) || !cap || !memchr(out, '\0', cap))
			abort();
		if (has_word(out, "defaults") || has_word(out, "nofail") || has_word(out, "noauto") ||
		    has_word(out, "rw") || has_word(out, "ro") || strstr(out, "x-") == out || strstr(out, ",x-"))
			abort();
	}
	free(out);
	if (hi_fstab_device_spec(l.spec, spec, sizeof spec) == 0) {
		if (!memchr(spec, '\0', sizeof spec))
			abort();
		if (!strncmp(l.spec, "/dev/disk/by-uuid/", 18) && l.spec[18] && strncmp(spec, "UUID=", 5) != 0)
			abort();
	}
	if (hi_fstab_device_spec(l.spec, spec, cap % sizeof spec) == 0 && cap % sizeof spec &&
	    !memchr(spec, '\0', cap % sizeof spec))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = strchr(buf, '\n');
	const char *path = buf, *fstab = nl ? nl + 1 : "";
	if (nl)
		*nl = '\0';

	char *best = malloc(CONFIG_PATH_MAX);
	if (best && hi_fstab_mount_point_for(fstab, path, best, CONFIG_PATH_MAX)) {
		check_found(path, best, CONFIG_PATH_MAX);
		/* Exactly the room it needs, then one byte less. */
		size_t need = strlen(best) + 1;
		char *exact = malloc(need);
		if (exact) {
			if (!hi_fstab_mount_point_for(fstab, path, exact, need) || strcmp(exact, best) != 0)
				abort();
			if (need > 1) {
				char *small = malloc(need - 1);
				if (small && hi_fstab_mount_point_for(fstab, path, small, need - 1)) {
					check_found(path, small, need - 1);
					if (strlen(small) >= strlen(best))
						abort();
				}
				free(small);
			}
		}
		free(exact);
	}
	free(best);
	check_round_trip(path);
	check_entry(fstab, path, size % 600);
	free(buf);
	return 0;
}
