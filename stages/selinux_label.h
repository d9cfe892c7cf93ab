/* SELinux labels for what hardinit creates after the policy load: one
 * file-contexts handle for the whole boot (the selinux stage opens it;
 * opening it costs more than any one use), shared by the stages that make
 * files and directories. */
#ifndef HARDINIT_LABEL_H
#define HARDINIT_LABEL_H

#include <stdbool.h>
#include <sys/types.h>

#include "boot.h"

/* A policy is loaded: selinuxfs is mounted and our context is no longer
 * the kernel's initial "kernel". Not is_selinux_enabled(): libselinux 3.4
 * answers from what its constructor saw when this static PID 1 started in
 * the initramfs (no selinuxfs), so it says 0 even after the load. Under
 * another LSM there is no selinuxfs, so its "unconfined" does not count. */
bool hi_selinux_policy_loaded(const struct boot *b);

/* The boot's file-contexts handle (struct selabel_handle *), opened on
 * first use when the selinux stage did not leave one; NULL when no policy
 * is loaded or the contexts cannot be opened. */
struct selabel_handle *hi_label_handle(struct boot *b);

/* Give fspath the label the policy gives policy_path (the path whose rule
 * applies: a drop-in in /run labelled as if it were in /etc). Returns 0
 * labelled or already right or no policy loaded, -1 with errno. */
int hi_label_path_as(struct boot *b, const char *fspath, const char *policy_path, mode_t mode);

/* Give the directory open on fd the label the policy gives policy_path.
 * Returns 0 labelled or already right, 1 wrong and left alone (fix is
 * false), 2 no policy loaded, -1 error. got describes the result. */
int hi_label_dir(struct boot *b, int fd, const char *policy_path, bool fix, char *got, size_t gotlen);

#endif
