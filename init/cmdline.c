#include "cmdline.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HARDINIT_PREFIX "hardinit."

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

/* The kernel's isspace() (lib/ctype.c), which its next_arg() splits at:
 * \v, \f and Latin-1's no-break space 0xa0 too, so "root=/dev/vda\vselinux=0"
 * is two words to the kernel and must be two to the lock. */
static int is_space(char c)
{
	unsigned char u = (unsigned char)c;
	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/* Split text into words the way the kernel's next_arg() does: whitespace
 * separates, double quotes group and are removed. Words are stored
 * NUL-separated in c->buf; key/value split at the first '=', inside quotes
 * too: the kernel and systemd both read "selinux=0" as selinux=0, so a word
 * the lock refuses must not hide from it behind quotes. */
static int split_words(struct cmdline *c, const char *text, size_t len, char *err, size_t errlen)
{
	size_t i = 0, out = 0;

	while (i < len) {
		while (i < len && is_space(text[i]))
			i++;
		if (i >= len)
			break;
		if (c->n_words >= CMDLINE_MAX_WORDS)
			return fail(err, errlen, "kernel command line has too many words (limit 128); shorten it");
		struct cmdline_word *w = &c->words[c->n_words++];
		int quoted = 0;
		w->key = c->buf + out;
		w->value = NULL;
		while (i < len && (quoted || !is_space(text[i]))) {
			char ch = text[i++];
			if (ch == '"') {
				quoted = !quoted;
				continue;
			}
			if (out + 2 >= sizeof c->buf)
				return fail(err, errlen, "kernel command line is too long (limit 4096 bytes)");
			if (ch == '=' && !w->value) {
				c->buf[out++] = '\0';
				w->value = c->buf + out;
				continue;
			}
			c->buf[out++] = ch;
		}
		if (quoted)
			return fail(err, errlen, "kernel command line has an unterminated double quote; close it or remove it");
		c->buf[out++] = '\0';
		if (w->key[0] == '\0')
			return fail(err, errlen, "kernel command line has a word with an empty name (\"=value\"); remove it");
	}
	return 0;
}

static int parse_seconds(const char *v, int *out)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	if (*end != '\0' || n < 0 || n > 3600)
		return -1;
	*out = (int)n;
	return 0;
}

/* Sort the split words into what they set: root and init options,
 * init's argv, hardinit.* overrides. */
static int assign_words(struct cmdline *c, char *err, size_t errlen)
{
	int after_dashes = 0;

	for (size_t i = 0; i < c->n_words; i++) {
		struct cmdline_word *w = &c->words[i];
		if (after_dashes || (!w->value && strcmp(w->key, "--") == 0)) {
			if (after_dashes && w->value) {
				/* After "--" a word goes to init verbatim: undo
				 * the key/value split (value follows key's NUL). */
				w->key[strlen(w->key)] = '=';
				w->value = NULL;
			}
			if (after_dashes && c->n_init_args < CMDLINE_MAX_INIT_ARGS)
				c->init_args[c->n_init_args++] = w->key;
			after_dashes = 1;
			continue;
		}
		if (strncmp(w->key, HARDINIT_PREFIX, strlen(HARDINIT_PREFIX)) == 0) {
			if (c->n_overrides >= CMDLINE_MAX_OVERRIDES)
				return fail(err, errlen, "too many hardinit.* options on the kernel command line (limit 64)");
			c->overrides[c->n_overrides].key = w->key + strlen(HARDINIT_PREFIX);
			c->overrides[c->n_overrides].value = w->value;
			c->n_overrides++;
		} else if (!w->value && strcmp(w->key, "ro") == 0) {
			c->rw = false;
		} else if (!w->value && strcmp(w->key, "rw") == 0) {
			c->rw = true;
		} else if (!w->value && strcmp(w->key, "rootwait") == 0) {
			c->rootwait = true;
		} else if (w->value && strcmp(w->key, "root") == 0) {
			c->root = w->value;
		} else if (w->value && strcmp(w->key, "rootfstype") == 0) {
			c->rootfstype = w->value;
		} else if (w->value && strcmp(w->key, "rootflags") == 0) {
			c->rootflags = w->value;
		} else if (w->value && strcmp(w->key, "init") == 0) {
			c->init = w->value;
		} else if (w->value && strcmp(w->key, "rootdelay") == 0) {
			if (parse_seconds(w->value, &c->rootdelay) < 0)
				return fail(err, errlen, "rootdelay= must be a number of seconds from 0 to 3600");
		} else if (!w->value && !strchr(w->key, '.') && c->n_init_args < CMDLINE_MAX_INIT_ARGS) {
			/* What the kernel would pass to init as argv (it also
			 * consumes its own known options; this is the dry-run view). */
			c->init_args[c->n_init_args++] = w->key;
		}
	}
	if (c->root && !*c->root)
		return fail(err, errlen, "root= is empty; give a device (/dev/vda1, UUID=..., LABEL=...)");
	if (c->init && c->init[0] != '/')
		return fail(err, errlen, "init= must be an absolute path");
	return 0;
}

