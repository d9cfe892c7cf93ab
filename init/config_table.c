/* The hardinit.conf key table: every key's section, kind, field and lock
 * rule, and the table of lists. The parser (config.c), the lock
 * (config_lock.c) and the formatter (config_format.c) all walk these
 * tables, so a key cannot be parsed but not written back or locked. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "config_lists.h"
#include "config_table.h"
#include "config_values.h"

const char *const hi_config_section_names[N_SECTIONS + 1] = {
	"boot", "selinux", "memory", "sysctl", "kernel",
	"capabilities", "locks", "mounts", "tty", "verity", "ima", "tpm", NULL
};

/* Indexed by the enum values of config.h; NULL-terminated for parsing. */
static const char *const failure_action_names[] = { "reboot", "poweroff", "halt", "shell", NULL };
static const char *const selinux_mode_names[] = { "config", "enforcing", "permissive", "disabled", NULL };
static const char *const nx_names[] = { "warn", "require", NULL };
static const char *const hidepid_names[] = { "off", "noaccess", "invisible", "ptraceable", NULL };
static const char *const tiocsti_names[] = { "allow", "deny-unprivileged", "deny-all", NULL };
static const char *const lockdown_names[] = { "none", "integrity", "confidentiality", NULL };
static const char *const tioclinux_names[] = { "allow", "deny", NULL };  /* deny_tioclinux */
static const char *const root_duplicates_names[] = { "refuse", "warn", NULL };
static const char *const corruption_names[] = { "eio", "restart", "panic", "ignore", NULL };

static const char *name_of(const char *const *names, size_t n, int value)
{
	if (value < 0 || (size_t)value >= n)
		return "?";
	return names[value];
}

#define N_NAMES(a) (sizeof(a) / sizeof((a)[0]) - 1)

const char *hi_config_failure_action_name(enum failure_action a)
{
	return name_of(failure_action_names, N_NAMES(failure_action_names), (int)a);
}

const char *hi_config_selinux_mode_name(enum selinux_mode m)
{
	return name_of(selinux_mode_names, N_NAMES(selinux_mode_names), (int)m);
}

const char *hi_config_tiocsti_name(enum tiocsti_mode m)
{
	return name_of(tiocsti_names, N_NAMES(tiocsti_names), (int)m);
}

const char *hi_config_lockdown_name(enum lockdown_level l)
{
	return name_of(lockdown_names, N_NAMES(lockdown_names), (int)l);
}

const char *hi_config_hidepid_name(enum hidepid h)
{
	return name_of(hidepid_names, N_NAMES(hidepid_names), (int)h);
}

int hi_config_failure_action_from_name(const char *name)
{
	return hi_config_lookup_name(failure_action_names, name);
}

int hi_config_section_of(const char *name)
{
	int sec = hi_config_lookup_name(hi_config_section_names, name);
	return sec >= 0 && strcmp(hi_config_section_names[sec], name) == 0 ? sec : -1;
}

static const char *check_init(const char *v)
{
	return *v ? hi_config_check_abs_path(v) : NULL;
}

static const char *check_selinux_type(const char *v)
{
	for (const char *s = v; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return "must be a policy name such as default or targeted";
	if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
		return "must be a policy name such as default or targeted";
	return NULL;
}

/* tmpfs size=: a number with an optional k, m, g suffix, or a percentage
 * of RAM (1% to 100%). */
static const char *check_tmp_size(const char *v)
{
	char *end;

	if (!*v)
		return NULL;
	if (!isdigit((unsigned char)*v) || strlen(v) >= 32)
		return "must be a size such as 50% or 512M, or off";
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || n == 0)
		return "must be a size above zero such as 50% or 512M, or off";
	if (*end == '%' && !end[1])
		return n <= 100 ? NULL : "must be at most 100%";
	if (*end && (!strchr("kKmMgG", *end) || end[1]))
		return "must be a size such as 50% or 512M, or off";
	return NULL;
}

