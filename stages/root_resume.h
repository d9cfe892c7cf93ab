/* root_resume.c's functions (one header per .c file). */
#ifndef HARDINIT_ROOT_RESUME_H
#define HARDINIT_ROOT_RESUME_H

#include "boot.h"

/* Refuse to boot over a hibernated system (the root stage, before it
 * mounts root=). wait: the root stage's bounded device wait
 * (hi_root_device_wait), passed in so this helper sits below the root
 * stage. */
int hi_resume_check(struct boot *b,
		    int (*wait)(struct boot *b, const char *spec, char *found, size_t cap));

#endif
