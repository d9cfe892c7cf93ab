/* Paths inside the new root, resolved without following a symbolic link
 * at any component and without leaving the root: the one place where
 * hardinit turns a path of the root (which the root's owner controls) into
 * something it creates, mounts on, chmods, chowns or labels. A link where
 * a directory should be is refused (ELOOP), never followed: a root whose
 * /tmp is a link to /etc must not get /etc covered by a tmpfs.
 *
 * Uses openat2(RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH) (Linux 5.6) and falls
 * back to a walk of O_PATH|O_NOFOLLOW opens, one component at a time, on
 * kernels without it. */
#ifndef HARDINIT_SAFEPATH_H
#define HARDINIT_SAFEPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Open rel below root (rel may start with '/'; "" or "/" is root itself).
 * flags are open(2)'s (O_PATH, O_RDONLY|O_DIRECTORY, O_CREAT...), mode for
 * O_CREAT; O_NOFOLLOW and O_CLOEXEC are always added. The root path itself
 * is hardinit's own (/, /root, a test's temporary directory) and is
 * followed. Returns an fd, or -1 with errno: ELOOP when a component is a
 * symbolic link, EXDEV for "..", the open's own error otherwise. */
int hi_safe_open(const char *root, const char *rel, int flags, mode_t mode);

/* The same, below an open directory. */
int hi_safe_openat(int dirfd, const char *rel, int flags, mode_t mode);

/* Create the directory rel below root (its parent must exist and be
 * reached without links), mode as given (the umask applies). Returns an
 * O_RDONLY|O_DIRECTORY fd of the new directory, or -1 with errno (EEXIST
 * when something is there already, ELOOP for a link on the way). */
int hi_safe_mkdir(const char *root, const char *rel, mode_t mode);

/* For a message after ELOOP: the first component of rel below root that
 * is a symbolic link, as "/tmp -> /etc" (the path as the root sees it and
 * the link's target). Returns 1 with out filled, 0 when none is a link. */
int hi_safe_find_link(const char *root, const char *rel, char *out, size_t outlen);

/* The path that names fd for mount(2) and the like: PROC/self/fd/N, which
 * the kernel resolves to the very directory the fd holds. Returns out, or
 * NULL when it does not fit. */
char *hi_safe_fd_path(char *out, size_t outlen, const char *proc, int fd);

/* Tests: take the component walk even where openat2 exists. */
void hi_safe_force_fallback(bool on);

#endif
