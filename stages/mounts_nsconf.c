/* namespace.conf and namespace.d as pam_namespace reads them: the line
 * parser (fuzzed by tests/fuzz/fuzz_nsconf.c), the bounded reader of the
 * root's files, and the check of the users they name. Used by the
 * polyinstantiation half of the mounts stage (stages/mounts_polyinst.c). */
#include "mounts_nsconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "boot.h"
#include "mounts_mountinfo.h"
#include "log.h"
#include "report.h"

#define STAGE "mounts"

/* ---- namespace.conf --------------------------------------------------- */

/* One field as pam_namespace's argv_parse reads it: separated by blanks,
 * '"' quotes blanks, and \b \n \t are escapes. Returns 1 with a field, 0
 * at the end of the line, -1 when the field does not fit or a quote is
 * left open. */
static int next_field(const char **pp, char *out, size_t cap)
{
	const char *p = *pp;
	size_t n = 0;
	bool quoted = false;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0') {
		*pp = p;
		return 0;
	}
	for (; *p; p++) {
		char c = *p;
		if (!quoted && (c == ' ' || c == '\t'))
			break;
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && p[1]) {
			p++;
			c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'b' ? '\b' : *p;
		}
		if (n + 1 >= cap)
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	*pp = p;
	return quoted ? -1 : 1;
}

