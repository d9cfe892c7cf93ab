/* hardinit audit: the live system against the config it was booted with. */
#ifndef HARDINIT_AUDIT_H
#define HARDINIT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit_types.h"
#include "config.h"
#include "report.h"
#include "sha256.h"

/* argv[0] is "audit". Exit status: 0 no drift, 1 drift, 2 cannot audit. */
int hi_audit_main(int argc, char **argv);

/* audit_posture.c: the states, SELinux, stage times and the config's
 * identity, read from a->proc, a->sys and the given files. */
void hi_audit_posture(struct audit *a, const struct config *c, bool config_read,
		   const char *config_path, const char *boot_json_path, const char *profile_dir);

#endif