int hi_cmdline_parse(struct cmdline *c, const char *text, size_t len, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	if (len >= CMDLINE_MAX_BYTES)
		return fail(err, errlen, "kernel command line is too long (limit 4096 bytes)");
	if (memchr(text, '\0', len))
		return fail(err, errlen, "kernel command line contains a NUL byte; it cannot be trusted");
	if (split_words(c, text, len, err, errlen) < 0)
		return -1;
	return assign_words(c, err, errlen);
}

const char *hi_cmdline_get(const struct cmdline *c, const char *key, bool *present)
{
	const char *value = NULL;

	if (present)
		*present = false;
	for (size_t i = 0; i < c->n_words; i++) {
		if (strcmp(c->words[i].key, key) != 0)
			continue;
		if (c->words[i].value)
			value = c->words[i].value;
		else if (present)
			*present = true;
	}
	return value;
}

static int copy_value(struct root_spec *r, const char *v, int lower, char *err, size_t errlen)
{
	size_t len = strlen(v);

	if (len == 0)
		return fail(err, errlen, "root= has an empty value after the '='; give the UUID, label or name");
	if (len >= sizeof r->value)
		return fail(err, errlen, "root= value is too long (limit 255 bytes)");
	for (size_t i = 0; i <= len; i++)
		r->value[i] = lower ? (char)tolower((unsigned char)v[i]) : v[i];
	return 0;
}

static int all_hex(const char *s, int allow_dash)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s) && !(allow_dash && *s == '-'))
			return 0;
	return 1;
}

static int parse_devnum(struct root_spec *r, const char *text)
{
	unsigned maj, min;
	char tail;

	if (sscanf(text, "%u:%u%c", &maj, &min, &tail) == 2) {
		r->major = maj;
		r->minor = min;
		return 0;
	}
	if (all_hex(text, 0) && strlen(text) <= 8) {
		/* The old "fe01" form, decoded as the kernel's new_decode_dev(). */
		unsigned long dev = strtoul(text, NULL, 16);
		r->major = (unsigned)((dev & 0xfff00) >> 8);
		r->minor = (unsigned)((dev & 0xff) | ((dev >> 12) & 0xfff00));
		return 0;
	}
	return -1;
}

int hi_root_spec_parse(struct root_spec *r, const char *text, char *err, size_t errlen)
{
	static const struct { const char *prefix; enum root_kind kind; int lower; } tagged[] = {
		{ "UUID=", ROOT_UUID, 1 },
		{ "LABEL=", ROOT_LABEL, 0 },
		{ "PARTUUID=", ROOT_PARTUUID, 1 },
		{ "PARTLABEL=", ROOT_PARTLABEL, 0 },
	};

	memset(r, 0, sizeof *r);
	if (!text || !*text)
		return fail(err, errlen, "root= is missing; add root=/dev/vda1, root=UUID=... or root=LABEL=... to the kernel command line");
	for (size_t i = 0; i < sizeof tagged / sizeof tagged[0]; i++) {
		size_t plen = strlen(tagged[i].prefix);
		if (strncmp(text, tagged[i].prefix, plen) != 0)
			continue;
		r->kind = tagged[i].kind;
		if (copy_value(r, text + plen, tagged[i].lower, err, errlen) < 0)
			return -1;
		if ((r->kind == ROOT_UUID || r->kind == ROOT_PARTUUID) && !all_hex(r->value, 1))
			return fail(err, errlen, "root= UUID may hold only hex digits and '-' (PARTUUID=.../PARTNROFF= is not supported)");
		return 0;
	}
	if (strncmp(text, "/dev/", 5) == 0) {
		r->kind = ROOT_PATH;
		if (strstr(text, "/../") || strlen(text) == 5)
			return fail(err, errlen, "root= device path must name a device under /dev");
		return copy_value(r, text, 0, err, errlen);
	}
	if (strchr(text, '=') || strchr(text, '/'))
		return fail(err, errlen, "root= is not a device this init understands; use /dev/NAME, UUID=, LABEL=, PARTUUID=, PARTLABEL= or MAJ:MIN");
	if (parse_devnum(r, text) == 0) {
		r->kind = ROOT_DEVNUM;
		return 0;
	}
	/* A bare name such as "vda1", as the kernel accepts it. */
	char path[sizeof r->value];
	if (snprintf(path, sizeof path, "/dev/%s", text) >= (int)sizeof path)
		return fail(err, errlen, "root= value is too long (limit 255 bytes)");
	r->kind = ROOT_PATH;
	return copy_value(r, path, 0, err, errlen);
}
