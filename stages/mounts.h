/* The pure pieces of stages/mounts.c and stages/mounts_polyinst.c (namespace.conf, instance parents,
 * fstab, mountinfo, the tmpfiles.d drop-in), exposed so
 * tests/unit/test_mounts.c can check them against a temporary tree. The
 * stage entry point is in stages/stages.h. */
#ifndef HARDINIT_MOUNTS_H
#define HARDINIT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"

/* Limits on what the stage reads from the new root. pam_namespace itself
 * has no limits; a root that exceeds one is reported, never half-read in
 * silence. */
#define NSCONF_MAX_FILES       32            /* files in namespace.d */
#define NSCONF_MAX_FILE_BYTES  (64 * 1024)
#define NSCONF_MAX_LINES       512           /* per file */
#define NSCONF_MAX_LINE        1024          /* bytes, as pam reads PATH_MAX-ish lines */
#define NSCONF_MAX_ENTRIES     64            /* valid lines over all files */
#define NSCONF_MAX_USERS       32            /* names in list_of_uids */
#define PASSWD_MAX_BYTES       (256 * 1024)
#define FSTAB_MAX_BYTES        (64 * 1024)
#define MOUNTINFO_MAX_BYTES    (512 * 1024)
#define TMPFILES_MAX_BYTES     (8 * 1024)

/* The layout hardinit uses for a configured polydir that namespace.conf
 * has no line for, and that `hardinit private-tmp` uses: the man page's
 * own layout for /var/tmp, instances inside the polydir. */
#define POLY_DEFAULT_PARENT_NAME "tmp-inst"

/* Where the drop-in for systemd-tmpfiles goes, under b->run. */
#define POLY_TMPFILES_NAME "tmpfiles.d/hardinit-polyinstantiation.conf"

enum ns_method { NS_USER, NS_CONTEXT, NS_LEVEL, NS_TMPDIR, NS_TMPFS };

struct ns_entry {
	char source[CONFIG_PATH_MAX];            /* "namespace.d/x.conf:12" */
	char polydir[CONFIG_PATH_MAX];           /* trailing slashes removed */
	char instance_prefix[CONFIG_PATH_MAX];
	char parent[CONFIG_PATH_MAX];            /* instance parent; "" for tmpfs */
	enum ns_method method;
	bool per_user;                           /* $HOME/$USER: made per login */
	bool create;                             /* the create flag: pam makes the polydir */
	char users[NSCONF_MAX_USERS][64];        /* list_of_uids, "~" removed */
	size_t n_users;
	bool users_exclusive;                    /* list preceded by "~" */
};

struct ns_conf {
	struct ns_entry entries[NSCONF_MAX_ENTRIES];
	size_t n;
	size_t n_invalid;                        /* lines pam_namespace refuses */
	size_t n_files;
};

/* Parse one line (no newline). Returns 1 for a blank or comment line, 0
 * with e filled for a valid line, -1 with err set ("why; what to do") for
 * a line pam_namespace would refuse (which fails every session). */
int nsconf_parse_line(const char *line, struct ns_entry *e, char *err, size_t errlen);

/* Read ROOT/etc/security/namespace.conf and the namespace.d .conf files (sorted by
 * name, as pam_namespace does), bounded by the NSCONF_ limits. Invalid
 * lines are logged, reported and counted, not kept. Returns 0, or -1 when
 * a limit was hit (logged; what was read is kept). */
int nsconf_load(struct boot *b, struct ns_conf *c);

/* The state of an instance parent directory (path as the stage sees it). */
enum parent_state {
	PARENT_OK,          /* a directory, mode 000, owned by root */
	PARENT_MISSING,
	PARENT_NOT_DIR,     /* a symlink or another kind of file */
	PARENT_BAD_MODE,    /* pam_namespace: "Mode of inst parent not 000" */
	PARENT_BAD_OWNER,
	PARENT_ERROR,       /* lstat failed otherwise; errno kept */
	PARENT_LINK,        /* a component of the path is a symbolic link */
};
/* The state of rel below root, resolved without following any link (why
 * names the link and its target for PARENT_LINK). */