static int parse_method(const char *field, struct ns_entry *e, char *err, size_t errlen, bool *warned)
{
	static const char *const methods[] = { "user", "context", "level", "tmpdir", "tmpfs" };
	static const char *const flags[] = { "create", "noinit", "iscript", "shared", "mntopts" };
	char buf[NSCONF_MAX_LINE];
	char *save = NULL;
	size_t i;

	hi_copy_str(buf, sizeof buf, field);
	char *m = strtok_r(buf, ":", &save);
	for (i = 0; m && i < sizeof methods / sizeof methods[0]; i++)
		if (strcmp(m, methods[i]) == 0)
			break;
	if (!m || i == sizeof methods / sizeof methods[0]) {
		snprintf(err, errlen, "unknown method '%s'; use user, context, level, tmpdir or tmpfs",
			 m ? m : "");
		return -1;
	}
	e->method = (enum ns_method)i;
	for (char *f = strtok_r(NULL, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
		size_t k;
		/* pam_namespace matches flags by prefix and skips unknown ones. */
		for (k = 0; k < sizeof flags / sizeof flags[0]; k++)
			if (strncmp(f, flags[k], strlen(flags[k])) == 0)
				break;
		if (k == sizeof flags / sizeof flags[0]) {
			if (!*warned)
				snprintf(err, errlen, "unknown flag '%s' is ignored by pam_namespace", f);
			*warned = true;
			continue;
		}
		if (k == 0)
			e->create = true;
		if (k == 4 && e->method != NS_TMPFS && !*warned) {
			snprintf(err, errlen, "mntopts applies to the tmpfs method only; pam_namespace ignores it here");
			*warned = true;
		}
	}
	return 0;
}

static int parse_users(const char *field, struct ns_entry *e, char *err, size_t errlen, bool *warned)
{
	const char *p = field;

	if (*p == '~') {
		e->users_exclusive = true;
		p++;
	}
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof e->users[0]) {
			if (!*warned)
				snprintf(err, errlen, "an empty or overlong user name in '%s' is ignored by pam_namespace",
					 field);
			*warned = true;
		} else if (e->n_users < NSCONF_MAX_USERS) {
			memcpy(e->users[e->n_users], p, len);
			e->users[e->n_users][len] = '\0';
			e->n_users++;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* The instance is instance_prefix followed by the instance name, so the
 * parent is everything before the prefix's last '/'. */
static int set_parent(struct ns_entry *e, char *err, size_t errlen)
{
	if (e->method == NS_TMPFS) {
		e->parent[0] = '\0';
		return 0;
	}
	const char *slash = strrchr(e->instance_prefix, '/');
	if (!slash) {
		snprintf(err, errlen, "instance_prefix '%s' is not a path", e->instance_prefix);
		return -1;
	}
	size_t len = (size_t)(slash - e->instance_prefix);
	if (len == 0)
		len = 1;
	memcpy(e->parent, e->instance_prefix, len);
	e->parent[len] = '\0';
	hi_strip_trailing_slashes(e->parent);
	if (strcmp(e->parent, "/") == 0) {
		snprintf(err, errlen, "instance parent of '%s' is /; use a directory such as %s/%s/",
			 e->instance_prefix, e->polydir, POLY_DEFAULT_PARENT_NAME);
		return -1;
	}
	if (strcmp(e->parent, e->polydir) == 0) {
		snprintf(err, errlen, "instance parent is the polydir %s itself, which cannot be mode 000; "
			 "use %s/%s/", e->polydir, e->polydir, POLY_DEFAULT_PARENT_NAME);
		return -1;
	}
	return 0;
}

static bool has_user_vars(const char *s)
{
	return strstr(s, "$HOME") != NULL || strstr(s, "$USER") != NULL;
}

/* The line's fields (at most 5: pam_namespace reads 4) into fields after
 * its comment is cut; returns how many, or -1 with err. */
static int split_line(const char *line, char fields[5][NSCONF_MAX_LINE], char *err, size_t errlen)
{
	char buf[NSCONF_MAX_LINE];
	const char *p = buf;
	int n = 0;

	if (hi_copy_str(buf, sizeof buf, line) < 0) {
		snprintf(err, errlen, "line longer than %d bytes", NSCONF_MAX_LINE);
		return -1;
	}
	/* pam_namespace cuts at the first '#', even inside quotes. */
	char *hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	while (n < 5) {
		int r = next_field(&p, fields[n], NSCONF_MAX_LINE);
		if (r < 0) {
			snprintf(err, errlen, "unterminated quote or overlong field");
			return -1;
		}
		if (r == 0)
			break;
		n++;
	}
	return n;
}

/* The polydir and the instance prefix into e; whether they name the user. */
static int set_paths(struct ns_entry *e, const char *polydir, const char *prefix, char *err, size_t errlen)
{
	if (hi_copy_str(e->polydir, sizeof e->polydir, polydir) < 0 ||
	    hi_copy_str(e->instance_prefix, sizeof e->instance_prefix, prefix) < 0) {
		snprintf(err, errlen, "path longer than %d bytes", CONFIG_PATH_MAX - 1);
		return -1;
	}
	hi_strip_trailing_slashes(e->polydir);
	/* "" quoted is a field: pam_namespace would polyinstantiate nothing. */
	if (!e->polydir[0]) {
		snprintf(err, errlen, "the polydir is empty; name a directory such as /tmp");
		return -1;
	}
	e->per_user = has_user_vars(e->polydir) || has_user_vars(e->instance_prefix);
	return 0;
}

/* Paths hardinit may create and mount on: absolute (unless the user's,
 * resolved at login), not the root, no "..". */
static int check_paths(const struct ns_entry *e, char *err, size_t errlen)
{
	if (!e->per_user && e->polydir[0] != '/') {
		snprintf(err, errlen, "polydir '%s' is not an absolute path", e->polydir);
		return -1;
	}
	if (strcmp(e->polydir, "/") == 0) {
		snprintf(err, errlen, "polydir / cannot be polyinstantiated");
		return -1;
	}
	if (e->method != NS_TMPFS && !e->per_user && e->instance_prefix[0] != '/') {
		snprintf(err, errlen, "instance_prefix '%s' is not an absolute path", e->instance_prefix);
		return -1;
	}
	if (strstr(e->polydir, "..") || strstr(e->instance_prefix, "..")) {
		snprintf(err, errlen, "paths must not contain '..'");
		return -1;
	}
	return 0;
}

int hi_nsconf_parse_line(const char *line, struct ns_entry *e, char *err, size_t errlen)
{
	char fields[5][NSCONF_MAX_LINE];
	bool warned = false;

	memset(e, 0, sizeof *e);
	err[0] = '\0';
	int n = split_line(line, fields, err, errlen);
	if (n <= 0)
		return n < 0 ? -1 : 1;
	if (n < 3) {
		snprintf(err, errlen, "missing %s; a line is: polydir instance_prefix method [users]",
			 n == 1 ? "instance_prefix" : "method");
		return -1;
	}
	if (n == 5) {
		snprintf(err, errlen, "more than 4 fields: pam_namespace ignores the rest, so a user list "
			 "written with spaces (\"root, adm\") exempts only its first part; write root,adm");
		warned = true;
	}
	if (set_paths(e, fields[0], fields[1], err, errlen) < 0 || parse_method(fields[2], e, err, errlen, &warned) < 0 ||
	    check_paths(e, err, errlen) < 0)
		return -1;
	if (n >= 4)
		parse_users(fields[3], e, err, errlen, &warned);
	if (!e->per_user && set_parent(e, err, errlen) < 0)
		return -1;
	return warned ? 2 : 0;
}

static void nsconf_keep(struct ns_conf *c, const struct ns_entry *e)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->entries[i].polydir, e->polydir) == 0)
			log_warn("%s: polydir %s is also configured at %s; pam_namespace mounts both, "
				 "the later one on top; remove one", e->source, e->polydir,
				 c->entries[i].source);
	c->entries[c->n++] = *e;
}

