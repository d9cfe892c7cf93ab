/* The SELinux stage's pure pieces, shared by stages/selinux.c,
 * stages/selinux_relabel.c and tests/unit/test_selinux.c: deciding the
 * mode, reading /etc/selinux/config, checking a binary policy's header,
 * walking a tree for the relabel. Nothing here talks to the kernel. */
#ifndef HARDINIT_SELINUX_TYPES_H
#define HARDINIT_SELINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "boot.h"
#include "config_types.h"

/* /etc/selinux/config is a few hundred bytes; refuse anything huge. */
#define SELINUX_CONFIG_MAX_BYTES   (16 * 1024)
#define SELINUX_CONFIG_MAX_LINE    256
/* Debian's refpolicy is 2 MiB, Fedora's targeted about 4 MiB. */
#define SELINUX_POLICY_MAX_BYTES   (64u * 1024 * 1024)
/* An embedded policy: where the builder puts it in the initramfs, and
 * where the switch keeps it (under b->run, which survives the switch). */
#define SELINUX_EMBED_DIR          "/etc/hardinit/selinux"
#define SELINUX_EMBED_RUN_DIR      "hardinit/selinux"
/* Versions searched below the kernel's maximum (policy.N files); 15 is
 * the oldest version any kernel since 2.6.0 reads. */
#define SELINUX_POLICY_VERS_MIN    15
/* How far above the kernel's maximum we look, only to say "too new". */
#define SELINUX_POLICY_VERS_AHEAD  8
/* A policy header: magic, id length, "SE Linux", version, config,
 * symbol and ocontext counts (security/selinux/ss/policydb.c). */
#define SELINUX_POLICY_HEADER_MIN  32
#define SELINUX_POLICYDB_MAGIC     0xf97cff8cu
/* The relabel walk: objects and directory depth. /dev and /run hold a few
 * hundred entries at this point of a boot. */
#define SELINUX_RELABEL_DEFAULT_LIMIT 10000
#define SELINUX_RELABEL_MAX_DEPTH  16

/* SELINUX= of /etc/selinux/config. */
enum selinux_file_mode {
	SEFILE_ABSENT,        /* no file, or no SELINUX= line */
	SEFILE_ENFORCING,
	SEFILE_PERMISSIVE,
	SEFILE_DISABLED,
	SEFILE_UNKNOWN,       /* a value libselinux does not know either */
};

/* The longest SELinux type name (SELINUXTYPE) an image may embed: the
 * type file (SELINUX_EMBED_DIR/type) holds it and a newline, and the
 * selinux stage reads that file into a CONFIG_NAME_MAX buffer, which
 * fs_read fills to one byte short (its terminating NUL). The builder takes
 * it from `hardinit limits` (MAX_POLICY_TYPE_LEN). */
#define SELINUX_TYPE_MAX_LEN (CONFIG_NAME_MAX - 2)

struct selinux_file_config {
	bool present;                       /* the file exists */
	enum selinux_file_mode mode;
	char mode_text[CONFIG_VALUE_MAX];   /* as written, for messages */
	char type[CONFIG_NAME_MAX];         /* SELINUXTYPE=, "" when absent */
};

/* The decision: what the stage does and why. */
enum selinux_action { SEACT_LOAD, SEACT_SKIP };

struct selinux_decision {
	enum selinux_action action;
	bool enforcing;                 /* the mode to set after the load */
	bool fatal_on_failure;          /* require, or the mode is enforcing */
	char why[160];                  /* "kernel enforcing=0", ... */
	char warning[CONFIG_ERR_MAX];   /* "" or one line for log_warn */
};

/* The relabel walk: visit root and everything below it on the same file
 * system (st_dev), without following symlinks, depth-first, at most limit
 * objects. visit returns 0 to go on, -1 to count a failure and go on. */
struct selinux_walk_stats {
	size_t seen;          /* objects visited */
	size_t failed;        /* visit() failures and unreadable entries */
	size_t other_fs;      /* entries skipped because they are mount points of another fs */
	bool limit_hit;
	bool depth_hit;
};

typedef int (*selinux_visit_fn)(void *ctx, const char *path, mode_t mode);

#endif
