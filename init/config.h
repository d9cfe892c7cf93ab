/* The reader of hardinit.conf (init/config.c): defaults, a file's text, a
 * file, the line reader that included files share; the struct and its
 * limits are init/config_types.h. */
#ifndef HARDINIT_CONFIG_H
#define HARDINIT_CONFIG_H

#include <stddef.h>

#include "config_keys.h"
#include "config_types.h"

/* config.c: the line reader, also used for included files. */
int hi_config_parse_text(struct parse *p, const char *text, size_t len);

int hi_config_assignment(struct parse *p, const char *key, const char *value);
char *hi_config_trim(char *s);

/* Defaults: the baseline profile's values, so an empty file is valid. */
void hi_config_defaults(struct config *c);

/* Parse a config file's text. On error returns -1 and writes one line to
 * err: "FILE:LINE: what is wrong; how to fix it". name is used in messages.
 * include = lines are resolved relative to root (may be "" for the host). */
int hi_config_parse(struct config *c, const char *text, size_t len,
		 const char *name, const char *root, char *err, size_t errlen);

/* Read and parse a file (bounded by CONFIG_MAX_FILE_BYTES). */
int hi_config_load(struct config *c, const char *path, const char *root,
		char *err, size_t errlen);

#endif
