/* hardinit.conf: parse, override, format. The format is in
 * man/hardinit.conf.5; this file is the one place that knows it.
 *
 * Every key is one row of key_table: its section, its kind (bool, number,
 * named value, string, or a list with its own setter) and where it lives in
 * struct config. Parsing, command-line overrides and formatting all walk the
 * same table, so a key cannot be parsed but not written back, or the other
 * way round. Errors are one line, "FILE:LINE: what is wrong; how to fix it":
 * a config that says something hardinit does not understand must stop the
 * boot rather than boot a weaker system than the author meant. */
#include "config.h"

#include <cap-ng.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "sink.h"

/* ---- names ------------------------------------------------------------ */

/* Indexed by the enum values of config.h; NULL-terminated for parsing. */
static const char *const failure_action_names[] = { "reboot", "poweroff", "halt", "shell", NULL };
static const char *const selinux_mode_names[] = { "config", "enforcing", "permissive", "disabled", NULL };
static const char *const nx_names[] = { "warn", "require", NULL };
static const char *const hidepid_names[] = { "off", "noaccess", "invisible", "ptraceable", NULL };
static const char *const tiocsti_names[] = { "allow", "deny-unprivileged", "deny-all", NULL };
static const char *const lockdown_names[] = { "none", "integrity", "confidentiality", NULL };
static const char *const tioclinux_names[] = { "allow", "deny", NULL };  /* deny_tioclinux */
static const char *const root_duplicates_names[] = { "refuse", "warn", NULL };

static const char *name_of(const char *const *names, size_t n, int value)
{
	if (value < 0 || (size_t)value >= n)
		return "?";
	return names[value];
}

#define N_NAMES(a) (sizeof(a) / sizeof((a)[0]) - 1)

const char *config_failure_action_name(enum failure_action a)
{
	return name_of(failure_action_names, N_NAMES(failure_action_names), (int)a);
}

const char *config_selinux_mode_name(enum selinux_mode m)
{
	return name_of(selinux_mode_names, N_NAMES(selinux_mode_names), (int)m);
}

const char *config_tiocsti_name(enum tiocsti_mode m)
{
	return name_of(tiocsti_names, N_NAMES(tiocsti_names), (int)m);
}

const char *config_lockdown_name(enum lockdown_level l)
{
	return name_of(lockdown_names, N_NAMES(lockdown_names), (int)l);
}

const char *config_hidepid_name(enum hidepid h)
{
	return name_of(hidepid_names, N_NAMES(hidepid_names), (int)h);
}

/* ---- defaults: the baseline profile ----------------------------------- */

static void set_str(char *dst, size_t cap, const char *s)
{
	/* Zero the whole field: config_format round-trips compare structs. */
	memset(dst, 0, cap);
	snprintf(dst, cap, "%s", s);
}

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->failure_action = FAIL_REBOOT;
	c->failure_delay = 10;
	c->root_timeout = 10;
	c->rootwait_timeout = 300;
	c->lock_cmdline = false;
	c->read_root_config = false;
	c->root_duplicates = ROOT_DUP_REFUSE;

	c->selinux_mode = SELINUX_FROM_CONFIG;
	c->selinux_require = false;
	c->selinux_relabel = true;
	c->selinux_relabel_limit = 20000;

	c->nx = NX_WARN;
	c->aslr = true;
	c->mdwe = false;

	c->sysctl_persist = true;

	c->lock_modules = false;
	c->lock_kexec = false;
	c->lockdown = LOCKDOWN_NONE;
	c->ptrace_scope = -1;

	c->mount_shared = true;
	c->proc_hidepid = HIDEPID_OFF;
	c->proc_gid = -1;
	c->shm_noexec = true;
	c->tmp_noexec = false;
	c->polyinstantiate = true;
	set_str(c->polydirs[0], CONFIG_PATH_MAX, "/tmp");
	set_str(c->polydirs[1], CONFIG_PATH_MAX, "/var/tmp");
	c->n_polydirs = 2;

	c->tiocsti = TIOCSTI_DENY_UNPRIVILEGED;
	c->deny_tioclinux = false;
	c->tiocsti_seccomp = false;
}

/* ---- the parse context ------------------------------------------------ */

enum section {
	SEC_BOOT, SEC_SELINUX, SEC_MEMORY, SEC_SYSCTL, SEC_KERNEL,
	SEC_CAPS, SEC_LOCKS, SEC_MOUNTS, SEC_TTY, N_SECTIONS
};

static const char *const section_names[N_SECTIONS + 1] = {
	"boot", "selinux", "memory", "sysctl", "kernel",
	"capabilities", "locks", "mounts", "tty", NULL
};

#define N_KEYS_MAX 48

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

static int fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- small value parsers ---------------------------------------------- */

static int lookup_name(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcasecmp(names[i], s) == 0)
			return i;
	return -1;
}

static void join_names(char *out, size_t cap, const char *const *names)
{
	size_t pos = 0;

	out[0] = '\0';
	for (int i = 0; names[i] && pos < cap; i++) {
		const char *sep = !names[i + 1] ? "" : !names[i + 2] ? " or " : ", ";
		int n = snprintf(out + pos, cap - pos, "%s%s", names[i], sep);
		if (n < 0)
			break;
		pos += (size_t)n;
	}
}

