/* hardinit.conf's values (init/config_values.c): small parsers, the list
 * setters, [sysctl]; the types are init/config_keys.h. */
#ifndef HARDINIT_CONFIG_VALUES_H
#define HARDINIT_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "config_keys.h"

/* Record the error of the line being read; returns -1. */
int hi_config_fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* config_values.c: small parsers and the list setters. */
void hi_config_set_str(char *dst, size_t cap, const char *s);

int hi_config_lookup_name(const char *const *names, const char *s);
void hi_config_join_names(char *out, size_t cap, const char *const *names);
bool hi_config_close_enough(const char *typed, const char *known);
int hi_config_parse_bool(const char *s, bool *out);
int hi_config_parse_long(const char *s, long min, long max, long *out);
const char *hi_config_check_abs_path(const char *s);
const char *hi_config_comment_hint(const char *value);
long hi_config_sysctl_index(const struct config *c, const char *key);
bool hi_config_cap_listed(const struct config *c, int cap);
bool hi_config_polydir_listed(const struct config *c, const char *dir);
int hi_config_set_sysctl(struct parse *p, const char *raw_key, const char *value);
int hi_config_finish_requires(struct parse *p);
int hi_set_boolean(struct parse *p, const char *value);
int hi_set_cap_drop(struct parse *p, const char *value);
int hi_set_cap_keep(struct parse *p, const char *value);
int hi_set_kernel_warn(struct parse *p, const char *value);
int hi_set_kernel_require(struct parse *p, const char *value);
int hi_set_polydirs(struct parse *p, const char *value);
int hi_set_sysctl_include(struct parse *p, const char *value);
int hi_set_sysctl_require(struct parse *p, const char *value);

#endif
