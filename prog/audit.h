/* hardinit audit: the live system against the config it was booted with. */
#ifndef HARDINIT_AUDIT_H
#define HARDINIT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit_types.h"
#include "config_types.h"
#include "report.h"
#include "sha256.h"

/* argv[0] is "audit". Exit status: 0 no drift, 1 drift, 2 cannot audit. */
int hi_audit_main(int argc, char **argv);

#endif
