/* stages/mounts_mountinfo.c: /proc/self/mountinfo as the mounts stage
 * reads it, and the string helpers of the mounts stage's files. */
#ifndef HARDINIT_MOUNTS_MOUNTINFO_H
#define HARDINIT_MOUNTS_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "config_types.h"

#define MOUNTINFO_MAX_BYTES    (512 * 1024)

/* One line of /proc/self/mountinfo, as far as the stage needs it. */
struct mountinfo_entry {
	char point[CONFIG_PATH_MAX];
	char fstype[32];
	char mnt_opts[256];      /* per mount: rw,nosuid,nodev,... */
	char super_opts[256];    /* per super block: size=...,hidepid=... */
	bool shared;             /* an optional field "shared:N" */
};

/* Parse mountinfo text; find the last (top-most) entry mounted at point.
 * Returns 1 found, 0 not found. */
int hi_mountinfo_find_text(const char *text, const char *point, struct mountinfo_entry *out);
/* Same, reading PROC/self/mountinfo. -1 when unreadable. */
int hi_mountinfo_find(const char *proc, const char *point, struct mountinfo_entry *out);
/* Same, reading a mountinfo file (hardinit audit: PROC/1/mountinfo),
 * bounded by MOUNTINFO_MAX_BYTES: a larger one is -1, never half-read. */
int hi_mountinfo_find_file(const char *path, const char *point, struct mountinfo_entry *out);
/* Is word (e.g. "nosuid" or "hidepid=invisible") one of the
 * comma-separated options? */
bool hi_mount_opts_has(const char *opts, const char *word);

/* "/a/b//" -> "/a/b" (a lone "/" stays). */
void hi_strip_trailing_slashes(char *s);

int hi_copy_str(char *out, size_t cap, const char *s);   /* 0, or -1 when it does not fit */
/* mountinfo and fstab escape blanks as \040: undo that in place. */
void hi_unescape_octal(char *s);

#endif
