/* hardinit audit: the live system against the config it was booted with. */
#ifndef HARDINIT_AUDIT_H
#define HARDINIT_AUDIT_H

#include "config.h"

/* argv[0] is "audit". Exit status: 0 no drift, 1 drift, 2 cannot audit. */
int audit_main(int argc, char **argv);

#endif
