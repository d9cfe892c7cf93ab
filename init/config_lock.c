/* The lock: what lock_cmdline = yes lets a hardinit.* command-line
 * override do. An override is applied to a copy of the config; the copy is
 * kept only when no key's rule (the lock column of config_key_table) and
 * no list's rule (config_list_table) says it is weaker. */
#include <cap-ng.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_format.h"
#include "config_keys.h"
#include "config_lists.h"
#include "config_lock.h"
#include "config_table.h"
#include "config_values.h"

/* ---- scalars: one rule per row ------------------------------------------ */

static int scalar_int(const struct config *c, const struct key_def *d)
{
	const char *f = (const char *)c + d->offset;

	if (d->kind == K_BOOL || d->kind == K_NAMED_BOOL)
		return *(const bool *)f;
	return *(const int *)f;
}

static bool scalar_changed(const struct config *o, const struct config *n, const struct key_def *d)
{
	if (d->kind == K_STRING)
		return strcmp((const char *)o + d->offset, (const char *)n + d->offset) != 0;
	return scalar_int(o, d) != scalar_int(n, d);
}

static bool scalar_weaker(const struct config *o, const struct config *n, const struct key_def *d)
{
	if (!scalar_changed(o, n, d))
		return false;
	switch (d->lock) {
	case LOCK_FREE:
	case LOCK_ADD_ONLY:
		return false;
	case LOCK_ON_ONLY:
		if (d->kind == K_STRING)
			return !*((const char *)n + d->offset);
		return scalar_int(n, d) < scalar_int(o, d);
	case LOCK_RANK: {
		int ro = d->rank ? d->rank(scalar_int(o, d)) : scalar_int(o, d);
		int rn = d->rank ? d->rank(scalar_int(n, d)) : scalar_int(n, d);
		return rn <= ro;
	}
	case LOCK_FIXED:
	case LOCK_LIST:     /* a list row never changes a scalar */
	case LOCK_UNSET:
		return true;
	}
	return true;
}

/* A root hash is 64 digits or more: the refusal must still fit its
 * "what to do" part, so long values are cut in the message. */
static void shorten(char *v)
{
	if (strlen(v) > 24)
		snprintf(v + 16, 4, "...");
}

static int key_weaker(const struct config *o, const struct config *n, const struct key_def *d,
		      char *why, size_t len)
{
	char ov[CONFIG_PATH_MAX + 2], nv[CONFIG_PATH_MAX + 2];

	if (d->lock == LOCK_UNSET)
		return hi_config_why_weaker(why, len, "%s.%s has no lock rule (a bug: report it)",
			      hi_config_section_names[d->section], d->key);
	if (d->kind == K_LIST || !scalar_weaker(o, n, d))
		return 0;
	hi_config_format_value(ov, sizeof ov, o, d);
	hi_config_format_value(nv, sizeof nv, n, d);
	shorten(ov);
	shorten(nv);
	const char *q = d->kind == K_STRING && !d->off_is_empty ? "'" : "";
	return hi_config_why_weaker(why, len, "%s.%s %s%s%s -> %s%s%s%s", hi_config_section_names[d->section], d->key,
		      q, ov, q, q, nv, q,
		      d->lock == LOCK_FIXED ? " (it cannot change under the lock)" : "");
}


int hi_config_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < hi_config_n_keys; i++)
		if (key_weaker(o, n, &hi_config_key_table[i], why, len))
			return 1;
	for (size_t i = 0; i < hi_config_n_lists; i++)
		if (hi_config_list_table[i].weaker && hi_config_list_table[i].weaker(o, n, why, len))
			return 1;
	return 0;
}

/* ---- the override -------------------------------------------------------- */

/* "selinux.mode" -> section and key; "sysctl.kernel.kptr_restrict" keeps
 * the dots of the sysctl name. */
static int override_apply(struct parse *p, const char *key, const char *value)
{
	const char *dot = strchr(key, '.');
	char sec[32];

	if (!dot || dot == key || (size_t)(dot - key) >= sizeof sec)
		return hi_config_fail(p, "not a SECTION.KEY name; write e.g. hardinit.selinux.mode=enforcing");
	memcpy(sec, key, (size_t)(dot - key));
	sec[dot - key] = '\0';
	int section = hi_config_section_of(sec);
	if (section < 0) {
		for (int i = 0; i < N_SECTIONS; i++)
			if (hi_config_close_enough(sec, hi_config_section_names[i]))
				return hi_config_fail(p, "unknown section '%s'; did you mean '%s'? see hardinit.conf(5)", sec, hi_config_section_names[i]);
		return hi_config_fail(p, "unknown section '%s'; see hardinit.conf(5)", sec);
	}
	p->section = section;
	if (strlen(dot + 1) >= CONFIG_NAME_MAX)
		return hi_config_fail(p, "key longer than 127 bytes (CONFIG_NAME_MAX); see hardinit.conf(5) for the keys");
	if (hi_config_assignment(p, dot + 1, value) < 0)
		return -1;
	return hi_config_finish_requires(p);
}

/* One SECTION.KEY=VALUE onto c, read as a line of the file would be; with
 * lock, refused (1) when c is locked and the change weakens it. */
static int assign(struct config *c, const char *key, const char *value,
		  const char *prefix, bool lock, char *err, size_t errlen)
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
		snprintf(err, errlen, "%s%s: out of memory; the %s was not applied", prefix, key,
			 lock ? "override" : "value");
		goto out;
	}
	memcpy(next, c, sizeof *next);
	p->c = next;
	p->name = "command line";
	p->override = true;
	p->line = 1;
	p->section = -1;
	if (strlen(value) >= sizeof val) {
		hi_config_fail(p, "value longer than %d bytes; shorten it", CONFIG_MAX_LINE - 1);
	} else {
		/* The same rules as a line of the file: no control characters,
		 * white space around the value ignored. */
		hi_config_set_str(val, sizeof val, value);
		char *v = val;
		for (const char *s = key; *s && v; s++)
			if ((unsigned char)*s <= 0x20 || *s == 0x7f)
				v = NULL;
		for (const char *s = val; *s && v; s++)
			if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
				v = NULL;
		if (!v)
			hi_config_fail(p, "control character or white space in the name, or control character in the value; retype it");
		else
			rc = override_apply(p, key, hi_config_trim(v));
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s%s=%s: %s", prefix, key, value, p->msg);
		rc = -1;
	} else if (lock && c->lock_cmdline && hi_config_weaker(c, next, why, sizeof why)) {
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

int hi_config_override(struct config *c, const char *key, const char *value,
		    char *err, size_t errlen)
{
	return assign(c, key, value, "hardinit.", true, err, errlen);
}

int hi_config_set_key(struct config *c, const char *key, const char *value,
		   char *err, size_t errlen)
{
	return assign(c, key, value, "", false, err, errlen);
}
