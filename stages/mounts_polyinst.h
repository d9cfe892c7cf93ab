/* stages/mounts_polyinst.c: the instance parents pam_namespace needs,
 * prepared by the mounts stage (stages/mounts.c). */
#ifndef HARDINIT_MOUNTS_POLYINST_H
#define HARDINIT_MOUNTS_POLYINST_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"
#include "mounts_nsconf.h"

#define TMPFILES_MAX_BYTES     (8 * 1024)

/* Where the drop-in for systemd-tmpfiles goes, under b->run. */
#define POLY_TMPFILES_NAME "tmpfiles.d/hardinit-polyinstantiation.conf"

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
enum parent_state hi_poly_parent_check_at(const char *root, const char *rel, char *why, size_t whylen);
/* The same for a whole path below "/". */
enum parent_state hi_poly_parent_check(const char *path, char *why, size_t whylen);
const char *hi_poly_parent_state_name(enum parent_state s);

/* Create rel below root (its parent must exist) with mode 000, root:root,
 * through an fd and without following a link at any component. Returns
 * the new directory's fd (O_RDONLY, for its label), or -1 with errno. */
int hi_poly_parent_create_at(const char *root, const char *rel);
/* The same for a whole path below "/"; returns 0 or -1. */
int hi_poly_parent_create(const char *path);

/* The instance parent hardinit uses for polydir: the matching
 * namespace.conf entry's, else polydir/POLY_DEFAULT_PARENT_NAME. e gets
 * the entry, or NULL. Returns 0, -1 when the result does not fit. */
int hi_poly_parent_for(const struct ns_conf *c, const char *polydir,
		    const struct ns_entry **e, char *out, size_t outlen);

/* Is path (as the root sees it, e.g. "/var/tmp/tmp-inst") on a file
 * system that ROOT/etc/fstab lists and that is not mounted yet? mnt gets
 * the fstab mount point. Returns 1 yes, 0 no, -1 fstab unreadable (not
 * an error for a root without one: 0 then). */
int hi_poly_mounted_later(struct boot *b, const char *path, char *mnt, size_t mntlen);
/* The parser behind it, for tests/fuzz/fuzz_fstab.c: the longest mount
 * point of the fstab text, other than /, that path lies under. */
bool hi_fstab_mount_point_for(const char *fstab, const char *path, char *best, size_t bestlen);

/* The systemd-tmpfiles lines for the parents it must finish ("d PATH 0000
 * root root -"). Returns the length, or -1 when cap is too small. */
int hi_poly_tmpfiles_format(const char paths[][CONFIG_PATH_MAX], size_t n, char *out, size_t cap);

/* The polyinstantiation part of the stage alone (no mounts): read
 * namespace.conf, create or check the instance parents, write the
 * tmpfiles.d drop-in for the deferred ones. Returns 0, or -1 with b->err
 * for a config error. */
int hi_mounts_prepare_polydirs(struct boot *b);

#endif
