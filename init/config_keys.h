/* hardinit.conf internals shared by the config_*.c files: the sections,
 * the key table with each key's lock rule, the list table, and the parse
 * context. Nothing outside init/config*.c includes this header; the rest
 * of hardinit sees only config.h (tests/unit/test_config_lock.c walks the
 * tables through it).
 *
 * Adding a key is adding one row to key_table (config_table.c): its
 * section, kind, field and lock rule. A row without a lock rule is
 * LOCK_UNSET, which the lock treats as a weakening (it fails closed) and
 * tests/unit/test_config_lock.c rejects. */
#ifndef HARDINIT_CONFIG_KEYS_H
#define HARDINIT_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "sink.h"

enum section {
	SEC_BOOT, SEC_SELINUX, SEC_MEMORY, SEC_SYSCTL, SEC_KERNEL,
	SEC_CAPS, SEC_LOCKS, SEC_MOUNTS, SEC_TTY, SEC_VERITY, SEC_IMA, SEC_TPM, N_SECTIONS
};

extern const char *const hi_config_section_names[N_SECTIONS + 1];

enum kind { K_BOOL, K_INT, K_ENUM, K_NAMED_BOOL, K_STRING, K_LIST };

/* What lock_cmdline = yes lets a command-line override do to a key. */
enum lock_rule {
	LOCK_UNSET,     /* no rule written: refused (fails closed), and a test fails */
	LOCK_FREE,      /* changes no protection (timeouts, delays): any change */
	LOCK_ON_ONLY,   /* a protection that may be turned on, never off; a string
			 * may be changed but not cleared */
	LOCK_RANK,      /* ordered: any change must raise the rank (rank(), or the
			 * value itself); values of equal rank do not replace each other */
	LOCK_FIXED,     /* may not change at all */
	LOCK_ADD_ONLY,  /* the setter can only add or raise: nothing can weaken */
	LOCK_LIST,      /* a list: the rule of its list_def */
};

enum list_id {
	LIST_NONE, LIST_BOOLEANS, LIST_SYSCTLS, LIST_KERNEL_OPTS, LIST_CAP_DROP,
	LIST_POLYDIRS, N_LISTS
};

struct parse;

struct key_def {
	enum section section;
	const char *key;
	enum kind kind;
	enum lock_rule lock;
	size_t offset;                 /* of the field in struct config */
	size_t size;                   /* K_STRING: capacity */
	const char *const *names;      /* K_ENUM, K_NAMED_BOOL */
	long min, max;                 /* K_INT */
	bool none_is_minus_one;        /* K_INT: "none" means -1 */
	bool off_is_empty;             /* K_STRING: "off" means the empty string */
	int (*rank)(int value);        /* LOCK_RANK: strength; NULL: the value */
	const char *(*check)(const char *value);        /* K_STRING */
	const char *(*check_int)(long value);           /* K_INT: NULL, or why a value in range is refused */
	int (*set)(struct parse *p, const char *value);  /* K_LIST */
	enum list_id list;             /* K_LIST: the list it changes */
	bool repeatable;
	const char *help;              /* K_STRING: what a valid value looks like */
};

/* A list of struct config: how it is written back and what the lock
 * allows an override to do to it. */
struct list_def {
	enum list_id id;
	enum section section;
	const char *name;              /* for messages: "selinux.boolean" */
	void (*format)(struct sink *o, const struct config *c);
	/* 1 after writing why going from o to n weakens the config, else 0;
	 * NULL when every row of the list is LOCK_ADD_ONLY. */
	int (*weaker)(const struct config *o, const struct config *n, char *why, size_t len);
};

extern const struct key_def hi_config_key_table[];
extern const size_t hi_config_n_keys;
extern const struct list_def hi_config_list_table[];
extern const size_t hi_config_n_lists;

#define N_KEYS_MAX 96

struct pending_require {
	char key[CONFIG_NAME_MAX];
	unsigned line;
};

/* One source being read: a file, an included sysctl.d file, or one
 * command-line override. Duplicates are errors within one source only; a
 * later source (the root's file after the initramfs's) replaces values. */
struct parse {
	struct config *c;
	const char *name;              /* file name for messages */
	const char *root;              /* include = paths are under this */
	unsigned line;
	int section;                   /* enum section, -1 before the first */
	bool override;                 /* a hardinit.* command-line word */
	bool in_include;               /* a sysctl.d file: no sections, no include */
	int *n_includes;               /* shared by a file and its includes */
	unsigned key_line[N_KEYS_MAX];          /* where each key was set */
	unsigned section_line[N_SECTIONS];
	unsigned sysctl_line[CONFIG_MAX_SYSCTLS];
	unsigned boolean_line[CONFIG_MAX_BOOLEANS];
	struct pending_require requires[CONFIG_MAX_REQUIRED];
	size_t n_requires;
	char msg[CONFIG_ERR_MAX];      /* "what is wrong; how to fix it" */
};

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

/* config_table.c */
const struct key_def *hi_config_key_find(int section, const char *key);
int hi_config_set_value(struct parse *p, const struct key_def *d, const char *value);
int hi_config_section_of(const char *name);    /* enum section, or -1 */

/* config.c: the line reader, also used for included files. */
int hi_config_parse_text(struct parse *p, const char *text, size_t len);
int hi_config_assignment(struct parse *p, const char *key, const char *value);
char *hi_config_trim(char *s);

/* config_format.c: one scalar as the parser takes it back ("yes", "none",
 * "50%", "off"); empty string for a list. */
void hi_config_format_value(char *out, size_t cap, const struct config *c, const struct key_def *d);

/* config_lock.c: 1 after writing why n is weaker than o, else 0. */
int hi_config_weaker(const struct config *o, const struct config *n, char *why, size_t len);

/* The lists' rules (config_lock.c) and formatters (config_format.c),
 * named in config_list_table. */
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
