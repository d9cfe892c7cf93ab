/* config-set: a config file's text with some one-value keys set, every
 * other line kept as written (the profile's reasons are comments). The
 * values go through the reader (config_set_key, as a line of the file),
 * the lines are found with the reader's own rules (config_trim, one
 * [section] each), and the result is read again and compared with what
 * was asked through the formatter: a text that would not give those
 * values is never written. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_edit.h"
#include "config_format.h"
#include "config_keys.h"
#include "config_lock.h"
#include "config_table.h"
#include "sink.h"

#define EDIT_MAX 16   /* SECTION.KEY=VALUE arguments */

struct edit {
	int section;
	const char *key;
	char value[CONFIG_MAX_LINE];
	bool written;
};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* "verity.roothash=abc" -> section, key (a row of the key table that
 * takes one value) and value, checked by applying it to want. */
static int edit_parse(struct edit *e, const char *arg, struct config *want, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	const char *dot = strchr(arg, '.');
	char name[CONFIG_NAME_MAX + 32];

	if (!eq || !dot || dot > eq || (size_t)(eq - arg) >= sizeof name)
		return fail(err, errlen, "'%s': not SECTION.KEY=VALUE; write e.g. verity.enabled=yes", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	/* The reader's word first: an unknown section or key, a bad value. */
	if (hi_config_set_key(want, name, eq + 1, err, errlen) < 0)
		return -1;
	name[dot - arg] = '\0';
	e->section = hi_config_section_of(name);
	e->key = NULL;
	for (size_t i = 0; e->section >= 0 && i < hi_config_n_keys; i++) {
		const struct key_def *d = &hi_config_key_table[i];
		if ((int)d->section == e->section && strcmp(d->key, name + (dot - arg) + 1) == 0 &&
		    d->kind != K_LIST && !d->repeatable)
			e->key = d->key;
	}
	name[dot - arg] = '.';
	if (!e->key)
		return fail(err, errlen, "%s: not a key that takes one value; config-set sets those only "
			    "(hardinit.conf(5) lists them), lists are written in the file", name);
	/* Written as the reader keeps it: without white space around. */
	char v[CONFIG_MAX_LINE];
	snprintf(v, sizeof v, "%s", eq + 1);
	snprintf(e->value, sizeof e->value, "%s", hi_config_trim(v));
	return 0;
}

/* The section a header line names, or -1 when the line is none. */
static int header_section(const char *line)
{
	char buf[CONFIG_MAX_LINE + 1];
	snprintf(buf, sizeof buf, "%s", line);
	char *s = hi_config_trim(buf);
	char *end = strchr(s, ']');
	if (*s != '[' || !end)
		return -1;
	*end = '\0';
	return hi_config_section_of(hi_config_trim(s + 1));
}

/* Is line "KEY = ..." for one of the edits of section sec? */
static bool replaced(const char *line, int sec, const struct edit *e, size_t n)
{
	char buf[CONFIG_MAX_LINE + 1];
	snprintf(buf, sizeof buf, "%s", line);
	char *eq = strchr(buf, '=');
	if (!eq || *hi_config_trim(buf) == '#')
		return false;
	*eq = '\0';
	const char *key = hi_config_trim(buf);
	for (size_t i = 0; i < n; i++)
		if (e[i].section == sec && strcmp(e[i].key, key) == 0)
			return true;
	return false;
}

static void put_section(struct sink *o, int sec, struct edit *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].section == sec && !e[i].written) {
			hi_sink_printf(o, "%s = %s\n", e[i].key, e[i].value);
			e[i].written = true;
		}
}

static void rewrite(struct sink *o, const char *text, size_t len, struct edit *e, size_t n)
{
	char line[CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	int sec = -1;

	while (pos < len) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t k = nl ? (size_t)(nl - start) : len - pos;
		pos += k + (nl ? 1 : 0);
		/* The reader refused longer lines already. */
		snprintf(line, sizeof line, "%.*s", (int)(k < CONFIG_MAX_LINE ? k : CONFIG_MAX_LINE), start);
		int h = header_section(line);
		if (h < 0 && sec >= 0 && replaced(line, sec, e, n))
			continue;
		hi_sink_printf(o, "%s\n", line);
		if (h >= 0) {
			sec = h;
			put_section(o, sec, e, n);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!e[i].written) {
			hi_sink_printf(o, "\n[%s]\n", hi_config_section_names[e[i].section]);
			put_section(o, e[i].section, e, n);
		}
}

/* Does text read as want? Both formatted, compared. */
static int same_config(const char *text, size_t len, const char *name, const char *root,
		       const struct config *want, char *err, size_t errlen)
{
	struct config *got = malloc(sizeof *got);
	char *a = malloc(2 * CONFIG_MAX_FILE_BYTES), *b = malloc(2 * CONFIG_MAX_FILE_BYTES);
	int rc = -1;

	if (!got || !a || !b) {
		fail(err, errlen, "%s: out of memory", name);
		goto out;
	}
	hi_config_defaults(got);
	if (hi_config_parse(got, text, len, name, root, err, errlen) < 0)
		goto out;
	if (hi_config_format(got, a, 2 * CONFIG_MAX_FILE_BYTES) < 0 ||
	    hi_config_format(want, b, 2 * CONFIG_MAX_FILE_BYTES) < 0 || strcmp(a, b) != 0) {
		fail(err, errlen, "%s: the edited text does not read as the values asked for; "
		     "write them in the file by hand", name);
		goto out;
	}
	rc = 0;
out:
	free(got);
	free(a);
	free(b);
	return rc;
}

int hi_config_edit(const char *text, size_t len, const char *name, const char *root,
		const char *const *assign, size_t n, char *out, size_t cap,
		char *err, size_t errlen)
{
	struct config *want = malloc(sizeof *want);
	struct edit *e = calloc(EDIT_MAX, sizeof *e);
	int rc = -1;

	if (!want || !e) {
		fail(err, errlen, "%s: out of memory", name);
		goto out;
	}
	if (n == 0 || n > EDIT_MAX) {
		snprintf(err, errlen, "config-set takes 1 to %d SECTION.KEY=VALUE", EDIT_MAX);
		goto out;
	}
	hi_config_defaults(want);
	if (hi_config_parse(want, text, len, name, root, err, errlen) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (edit_parse(&e[i], assign[i], want, err, errlen) < 0)
			goto out;
		for (size_t j = 0; j < i; j++)
			if (e[j].section == e[i].section && strcmp(e[j].key, e[i].key) == 0) {
				fail(err, errlen, "%s: given twice; give each key once", assign[i]);
				goto out;
			}
	}
	struct sink o;
	hi_sink_init(&o, out, cap);
	rewrite(&o, text, len, e, n);
	if (o.full || o.len > CONFIG_MAX_FILE_BYTES) {
		fail(err, errlen, "%s: the edited config is larger than %d bytes (CONFIG_MAX_FILE_BYTES); "
		     "remove settings", name, CONFIG_MAX_FILE_BYTES);
		goto out;
	}
	if (same_config(out, o.len, name, root, want, err, errlen) < 0)
		goto out;
	rc = (int)o.len;
out:
	free(want);
	free(e);
	return rc;
}
