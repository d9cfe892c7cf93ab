/* boot_pace.c's functions (one header per .c file). */
#ifndef HARDINIT_BOOT_PACE_H
#define HARDINIT_BOOT_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "config_types.h"
#include "report.h"
#include "boot.h"

void hi_boot_pace_start(struct boot *b);

/* 0, or -1 after a logged warning that something stays changed. */
int hi_boot_pace_end(struct boot *b);

#endif
