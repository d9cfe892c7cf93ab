/* hardinit audit's posture checks (prog/audit_posture.c): locks, SELinux,
 * stage times, profile. */
#ifndef HARDINIT_AUDIT_POSTURE_H
#define HARDINIT_AUDIT_POSTURE_H

#include <stdbool.h>

#include "audit_types.h"
#include "config_types.h"

/* audit_posture.c: the states, SELinux, stage times and the config's
 * identity, read from a->proc, a->sys and the given files. */
void hi_audit_posture(struct audit *a, const struct config *c, bool config_read,
		   const char *config_path, const char *boot_json_path, const char *profile_dir);

#endif