/* An inline comment is the commonest reason a value does not parse. */
static const char *comment_hint(const char *value)
{
	return strchr(value, '#') ? " (comments must be on a line of their own)" : "";
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	if (lookup_name(yes, s) >= 0) {
		*out = true;
		return 0;
	}
	if (lookup_name(no, s) >= 0) {
		*out = false;
		return 0;
	}
	return -1;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;

	if (!*s || !(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return true;
	return false;
}

/* Absolute, no "." or ".." parts (an include must stay under root; a
 * polydir or init path is compared as written), no globs. */
static const char *check_abs_path(const char *s)
{
	if (s[0] != '/')
		return "must be an absolute path";
	if (strlen(s) >= CONFIG_PATH_MAX)
		return "is longer than 255 bytes (CONFIG_PATH_MAX)";
	if (has_space(s))
		return "must not contain white space";
	if (strpbrk(s, "*?["))
		return "must not contain glob characters; list each file";
	for (const char *part = s; *part;) {
		while (*part == '/')
			part++;
		size_t n = strcspn(part, "/");
		if ((n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
			return "must not contain '.' or '..' parts";
		part += n;
	}
	return NULL;
}

/* Next word of a list; separators are white space, and commas when
 * commas_separate (a kernel command line cannot easily carry spaces).
 * Returns 1 with a word, 0 at the end, -1 for a word that does not fit. */
static int next_word(const char **s, char *out, size_t cap, bool commas_separate)
{
	const char *seps = commas_separate ? " \t," : " \t";
	const char *p = *s + strspn(*s, seps);
	size_t n = strcspn(p, seps);

	if (n == 0) {
		*s = p;
		return 0;
	}
	*s = p + n;
	if (n >= cap)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

/* Edit distance for "did you mean": bounded, short words only. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static bool close_enough(const char *typed, const char *known)
{
	size_t d = edit_distance(typed, known);
	size_t len = strlen(known);
	return d <= (len < 6 ? 1 : len / 3);
}

/* ---- list setters ------------------------------------------------------ */

static int set_boolean(struct parse *p, const char *value)
{
	struct config *c = p->c;
	char name[CONFIG_NAME_MAX];
	const char *eq = strchr(value, '=');
	bool on;

	if (!eq)
		return fail(p, "boolean needs NAME=on|off, got '%s'; write e.g. boolean = allow_execmem=off", value);
	size_t n = (size_t)(eq - value);
	while (n > 0 && isspace((unsigned char)value[n - 1]))
		n--;
	if (n == 0 || n >= sizeof name)
		return fail(p, "boolean name is empty or longer than 127 bytes; write boolean = NAME=on|off");
	memcpy(name, value, n);
	name[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return fail(p, "invalid SELinux boolean name '%s'; names are letters, digits and '_' (see getsebool -a)", name);
	const char *v = eq + 1;
	while (isspace((unsigned char)*v))
		v++;
	if (parse_bool(v, &on) < 0)
		return fail(p, "invalid value '%s' for boolean %s; use on, off, 1, 0, true or false%s", v, name, comment_hint(v));

	for (size_t i = 0; i < c->n_booleans; i++) {
		if (strcmp(c->booleans[i].name, name) != 0)
			continue;
		if (p->boolean_line[i])
			return fail(p, "boolean %s is set twice (first on line %u); keep one", name, p->boolean_line[i]);
		c->booleans[i].value = on;
		p->boolean_line[i] = p->line;
		return 0;
	}
	if (c->n_booleans >= CONFIG_MAX_BOOLEANS)
		return fail(p, "more than %d SELinux booleans (CONFIG_MAX_BOOLEANS); set the rest in the policy", CONFIG_MAX_BOOLEANS);
	set_str(c->booleans[c->n_booleans].name, CONFIG_NAME_MAX, name);
	c->booleans[c->n_booleans].value = on;
	p->boolean_line[c->n_booleans] = p->line;
	c->n_booleans++;
	return 0;
}

/* capabilities(7) spells CAP_SYS_MODULE; libcap-ng's table says
 * "sys_module". Accept both, in any case. */
static int cap_from_name(struct parse *p, const char *word, int *cap)
{
	const char *bare = strncasecmp(word, "cap_", 4) == 0 ? word + 4 : word;
	int n = *bare ? capng_name_to_capability(bare) : -1;

	if (n >= 0 && n < 64) {
		*cap = n;
		return 0;
	}
	for (unsigned i = 0; i < 64; i++) {
		const char *known = capng_capability_to_name(i);
		if (known && !isdigit((unsigned char)known[0]) && close_enough(bare, known))
			return fail(p, "unknown capability '%s'; did you mean 'cap_%s'? see capabilities(7)", word, known);
	}
	return fail(p, "unknown capability '%s'; use a name from capabilities(7), e.g. cap_sys_module", word);
}

static bool cap_listed(const struct config *c, int cap)
{
	for (size_t i = 0; i < c->n_cap_drop; i++)
		if (c->cap_drop[i] == cap)
			return true;
	return false;
}

static int set_cap_drop(struct parse *p, const char *value)
{
	struct config *c = p->c;
	char word[CONFIG_NAME_MAX];
	int rc, cap;

	while ((rc = next_word(&value, word, sizeof word, true)) > 0) {
		if (cap_from_name(p, word, &cap) < 0)
			return -1;
		if (cap_listed(c, cap))
			continue;
		if (c->n_cap_drop >= CONFIG_MAX_CAPS)
			return fail(p, "more than %d capabilities to drop (CONFIG_MAX_CAPS); list each one once", CONFIG_MAX_CAPS);
		c->cap_drop[c->n_cap_drop++] = cap;
	}
	if (rc < 0)
		return fail(p, "capability name too long; use a name from capabilities(7)");
	return 0;
}

/* keep = NAME removes a drop set by an earlier source (the initramfs
 * file, when the root's file or the command line needs the capability). */
static int set_cap_keep(struct parse *p, const char *value)
{
	struct config *c = p->c;
	char word[CONFIG_NAME_MAX];
	int rc, cap;

	while ((rc = next_word(&value, word, sizeof word, true)) > 0) {
		if (cap_from_name(p, word, &cap) < 0)
			return -1;
		for (size_t i = 0; i < c->n_cap_drop; i++) {
			if (c->cap_drop[i] != cap)
				continue;
			memmove(&c->cap_drop[i], &c->cap_drop[i + 1], (c->n_cap_drop - i - 1) * sizeof c->cap_drop[0]);
			c->cap_drop[--c->n_cap_drop] = 0;
			break;
		}
	}
	if (rc < 0)
		return fail(p, "capability name too long; use a name from capabilities(7)");
	return 0;
}

/* A word the kernel command line should (warn) or must (require) carry:
 * "slab_nomerge" or "init_on_alloc=1". */
static int add_kernel_opts(struct parse *p, const char *value, bool required)
{
	struct config *c = p->c;
	char word[CONFIG_NAME_MAX];
	int rc;

	while ((rc = next_word(&value, word, sizeof word, false)) > 0) {
		for (const char *s = word; *s; s++)
			if (!isalnum((unsigned char)*s) && !strchr("_-.,=:/+", *s))
				return fail(p, "invalid character '%c' in kernel option '%s'; write the option as on the kernel command line", *s, word);
		size_t i;
		for (i = 0; i < c->n_kernel_opts; i++)
			if (strcmp(c->kernel_opts[i].word, word) == 0)
				break;
		if (i == c->n_kernel_opts) {
			if (c->n_kernel_opts >= CONFIG_MAX_KERNEL_OPTS)
				return fail(p, "more than %d kernel options (CONFIG_MAX_KERNEL_OPTS); keep the important ones", CONFIG_MAX_KERNEL_OPTS);
			set_str(c->kernel_opts[i].word, CONFIG_NAME_MAX, word);
			c->n_kernel_opts++;
		}
		/* require after warn makes it required; never the other way. */
		c->kernel_opts[i].required = c->kernel_opts[i].required || required;
	}
	if (rc < 0)
		return fail(p, "kernel option longer than 127 bytes (CONFIG_NAME_MAX); check only the part that matters");
	return 0;
}

static int set_kernel_warn(struct parse *p, const char *value)
{
	return add_kernel_opts(p, value, false);
}

static int set_kernel_require(struct parse *p, const char *value)
{
	return add_kernel_opts(p, value, true);
}

static int set_polydirs(struct parse *p, const char *value)
{
	struct config *c = p->c;
	char dirs[CONFIG_MAX_POLYDIRS][CONFIG_PATH_MAX];
	char word[CONFIG_PATH_MAX];
	size_t n = 0, total = 0;
	int rc;

	memset(dirs, 0, sizeof dirs);
	while ((rc = next_word(&value, word, sizeof word, true)) > 0) {
		size_t len = strlen(word);
		while (len > 1 && word[len - 1] == '/')
			word[--len] = '\0';
		const char *bad = check_abs_path(word);
		if (bad)
			return fail(p, "polydir '%s' %s; write e.g. polydirs = /tmp /var/tmp", word, bad);
		if (strcmp(word, "/") == 0)
			return fail(p, "polydir '/' is not possible; name directories such as /tmp");
		bool dup = false;
		for (size_t i = 0; i < n; i++)
			dup = dup || strcmp(dirs[i], word) == 0;
		if (dup)
			continue;
		if (n >= CONFIG_MAX_POLYDIRS)
			return fail(p, "more than %d polydirs (CONFIG_MAX_POLYDIRS); list the directories users write to", CONFIG_MAX_POLYDIRS);
		set_str(dirs[n++], CONFIG_PATH_MAX, word);
		total += len + 1;
	}
	if (rc < 0)
		return fail(p, "polydir longer than 255 bytes (CONFIG_PATH_MAX); use a shorter path");
	/* The list is written back on one line (config_format). */
	if (total + sizeof "polydirs = " >= CONFIG_MAX_LINE)
		return fail(p, "polydirs list longer than one %d-byte line; shorten it", CONFIG_MAX_LINE);
	memcpy(c->polydirs, dirs, sizeof dirs);
	c->n_polydirs = n;
	return 0;
}

/* ---- [sysctl] ---------------------------------------------------------- */

/* sysctl.d(5): when the first separator is '/', '/' and '.' swap, so
 * "net/ipv4/conf/eth0.100/rp_filter" is "net.ipv4.conf.eth0/100.rp_filter". */
static void sysctl_normalize(char *key)
{
	size_t first = strcspn(key, "./");

	if (key[first] != '/')
		return;
	for (char *s = key; *s; s++) {
		if (*s == '/')
			*s = '.';
		else if (*s == '.')
			*s = '/';
	}
}

/* The dotted form after sysctl_normalize(): parts between dots are names,
 * where a '/' stands for a '.' of the name (a VLAN "eth0.100"). A part made
 * only of '/' would be "." or ".." in /proc/sys: refused. */
static int sysctl_key_check(struct parse *p, const char *key)
{
	size_t len = strlen(key);

	if (!len)
		return fail(p, "empty sysctl key; write e.g. kernel.kptr_restrict = 2");
	if (len >= CONFIG_NAME_MAX)
		return fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	if (strpbrk(key, "*?["))
		return fail(p, "sysctl key '%s' has a glob pattern, which hardinit does not expand; list each key", key);
	if (!strchr(key, '.'))
		return fail(p, "'%s' is not a sysctl name (they have a dot, e.g. kernel.kptr_restrict); see sysctl -a", key);
	for (const char *s = key; *s; s++)
		if (isspace((unsigned char)*s) || *s == '\\' || *s == '=')
			return fail(p, "sysctl key '%s' contains '%c'; write it as sysctl(8) prints it", key, *s);
	for (const char *part = key;;) {
		size_t n = strcspn(part, ".");
		if (n == 0 || strspn(part, "/") == n)
			return fail(p, "sysctl key '%s' has an empty, '.' or '..' part; write it as sysctl(8) prints it", key);
		if (!part[n])
			return 0;
		part += n + 1;
	}
}

/* Index of key in c->sysctls, or -1. */
static long sysctl_index(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (strcmp(c->sysctls[i].key, key) == 0)
			return (long)i;
	return -1;
}

static struct sysctl_setting *sysctl_find(struct config *c, const char *key, size_t *index)
{
	long i = sysctl_index(c, key);

	if (i < 0)
		return NULL;
	if (index)
		*index = (size_t)i;
	return &c->sysctls[i];
}

static int set_sysctl(struct parse *p, const char *raw_key, const char *value)
{
	struct config *c = p->c;
	char key[CONFIG_NAME_MAX];
	bool ignore = raw_key[0] == '-';
	size_t i;

	if (ignore)
		raw_key++;
	if (strlen(raw_key) >= sizeof key)
		return fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	set_str(key, sizeof key, raw_key);
	sysctl_normalize(key);
	if (sysctl_key_check(p, key) < 0)
		return -1;
	if (!*value)
		return fail(p, "sysctl %s has no value; write %s = VALUE, or remove the line", key, key);
	if (strlen(value) >= CONFIG_VALUE_MAX)
		return fail(p, "value of sysctl %s is longer than 127 bytes (CONFIG_VALUE_MAX); set it from the root's sysctl.d", key);

	struct sysctl_setting *s = sysctl_find(c, key, &i);
	if (s && p->sysctl_line[i])
		return fail(p, "sysctl %s is set twice (first on line %u); keep one", key, p->sysctl_line[i]);
	if (!s) {
		if (c->n_sysctls >= CONFIG_MAX_SYSCTLS)
			return fail(p, "more than %d sysctls (CONFIG_MAX_SYSCTLS); move the rest to the root's sysctl.d", CONFIG_MAX_SYSCTLS);
		i = c->n_sysctls++;
		s = &c->sysctls[i];
		set_str(s->key, sizeof s->key, key);
	}
	if (ignore && s->required)
		return fail(p, "sysctl %s is required but written '-%s' (ignore failure); choose one", key, key);
	set_str(s->value, sizeof s->value, value);
	s->ignore_failure = ignore;
	p->sysctl_line[i] = p->line;
	return 0;
}

/* require = is resolved at the end of the source: it may come before the
 * keys it names. */
static int set_sysctl_require(struct parse *p, const char *value)
{
	char word[CONFIG_NAME_MAX];
	int rc;

	while ((rc = next_word(&value, word, sizeof word, true)) > 0) {
		sysctl_normalize(word);
		if (sysctl_key_check(p, word) < 0)
			return -1;
		if (p->n_requires >= CONFIG_MAX_REQUIRED)
			return fail(p, "more than %d required sysctls (CONFIG_MAX_REQUIRED); require the ones the system cannot run without", CONFIG_MAX_REQUIRED);
		set_str(p->requires[p->n_requires].key, CONFIG_NAME_MAX, word);
		p->requires[p->n_requires].line = p->line;
		p->n_requires++;
	}
	if (rc < 0)
		return fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	return 0;
}

static int finish_requires(struct parse *p)
{
	for (size_t i = 0; i < p->n_requires; i++) {
		const char *key = p->requires[i].key;
		struct sysctl_setting *s = sysctl_find(p->c, key, NULL);
		p->line = p->requires[i].line;
		if (!s)
			return fail(p, "required sysctl %s is not set; add '%s = VALUE' to [sysctl] or remove it from require", key, key);
		if (s->ignore_failure)
			return fail(p, "sysctl %s is required but written '-%s' (ignore failure); choose one", key, key);
		s->required = true;
	}
	return 0;
}

static int parse_text(struct parse *p, const char *text, size_t len);

static int set_sysctl_include(struct parse *p, const char *value)
{
	char full[2 * CONFIG_PATH_MAX];
	const char *bad;
	size_t len = 0;

	if (p->override)
		return fail(p, "include is only possible in a config file; put it in hardinit.conf");
	if (p->in_include)
		return fail(p, "include inside an included file; hardinit reads one level of includes");
	if ((bad = check_abs_path(value)))
		return fail(p, "include path '%s' %s; write e.g. include = /etc/sysctl.d/99-local.conf", value, bad);
	if (*p->n_includes >= CONFIG_MAX_INCLUDES)
		return fail(p, "more than %d includes (CONFIG_MAX_INCLUDES); merge the files", CONFIG_MAX_INCLUDES);
	(*p->n_includes)++;

	const char *root = p->root ? p->root : "";
	size_t rlen = strlen(root);
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	snprintf(full, sizeof full, "%.*s%s", (int)rlen, root, value);

	char *buf = malloc(CONFIG_MAX_FILE_BYTES + 1);
	if (!buf)
		return fail(p, "include %s: out of memory; retry with less loaded", value);
	if (fs_read(full, buf, CONFIG_MAX_FILE_BYTES + 1, &len) < 0) {
		int e = errno;
		free(buf);
		if (e == E2BIG)
			return fail(p, "include %s is larger than %d bytes (CONFIG_MAX_FILE_BYTES); split it", value, CONFIG_MAX_FILE_BYTES);
		return fail(p, "cannot read include %s: %s; fix the path or remove the line", full, strerror(e));
	}

	struct parse *sub = calloc(1, sizeof *sub);
	if (!sub) {
		free(buf);
		return fail(p, "include %s: out of memory; retry with less loaded", value);
	}
	sub->c = p->c;
	sub->name = value;
	sub->root = p->root;
	sub->section = SEC_SYSCTL;
	sub->in_include = true;
	sub->n_includes = p->n_includes;
	int rc = parse_text(sub, buf, len);
	if (rc < 0)
		fail(p, "in included %s:%u: %s", value, sub->line, sub->msg);
	free(sub);
	free(buf);
	return rc;
}

/* ---- the key table ----------------------------------------------------- */

enum kind { K_BOOL, K_INT, K_ENUM, K_NAMED_BOOL, K_STRING, K_LIST };

struct key_def {
	enum section section;
	const char *key;
	enum kind kind;
	size_t offset;                 /* of the field in struct config */
	size_t size;                   /* K_STRING: capacity */
	const char *const *names;      /* K_ENUM, K_NAMED_BOOL */
	long min, max;                 /* K_INT */
	bool none_is_minus_one;        /* K_INT: "none" means -1 */
	const char *(*check)(const char *value);     /* K_STRING */
	int (*set)(struct parse *p, const char *value); /* K_LIST */
	bool repeatable;
	const char *help;              /* K_STRING: what a valid value looks like */
};

static const char *check_init(const char *v)
{
	return *v ? check_abs_path(v) : NULL;
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

#define F(field) offsetof(struct config, field)

static const struct key_def key_table[] = {
	{ .section = SEC_BOOT, .key = "failure_action", .kind = K_ENUM, .offset = F(failure_action),
	  .names = failure_action_names },
	{ .section = SEC_BOOT, .key = "failure_delay", .kind = K_INT, .offset = F(failure_delay),
	  .min = 0, .max = 3600 },
	{ .section = SEC_BOOT, .key = "root_timeout", .kind = K_INT, .offset = F(root_timeout),
	  .min = 1, .max = 3600 },
	{ .section = SEC_BOOT, .key = "rootwait_timeout", .kind = K_INT, .offset = F(rootwait_timeout),
	  .min = 1, .max = 86400 },
	{ .section = SEC_BOOT, .key = "init", .kind = K_STRING, .offset = F(init),
	  .size = CONFIG_PATH_MAX, .check = check_init,
	  .help = "an absolute path such as /lib/systemd/systemd, or empty" },
	{ .section = SEC_BOOT, .key = "lock_cmdline", .kind = K_BOOL, .offset = F(lock_cmdline) },
	{ .section = SEC_BOOT, .key = "read_root_config", .kind = K_BOOL, .offset = F(read_root_config) },
	{ .section = SEC_BOOT, .key = "root_duplicates", .kind = K_ENUM, .offset = F(root_duplicates),
	  .names = root_duplicates_names },

	{ .section = SEC_SELINUX, .key = "mode", .kind = K_ENUM, .offset = F(selinux_mode),
	  .names = selinux_mode_names },
	{ .section = SEC_SELINUX, .key = "require", .kind = K_BOOL, .offset = F(selinux_require) },
	{ .section = SEC_SELINUX, .key = "type", .kind = K_STRING, .offset = F(selinux_type),
	  .size = CONFIG_NAME_MAX, .check = check_selinux_type,
	  .help = "a policy name such as default, or empty for the root's SELINUXTYPE" },
	{ .section = SEC_SELINUX, .key = "relabel", .kind = K_BOOL, .offset = F(selinux_relabel) },
	{ .section = SEC_SELINUX, .key = "relabel_limit", .kind = K_INT, .offset = F(selinux_relabel_limit),
	  .min = 0, .max = 10000000 },
	{ .section = SEC_SELINUX, .key = "boolean", .kind = K_LIST, .set = set_boolean,
	  .repeatable = true },

	{ .section = SEC_MEMORY, .key = "nx", .kind = K_ENUM, .offset = F(nx),
	  .names = nx_names },
	{ .section = SEC_MEMORY, .key = "aslr", .kind = K_BOOL, .offset = F(aslr) },
	{ .section = SEC_MEMORY, .key = "mdwe", .kind = K_BOOL, .offset = F(mdwe) },

	{ .section = SEC_SYSCTL, .key = "include", .kind = K_LIST, .set = set_sysctl_include,
	  .repeatable = true },
	{ .section = SEC_SYSCTL, .key = "require", .kind = K_LIST, .set = set_sysctl_require,
	  .repeatable = true },
	{ .section = SEC_SYSCTL, .key = "persist", .kind = K_BOOL, .offset = F(sysctl_persist) },

	{ .section = SEC_KERNEL, .key = "warn", .kind = K_LIST, .set = set_kernel_warn,
	  .repeatable = true },
	{ .section = SEC_KERNEL, .key = "require", .kind = K_LIST, .set = set_kernel_require,
	  .repeatable = true },

	{ .section = SEC_CAPS, .key = "drop", .kind = K_LIST, .set = set_cap_drop,
	  .repeatable = true },
	{ .section = SEC_CAPS, .key = "keep", .kind = K_LIST, .set = set_cap_keep,
	  .repeatable = true },

	{ .section = SEC_LOCKS, .key = "modules", .kind = K_BOOL, .offset = F(lock_modules) },
	{ .section = SEC_LOCKS, .key = "kexec", .kind = K_BOOL, .offset = F(lock_kexec) },
	{ .section = SEC_LOCKS, .key = "lockdown", .kind = K_ENUM, .offset = F(lockdown),
	  .names = lockdown_names },
	{ .section = SEC_LOCKS, .key = "ptrace_scope", .kind = K_INT, .offset = F(ptrace_scope),
	  .min = 0, .max = 3, .none_is_minus_one = true },

	{ .section = SEC_MOUNTS, .key = "shared", .kind = K_BOOL, .offset = F(mount_shared) },
	{ .section = SEC_MOUNTS, .key = "proc_hidepid", .kind = K_ENUM, .offset = F(proc_hidepid),
	  .names = hidepid_names },
	{ .section = SEC_MOUNTS, .key = "proc_gid", .kind = K_INT, .offset = F(proc_gid),
	  .min = 0, .max = INT_MAX - 1, .none_is_minus_one = true },
	{ .section = SEC_MOUNTS, .key = "shm_noexec", .kind = K_BOOL, .offset = F(shm_noexec) },
	{ .section = SEC_MOUNTS, .key = "tmp_size", .kind = K_STRING, .offset = F(tmp_size),
	  .size = 32, .check = check_tmp_size,
	  .help = "a tmpfs size such as 50% or 512M, or off for no tmpfs" },
	{ .section = SEC_MOUNTS, .key = "tmp_noexec", .kind = K_BOOL, .offset = F(tmp_noexec) },
	{ .section = SEC_MOUNTS, .key = "polyinstantiate", .kind = K_BOOL, .offset = F(polyinstantiate) },
	{ .section = SEC_MOUNTS, .key = "polydirs", .kind = K_LIST, .set = set_polydirs },

	{ .section = SEC_TTY, .key = "tiocsti", .kind = K_ENUM, .offset = F(tiocsti),
	  .names = tiocsti_names },
	{ .section = SEC_TTY, .key = "tioclinux", .kind = K_NAMED_BOOL, .offset = F(deny_tioclinux),
	  .names = tioclinux_names },
	{ .section = SEC_TTY, .key = "seccomp", .kind = K_BOOL, .offset = F(tiocsti_seccomp) },
};

#define N_KEYS (sizeof key_table / sizeof key_table[0])

_Static_assert(N_KEYS <= N_KEYS_MAX, "raise N_KEYS_MAX");

static const struct key_def *key_find(int section, const char *key)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if ((int)key_table[i].section == section && strcmp(key_table[i].key, key) == 0)
			return &key_table[i];
	return NULL;
}

static void *field(struct config *c, const struct key_def *d)
{
	return (char *)c + d->offset;
}

static const void *cfield(const struct config *c, const struct key_def *d)
{
	return (const char *)c + d->offset;
}

static int set_value(struct parse *p, const struct key_def *d, const char *value)
{
	const char *name = d->key;
	char list[160];
	long n;
	bool b;
	int i;

	switch (d->kind) {
	case K_BOOL:
		if (parse_bool(value, &b) < 0)
			return fail(p, "invalid value '%s' for %s; use yes or no%s", value, name, comment_hint(value));
		*(bool *)field(p->c, d) = b;
		return 0;
	case K_NAMED_BOOL:
	case K_ENUM:
		if ((i = lookup_name(d->names, value)) < 0) {
			join_names(list, sizeof list, d->names);
			return fail(p, "invalid value '%s' for %s; use %s%s", value, name, list, comment_hint(value));
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
		if (parse_long(value, d->none_is_minus_one ? -1 : d->min, d->max, &n) < 0)
			return fail(p, "invalid value '%s' for %s; use a whole number from %ld to %ld%s%s", value, name,
				    d->min, d->max, d->none_is_minus_one ? ", or none" : "", comment_hint(value));
		*(int *)field(p->c, d) = (int)n;
		return 0;
	case K_STRING: {
		const char *bad = d->check ? d->check(value) : NULL;
		if (strcasecmp(value, "off") == 0 && d->check == check_tmp_size)
			value = "";
		else if (bad || strlen(value) >= d->size)
			return fail(p, "invalid value '%s' for %s: %s; use %s", value, name,
				    bad ? bad : "too long", d->help);
		set_str(field(p->c, d), d->size, value);
		return 0;
	}
	case K_LIST:
		return d->set(p, value);
	}
	return fail(p, "internal error: key %s has no kind; report a bug", name);
}

/* ---- lines ------------------------------------------------------------- */

/* Mistakes worth a pointer: names from other tools and older habits. */
static const struct { const char *typed, *section, *key; } key_hints[] = {
	{ "enforce", "selinux", "mode" },
	{ "enforcing", "selinux", "mode" },
	{ "selinux", "selinux", "mode" },
	{ "panic", "boot", "failure_action" },
	{ "emergency", "boot", "failure_action" },
	{ "action", "boot", "failure_action" },
	{ "rootwait", "boot", "rootwait_timeout" },
	{ "rootdelay", "boot", "root_timeout" },
	{ "timeout", "boot", "root_timeout" },
	{ "hidepid", "mounts", "proc_hidepid" },
	{ "gid", "mounts", "proc_gid" },
	{ "polydir", "mounts", "polydirs" },
	{ "modules_disabled", "locks", "modules" },
	{ "kexec_load_disabled", "locks", "kexec" },
	{ "legacy_tiocsti", "tty", "tiocsti" },
	{ "bounding", "capabilities", "drop" },
	{ "caps", "capabilities", "drop" },
	{ "w^x", "memory", "mdwe" },
	{ "wxorx", "memory", "mdwe" },
};

static int unknown_key(struct parse *p, int section, const char *key)
{
	const char *sec = section_names[section];

	for (size_t i = 0; i < N_KEYS; i++)
		if ((int)key_table[i].section == section && close_enough(key, key_table[i].key))
			return fail(p, "unknown key '%s' in [%s]; did you mean '%s'? see hardinit.conf(5)", key, sec, key_table[i].key);
	for (size_t i = 0; i < sizeof key_hints / sizeof key_hints[0]; i++) {
		if (strcasecmp(key, key_hints[i].typed) != 0)
			continue;
		if (strcmp(key_hints[i].section, sec) == 0)
			return fail(p, "unknown key '%s' in [%s]; did you mean '%s'? see hardinit.conf(5)", key, sec, key_hints[i].key);
		return fail(p, "unknown key '%s' in [%s]; did you mean '%s' in [%s]? see hardinit.conf(5)", key, sec,
			    key_hints[i].key, key_hints[i].section);
	}
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(key_table[i].key, key) == 0)
			return fail(p, "key '%s' belongs in [%s], not [%s]; move it there", key,
				    section_names[key_table[i].section], sec);
	if (section == SEC_SYSCTL)
		return fail(p, "unknown key '%s' in [sysctl]; sysctl names have a dot (kernel.kptr_restrict), the other keys are include, require and persist", key);
	return fail(p, "unknown key '%s' in [%s]; see hardinit.conf(5) for the keys of [%s]", key, sec, sec);
}

static int section_line(struct parse *p, char *s)
{
	char *end = strchr(s, ']');
	char list[160];

	if (p->in_include)
		return fail(p, "sections are not allowed in an included sysctl.d file; write only 'key = value' lines");
	if (!end)
		return fail(p, "section header without ']'; write e.g. [selinux]");
	for (char *t = end + 1; *t; t++)
		if (!isspace((unsigned char)*t))
			return fail(p, "text after the section header; put it on the next line");
	*end = '\0';
	s++;
	while (isspace((unsigned char)*s))
		s++;
	for (char *t = s + strlen(s); t > s && isspace((unsigned char)t[-1]);)
		*--t = '\0';
	int sec = lookup_name(section_names, s);
	if (sec < 0 || strcmp(section_names[sec], s) != 0) {
		for (int i = 0; i < N_SECTIONS; i++)
			if (close_enough(s, section_names[i]))
				return fail(p, "unknown section [%s]; did you mean [%s]? see hardinit.conf(5)", s, section_names[i]);
		join_names(list, sizeof list, section_names);
		return fail(p, "unknown section [%s]; the sections are %s", s, list);
	}
	if (p->section_line[sec])
		return fail(p, "section [%s] appears twice (first on line %u); merge them", s, p->section_line[sec]);
	p->section_line[sec] = p->line;
	p->section = sec;
	return 0;
}

static int key_before_section(struct parse *p, const char *key)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(key_table[i].key, key) == 0)
			return fail(p, "key '%s' before any [section]; put it under [%s]", key,
				    section_names[key_table[i].section]);
	if (strchr(key, '.'))
		return fail(p, "key '%s' before any [section]; put sysctls under [sysctl]", key);
	return fail(p, "key '%s' before any [section]; start the file with a section such as [boot]", key);
}

/* key = value, within the current section. */
static int assignment(struct parse *p, const char *key, const char *value)
{
	if (p->section < 0)
		return key_before_section(p, key);
	const struct key_def *d = key_find(p->section, key);
	if (!d && p->section == SEC_SYSCTL && (strpbrk(key, "./") || key[0] == '-'))
		return set_sysctl(p, key, value);
	if (!d)
		return unknown_key(p, p->section, key);
	if (p->in_include)
		return fail(p, "'%s' is not a sysctl; an included sysctl.d file holds only sysctl lines", key);
	size_t k = (size_t)(d - key_table);
	if (!d->repeatable && p->key_line[k])
		return fail(p, "duplicate key '%s' in [%s] (first on line %u); keep one", key,
			    section_names[d->section], p->key_line[k]);
	p->key_line[k] = p->line;
	return set_value(p, d, value);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	for (char *end = s + strlen(s); end > s && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	return s;
}

static int one_line(struct parse *p, char *line)
{
	for (const char *s = line; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return fail(p, "control character 0x%02x; remove it (is this a text file?)", (unsigned char)*s);
	char *s = trim(line);
	/* sysctl.d(5) also takes ';' comments; hardinit.conf only '#'. */
	if (!*s || *s == '#' || (p->in_include && *s == ';'))
		return 0;
	if (*s == '[')
		return section_line(p, s);
	char *eq = strchr(s, '=');
	if (!eq)
		return fail(p, "expected 'key = value', a [section] or a # comment; got '%.40s'", s);
	*eq = '\0';
	char *key = trim(s);
	char *value = trim(eq + 1);
	if (!*key)
		return fail(p, "'=' without a key; write key = value");
	return assignment(p, key, value);
}

/* The line number of byte offset pos, for the size-limit error. */
static unsigned line_at(const char *text, size_t pos)
{
	unsigned line = 1;
	for (size_t i = 0; i < pos; i++)
		line += text[i] == '\n';
	return line;
}

static int parse_text(struct parse *p, const char *text, size_t len)
{
	char buf[CONFIG_MAX_LINE + 1];
	size_t pos = 0;

	p->line = 0;
	if (len > CONFIG_MAX_FILE_BYTES) {
		p->line = line_at(text, CONFIG_MAX_FILE_BYTES);
		return fail(p, "file is larger than %d bytes (CONFIG_MAX_FILE_BYTES); split it or remove settings",
			    CONFIG_MAX_FILE_BYTES);
	}
	while (pos < len) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		p->line++;
		pos += n + (nl ? 1 : 0);
		if (memchr(start, '\0', n))
			return fail(p, "NUL byte in the file; this is not a text file, fix or regenerate it");
		if (n > 0 && start[n - 1] == '\r')
			n--;   /* a file written on another system: accept CRLF */
		if (n >= CONFIG_MAX_LINE)
			return fail(p, "line longer than %d bytes (CONFIG_MAX_LINE); shorten it or split a list over repeated keys",
				    CONFIG_MAX_LINE - 1);
		memcpy(buf, start, n);
		buf[n] = '\0';
		if (one_line(p, buf) < 0)
			return -1;
	}
	return p->in_include ? 0 : finish_requires(p);
}

static void format_error(char *err, size_t errlen, const char *name, unsigned line, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: %s", name, line, msg);
}

int config_parse(struct config *c, const char *text, size_t len,
		 const char *name, const char *root, char *err, size_t errlen)
{
	struct config *work = malloc(sizeof *work);
	struct parse *p = calloc(1, sizeof *p);
	int n_includes = 0;
	int rc = -1;

	if (!name)
		name = "hardinit.conf";
	if (!work || !p) {
		format_error(err, errlen, name, 0, "out of memory; the config was not read");
		goto out;
	}
	/* Parse into a copy: on error the caller's config is untouched. */
	memcpy(work, c, sizeof *work);
	p->c = work;
	p->name = name;
	p->root = root ? root : "";
	p->section = -1;
	p->n_includes = &n_includes;
	rc = parse_text(p, text ? text : "", text ? len : 0);
	if (rc < 0)
		format_error(err, errlen, name, p->line, p->msg);
	else
		memcpy(c, work, sizeof *c);
out:
	free(p);
	free(work);
	return rc;
}

int config_load(struct config *c, const char *path, const char *root,
		char *err, size_t errlen)
{
	char *buf = malloc(CONFIG_MAX_FILE_BYTES + 1);
	size_t len = 0;

	if (!buf) {
		format_error(err, errlen, path, 0, "out of memory; the config was not read");
		return -1;
	}
	if (fs_read(path, buf, CONFIG_MAX_FILE_BYTES + 1, &len) < 0) {
		int e = errno;
		if (err && errlen && e == E2BIG)
			snprintf(err, errlen, "%s:%u: file is larger than %d bytes (CONFIG_MAX_FILE_BYTES); split it or remove settings",
				 path, line_at(buf, CONFIG_MAX_FILE_BYTES), CONFIG_MAX_FILE_BYTES);
		else if (err && errlen)
			snprintf(err, errlen, "%s: cannot read: %s; check the path and its permissions", path, strerror(e));
		free(buf);
		errno = e;
		return -1;
	}
	int rc = config_parse(c, buf, len, path, root, err, errlen);
	free(buf);
	return rc;
}

/* ---- command-line overrides and the lock -------------------------------- */

/* Each returns 1 after writing why a change from o to n weakens the
 * config, 0 when it does not. Only one key changes per override, but
 * comparing whole sections keeps the rules in one readable place. */
static int weaker(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int weaker(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 1;
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* Turning a protection off weakens; turning it on is fine. */
static int bool_weaker(bool o, bool n, const char *name, char *why, size_t len)
{
	return o && !n ? weaker(why, len, "%s yes -> no", name) : 0;
}

static int boot_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (o->lock_cmdline && !n->lock_cmdline)
		return weaker(why, len, "boot.lock_cmdline yes -> no");
	/* Any change: 'shell' is an open door, and halt or poweroff in place
	 * of reboot turns a failed hardening stage into something else. */
	if (o->failure_action != n->failure_action)
		return weaker(why, len, "boot.failure_action %s -> %s (the failure action cannot change under the lock)",
			      config_failure_action_name(o->failure_action), config_failure_action_name(n->failure_action));
	if (strcmp(o->init, n->init) != 0)
		return weaker(why, len, "boot.init '%s' -> '%s' (another init is another system)", o->init, n->init);
	if (o->read_root_config != n->read_root_config)
		return weaker(why, len, "boot.read_root_config %s -> %s (it changes which files are trusted)",
			      yes_no(o->read_root_config), yes_no(n->read_root_config));
	if (o->root_duplicates == ROOT_DUP_REFUSE && n->root_duplicates != ROOT_DUP_REFUSE)
		return weaker(why, len, "boot.root_duplicates refuse -> warn (a colliding disk could take over the boot)");
	return 0;   /* timeouts and the delay change no protection */
}

/* The modes a setting can end up as: "config" may be any of the three. */
static void selinux_range(enum selinux_mode m, int *lo, int *hi)
{
	*lo = m == SELINUX_ENFORCING ? 3 : m == SELINUX_PERMISSIVE ? 2 : 1;
	*hi = m == SELINUX_DISABLED ? 1 : m == SELINUX_PERMISSIVE ? 2 : 3;
}

static int selinux_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	int olo, ohi, nlo, nhi;

	selinux_range(o->selinux_mode, &olo, &ohi);
	selinux_range(n->selinux_mode, &nlo, &nhi);
	if (o->selinux_mode != n->selinux_mode && nlo < ohi)
		return weaker(why, len, "selinux.mode %s -> %s", config_selinux_mode_name(o->selinux_mode),
			      config_selinux_mode_name(n->selinux_mode));
	if (bool_weaker(o->selinux_require, n->selinux_require, "selinux.require", why, len))
		return 1;
	if (strcmp(o->selinux_type, n->selinux_type) != 0)
		return weaker(why, len, "selinux.type '%s' -> '%s' (another policy)", o->selinux_type, n->selinux_type);
	if (bool_weaker(o->selinux_relabel, n->selinux_relabel, "selinux.relabel", why, len))
		return 1;
	if (n->selinux_relabel_limit < o->selinux_relabel_limit)
		return weaker(why, len, "selinux.relabel_limit %d -> %d", o->selinux_relabel_limit, n->selinux_relabel_limit);
	if (o->n_booleans != n->n_booleans || memcmp(o->booleans, n->booleans, sizeof o->booleans) != 0)
		return weaker(why, len, "selinux.boolean (booleans cannot change under the lock)");
	return 0;
}

static int memory_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (o->nx == NX_REQUIRE && n->nx != NX_REQUIRE)
		return weaker(why, len, "memory.nx require -> warn");
	return bool_weaker(o->aslr, n->aslr, "memory.aslr", why, len) ||
	       bool_weaker(o->mdwe, n->mdwe, "memory.mdwe", why, len);
}

/* Sysctls that another section sets when its protection is on: adding one
 * by override would undo that protection (the sysctl stage writes after the
 * memory stage), so under the lock it counts as configured. */
static const char *sysctl_owner(const struct config *c, const char *key)
{
	static const char *const aslr_keys[] = {
		"kernel.randomize_va_space", "vm.mmap_min_addr", "vm.mmap_rnd_bits", "vm.mmap_rnd_compat_bits", NULL
	};

	if (c->aslr && lookup_name(aslr_keys, key) >= 0)
		return "memory.aslr";
	if (c->tiocsti != TIOCSTI_ALLOW && strcmp(key, "dev.tty.legacy_tiocsti") == 0)
		return "tty.tiocsti";
	if (c->lock_modules && strcmp(key, "kernel.modules_disabled") == 0)
		return "locks.modules";
	if (c->lock_kexec && strcmp(key, "kernel.kexec_load_disabled") == 0)
		return "locks.kexec";
	if (c->ptrace_scope >= 0 && strcmp(key, "kernel.yama.ptrace_scope") == 0)
		return "locks.ptrace_scope";
	return NULL;
}

static int sysctl_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < n->n_sysctls; i++) {
		const char *owner = sysctl_owner(o, n->sysctls[i].key);
		if (owner && sysctl_index(o, n->sysctls[i].key) < 0)
			return weaker(why, len, "sysctl %s is set by %s", n->sysctls[i].key, owner);
	}
	for (size_t i = 0; i < o->n_sysctls; i++) {
		const struct sysctl_setting *os = &o->sysctls[i];
		long j = sysctl_index(n, os->key);
		const struct sysctl_setting *ns = j < 0 ? NULL : &n->sysctls[j];
		if (!ns || strcmp(os->value, ns->value) != 0 || (ns->ignore_failure && !os->ignore_failure) ||
		    (os->required && !ns->required))
			return weaker(why, len, "sysctl %s = %s is set by the config (only new sysctls can be added under the lock)",
				      os->key, os->value);
	}
	return bool_weaker(o->sysctl_persist, n->sysctl_persist, "sysctl.persist", why, len);
}

static int kernel_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < o->n_kernel_opts; i++) {
		const struct kernel_opt *ok = &o->kernel_opts[i];
		size_t j;
		for (j = 0; j < n->n_kernel_opts; j++)
			if (strcmp(n->kernel_opts[j].word, ok->word) == 0)
				break;
		if (j == n->n_kernel_opts || (ok->required && !n->kernel_opts[j].required))
			return weaker(why, len, "kernel option %s would no longer be %s", ok->word,
				      ok->required ? "required" : "checked");
	}
	return 0;
}