/* A root hash as veritysetup prints it; its length against the algorithm
 * is checked by the verity stage, which knows the algorithm. */
static const char *check_roothash(const char *v)
{
	size_t n = strlen(v);

	if (!*v)
		return NULL;
	if (strspn(v, "0123456789abcdefABCDEF") != n || n % 2 || n > CONFIG_ROOT_HASH_HEX_MAX)
		return "must be the hex Root hash veritysetup format printed (64 digits for sha256)";
	return NULL;
}

/* Devices as root= names them; options as systemd.verity_root_options
 * words (the verity stage parses them). One word each, no spaces. */
static const char *check_verity_word(const char *v)
{
	for (const char *s = v; *s; s++)
		if (!isgraph((unsigned char)*s))
			return "must be one word without spaces";
	return NULL;
}

/* Lock ranks (LOCK_RANK): a locked override must raise the rank. */

/* "config" follows the root's /etc/selinux/config, which may say
 * enforcing: it ranks with permissive, so config -> permissive and
 * permissive -> config are both refused, and only enforcing is above. */
static int selinux_mode_rank(int mode)
{
	return mode == SELINUX_ENFORCING ? 3 : mode == SELINUX_DISABLED ? 1 : 2;
}

/* invisible and ptraceable hide different sets: neither is stronger. */
static int hidepid_rank(int h)
{
	return h == HIDEPID_OFF ? 0 : h == HIDEPID_NOACCESS ? 1 : 2;
}

/* warn lets a colliding disk take over the boot: refuse ranks above it. */
static int root_duplicates_rank(int v)
{
	return v == ROOT_DUP_REFUSE ? 1 : 0;
}

/* A proc_gid is a group that sees every process: it may only be removed. */
static int proc_gid_rank(int gid)
{
	return gid < 0 ? 1 : 0;
}

bool hi_config_tmp_size_valid(const char *s)
{
	return *s && !check_tmp_size(s);
}

/* eio, restart and panic all refuse a bad block; ignore does not. */
static int corruption_rank(int c)
{
	return c == VERITY_IGNORE ? 0 : 1;
}

/* The default PCR as a word of the messages below: its one home is
 * CONFIG_TPM_PCR_DEFAULT. */
#define PCR_WORD_(n) #n
#define PCR_WORD(n) PCR_WORD_(n)

static const char *check_tpm_pcr(long pcr)
{
	if (pcr == 10)
		return "PCR 10 is IMA's own; use " PCR_WORD(CONFIG_TPM_PCR_DEFAULT) " (the default) or another of 8-14";
	if (pcr == 11)
		return "PCR 11 holds the UKI and systemd's boot phases, which signed PCR policies predict; use "
		       PCR_WORD(CONFIG_TPM_PCR_DEFAULT);
	return NULL;
}

#define F(field) offsetof(struct config, field)

