/* hardinit.conf(5) against the key table: every key of config_key_table has
 * its entry under its section's heading, the entry's "[default]" is what
 * hi_config_defaults() gives (as config_format writes it; "empty" for an empty
 * string), and the key is named in its section's paragraph of THE LOCK.
 * Run from the top of the tree, as tests/run-suites does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_format.h"
#include "config_keys.h"
#include "config_table.h"
#include "tap.h"

#define MAN "man/hardinit.conf.5"
#define MAN_MAX (256 * 1024)

static char man[MAN_MAX];

/* The text from the line starting with `from` to the next line starting
 * with one of `ends` (or the end), in out. */
static void part(char *out, size_t cap, const char *from, const char *const *ends)
{
	out[0] = '\0';
	const char *s = strstr(man, from);
	if (!s)
		return;
	const char *e = NULL;
	for (const char *p = strchr(s + 1, '\n'); p && !e; p = strchr(p + 1, '\n'))
		for (size_t i = 0; ends[i] && !e; i++)
			if (strncmp(p + 1, ends[i], strlen(ends[i])) == 0)
				e = p + 1;
	size_t n = e ? (size_t)(e - s) : strlen(s);
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* The entry's first line: ".BR key " = " ... [default]" (or ".B key"). */
static const char *entry(const char *sec, const char *key, char *line, size_t cap)
{
	char pat[96];
	snprintf(pat, sizeof pat, "\n.BR %s \" = \"", key);
	const char *p = strstr(sec, pat);
	if (!p) {
		snprintf(pat, sizeof pat, "\n.B %s\n", key);
		p = strstr(sec, pat);
	}
	if (!p)
		return NULL;
	p++;
	size_t n = strcspn(p, "\n");
	snprintf(line, cap, "%.*s", (int)n, p);
	return line;
}

/* The word named on its own (".B key", ".BR key ," or in running text). */
static int names_key(const char *text, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		char before = p == text ? ' ' : p[-1], after = p[n];
		if ((before == ' ' || before == '\n' || before == '(') &&
		    (after == ' ' || after == '\n' || after == ',' || after == ')' || after == '.' || after == ';'))
			return 1;
	}
	return 0;
}

int main(void)
{
	static struct config c;
	static char sec[64 * 1024], lock[16 * 1024], all_lock[64 * 1024], line[512];
	static const char *const sec_ends[] = { ".SS ", ".SH ", NULL };
	static const char *const lock_all_ends[] = { ".SH ", NULL };

	FILE *f = fopen(MAN, "r");
	if (!tap_ok(f != NULL, MAN " opens (run from the top of the tree)"))
		return tap_done();
	size_t len = fread(man, 1, sizeof man - 1, f);
	man[len] = '\0';
	fclose(f);
	hi_config_defaults(&c);
	part(all_lock, sizeof all_lock, ".SH THE LOCK", lock_all_ends);

	for (size_t i = 0; i < hi_config_n_keys; i++) {
		const struct key_def *d = &hi_config_key_table[i];
		const char *name = hi_config_section_names[d->section];
		char head[48], want[CONFIG_PATH_MAX + 8], value[CONFIG_PATH_MAX];

		snprintf(head, sizeof head, ".SS [%s]", name);
		part(sec, sizeof sec, head, sec_ends);
		if (!tap_ok(entry(sec, d->key, line, sizeof line) != NULL, "[%s] %s has its entry", name, d->key))
			continue;
		if (d->kind != K_LIST) {
			hi_config_format_value(value, sizeof value, &c, d);
			snprintf(want, sizeof want, "[%s]", value[0] ? value : "empty");
			tap_ok(strstr(line, want) != NULL, "[%s] %s: default %s in '%s'", name, d->key, want, line);
		}
		/* The lock paragraph of the section (".B [ima] [tpm]" is one). */
		snprintf(head, sizeof head, "[%s]", name);
		lock[0] = '\0';
		for (const char *p = strstr(all_lock, "\n.B ["); p; p = strstr(p + 1, "\n.B [")) {
			size_t n = strcspn(p + 1, "\n");
			char tag[64];
			snprintf(tag, sizeof tag, "%.*s", (int)n, p + 1);
			if (strstr(tag, head)) {
				const char *q = p + 1;
				char tmp[sizeof lock];
				snprintf(tmp, sizeof tmp, "%s", q);
				const char *e = strstr(tmp + 1, "\n.TP");
				if (!e)
					e = strstr(tmp + 1, "\n.SH");
				snprintf(lock, sizeof lock, "%.*s", (int)(e ? (size_t)(e - tmp) : strlen(tmp)), tmp);
			}
		}
		tap_ok(names_key(lock, d->key), "[%s] %s: its lock rule in THE LOCK", name, d->key);
	}
	return tap_done();
}