static int caps_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < o->n_cap_drop; i++) {
		if (cap_listed(n, o->cap_drop[i]))
			continue;
		const char *name = capng_capability_to_name((unsigned)o->cap_drop[i]);
		return weaker(why, len, "cap_%s would no longer be dropped", name ? name : "?");
	}
	return 0;
}

static int locks_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (bool_weaker(o->lock_modules, n->lock_modules, "locks.modules", why, len) ||
	    bool_weaker(o->lock_kexec, n->lock_kexec, "locks.kexec", why, len))
		return 1;
	if (n->lockdown < o->lockdown)
		return weaker(why, len, "locks.lockdown %s -> %s", config_lockdown_name(o->lockdown),
			      config_lockdown_name(n->lockdown));
	if (n->ptrace_scope < o->ptrace_scope)
		return weaker(why, len, "locks.ptrace_scope %d -> %d", o->ptrace_scope, n->ptrace_scope);
	return 0;
}

/* invisible and ptraceable hide different sets: neither is stronger. */
static int hidepid_rank(enum hidepid h)
{
	return h == HIDEPID_OFF ? 0 : h == HIDEPID_NOACCESS ? 1 : 2;
}

static bool polydir_listed(const struct config *c, const char *dir)
{
	for (size_t i = 0; i < c->n_polydirs; i++)
		if (strcmp(c->polydirs[i], dir) == 0)
			return true;
	return false;
}