const struct key_def hi_config_key_table[] = {
	{ .section = SEC_BOOT, .key = "failure_action", .kind = K_ENUM, .lock = LOCK_FIXED, .offset = F(failure_action),
	  .names = failure_action_names },
	{ .section = SEC_BOOT, .key = "failure_delay", .kind = K_INT, .lock = LOCK_FREE, .offset = F(failure_delay),
	  .min = 0, .max = 3600 },
	{ .section = SEC_BOOT, .key = "root_timeout", .kind = K_INT, .lock = LOCK_FREE, .offset = F(root_timeout),
	  .min = 1, .max = 3600 },
	{ .section = SEC_BOOT, .key = "rootwait_timeout", .kind = K_INT, .lock = LOCK_FREE, .offset = F(rootwait_timeout),
	  .min = 1, .max = 86400 },
	{ .section = SEC_BOOT, .key = "init", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(init),
	  .size = CONFIG_PATH_MAX, .check = check_init,
	  .help = "an absolute path such as /lib/systemd/systemd, or empty" },
	{ .section = SEC_BOOT, .key = "lock_cmdline", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(lock_cmdline) },
	{ .section = SEC_BOOT, .key = "root_duplicates", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(root_duplicates),
	  .names = root_duplicates_names, .rank = root_duplicates_rank },
	{ .section = SEC_BOOT, .key = "read_root_config", .kind = K_BOOL, .lock = LOCK_FIXED, .offset = F(read_root_config) },
	/* Whether LVM metadata read from any disk may make the root device:
	 * the locked config decides, not the boot loader. */
	{ .section = SEC_BOOT, .key = "lvm", .kind = K_BOOL, .lock = LOCK_FIXED, .offset = F(root_lvm) },

	{ .section = SEC_SELINUX, .key = "mode", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(selinux_mode),
	  .names = selinux_mode_names, .rank = selinux_mode_rank },
	{ .section = SEC_SELINUX, .key = "require", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(selinux_require) },
	{ .section = SEC_SELINUX, .key = "type", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(selinux_type),
	  .size = CONFIG_NAME_MAX, .check = check_selinux_type,
	  .help = "a policy name such as default, or empty for the root's SELINUXTYPE" },
	{ .section = SEC_SELINUX, .key = "relabel", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(selinux_relabel) },
	{ .section = SEC_SELINUX, .key = "relabel_limit", .kind = K_INT, .lock = LOCK_RANK, .offset = F(selinux_relabel_limit),
	  .min = 0, .max = 10000000 },
	{ .section = SEC_SELINUX, .key = "boolean", .kind = K_LIST, .lock = LOCK_LIST, .set = hi_set_boolean, .list = LIST_BOOLEANS,
	  .repeatable = true },

	{ .section = SEC_MEMORY, .key = "nx", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(nx),
	  .names = nx_names },
	{ .section = SEC_MEMORY, .key = "aslr", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(aslr) },
	{ .section = SEC_MEMORY, .key = "mdwe", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(mdwe) },

	{ .section = SEC_SYSCTL, .key = "include", .kind = K_LIST, .lock = LOCK_ADD_ONLY, .set = hi_set_sysctl_include, .list = LIST_SYSCTLS,
	  .repeatable = true },
	{ .section = SEC_SYSCTL, .key = "require", .kind = K_LIST, .lock = LOCK_ADD_ONLY, .set = hi_set_sysctl_require, .list = LIST_SYSCTLS,
	  .repeatable = true },
	{ .section = SEC_SYSCTL, .key = "persist", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(sysctl_persist) },

	{ .section = SEC_KERNEL, .key = "warn", .kind = K_LIST, .lock = LOCK_ADD_ONLY, .set = hi_set_kernel_warn, .list = LIST_KERNEL_OPTS,
	  .repeatable = true },
	{ .section = SEC_KERNEL, .key = "require", .kind = K_LIST, .lock = LOCK_ADD_ONLY, .set = hi_set_kernel_require, .list = LIST_KERNEL_OPTS,
	  .repeatable = true },

	{ .section = SEC_CAPS, .key = "drop", .kind = K_LIST, .lock = LOCK_ADD_ONLY, .set = hi_set_cap_drop, .list = LIST_CAP_DROP,
	  .repeatable = true },
	{ .section = SEC_CAPS, .key = "keep", .kind = K_LIST, .lock = LOCK_LIST, .set = hi_set_cap_keep, .list = LIST_CAP_DROP,
	  .repeatable = true },

	{ .section = SEC_LOCKS, .key = "modules", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(lock_modules) },
	{ .section = SEC_LOCKS, .key = "kexec", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(lock_kexec) },
	{ .section = SEC_LOCKS, .key = "lockdown", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(lockdown),
	  .names = lockdown_names },
	{ .section = SEC_LOCKS, .key = "ptrace_scope", .kind = K_INT, .lock = LOCK_RANK, .offset = F(ptrace_scope),
	  .min = 0, .max = 3, .none_is_minus_one = true },

	{ .section = SEC_MOUNTS, .key = "shared", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(mount_shared) },
	{ .section = SEC_MOUNTS, .key = "proc_hidepid", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(proc_hidepid),
	  .names = hidepid_names, .rank = hidepid_rank },
	{ .section = SEC_MOUNTS, .key = "proc_gid", .kind = K_INT, .lock = LOCK_RANK, .offset = F(proc_gid),
	  .min = 0, .max = INT_MAX - 1, .none_is_minus_one = true, .rank = proc_gid_rank },
	{ .section = SEC_MOUNTS, .key = "shm_noexec", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(shm_noexec) },
	{ .section = SEC_MOUNTS, .key = "tmp_size", .kind = K_STRING, .lock = LOCK_ON_ONLY, .offset = F(tmp_size),
	  .size = 32, .check = check_tmp_size, .off_is_empty = true,
	  .help = "a tmpfs size such as 50% or 512M, or off for no tmpfs" },
	{ .section = SEC_MOUNTS, .key = "tmp_noexec", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(tmp_noexec) },
	{ .section = SEC_MOUNTS, .key = "polyinstantiate", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(polyinstantiate) },
	{ .section = SEC_MOUNTS, .key = "polydirs", .kind = K_LIST, .lock = LOCK_LIST, .set = hi_set_polydirs, .list = LIST_POLYDIRS },

	{ .section = SEC_TTY, .key = "tiocsti", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(tiocsti),
	  .names = tiocsti_names },
	{ .section = SEC_TTY, .key = "tioclinux", .kind = K_NAMED_BOOL, .lock = LOCK_ON_ONLY, .offset = F(deny_tioclinux),
	  .names = tioclinux_names },
	{ .section = SEC_TTY, .key = "seccomp", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(tiocsti_seccomp) },

	{ .section = SEC_VERITY, .key = "enabled", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(verity_enabled) },
	{ .section = SEC_VERITY, .key = "roothash", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(verity_roothash),
	  .size = CONFIG_ROOT_HASH_MAX, .check = check_roothash, .off_is_empty = true,
	  .help = "the hex Root hash of veritysetup format, or off" },
	{ .section = SEC_VERITY, .key = "data", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(verity_data),
	  .size = CONFIG_PATH_MAX, .check = check_verity_word, .off_is_empty = true,
	  .help = "a device as root= names one (/dev/vda, UUID=, PARTUUID=, LABEL=), or off" },
	{ .section = SEC_VERITY, .key = "hash", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(verity_hash),
	  .size = CONFIG_PATH_MAX, .check = check_verity_word, .off_is_empty = true,
	  .help = "a device as root= names one, or off for the data device" },
	{ .section = SEC_VERITY, .key = "options", .kind = K_STRING, .lock = LOCK_FIXED, .offset = F(verity_options),
	  .size = CONFIG_PATH_MAX, .check = check_verity_word, .off_is_empty = true,
	  .help = "comma-separated verity options such as superblock=no,hash-offset=N, or off" },
	{ .section = SEC_VERITY, .key = "on_corruption", .kind = K_ENUM, .lock = LOCK_RANK, .offset = F(verity_on_corruption),
	  .names = corruption_names, .rank = corruption_rank },
	{ .section = SEC_VERITY, .key = "require_signature", .kind = K_BOOL, .lock = LOCK_ON_ONLY,
	  .offset = F(verity_require_signature) },
	{ .section = SEC_IMA, .key = "require", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(ima_require) },

	{ .section = SEC_TPM, .key = "measure", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(tpm_measure) },
	{ .section = SEC_TPM, .key = "pcr", .kind = K_INT, .lock = LOCK_FIXED, .offset = F(tpm_pcr),
	  .min = 8, .max = 14, .check_int = check_tpm_pcr },
	{ .section = SEC_TPM, .key = "require", .kind = K_BOOL, .lock = LOCK_ON_ONLY, .offset = F(tpm_require) },
};

