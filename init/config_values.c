/* hardinit.conf values: the small parsers every key uses, the list
 * setters ([selinux] boolean, [capabilities], [kernel], polydirs) and the
 * [sysctl] section with its includes. */
#include <cap-ng.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "config_values.h"
#include "fsutil.h"

/* ---- small value parsers ---------------------------------------------- */

void hi_config_set_str(char *dst, size_t cap, const char *s)
{
	/* Zero the whole field: config_format round-trips compare structs. */
	memset(dst, 0, cap);
	snprintf(dst, cap, "%s", s);
}

int hi_config_fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int hi_config_lookup_name(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcasecmp(names[i], s) == 0)
			return i;
	return -1;
}

void hi_config_join_names(char *out, size_t cap, const char *const *names)
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
const char *hi_config_comment_hint(const char *value)
{
	return strchr(value, '#') ? " (comments must be on a line of their own)" : "";
}

int hi_config_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	if (hi_config_lookup_name(yes, s) >= 0) {
		*out = true;
		return 0;
	}
	if (hi_config_lookup_name(no, s) >= 0) {
		*out = false;
		return 0;
	}
	return -1;
}

int hi_config_parse_long(const char *s, long min, long max, long *out)
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
const char *hi_config_check_abs_path(const char *s)
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

bool hi_config_close_enough(const char *typed, const char *known)
{
	size_t d = edit_distance(typed, known);
	size_t len = strlen(known);
	return d <= (len < 6 ? 1 : len / 3);
}

/* ---- list setters ------------------------------------------------------ */

int hi_set_boolean(struct parse *p, const char *value)
{
	struct config *c = p->c;
	char name[CONFIG_NAME_MAX];
	const char *eq = strchr(value, '=');
	bool on;

	if (!eq)
		return hi_config_fail(p, "boolean needs NAME=on|off, got '%s'; write e.g. boolean = allow_execmem=off", value);
	size_t n = (size_t)(eq - value);
	while (n > 0 && isspace((unsigned char)value[n - 1]))
		n--;
	if (n == 0 || n >= sizeof name)
		return hi_config_fail(p, "boolean name is empty or longer than 127 bytes; write boolean = NAME=on|off");
	memcpy(name, value, n);
	name[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return hi_config_fail(p, "invalid SELinux boolean name '%s'; names are letters, digits and '_' (see getsebool -a)", name);
	const char *v = eq + 1;
	while (isspace((unsigned char)*v))
		v++;
	if (hi_config_parse_bool(v, &on) < 0)
		return hi_config_fail(p, "invalid value '%s' for boolean %s; use on, off, 1, 0, true or false%s", v, name, hi_config_comment_hint(v));

	for (size_t i = 0; i < c->n_booleans; i++) {
		if (strcmp(c->booleans[i].name, name) != 0)
			continue;
		if (p->boolean_line[i])
			return hi_config_fail(p, "boolean %s is set twice (first on line %u); keep one", name, p->boolean_line[i]);
		c->booleans[i].value = on;
		p->boolean_line[i] = p->line;
		return 0;
	}
	if (c->n_booleans >= CONFIG_MAX_BOOLEANS)
		return hi_config_fail(p, "more than %d SELinux booleans (CONFIG_MAX_BOOLEANS); set the rest in the policy", CONFIG_MAX_BOOLEANS);
	hi_config_set_str(c->booleans[c->n_booleans].name, CONFIG_NAME_MAX, name);
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
		if (known && !isdigit((unsigned char)known[0]) && hi_config_close_enough(bare, known))
			return hi_config_fail(p, "unknown capability '%s'; did you mean 'cap_%s'? see capabilities(7)", word, known);
	}
	return hi_config_fail(p, "unknown capability '%s'; use a name from capabilities(7), e.g. cap_sys_module", word);
}

bool hi_config_cap_listed(const struct config *c, int cap)
{
	for (size_t i = 0; i < c->n_cap_drop; i++)
		if (c->cap_drop[i] == cap)
			return true;
	return false;
}

