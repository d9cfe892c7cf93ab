/* hardinit config-set (init/config_edit.c): a file's text with keys set. */
#ifndef HARDINIT_CONFIG_EDIT_H
#define HARDINIT_CONFIG_EDIT_H

#include <stddef.h>

#include "config_types.h"

/* FILE's text with each SECTION.KEY=VALUE of assign set (config-set):
 * every other line kept as written, the key's own lines in its section
 * replaced by one "key = value" line after the section's header, a
 * missing section appended. Only keys that take one value. The result is
 * parsed again and must give what assign asked, compared through
 * config_format. Returns the length written to out, or -1 with one line
 * in err. root: where include = paths are read, as config_load. */
int hi_config_edit(const char *text, size_t len, const char *name, const char *root,
		const char *const *assign, size_t n, char *out, size_t cap,
		char *err, size_t errlen);

#endif
