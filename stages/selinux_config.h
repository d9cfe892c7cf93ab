/* selinux_config.c's functions (one header per .c file). */
#ifndef HARDINIT_SELINUX_CONFIG_H
#define HARDINIT_SELINUX_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "config_types.h"
#include "selinux_types.h"

/* Parse the text of /etc/selinux/config (len bytes, need not be
 * NUL-terminated). Unknown keys are ignored, as libselinux does. Returns 0,
 * or -1 with err ("why; what to do") for a line longer than
 * SELINUX_CONFIG_MAX_LINE, a NUL byte, or a SELINUXTYPE= value that does
 * not fit in type. */
int hi_selinux_config_parse(const char *text, size_t len, struct selinux_file_config *out,
			 char *err, size_t errlen);

/* Read ROOT/etc/selinux/config (bounded). A missing file is not an error:
 * out->present is false. Returns 0 or -1 with err. */
int hi_selinux_config_read(const char *root, struct selinux_file_config *out,
			char *err, size_t errlen);

/* Decide the mode. Precedence, highest first:
 *   1. kernel_enforcing (the value of enforcing= on the kernel command
 *      line, NULL when absent) picks enforcing or permissive, unless the
 *      hardinit config is locked and asks for enforcing (then enforcing=0
 *      is refused, as every weakening command-line override is);
 *   2. hardinit's [selinux] mode unless it is "config";
 *   3. SELINUX= of the root's /etc/selinux/config.
 * Whether to load at all is decided by 2 and 3 only: enforcing= picks a
 * mode for a loaded policy and never loads one on its own (as in
 * libselinux). have_embedded says the initramfs brought a policy, which is
 * loaded permissive when nothing else says what to do. */
void hi_selinux_decide(struct selinux_decision *d, const char *kernel_enforcing,
		    const struct config *cfg, const struct selinux_file_config *file,
		    bool have_embedded);

/* Does /proc/filesystems text list fs (e.g. "selinuxfs")? */
bool hi_selinux_fs_listed(const char *text, const char *fs);

/* enforcing= as the kernel reads it (kstrtoul: digits only, nonzero is
 * enforcing). Returns 0/1, or -1 when the kernel would ignore it too. */
int hi_selinux_parse_enforcing(const char *v);

/* Check a binary policy's header; *version gets its version. Returns 0, or
 * -1 with err saying what is wrong (too short, bad magic, not "SE Linux"). */
int hi_selinux_policy_header(const void *data, size_t len, unsigned *version,
			  char *err, size_t errlen);

#endif