#define N_KEYS (sizeof hi_config_key_table / sizeof hi_config_key_table[0])

_Static_assert(N_KEYS <= N_KEYS_MAX, "raise N_KEYS_MAX");

const size_t hi_config_n_keys = N_KEYS;

const struct key_def *hi_config_key_find(int section, const char *key)
{
	for (size_t i = 0; i < hi_config_n_keys; i++)
		if ((int)hi_config_key_table[i].section == section && strcmp(hi_config_key_table[i].key, key) == 0)
			return &hi_config_key_table[i];
	return NULL;
}

static void *field(struct config *c, const struct key_def *d)
{
	return (char *)c + d->offset;
}

int hi_config_set_value(struct parse *p, const struct key_def *d, const char *value)
{
	const char *name = d->key;
	char list[160];
	long n;
	bool b;
	int i;

	switch (d->kind) {
	case K_BOOL:
		if (hi_config_parse_bool(value, &b) < 0)
			return hi_config_fail(p, "invalid value '%s' for %s; use yes or no%s", value, name, hi_config_comment_hint(value));
		*(bool *)field(p->c, d) = b;
		return 0;
	case K_NAMED_BOOL:
	case K_ENUM:
		if ((i = hi_config_lookup_name(d->names, value)) < 0) {
			hi_config_join_names(list, sizeof list, d->names);
			return hi_config_fail(p, "invalid value '%s' for %s; use %s%s", value, name, list, hi_config_comment_hint(value));
		}
		if (d->kind == K_NAMED_BOOL)
			*(bool *)field(p->c, d) = i != 0;
		else
			*(int *)field(p->c, d) = i;
		return 0;
	case K_INT:
		if (d->none_is_minus_one && strcasecmp(value, "none") == 0) {
			*(int *)field(p->c, d) = -1;
			return 0;
		}
		if (hi_config_parse_long(value, d->none_is_minus_one ? -1 : d->min, d->max, &n) < 0)
			return hi_config_fail(p, "invalid value '%s' for %s; use a whole number from %ld to %ld%s%s", value, name,
				    d->min, d->max, d->none_is_minus_one ? ", or none" : "", hi_config_comment_hint(value));
		if (d->check_int && d->check_int(n))
			return hi_config_fail(p, "invalid value '%s' for %s: %s", value, name, d->check_int(n));
		*(int *)field(p->c, d) = (int)n;
		return 0;
	case K_STRING: {
		const char *bad = d->check ? d->check(value) : NULL;
		if (strcasecmp(value, "off") == 0 && d->off_is_empty)
			value = "";
		else if (bad || strlen(value) >= d->size)
			return hi_config_fail(p, "invalid value '%s' for %s: %s; use %s", value, name,
				    bad ? bad : "too long", d->help);
		hi_config_set_str(field(p->c, d), d->size, value);
		return 0;
	}
	case K_LIST:
		return d->set(p, value);
	}
	return hi_config_fail(p, "internal error: key %s has no kind; report a bug", name);
}


/* Each list: where it is written, how, and its lock rule. The kernel
 * options have no rule of their own: warn and require only add words or
 * raise warn to require (their rows are LOCK_ADD_ONLY). */
const struct list_def hi_config_list_table[] = {
	{ LIST_BOOLEANS, SEC_SELINUX, "selinux.boolean", hi_format_booleans, hi_booleans_weaker },
	{ LIST_SYSCTLS, SEC_SYSCTL, "sysctl", hi_format_sysctls, hi_sysctls_weaker },
	{ LIST_KERNEL_OPTS, SEC_KERNEL, "kernel", hi_format_kernel_opts, NULL },
	{ LIST_CAP_DROP, SEC_CAPS, "capabilities.drop", hi_format_cap_drop, hi_cap_drop_weaker },
	{ LIST_POLYDIRS, SEC_MOUNTS, "mounts.polydirs", hi_format_polydirs, hi_polydirs_weaker },
};

const size_t hi_config_n_lists = sizeof hi_config_list_table / sizeof hi_config_list_table[0];

_Static_assert(sizeof hi_config_list_table / sizeof hi_config_list_table[0] == N_LISTS - 1,
	       "every enum list_id has a row in config_list_table");
