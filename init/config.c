/* hardinit.conf: the defaults and the reader of files and lines. The
 * format is in man/hardinit.conf.5; the keys are the rows of
 * config_key_table (config_table.c), their values are parsed in
 * config_values.c, overrides and the lock are config_lock.c, and writing
 * the config back is config_format.c.
 *
 * Errors are one line, "FILE:LINE: what is wrong; how to fix it": a config
 * that says something hardinit does not understand must stop the boot
 * rather than boot a weaker system than the author meant. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "config_table.h"
#include "config_values.h"
#include "fsutil.h"

/* ---- defaults: the baseline profile ----------------------------------- */

void hi_config_defaults(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->failure_action = FAIL_REBOOT;
	c->failure_delay = 10;
	c->root_timeout = 10;
	c->rootwait_timeout = 300;
	c->lock_cmdline = false;
	c->root_duplicates = ROOT_DUP_REFUSE;
	c->read_root_config = false;
	c->root_lvm = true;

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
	hi_config_set_str(c->polydirs[0], CONFIG_PATH_MAX, "/tmp");
	hi_config_set_str(c->polydirs[1], CONFIG_PATH_MAX, "/var/tmp");
	c->n_polydirs = 2;

	c->tiocsti = TIOCSTI_DENY_UNPRIVILEGED;
	c->deny_tioclinux = false;
	c->tiocsti_seccomp = false;

	c->verity_enabled = false;
	c->verity_on_corruption = VERITY_EIO;
	c->ima_require = false;
	c->tpm_measure = false;
	c->tpm_pcr = CONFIG_TPM_PCR_DEFAULT;
	c->tpm_require = false;
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
	const char *sec = hi_config_section_names[section];

	for (size_t i = 0; i < hi_config_n_keys; i++)
		if ((int)hi_config_key_table[i].section == section && hi_config_close_enough(key, hi_config_key_table[i].key))
			return hi_config_fail(p, "unknown key '%s' in [%s]; did you mean '%s'? see hardinit.conf(5)", key, sec, hi_config_key_table[i].key);
	for (size_t i = 0; i < sizeof key_hints / sizeof key_hints[0]; i++) {
		if (strcasecmp(key, key_hints[i].typed) != 0)
			continue;
		if (strcmp(key_hints[i].section, sec) == 0)
			return hi_config_fail(p, "unknown key '%s' in [%s]; did you mean '%s'? see hardinit.conf(5)", key, sec, key_hints[i].key);
		return hi_config_fail(p, "unknown key '%s' in [%s]; did you mean '%s' in [%s]? see hardinit.conf(5)", key, sec,
			    key_hints[i].key, key_hints[i].section);
	}
	for (size_t i = 0; i < hi_config_n_keys; i++)
		if (strcmp(hi_config_key_table[i].key, key) == 0)
			return hi_config_fail(p, "key '%s' belongs in [%s], not [%s]; move it there", key,
				    hi_config_section_names[hi_config_key_table[i].section], sec);
	if (section == SEC_SYSCTL)
		return hi_config_fail(p, "unknown key '%s' in [sysctl]; sysctl names have a dot (kernel.kptr_restrict), the other keys are include, require and persist", key);
	return hi_config_fail(p, "unknown key '%s' in [%s]; see hardinit.conf(5) for the keys of [%s]", key, sec, sec);
}

static int section_line(struct parse *p, char *s)
{
	char *end = strchr(s, ']');
	char list[160];

	if (p->in_include)
		return hi_config_fail(p, "sections are not allowed in an included sysctl.d file; write only 'key = value' lines");
	if (!end)
		return hi_config_fail(p, "section header without ']'; write e.g. [selinux]");
	for (char *t = end + 1; *t; t++)
		if (!isspace((unsigned char)*t))
			return hi_config_fail(p, "text after the section header; put it on the next line");
	*end = '\0';
	s++;
	while (isspace((unsigned char)*s))
		s++;
	for (char *t = s + strlen(s); t > s && isspace((unsigned char)t[-1]);)
		*--t = '\0';
	int sec = hi_config_section_of(s);
	if (sec < 0) {
		for (int i = 0; i < N_SECTIONS; i++)
			if (hi_config_close_enough(s, hi_config_section_names[i]))
				return hi_config_fail(p, "unknown section [%s]; did you mean [%s]? see hardinit.conf(5)", s, hi_config_section_names[i]);
		hi_config_join_names(list, sizeof list, hi_config_section_names);
		return hi_config_fail(p, "unknown section [%s]; the sections are %s", s, list);
	}
	if (p->section_line[sec])
		return hi_config_fail(p, "section [%s] appears twice (first on line %u); merge them", s, p->section_line[sec]);
	p->section_line[sec] = p->line;
	p->section = sec;
	return 0;
}

