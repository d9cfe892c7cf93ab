/* stages/mounts_nsconf.c: namespace.conf as pam_namespace reads it, for
 * the instance parents of the mounts stage. */
#ifndef HARDINIT_MOUNTS_NSCONF_H
#define HARDINIT_MOUNTS_NSCONF_H

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

/* The layout hardinit uses for a configured polydir that namespace.conf
 * has no line for, and that `hardinit private-tmp` uses: the man page's
 * own layout for /var/tmp, instances inside the polydir. */
#define POLY_DEFAULT_PARENT_NAME "tmp-inst"

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
int hi_nsconf_parse_line(const char *line, struct ns_entry *e, char *err, size_t errlen);

/* Read ROOT/etc/security/namespace.conf and the namespace.d .conf files (sorted by
 * name, as pam_namespace does), bounded by the NSCONF_ limits. Invalid
 * lines are logged, reported and counted, not kept. Returns 0, or -1 when
 * a limit was hit (logged; what was read is kept). */
int hi_nsconf_load(struct boot *b, struct ns_conf *c);

/* Warn about the users namespace.conf names that /etc/passwd lacks. */
void hi_nsconf_check_users(struct boot *b, const struct ns_conf *c);

#endif
