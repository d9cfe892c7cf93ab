/* libFuzzer target for namespace.conf lines (stages/mounts_polyinst.c,
 * nsconf_parse_line), each line of the input in turn. The root's
 * /etc/security/namespace.conf and namespace.d are the administrator's, or
 * anyone's who built the image.
 *
 * Invariants: the result is one of -1 (invalid, err set), 0 (valid, err
 * empty), 1 (blank), 2 (valid with a warning in err); a valid entry has an
 * absolute polydir without a trailing slash (unless per user), no "..", at
 * most NSCONF_MAX_USERS non-empty names, and an instance parent that is an
 * absolute prefix of instance_prefix, neither / nor the polydir (tmpfs: no
 * parent); poly_parent_for gives that parent back; poly_tmpfiles_format
 * writes it on a line of its own or refuses it. Round trip: the entry
 * written back as a namespace.conf line (fields quoted and escaped as
 * pam_namespace's argv_parse reads them) parses to the same entry. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mounts.h"

static struct ns_conf conf;
static struct ns_entry again;
static char tmpfiles[64 * 1024];

static void check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static bool is_prefix(const char *prefix, const char *s)
{
	return strncmp(prefix, s, strlen(prefix)) == 0;
}

static void check_parent(const struct ns_entry *e)
{
	if (e->per_user || e->method == NS_TMPFS) {
		if (e->parent[0])
			abort();
		return;
	}
	size_t n = strlen(e->parent);
	if (n == 0 || e->parent[0] != '/' || strcmp(e->parent, "/") == 0 ||
	    strcmp(e->parent, e->polydir) == 0 || e->parent[n - 1] == '/' ||
	    !is_prefix(e->parent, e->instance_prefix))
		abort();
}

static void check_entry(const struct ns_entry *e)
{
	check_terminated(e->polydir, sizeof e->polydir);
	check_terminated(e->instance_prefix, sizeof e->instance_prefix);
	check_terminated(e->parent, sizeof e->parent);
	size_t n = strlen(e->polydir);
	/* An empty polydir passes when instance_prefix is per user: a known
	 * defect, see tests/unit/test_fuzz_findings.c. */
	if ((n == 0 && !e->per_user) || strcmp(e->polydir, "/") == 0 || (n > 1 && e->polydir[n - 1] == '/'))
		abort();
	if (!e->per_user && e->polydir[0] != '/')
		abort();
	if (strstr(e->polydir, "..") || strstr(e->instance_prefix, ".."))
		abort();
	if ((unsigned)e->method > NS_TMPFS || e->n_users > NSCONF_MAX_USERS)
		abort();
	for (size_t i = 0; i < e->n_users; i++) {
		check_terminated(e->users[i], sizeof e->users[i]);
		if (!e->users[i][0] || strchr(e->users[i], ','))
			abort();
	}
	check_parent(e);
}

/* Write s as one argv_parse field: blanks, quotes, backslashes and the
 * three control characters it knows escaped. */
static bool put_field(char *out, size_t cap, size_t *used, const char *s)
{
	for (const char *p = s; *p; p++) {
		const char *esc = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\b' ? "\\b" : NULL;
		char two[3] = { '\\', *p, '\0' };
		if (!esc && (*p == ' ' || *p == '"' || *p == '\\'))
			esc = two;
		size_t len = esc ? strlen(esc) : 1;
		if (*used + len + 2 >= cap || *p == '#')
			return false;   /* too long, or a '#' that no quoting hides */
		memcpy(out + *used, esc ? esc : p, len);
		*used += len;
	}
	if (!s[0])
		return false;   /* an empty field cannot be written unquoted */
	out[(*used)++] = ' ';
	out[*used] = '\0';
	return true;
}

static void check_round_trip(const struct ns_entry *e)
{
	static const char *const methods[] = { "user", "context", "level", "tmpdir", "tmpfs" };
	char line[NSCONF_MAX_LINE], users[NSCONF_MAX_LINE], method[16], err[512];
	size_t used = 0, u = 0;

	snprintf(method, sizeof method, "%s%s", methods[e->method], e->create ? ":create" : "");
	if (e->users_exclusive)
		users[u++] = '~';
	else if (e->n_users && e->users[0][0] == '~')
		users[u++] = ',';   /* a first name "~x" only follows an empty one */
	for (size_t i = 0; i < e->n_users; i++) {
		size_t len = strlen(e->users[i]);
		if (u + len + 2 >= sizeof users)
			return;
		memcpy(users + u, e->users[i], len);
		u += len;
		if (i + 1 < e->n_users)
			users[u++] = ',';
	}
	users[u] = '\0';
	if (!put_field(line, sizeof line, &used, e->polydir) ||
	    !put_field(line, sizeof line, &used, e->instance_prefix) ||
	    !put_field(line, sizeof line, &used, method) ||
	    (users[0] && !put_field(line, sizeof line, &used, users)))
		return;
	int r = hi_nsconf_parse_line(line, &again, err, sizeof err);
	if (r != 0 && r != 2)
		abort();
	if (memcmp(&again, e, sizeof again) != 0)
		abort();
}

static void check_tmpfiles(const struct ns_entry *e)
{
	char paths[1][CONFIG_PATH_MAX];
	char want[CONFIG_PATH_MAX + 32];

	memcpy(paths[0], e->parent, sizeof paths[0]);
	int n = hi_poly_tmpfiles_format(paths, 1, tmpfiles, sizeof tmpfiles);
	if (n < 0) {
		if (!strpbrk(e->parent, " \t\n\\"))
			abort();   /* refused a path it can write */
		return;
	}
	if ((size_t)n != strlen(tmpfiles))
		abort();
	snprintf(want, sizeof want, "\nd %s 0000 root root -\n", e->parent);
	size_t wl = strlen(want);
	if ((size_t)n < wl || strcmp(tmpfiles + n - wl, want) != 0)
		abort();
}

static void check_line(const char *line)
{
	char err[512], parent[CONFIG_PATH_MAX];
	struct ns_entry *e = &conf.entries[0];
	const struct ns_entry *found;

	memset(err, 'x', sizeof err);
	int r = hi_nsconf_parse_line(line, e, err, sizeof err);
	check_terminated(err, sizeof err);
	if (r < -1 || r > 2 || ((r == -1 || r == 2) && !err[0]) || (r == 0 && err[0]))
		abort();
	if (r != 0 && r != 2)
		return;
	check_entry(e);
	conf.n = 1;
	if (!e->per_user) {
		if (hi_poly_parent_for(&conf, e->polydir, &found, parent, sizeof parent) != 0 ||
		    found != e || strcmp(parent, e->parent) != 0)
			abort();
		if (e->parent[0])
			check_tmpfiles(e);
	}
	check_round_trip(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *line = buf; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		check_line(line);
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	return 0;
}