static int nsconf_load_file(struct boot *b, struct ns_conf *c, const char *path, const char *name)
{
	char *buf = malloc(NSCONF_MAX_FILE_BYTES + 1);
	size_t len = 0;
	int rc = 0;

	if (!buf)
		return -1;
	if (hi_fs_read(path, buf, NSCONF_MAX_FILE_BYTES + 1, &len) < 0) {
		int e = errno;
		free(buf);
		if (e == ENOENT)
			return 0;
		log_warn("%s: not read (%s%s); pam_namespace still reads it, so check it by hand",
			 path, hi_fs_read_why(e), e == E2BIG ? ": 64 KiB" : "");
		hi_report_add(&b->rep, STAGE, name, "warn", "not read: %s", hi_fs_read_why(e));
		return -1;
	}
	c->n_files++;
	char *line = buf;
	for (unsigned no = 1; line && *line; no++) {
		char *nl = strchr(line, '\n');
		char err[320];
		struct ns_entry e;
		if (nl)
			*nl = '\0';
		if (no > NSCONF_MAX_LINES) {
			log_warn("%s: more than %d lines; the rest is not checked", path, NSCONF_MAX_LINES);
			rc = -1;
			break;
		}
		int r = hi_nsconf_parse_line(line, &e, err, sizeof err);
		snprintf(e.source, sizeof e.source, "%s:%u", name, no);
		if (r < 0) {
			c->n_invalid++;
			log_warn("%s:%u: %s; pam_namespace refuses every session while this line is there",
				 path, no, err);
			hi_report_add(&b->rep, STAGE, e.source, "invalid", "%s", err);
		} else if (r == 2) {
			log_warn("%s:%u: %s", path, no, err);
			hi_report_add(&b->rep, STAGE, e.source, "warn", "%s", err);
		}
		if (r == 0 || r == 2) {
			if (c->n >= NSCONF_MAX_ENTRIES) {
				log_warn("%s:%u: more than %d polydirs; the rest are not checked",
					 path, no, NSCONF_MAX_ENTRIES);
				rc = -1;
				break;
			}
			nsconf_keep(c, &e);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int hi_nsconf_load(struct boot *b, struct ns_conf *c)
{
	char path[BOOT_PATH_MAX * 2], dirpath[BOOT_PATH_MAX * 2];
	static char names[NSCONF_MAX_FILES][256];
	size_t n_names = 0;
	int rc = 0;

	/* The counts only: each entry is cleared as its line is parsed
	 * (hi_nsconf_parse_line) and none past n is read. Clearing all of c
	 * (about 190 KB) touched every page of it: some 47 page faults, each a
	 * trap through Xen in a PV guest (bench/xen). */
	c->n = c->n_invalid = c->n_files = 0;
	if (!hi_boot_path(path, sizeof path, b->newroot, "/etc/security/namespace.conf") ||
	    !hi_boot_path(dirpath, sizeof dirpath, b->newroot, "/etc/security/namespace.d"))
		return -1;
	if (access(path, F_OK) < 0)
		hi_report_add(&b->rep, STAGE, "namespace.conf", "absent",
			   "pam_namespace (Debian's 1.5.2) fails sessions without it");
	if (nsconf_load_file(b, c, path, "namespace.conf") < 0)
		rc = -1;

	DIR *d = opendir(dirpath);
	if (!d)
		return rc;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 6 || len >= sizeof names[0] ||
		    strcmp(de->d_name + len - 5, ".conf") != 0)
			continue;
		if (n_names == NSCONF_MAX_FILES) {
			log_warn("%s: more than %d .conf files; the rest are not checked",
				 dirpath, NSCONF_MAX_FILES);
			rc = -1;
			break;
		}
		memcpy(names[n_names++], de->d_name, len + 1);
	}
	closedir(d);
	/* pam_namespace reads namespace.d in the order of the file names. */
	qsort(names, n_names, sizeof names[0], cmp_names);
	for (size_t i = 0; i < n_names; i++) {
		char fpath[BOOT_PATH_MAX * 3], shortname[300];
		snprintf(fpath, sizeof fpath, "%s/%s", dirpath, names[i]);
		snprintf(shortname, sizeof shortname, "namespace.d/%s", names[i]);
		if (nsconf_load_file(b, c, fpath, shortname) < 0)
			rc = -1;
	}
	return rc;
}

/* A user in list_of_uids that does not exist is skipped by pam_namespace
 * with a log line: an exemption with a typo silently stops exempting. */
void hi_nsconf_check_users(struct boot *b, const struct ns_conf *c)
{
	char path[BOOT_PATH_MAX * 2];
	char *pw = malloc(PASSWD_MAX_BYTES);

	if (!pw || !hi_boot_path(path, sizeof path, b->newroot, "/etc/passwd") ||
	    hi_fs_read(path, pw, PASSWD_MAX_BYTES, NULL) < 0) {
		free(pw);
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		for (size_t u = 0; u < c->entries[i].n_users; u++) {
			const char *name = c->entries[i].users[u];
			size_t len = strlen(name);
			bool found = false;
			for (const char *l = pw; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
				if (strncmp(l, name, len) == 0 && l[len] == ':') {
					found = true;
					break;
				}
			if (!found)
				log_warn("%s: user '%s' is not in /etc/passwd; pam_namespace ignores unknown "
					 "users (users from NSS cannot be checked at boot)",
					 c->entries[i].source, name);
		}
	}
	free(pw);
}