enum parent_state poly_parent_check_at(const char *root, const char *rel, char *why, size_t whylen);
/* The same for a whole path below "/". */
enum parent_state poly_parent_check(const char *path, char *why, size_t whylen);
const char *poly_parent_state_name(enum parent_state s);

/* Create rel below root (its parent must exist) with mode 000, root:root,
 * through an fd and without following a link at any component. Returns
 * the new directory's fd (O_RDONLY, for its label), or -1 with errno. */
int poly_parent_create_at(const char *root, const char *rel);
/* The same for a whole path below "/"; returns 0 or -1. */
int poly_parent_create(const char *path);

/* The instance parent hardinit uses for polydir: the matching
 * namespace.conf entry's, else polydir/POLY_DEFAULT_PARENT_NAME. e gets
 * the entry, or NULL. Returns 0, -1 when the result does not fit. */
int poly_parent_for(const struct ns_conf *c, const char *polydir,
		    const struct ns_entry **e, char *out, size_t outlen);

/* Is path (as the root sees it, e.g. "/var/tmp/tmp-inst") on a file
 * system that ROOT/etc/fstab lists and that is not mounted yet? mnt gets
 * the fstab mount point. Returns 1 yes, 0 no, -1 fstab unreadable (not
 * an error for a root without one: 0 then). */
int poly_mounted_later(struct boot *b, const char *path, char *mnt, size_t mntlen);
/* The parser behind it, for tests/fuzz/fuzz_fstab.c: the longest mount
 * point of the fstab text, other than /, that path lies under. */
bool fstab_mount_point_for(const char *fstab, const char *path, char *best, size_t bestlen);

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
int mountinfo_find_text(const char *text, const char *point, struct mountinfo_entry *out);
/* Same, reading PROC/self/mountinfo. -1 when unreadable. */
int mountinfo_find(const char *proc, const char *point, struct mountinfo_entry *out);
/* Same, reading a mountinfo file (hardinit audit: PROC/1/mountinfo),
 * bounded by MOUNTINFO_MAX_BYTES: a larger one is -1, never half-read. */
int mountinfo_find_file(const char *path, const char *point, struct mountinfo_entry *out);
/* Is word (e.g. "nosuid" or "hidepid=invisible") one of the
 * comma-separated options? */
bool mount_opts_has(const char *opts, const char *word);

/* The systemd-tmpfiles lines for the parents it must finish ("d PATH 0000
 * root root -"). Returns the length, or -1 when cap is too small. */
int poly_tmpfiles_format(const char paths[][CONFIG_PATH_MAX], size_t n, char *out, size_t cap);

/* The polyinstantiation part of the stage alone (no mounts): read
 * namespace.conf, create or check the instance parents, write the
 * tmpfiles.d drop-in for the deferred ones. Returns 0, or -1 with b->err
 * for a config error. */
int mounts_prepare_polydirs(struct boot *b);

/* Warn about the users namespace.conf names that /etc/passwd lacks. */
void nsconf_check_users(struct boot *b, const struct ns_conf *c);

/* "/a/b//" -> "/a/b" (a lone "/" stays). */
void strip_trailing_slashes(char *s);

/* Shared by stages/mounts.c and stages/mounts_polyinst.c. */
int copy_str(char *out, size_t cap, const char *s);   /* 0, or -1 when it does not fit */
/* mountinfo and fstab escape blanks as \040: undo that in place. */
void unescape_octal(char *s);

/* A link (or another file) where a directory of the root should be: one
 * warning naming the path and the link's target, a "refused" report item
 * under key; the fix it names never acts through the link. rel is the
 * path below b->newroot, err the errno of the safe open. */
void mounts_refuse_path(struct boot *b, const char *key, const char *rel, int err);

#endif
