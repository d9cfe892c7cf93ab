/* hardinit.conf internals shared by the config_*.c files: the sections,
 * the key table with each key's lock rule, the list table, and the parse
 * context. The rest of hardinit sees config_types.h and
 * the files' own headers (tests/unit/test_config_lock.c walks the tables
 * through this one).
 *
 * Adding a key is adding one row to key_table (config_table.c): its
 * section, kind, field and lock rule. A row without a lock rule is
 * LOCK_UNSET, which the lock treats as a weakening (it fails closed) and
 * tests/unit/test_config_lock.c rejects. */
#ifndef HARDINIT_CONFIG_KEYS_H
#define HARDINIT_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "config_types.h"
#include "sink.h"

enum section {
	SEC_BOOT, SEC_SELINUX, SEC_MEMORY, SEC_SYSCTL, SEC_KERNEL,
	SEC_CAPS, SEC_LOCKS, SEC_MOUNTS, SEC_TTY, SEC_VERITY, SEC_IMA, SEC_TPM, N_SECTIONS
};

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
	/* the reader (config.c sets it): an include's lines are read by it,
	 * so the setters below the reader never call it by name */
	int (*read_text)(struct parse *p, const char *text, size_t len);
	unsigned key_line[N_KEYS_MAX];          /* where each key was set */
	unsigned section_line[N_SECTIONS];
	unsigned sysctl_line[CONFIG_MAX_SYSCTLS];
	unsigned boolean_line[CONFIG_MAX_BOOLEANS];
	struct pending_require requires[CONFIG_MAX_REQUIRED];
	size_t n_requires;
	char msg[CONFIG_ERR_MAX];      /* "what is wrong; how to fix it" */
};



#endif