/* Each capability named in value (words, commas or spaces), to fn. */
static int each_cap(struct parse *p, const char *value, int (*fn)(struct config *c, struct parse *p, int cap))
{
	char word[CONFIG_NAME_MAX];
	int rc, cap = -1;

	while ((rc = next_word(&value, word, sizeof word, true)) > 0)
		if (cap_from_name(p, word, &cap) < 0 || fn(p->c, p, cap) < 0)
			return -1;
	if (rc < 0)
		return hi_config_fail(p, "capability name too long; use a name from capabilities(7)");
	return 0;
}

static int drop_one(struct config *c, struct parse *p, int cap)
{
	if (hi_config_cap_listed(c, cap))
		return 0;
	if (c->n_cap_drop >= CONFIG_MAX_CAPS)
		return hi_config_fail(p, "more than %d capabilities to drop (CONFIG_MAX_CAPS); list each one once", CONFIG_MAX_CAPS);
	c->cap_drop[c->n_cap_drop++] = cap;
	return 0;
}

/* keep = NAME removes a drop set by an earlier source (the initramfs
 * file, when the root's file or the command line needs the capability). */
static int keep_one(struct config *c, struct parse *p, int cap)
{
	(void)p;
	for (size_t i = 0; i < c->n_cap_drop; i++) {
		if (c->cap_drop[i] != cap)
			continue;
		memmove(&c->cap_drop[i], &c->cap_drop[i + 1], (c->n_cap_drop - i - 1) * sizeof c->cap_drop[0]);
		c->cap_drop[--c->n_cap_drop] = 0;
		break;
	}
	return 0;
}

int hi_set_cap_drop(struct parse *p, const char *value)
{
	return each_cap(p, value, drop_one);
}

int hi_set_cap_keep(struct parse *p, const char *value)
{
	return each_cap(p, value, keep_one);
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
				return hi_config_fail(p, "invalid character '%c' in kernel option '%s'; write the option as on the kernel command line", *s, word);
		size_t i;
		for (i = 0; i < c->n_kernel_opts; i++)
			if (strcmp(c->kernel_opts[i].word, word) == 0)
				break;
		if (i == c->n_kernel_opts) {
			if (c->n_kernel_opts >= CONFIG_MAX_KERNEL_OPTS)
				return hi_config_fail(p, "more than %d kernel options (CONFIG_MAX_KERNEL_OPTS); keep the important ones", CONFIG_MAX_KERNEL_OPTS);
			hi_config_set_str(c->kernel_opts[i].word, CONFIG_NAME_MAX, word);
			c->n_kernel_opts++;
		}
		/* require after warn makes it required; never the other way. */
		c->kernel_opts[i].required = c->kernel_opts[i].required || required;
	}
	if (rc < 0)
		return hi_config_fail(p, "kernel option longer than 127 bytes (CONFIG_NAME_MAX); check only the part that matters");
	return 0;
}

int hi_set_kernel_warn(struct parse *p, const char *value)
{
	return add_kernel_opts(p, value, false);
}

int hi_set_kernel_require(struct parse *p, const char *value)
{
	return add_kernel_opts(p, value, true);
}

int hi_set_polydirs(struct parse *p, const char *value)
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
		const char *bad = hi_config_check_abs_path(word);
		if (bad)
			return hi_config_fail(p, "polydir '%s' %s; write e.g. polydirs = /tmp /var/tmp", word, bad);
		if (strcmp(word, "/") == 0)
			return hi_config_fail(p, "polydir '/' is not possible; name directories such as /tmp");
		bool dup = false;
		for (size_t i = 0; i < n; i++)
			dup = dup || strcmp(dirs[i], word) == 0;
		if (dup)
			continue;
		if (n >= CONFIG_MAX_POLYDIRS)
			return hi_config_fail(p, "more than %d polydirs (CONFIG_MAX_POLYDIRS); list the directories users write to", CONFIG_MAX_POLYDIRS);
		hi_config_set_str(dirs[n++], CONFIG_PATH_MAX, word);
		total += len + 1;
	}
	if (rc < 0)
		return hi_config_fail(p, "polydir longer than 255 bytes (CONFIG_PATH_MAX); use a shorter path");
	/* The list is written back on one line (config_format). */
	if (total + sizeof "polydirs = " >= CONFIG_MAX_LINE)
		return hi_config_fail(p, "polydirs list longer than one %d-byte line; shorten it", CONFIG_MAX_LINE);
	memcpy(c->polydirs, dirs, sizeof dirs);
	c->n_polydirs = n;
	return 0;
}