static int key_before_section(struct parse *p, const char *key)
{
	for (size_t i = 0; i < hi_config_n_keys; i++)
		if (strcmp(hi_config_key_table[i].key, key) == 0)
			return hi_config_fail(p, "key '%s' before any [section]; put it under [%s]", key,
				    hi_config_section_names[hi_config_key_table[i].section]);
	if (strchr(key, '.'))
		return hi_config_fail(p, "key '%s' before any [section]; put sysctls under [sysctl]", key);
	return hi_config_fail(p, "key '%s' before any [section]; start the file with a section such as [boot]", key);
}

/* key = value, within the current section. */
int hi_config_assignment(struct parse *p, const char *key, const char *value)
{
	if (p->section < 0)
		return key_before_section(p, key);
	const struct key_def *d = hi_config_key_find(p->section, key);
	if (!d && p->section == SEC_SYSCTL && (strpbrk(key, "./") || key[0] == '-'))
		return hi_config_set_sysctl(p, key, value);
	if (!d)
		return unknown_key(p, p->section, key);
	if (p->in_include)
		return hi_config_fail(p, "'%s' is not a sysctl; an included sysctl.d file holds only sysctl lines", key);
	size_t k = (size_t)(d - hi_config_key_table);
	if (!d->repeatable && p->key_line[k])
		return hi_config_fail(p, "duplicate key '%s' in [%s] (first on line %u); keep one", key,
			    hi_config_section_names[d->section], p->key_line[k]);
	p->key_line[k] = p->line;
	return hi_config_set_value(p, d, value);
}

char *hi_config_trim(char *s)
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
			return hi_config_fail(p, "control character 0x%02x; remove it (is this a text file?)", (unsigned char)*s);
	char *s = hi_config_trim(line);
	/* sysctl.d(5) also takes ';' comments; hardinit.conf only '#'. */
	if (!*s || *s == '#' || (p->in_include && *s == ';'))
		return 0;
	if (*s == '[')
		return section_line(p, s);
	char *eq = strchr(s, '=');
	if (!eq)
		return hi_config_fail(p, "expected 'key = value', a [section] or a # comment; got '%.40s'", s);
	*eq = '\0';
	char *key = hi_config_trim(s);
	char *value = hi_config_trim(eq + 1);
	if (!*key)
		return hi_config_fail(p, "'=' without a key; write key = value");
	return hi_config_assignment(p, key, value);
}

/* The line number of byte offset pos, for the size-limit error. */
static unsigned line_at(const char *text, size_t pos)
{
	unsigned line = 1;
	for (size_t i = 0; i < pos; i++)
		line += text[i] == '\n';
	return line;
}

int hi_config_parse_text(struct parse *p, const char *text, size_t len)
{
	char buf[CONFIG_MAX_LINE + 1];
	size_t pos = 0;

	p->line = 0;
	if (len > CONFIG_MAX_FILE_BYTES) {
		p->line = line_at(text, CONFIG_MAX_FILE_BYTES);
		return hi_config_fail(p, "file is larger than %d bytes (CONFIG_MAX_FILE_BYTES); split it or remove settings",
			    CONFIG_MAX_FILE_BYTES);
	}
	while (pos < len) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		p->line++;
		pos += n + (nl ? 1 : 0);
		if (memchr(start, '\0', n))
			return hi_config_fail(p, "NUL byte in the file; this is not a text file, fix or regenerate it");
		if (n > 0 && start[n - 1] == '\r')
			n--;   /* a file written on another system: accept CRLF */
		if (n >= CONFIG_MAX_LINE)
			return hi_config_fail(p, "line longer than %d bytes (CONFIG_MAX_LINE); shorten it or split a list over repeated keys",
				    CONFIG_MAX_LINE - 1);
		memcpy(buf, start, n);
		buf[n] = '\0';
		if (one_line(p, buf) < 0)
			return -1;
	}
	return p->in_include ? 0 : hi_config_finish_requires(p);
}

static void format_error(char *err, size_t errlen, const char *name, unsigned line, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: %s", name, line, msg);
}

int hi_config_parse(struct config *c, const char *text, size_t len,
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
	p->read_text = hi_config_parse_text;
	rc = hi_config_parse_text(p, text ? text : "", text ? len : 0);
	if (rc < 0)
		format_error(err, errlen, name, p->line, p->msg);
	else
		memcpy(c, work, sizeof *c);
out:
	free(p);
	free(work);
	return rc;
}

int hi_config_load(struct config *c, const char *path, const char *root,
		char *err, size_t errlen)
{
	char *buf = malloc(CONFIG_MAX_FILE_BYTES + 1);
	size_t len = 0;

	if (!buf) {
		format_error(err, errlen, path, 0, "out of memory; the config was not read");
		return -1;
	}
	if (hi_fs_read(path, buf, CONFIG_MAX_FILE_BYTES + 1, &len) < 0) {
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
	int rc = hi_config_parse(c, buf, len, path, root, err, errlen);
	free(buf);
	return rc;
}