static int mounts_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (bool_weaker(o->mount_shared, n->mount_shared, "mounts.shared", why, len))
		return 1;
	if (hidepid_rank(n->proc_hidepid) < hidepid_rank(o->proc_hidepid) ||
	    (o->proc_hidepid != n->proc_hidepid && hidepid_rank(n->proc_hidepid) == hidepid_rank(o->proc_hidepid)))
		return weaker(why, len, "mounts.proc_hidepid %s -> %s", config_hidepid_name(o->proc_hidepid),
			      config_hidepid_name(n->proc_hidepid));
	if (o->proc_gid != n->proc_gid && n->proc_gid != -1)
		return weaker(why, len, "mounts.proc_gid %d -> %d (a group that sees every process)", o->proc_gid, n->proc_gid);
	if (bool_weaker(o->shm_noexec, n->shm_noexec, "mounts.shm_noexec", why, len))
		return 1;
	if (o->tmp_size[0] && !n->tmp_size[0])
		return weaker(why, len, "mounts.tmp_size %s -> off", o->tmp_size);
	if (bool_weaker(o->tmp_noexec, n->tmp_noexec, "mounts.tmp_noexec", why, len) ||
	    bool_weaker(o->polyinstantiate, n->polyinstantiate, "mounts.polyinstantiate", why, len))
		return 1;
	for (size_t i = 0; i < o->n_polydirs; i++)
		if (!polydir_listed(n, o->polydirs[i]))
			return weaker(why, len, "polydir %s would no longer be prepared", o->polydirs[i]);
	return 0;
}

