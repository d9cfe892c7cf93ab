/* The effective config written back as hardinit.conf text
 * (init/config_format.c). */
#ifndef HARDINIT_CONFIG_FORMAT_H
#define HARDINIT_CONFIG_FORMAT_H

#include <stddef.h>

#include "config_keys.h"
#include "config_types.h"

/* config_format.c: one scalar as the parser takes it back ("yes", "none",
 * "50%", "off"); empty string for a list. */
void hi_config_format_value(char *out, size_t cap, const struct config *c, const struct key_def *d);

/* Write the effective config as hardinit.conf text that config_parse
 * accepts and that gives back the same struct: saved by the report stage
 * as /run/hardinit/config for hardinit audit. Returns the length, or -1
 * when cap is too small. */
int hi_config_format(const struct config *c, char *out, size_t cap);

#endif
