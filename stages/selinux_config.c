/* The SELinux stage's pure logic, apart from the kernel calls of
 * stages/selinux.c: the root's /etc/selinux/config (fuzzed by
 * tests/fuzz/fuzz_selinux.c), the decision of the mode from the config, the
 * command line and the file, /proc/filesystems, and the binary policy's
 * header. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "selinux_config.h"
#include "selinux_types.h"

/* ---- pure logic ------------------------------------------------------ */

static void trim(char **s, char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t' || **s == '\r'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

/* The mode the way libselinux's selinux_getenforcemode() reads it, so
 * that hardinit and a systemd that reloads the policy agree: the line must
 * start with "SELINUX=", the first such line counts, and the value is
 * matched case-insensitively by prefix ("enforcing # yes" is enforcing). */
static enum selinux_file_mode file_mode_of(const char *v)
{
	if (strncasecmp(v, "enforcing", 9) == 0)
		return SEFILE_ENFORCING;
	if (strncasecmp(v, "permissive", 10) == 0)
		return SEFILE_PERMISSIVE;
	if (strncasecmp(v, "disabled", 8) == 0)
		return SEFILE_DISABLED;
	return SEFILE_UNKNOWN;
}

/* SELINUXTYPE= as libselinux's init_selinux_config() reads it: leading
 * blanks skipped, the tag case-insensitive, the last line counts, the value
 * up to the end of the line less trailing blanks. The type names a
 * directory: one too long for the field is refused, never cut (-1). */
static int config_line(struct selinux_file_config *out, char *s, char *e)
{
	char *v, *ve = e;

	if (strncmp(s, "SELINUX=", 8) == 0) {
		if (out->mode != SEFILE_ABSENT)
			return 0;
		v = s + 8;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
			ve--;
		/* Only for messages, and the mode is a prefix of it: cut is fine. */
		snprintf(out->mode_text, sizeof out->mode_text, "%.*s", (int)(ve - v), v);
		out->mode = file_mode_of(out->mode_text);
		return 0;
	}
	trim(&s, &e);
	if ((size_t)(e - s) >= 12 && strncasecmp(s, "SELINUXTYPE=", 12) == 0) {
		v = s + 12;
		ve = e;
		trim(&v, &ve);
		if ((size_t)(ve - v) >= sizeof out->type)
			return -1;
		snprintf(out->type, sizeof out->type, "%.*s", (int)(ve - v), v);
	}
	return 0;
}

int hi_selinux_config_parse(const char *text, size_t len, struct selinux_file_config *out,
			 char *err, size_t errlen)
{
	char line[SELINUX_CONFIG_MAX_LINE + 1];
	size_t lineno = 0, pos = 0;

	memset(out, 0, sizeof *out);
	out->present = true;
	out->mode = SEFILE_ABSENT;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		lineno++;
		if (n > SELINUX_CONFIG_MAX_LINE) {
			snprintf(err, errlen, "line %zu is longer than %d bytes; "
				 "fix /etc/selinux/config", lineno, SELINUX_CONFIG_MAX_LINE);
			return -1;
		}
		if (memchr(text + pos, '\0', n)) {
			snprintf(err, errlen, "line %zu holds a NUL byte; the file is damaged: "
				 "rewrite /etc/selinux/config", lineno);
			return -1;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		if (config_line(out, line, line + n) < 0) {
			snprintf(err, errlen, "SELINUXTYPE on line %zu is longer than %zu bytes; "
				 "fix /etc/selinux/config", lineno, sizeof out->type - 1);
			return -1;
		}
		pos += n + (nl ? 1 : 0);
	}
	return 0;
}

int hi_selinux_config_read(const char *root, struct selinux_file_config *out,
			char *err, size_t errlen)
{
	char path[BOOT_PATH_MAX];
	static char text[SELINUX_CONFIG_MAX_BYTES];
	size_t len = 0;

	memset(out, 0, sizeof *out);
	if (!hi_boot_path(path, sizeof path, root, "etc/selinux/config")) {
		snprintf(err, errlen, "the root path %s is too long", root);
		return -1;
	}
	if (hi_fs_read(path, text, sizeof text, &len) < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == E2BIG)
			snprintf(err, errlen, "%s is larger than %d bytes; it is not a SELinux config",
				 path, SELINUX_CONFIG_MAX_BYTES);
		else
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (hi_selinux_config_parse(text, len, out, err, errlen) < 0) {
		char why[CONFIG_ERR_MAX];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

/* enforcing= as the kernel reads it (kstrtoul: digits only, nonzero is
 * enforcing). Returns 0/1, or -1 when the kernel would ignore it too. */
int hi_selinux_parse_enforcing(const char *v)
{
	if (!v || !*v)
		return -1;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	for (const char *p = v; *p; p++)
		if (*p != '0')
			return 1;
	return 0;
}

/* hardinit's own [selinux] mode, unless it is "config". */
static bool from_hardinit(struct selinux_decision *d, const struct config *cfg)
{
	switch (cfg->selinux_mode) {
	case SELINUX_ENFORCING:
	case SELINUX_PERMISSIVE:
		d->enforcing = cfg->selinux_mode == SELINUX_ENFORCING;
		snprintf(d->why, sizeof d->why, "hardinit config mode = %s",
			 d->enforcing ? "enforcing" : "permissive");
		return true;
	case SELINUX_DISABLED:
		d->action = SEACT_SKIP;
		snprintf(d->why, sizeof d->why, "hardinit config mode = disabled");
		return true;
	case SELINUX_FROM_CONFIG:
		break;
	}
	return false;
}

/* The root's SELINUX=, when it has one. */
static bool from_root(struct selinux_decision *d, const struct selinux_file_config *file)
{
	switch (file->mode) {
	case SEFILE_ENFORCING:
	case SEFILE_PERMISSIVE:
		d->enforcing = file->mode == SEFILE_ENFORCING;
		snprintf(d->why, sizeof d->why, "/etc/selinux/config SELINUX=%s", file->mode_text);
		return true;
	case SEFILE_DISABLED:
		d->action = SEACT_SKIP;
		snprintf(d->why, sizeof d->why, "/etc/selinux/config SELINUX=%s", file->mode_text);
		return true;
	case SEFILE_UNKNOWN:
		/* libselinux and so systemd treat an unknown value as
		 * "unspecified": permissive. Doing the same keeps the mode the
		 * same after systemd's reload. */
		d->enforcing = false;
		snprintf(d->why, sizeof d->why, "/etc/selinux/config SELINUX=%.64s (unknown)",
			 file->mode_text);
		snprintf(d->warning, sizeof d->warning,
			 "SELinux: /etc/selinux/config says SELINUX=%.64s, which is none of enforcing, "
			 "permissive, disabled; loading the policy permissive, as libselinux does; "
			 "fix the file", file->mode_text);
		return true;
	case SEFILE_ABSENT:
		break;
	}
	return false;
}

static void decide_base(struct selinux_decision *d, const struct config *cfg,
			const struct selinux_file_config *file, bool have_embedded)
{
	if (from_hardinit(d, cfg) || from_root(d, file))
		return;
	if (have_embedded) {
		d->enforcing = false;
		snprintf(d->why, sizeof d->why, "embedded policy, no mode configured");
		snprintf(d->warning, sizeof d->warning,
			 "SELinux: the root has no SELINUX= in /etc/selinux/config and hardinit's mode "
			 "is \"config\"; loading the embedded policy permissive; set [selinux] mode "
			 "in hardinit.conf");
		return;
	}
	if (cfg->selinux_require) {
		/* Required but nothing to load: go on to the load, which fails
		 * with the precise reason, and the failure is fatal. */
		d->enforcing = false;
		snprintf(d->why, sizeof d->why, "hardinit config require = yes, %s",
			 file->present ? "no SELINUX= in /etc/selinux/config" : "no /etc/selinux/config");
		return;
	}
	d->action = SEACT_SKIP;
	snprintf(d->why, sizeof d->why, "%s and hardinit config mode = config",
		 file->present ? "no SELINUX= in /etc/selinux/config" : "no /etc/selinux/config in the root");
}

void hi_selinux_decide(struct selinux_decision *d, const char *kernel_enforcing,
		    const struct config *cfg, const struct selinux_file_config *file,
		    bool have_embedded)
{
	memset(d, 0, sizeof *d);
	d->action = SEACT_LOAD;
	decide_base(d, cfg, file, have_embedded);
	if (d->action == SEACT_SKIP)
		return;

	if (kernel_enforcing) {
		int k = hi_selinux_parse_enforcing(kernel_enforcing);
		if (k < 0) {
			snprintf(d->warning, sizeof d->warning,
				 "SELinux: kernel enforcing=%.32s is not a number; ignored, as the kernel "
				 "ignores it", kernel_enforcing);
		} else if (k == 0 && d->enforcing && cfg->lock_cmdline &&
			   cfg->selinux_mode == SELINUX_ENFORCING) {
			snprintf(d->warning, sizeof d->warning,
				 "SELinux: kernel enforcing=0 refused: the hardinit config is locked and "
				 "asks for enforcing; unlock it ([boot] lock_cmdline = no) to allow this");
		} else {
			d->enforcing = k == 1;
			snprintf(d->why, sizeof d->why, "kernel enforcing=%.32s", kernel_enforcing);
		}
	}
	d->fatal_on_failure = cfg->selinux_require || d->enforcing;
}

bool hi_selinux_fs_listed(const char *text, const char *fs)
{
	size_t fslen = strlen(fs);

	/* Lines are "nodev\tselinuxfs" or "\text4": the name is the last
	 * tab-separated field. */
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *tab = NULL;
		for (const char *p = line; p < end; p++)
			if (*p == '\t')
				tab = p;
		const char *name = tab ? tab + 1 : line;
		if ((size_t)(end - name) == fslen && memcmp(name, fs, fslen) == 0)
			return true;
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int hi_selinux_policy_header(const void *data, size_t len, unsigned *version,
			  char *err, size_t errlen)
{
	const unsigned char *p = data;

	if (len < SELINUX_POLICY_HEADER_MIN) {
		snprintf(err, errlen, "it is %zu bytes, shorter than a policy header (%d)",
			 len, SELINUX_POLICY_HEADER_MIN);
		return -1;
	}
	if (le32(p) != SELINUX_POLICYDB_MAGIC) {
		snprintf(err, errlen, "it does not start with the SELinux policy magic "
			 "(0x%08x, not 0x%08x)", le32(p), SELINUX_POLICYDB_MAGIC);
		return -1;
	}
	/* The id string is "SE Linux" in kernel policies; "XenFlask" policies
	 * and module packages are not for this kernel. */
	if (le32(p + 4) != 8 || memcmp(p + 8, "SE Linux", 8) != 0) {
		snprintf(err, errlen, "its id is not \"SE Linux\" (a Xen or module policy?)");
		return -1;
	}
	*version = le32(p + 16);
	return 0;
}

