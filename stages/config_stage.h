/* config_stage.c's functions (one header per .c file). */
#ifndef HARDINIT_CONFIG_STAGE_H
#define HARDINIT_CONFIG_STAGE_H

#include <stddef.h>

#include "boot.h"

int hi_stage_config(struct boot *b);     /* stages/config_stage.c: config + cmdline overrides */

/* Name what a config error quotes invisibly (a UTF-8 byte-order mark)
 * and say how to fix it; stages/config_stage.c, also used by check-config. */
void hi_config_explain(char *err, size_t cap);

#endif
