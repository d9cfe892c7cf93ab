/* The lists' formatters and lock rules (init/config_lists.c), named in the
 * list table; the types are init/config_keys.h. */
#ifndef HARDINIT_CONFIG_LISTS_H
#define HARDINIT_CONFIG_LISTS_H

#include <stddef.h>

#include "config_types.h"
#include "sink.h"

/* Write why (printf) and return 1: what a rule that found a weakening
 * returns (the lists' rules here, the scalars' in config_lock.c). */
int hi_config_why_weaker(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Each list's lock rule and formatter. */
int hi_booleans_weaker(const struct config *o, const struct config *n, char *why, size_t len);

int hi_sysctls_weaker(const struct config *o, const struct config *n, char *why, size_t len);
int hi_cap_drop_weaker(const struct config *o, const struct config *n, char *why, size_t len);
int hi_polydirs_weaker(const struct config *o, const struct config *n, char *why, size_t len);
void hi_format_booleans(struct sink *o, const struct config *c);
void hi_format_sysctls(struct sink *o, const struct config *c);
void hi_format_kernel_opts(struct sink *o, const struct config *c);
void hi_format_cap_drop(struct sink *o, const struct config *c);
void hi_format_polydirs(struct sink *o, const struct config *c);

#endif
