/* The lock (init/config_lock.c): hardinit.* overrides and what
 * lock_cmdline = yes lets them do. */
#ifndef HARDINIT_CONFIG_LOCK_H
#define HARDINIT_CONFIG_LOCK_H

#include <stddef.h>

#include "config_types.h"
#include "sink.h"

/* config_lock.c: 1 after writing why n is weaker than o, else 0. */
int hi_config_weaker(const struct config *o, const struct config *n, char *why, size_t len);

/* Apply one hardinit.<section>.<key>=<value> override from the kernel
 * command line. Returns 0 applied, 1 refused because the config is locked
 * and the change weakens it (err says what), -1 malformed (err says why). */
int hi_config_override(struct config *c, const char *key, const char *value,
		    char *err, size_t errlen);

/* Apply SECTION.KEY=VALUE as a line of the file would set it, without the
 * lock (the file's author sets it, not the command line): 0, or -1 with
 * err "SECTION.KEY=VALUE: why". */
int hi_config_set_key(struct config *c, const char *key, const char *value,
		   char *err, size_t errlen);

#endif