bool hi_config_polydir_listed(const struct config *c, const char *dir)
{
	for (size_t i = 0; i < c->n_polydirs; i++)
		if (strcmp(c->polydirs[i], dir) == 0)
			return true;
	return false;
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
		return hi_config_fail(p, "empty sysctl key; write e.g. kernel.kptr_restrict = 2");
	if (len >= CONFIG_NAME_MAX)
		return hi_config_fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	if (strpbrk(key, "*?["))
		return hi_config_fail(p, "sysctl key '%s' has a glob pattern, which hardinit does not expand; list each key", key);
	if (!strchr(key, '.'))
		return hi_config_fail(p, "'%s' is not a sysctl name (they have a dot, e.g. kernel.kptr_restrict); see sysctl -a", key);
	/* Names in /proc/sys are letters, digits and "_-"; interface names
	 * add ":+@". Anything else (a '#' or ';' that would make the written
	 * back line a comment, a '[' a section) is not a sysctl. */
	for (const char *s = key; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/:+@", *s))
			return hi_config_fail(p, "sysctl key '%s' contains '%c'; write it as sysctl(8) prints it", key, *s);
	if (!isalnum((unsigned char)key[0]) && key[0] != '_')
		return hi_config_fail(p, "sysctl key '%s' must start with a letter or digit; write it as sysctl(8) prints it", key);
	for (const char *part = key;;) {
		size_t n = strcspn(part, ".");
		if (n == 0 || strspn(part, "/") == n)
			return hi_config_fail(p, "sysctl key '%s' has an empty, '.' or '..' part; write it as sysctl(8) prints it", key);
		if (!part[n])
			return 0;
		part += n + 1;
	}
}

/* Index of key in c->sysctls, or -1. */
long hi_config_sysctl_index(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (strcmp(c->sysctls[i].key, key) == 0)
			return (long)i;
	return -1;
}

static struct sysctl_setting *sysctl_find(struct config *c, const char *key, size_t *index)
{
	long i = hi_config_sysctl_index(c, key);

	if (i < 0)
		return NULL;
	if (index)
		*index = (size_t)i;
	return &c->sysctls[i];
}

int hi_config_set_sysctl(struct parse *p, const char *raw_key, const char *value)
{
	struct config *c = p->c;
	char key[CONFIG_NAME_MAX];
	bool ignore = raw_key[0] == '-';
	size_t i;

	if (ignore)
		raw_key++;
	if (strlen(raw_key) >= sizeof key)
		return hi_config_fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	hi_config_set_str(key, sizeof key, raw_key);
	sysctl_normalize(key);
	if (sysctl_key_check(p, key) < 0)
		return -1;
	if (!*value)
		return hi_config_fail(p, "sysctl %s has no value; write %s = VALUE, or remove the line", key, key);
	if (strlen(value) >= CONFIG_VALUE_MAX)
		return hi_config_fail(p, "value of sysctl %s is longer than 127 bytes (CONFIG_VALUE_MAX); set it from the root's sysctl.d", key);

	struct sysctl_setting *s = sysctl_find(c, key, &i);
	if (s && p->sysctl_line[i])
		return hi_config_fail(p, "sysctl %s is set twice (first on line %u); keep one", key, p->sysctl_line[i]);
	if (!s) {
		if (c->n_sysctls >= CONFIG_MAX_SYSCTLS)
			return hi_config_fail(p, "more than %d sysctls (CONFIG_MAX_SYSCTLS); move the rest to the root's sysctl.d", CONFIG_MAX_SYSCTLS);
		i = c->n_sysctls++;
		s = &c->sysctls[i];
		hi_config_set_str(s->key, sizeof s->key, key);
	}
	if (ignore && s->required)
		return hi_config_fail(p, "sysctl %s is required but written '-%s' (ignore failure); choose one", key, key);
	hi_config_set_str(s->value, sizeof s->value, value);
	s->ignore_failure = ignore;
	p->sysctl_line[i] = p->line;
	return 0;
}

/* require = is resolved at the end of the source: it may come before the
 * keys it names. */
int hi_set_sysctl_require(struct parse *p, const char *value)
{
	char word[CONFIG_NAME_MAX];
	int rc;

	while ((rc = next_word(&value, word, sizeof word, true)) > 0) {
		sysctl_normalize(word);
		if (sysctl_key_check(p, word) < 0)
			return -1;
		if (p->n_requires >= CONFIG_MAX_REQUIRED)
			return hi_config_fail(p, "more than %d required sysctls (CONFIG_MAX_REQUIRED); require the ones the system cannot run without", CONFIG_MAX_REQUIRED);
		hi_config_set_str(p->requires[p->n_requires].key, CONFIG_NAME_MAX, word);
		p->requires[p->n_requires].line = p->line;
		p->n_requires++;
	}
	if (rc < 0)
		return hi_config_fail(p, "sysctl key longer than 127 bytes (CONFIG_NAME_MAX); check the name with sysctl -a");
	return 0;
}

int hi_config_finish_requires(struct parse *p)
{
	for (size_t i = 0; i < p->n_requires; i++) {
		const char *key = p->requires[i].key;
		struct sysctl_setting *s = sysctl_find(p->c, key, NULL);
		p->line = p->requires[i].line;
		if (!s)
			return hi_config_fail(p, "required sysctl %s is not set; add '%s = VALUE' to [sysctl] or remove it from require", key, key);
		if (s->ignore_failure)
			return hi_config_fail(p, "sysctl %s is required but written '-%s' (ignore failure); choose one", key, key);
		s->required = true;
	}
	return 0;
}


int hi_set_sysctl_include(struct parse *p, const char *value)
{
	char full[2 * CONFIG_PATH_MAX];
	const char *bad;
	size_t len = 0;

	if (p->override || !p->read_text)
		return hi_config_fail(p, "include is only possible in a config file; put it in hardinit.conf");
	if (p->in_include)
		return hi_config_fail(p, "include inside an included file; hardinit reads one level of includes");
	if ((bad = hi_config_check_abs_path(value)))
		return hi_config_fail(p, "include path '%s' %s; write e.g. include = /etc/sysctl.d/99-local.conf", value, bad);
	if (*p->n_includes >= CONFIG_MAX_INCLUDES)
		return hi_config_fail(p, "more than %d includes (CONFIG_MAX_INCLUDES); merge the files", CONFIG_MAX_INCLUDES);
	(*p->n_includes)++;

	if (!hi_boot_path(full, sizeof full, p->root && *p->root ? p->root : "/", value))
		return hi_config_fail(p, "include path '%s' is too long under the root; shorten it", value);

	char *buf = malloc(CONFIG_MAX_FILE_BYTES + 1);
	if (!buf)
		return hi_config_fail(p, "include %s: out of memory; retry with less loaded", value);
	if (hi_fs_read(full, buf, CONFIG_MAX_FILE_BYTES + 1, &len) < 0) {
		int e = errno;
		free(buf);
		if (e == E2BIG)
			return hi_config_fail(p, "include %s is larger than %d bytes (CONFIG_MAX_FILE_BYTES); split it", value, CONFIG_MAX_FILE_BYTES);
		return hi_config_fail(p, "cannot read include %s: %s; fix the path or remove the line", full, strerror(e));
	}

	struct parse *sub = calloc(1, sizeof *sub);
	if (!sub) {
		free(buf);
		return hi_config_fail(p, "include %s: out of memory; retry with less loaded", value);
	}
	sub->c = p->c;
	sub->name = value;
	sub->root = p->root;
	sub->section = SEC_SYSCTL;
	sub->in_include = true;
	sub->n_includes = p->n_includes;
	sub->read_text = p->read_text;
	int rc = p->read_text(sub, buf, len);
	if (rc < 0)
		hi_config_fail(p, "in included %s:%u: %s", value, sub->line, sub->msg);
	free(sub);
	free(buf);
	return rc;
}