static int tty_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (n->tiocsti < o->tiocsti)
		return weaker(why, len, "tty.tiocsti %s -> %s", config_tiocsti_name(o->tiocsti), config_tiocsti_name(n->tiocsti));
	if (o->deny_tioclinux && !n->deny_tioclinux)
		return weaker(why, len, "tty.tioclinux deny -> allow");
	return bool_weaker(o->tiocsti_seccomp, n->tiocsti_seccomp, "tty.seccomp", why, len);
}

static int config_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	return boot_weaker(o, n, why, len) || selinux_weaker(o, n, why, len) ||
	       memory_weaker(o, n, why, len) || sysctl_weaker(o, n, why, len) ||
	       kernel_weaker(o, n, why, len) || caps_weaker(o, n, why, len) ||
	       locks_weaker(o, n, why, len) || mounts_weaker(o, n, why, len) ||
	       tty_weaker(o, n, why, len);
}

/* "selinux.mode" -> section and key; "sysctl.kernel.kptr_restrict" keeps
 * the dots of the sysctl name. */
static int override_apply(struct parse *p, const char *key, const char *value)
{
	const char *dot = strchr(key, '.');
	char sec[32];

	if (!dot || dot == key || (size_t)(dot - key) >= sizeof sec)
		return fail(p, "not a SECTION.KEY name; write e.g. hardinit.selinux.mode=enforcing");
	memcpy(sec, key, (size_t)(dot - key));
	sec[dot - key] = '\0';
	int section = lookup_name(section_names, sec);
	if (section < 0 || strcmp(section_names[section], sec) != 0) {
		for (int i = 0; i < N_SECTIONS; i++)
			if (close_enough(sec, section_names[i]))
				return fail(p, "unknown section '%s'; did you mean '%s'? see hardinit.conf(5)", sec, section_names[i]);
		return fail(p, "unknown section '%s'; see hardinit.conf(5)", sec);
	}
	p->section = section;
	if (strlen(dot + 1) >= CONFIG_NAME_MAX)
		return fail(p, "key longer than 127 bytes (CONFIG_NAME_MAX); see hardinit.conf(5) for the keys");
	if (assignment(p, dot + 1, value) < 0)
		return -1;
	return finish_requires(p);
}

