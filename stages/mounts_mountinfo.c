/* mountinfo as the mounts stage reads it, and the small string helpers of
 * the mounts stage's files (mounts.c, mounts_polyinst.c, mounts_nsconf.c):
 * below all three, so none of them includes another's helpers. */
#include "mounts_mountinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "fsutil.h"

/* ---- small string helpers -------------------------------------------- */

int hi_copy_str(char *out, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (n >= cap)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

bool hi_mount_opts_has(const char *opts, const char *word)
{
	size_t wl = strlen(word);
	const char *p = opts;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == wl && strncmp(p, word, wl) == 0)
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

/* ---- mountinfo ------------------------------------------------------- */

void hi_unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* "36 35 98:0 /root /point rw,nosuid shared:1 - ext4 /dev/x rw,errors=..." */
static int mountinfo_parse_line(char *line, struct mountinfo_entry *m)
{
	char *save = NULL, *tok;
	int field = 0;
	bool after_dash = false;
	int after = 0;

	memset(m, 0, sizeof *m);
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (after_dash) {
			if (after == 0)
				hi_copy_str(m->fstype, sizeof m->fstype, tok);
			else if (after == 2)
				hi_copy_str(m->super_opts, sizeof m->super_opts, tok);
			after++;
			continue;
		}
		if (field == 4) {
			/* The limit is the point's, not its escaped form's (\040 is
			 * four bytes for one blank): unescape in the line first. */
			hi_unescape_octal(tok);
			if (hi_copy_str(m->point, sizeof m->point, tok) < 0)
				return -1;
		} else if (field == 5) {
			hi_copy_str(m->mnt_opts, sizeof m->mnt_opts, tok);
		} else if (field > 5) {
			if (strcmp(tok, "-") == 0)
				after_dash = true;
			else if (strncmp(tok, "shared:", 7) == 0)
				m->shared = true;
		}
	}
	return after_dash && after >= 1 ? 0 : -1;
}

int hi_mountinfo_find_text(const char *text, const char *point, struct mountinfo_entry *out)
{
	char line[4096];
	int found = 0;

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		struct mountinfo_entry m;
		if (len < sizeof line) {
			memcpy(line, l, len);
			line[len] = '\0';
			/* The last match is the top of a stack of mounts. */
			if (mountinfo_parse_line(line, &m) == 0 && strcmp(m.point, point) == 0) {
				*out = m;
				found = 1;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return found;
}

int hi_mountinfo_find_file(const char *path, const char *point, struct mountinfo_entry *out)
{
	char *buf = malloc(MOUNTINFO_MAX_BYTES);
	int rc = -1;

	memset(out, 0, sizeof *out);
	/* fs_read refuses a file larger than the buffer (E2BIG): a cut
	 * mountinfo could hide the top-most mount of a point. */
	if (buf && hi_fs_read(path, buf, MOUNTINFO_MAX_BYTES, NULL) == 0)
		rc = hi_mountinfo_find_text(buf, point, out);
	free(buf);
	return rc;
}

int hi_mountinfo_find(const char *proc, const char *point, struct mountinfo_entry *out)
{
	char path[BOOT_PATH_MAX * 2];

	memset(out, 0, sizeof *out);
	if (!hi_boot_path(path, sizeof path, proc, "self/mountinfo"))
		return -1;
	return hi_mountinfo_find_file(path, point, out);
}

void hi_strip_trailing_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}
