/* The key table and the list table (init/config_table.c), and the enum
 * values' names; the types are init/config_keys.h. */
#ifndef HARDINIT_CONFIG_TABLE_H
#define HARDINIT_CONFIG_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "config_keys.h"
#include "config_types.h"

extern const char *const hi_config_section_names[N_SECTIONS + 1];
extern const struct key_def hi_config_key_table[];
extern const size_t hi_config_n_keys;
extern const struct list_def hi_config_list_table[];
extern const size_t hi_config_n_lists;

const struct key_def *hi_config_key_find(int section, const char *key);

int hi_config_set_value(struct parse *p, const struct key_def *d, const char *value);
int hi_config_section_of(const char *name);    /* enum section, or -1 */

/* Names for reports and messages. */
const char *hi_config_failure_action_name(enum failure_action a);

const char *hi_config_selinux_mode_name(enum selinux_mode m);
const char *hi_config_tiocsti_name(enum tiocsti_mode m);
const char *hi_config_lockdown_name(enum lockdown_level l);
const char *hi_config_hidepid_name(enum hidepid h);

/* The failure action a name stands for, or -1: for a command line read
 * before any config. */
int hi_config_failure_action_from_name(const char *name);

/* Is s a [mounts] tmp_size the parser accepts (not "off")? The mounts
 * stage checks again with the same rule before it builds mount data. */
bool hi_config_tmp_size_valid(const char *s);

#endif