int config_override(struct config *c, const char *key, const char *value,
		    char *err, size_t errlen)
{
	struct config *next = malloc(sizeof *next);
	struct parse *p = calloc(1, sizeof *p);
	char why[CONFIG_ERR_MAX];
	char val[CONFIG_MAX_LINE];
	int rc = -1;

	if (!key)
		key = "";
	if (!value)
		value = "";
	if (!next || !p) {
		snprintf(err, errlen, "hardinit.%s: out of memory; the override was not applied", key);
		goto out;
	}
	memcpy(next, c, sizeof *next);
	p->c = next;
	p->name = "command line";
	p->override = true;
	p->line = 1;
	p->section = -1;
	if (strlen(value) >= sizeof val) {
		fail(p, "value longer than %d bytes; shorten it", CONFIG_MAX_LINE - 1);
	} else {
		/* The same rules as a line of the file: no control characters,
		 * white space around the value ignored. */
		set_str(val, sizeof val, value);
		char *v = val;
		for (const char *s = key; *s && v; s++)
			if ((unsigned char)*s <= 0x20 || *s == 0x7f)
				v = NULL;
		for (const char *s = val; *s && v; s++)
			if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
				v = NULL;
		if (!v)
			fail(p, "control character or white space in the name, or control character in the value; retype it");
		else
			rc = override_apply(p, key, trim(v));
	}
	if (rc < 0) {
		snprintf(err, errlen, "hardinit.%s=%s: %s", key, value, p->msg);
		rc = -1;
	} else if (c->lock_cmdline && config_weaker(c, next, why, sizeof why)) {
		snprintf(err, errlen, "hardinit.%s=%s refused: it weakens the locked config (%s); "
			 "change the config file or drop lock_cmdline", key, value, why);
		rc = 1;
	} else {
		memcpy(c, next, sizeof *c);
		rc = 0;
	}
out:
	free(p);
	free(next);
	return rc;
}

/* ---- config_format ------------------------------------------------------ */

static void format_scalar(struct sink *o, const struct config *c, const struct key_def *d)
{
	const void *f = cfield(c, d);
	int v;

	switch (d->kind) {
	case K_BOOL:
		sink_printf(o, "%s = %s\n", d->key, yes_no(*(const bool *)f));
		break;
	case K_NAMED_BOOL:
		sink_printf(o, "%s = %s\n", d->key, d->names[*(const bool *)f ? 1 : 0]);
		break;
	case K_ENUM: {
		int n = 0;
		v = *(const int *)f;
		while (d->names[n])
			n++;
		if (v < 0 || v >= n)
			o->full = true;   /* not a value the parser takes back: fail */
		else
			sink_printf(o, "%s = %s\n", d->key, d->names[v]);
		break;
	}
	case K_INT:
		v = *(const int *)f;
		if (d->none_is_minus_one && v < 0)
			sink_printf(o, "%s = none\n", d->key);
		else
			sink_printf(o, "%s = %d\n", d->key, v);
		break;
	case K_STRING:
		if (d->check == check_tmp_size && !*(const char *)f)
			sink_printf(o, "%s = off\n", d->key);
		else if (!*(const char *)f)
			sink_printf(o, "%s =\n", d->key);
		else
			sink_printf(o, "%s = %s\n", d->key, (const char *)f);
		break;
	case K_LIST:
		break;
	}
}

/* The lists, one item a line: repeatable keys keep the order exactly. */
static void format_lists(struct sink *o, const struct config *c, int section)
{
	switch (section) {
	case SEC_SELINUX:
		for (size_t i = 0; i < c->n_booleans; i++)
			sink_printf(o, "boolean = %s=%s\n", c->booleans[i].name, c->booleans[i].value ? "on" : "off");
		break;
	case SEC_SYSCTL:
		for (size_t i = 0; i < c->n_sysctls; i++)
			sink_printf(o, "%s%s = %s\n", c->sysctls[i].ignore_failure ? "-" : "", c->sysctls[i].key, c->sysctls[i].value);
		for (size_t i = 0; i < c->n_sysctls; i++)
			if (c->sysctls[i].required)
				sink_printf(o, "require = %s\n", c->sysctls[i].key);
		break;
	case SEC_KERNEL:
		for (size_t i = 0; i < c->n_kernel_opts; i++)
			sink_printf(o, "%s = %s\n", c->kernel_opts[i].required ? "require" : "warn", c->kernel_opts[i].word);
		break;
	case SEC_CAPS:
		for (size_t i = 0; i < c->n_cap_drop; i++) {
			const char *name = capng_capability_to_name((unsigned)c->cap_drop[i]);
			if (name)
				sink_printf(o, "drop = cap_%s\n", name);
			else
				o->full = true;   /* cannot be written back: fail */
		}
		break;
	case SEC_MOUNTS:
		sink_printf(o, "polydirs =");
		for (size_t i = 0; i < c->n_polydirs; i++)
			sink_printf(o, " %s", c->polydirs[i]);
		sink_printf(o, "\n");
		break;
	default:
		break;
	}
}

int config_format(const struct config *c, char *out, size_t cap)
{
	struct sink o;

	if (cap == 0)
		return -1;
	sink_init(&o, out, cap);
	sink_printf(&o, "# hardinit.conf: the effective configuration (see hardinit.conf(5))\n");
	for (int s = 0; s < N_SECTIONS; s++) {
		sink_printf(&o, "\n[%s]\n", section_names[s]);
		for (size_t k = 0; k < N_KEYS; k++)
			if ((int)key_table[k].section == s)
				format_scalar(&o, c, &key_table[k]);
		format_lists(&o, c, s);
	}
	if (o.full)
		return -1;
	return (int)o.len;
}
