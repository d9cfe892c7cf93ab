/* Which LUKS2 volumes a boot opens, as systemd-cryptsetup-generator and
 * systemd-cryptsetup decide it: the kernel command line's rd.luks.uuid=,
 * rd.luks.name=, rd.luks.options= (and rd.luks=, rd.luks.crypttab=), the
 * initramfs's /etc/crypttab and each volume's options. Pure: parsers of
 * untrusted text (tests/unit/test_luks2_stage.c, tests/fuzz/fuzz_luks2.c);
 * the luks stage (stages/luks.c) opens what the plan names. */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fsutil.h"
#include "luks_plan.h"

static int opt_int(const char *v, int max, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 0 || n > max)
		return -1;
	*out = (int)n;
	return 0;
}

/* systemd's parse_boolean: its words, so "0" means no, not PCR 0. */
static int bool_word(const char *v)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

/* tpm2-measure-pcr=: a boolean (yes: LUKS_MEASURE_PCR) or a PCR index,
 * as systemd-cryptsetup reads it. */
static int opt_measure(const char *v, struct luks_opts *o, char *err, size_t errlen)
{
	int b = v ? bool_word(v) : -1, pcr = LUKS_MEASURE_PCR;
	if (b < 0 && (!v || opt_int(v, LUKS_MEASURE_PCR_MAX, &pcr) < 0)) {
		snprintf(err, errlen, "tpm2-measure-pcr=%.40s: give yes, no or a PCR 0 to %d", v ? v : "",
			 LUKS_MEASURE_PCR_MAX);
		return -1;
	}
	o->measure = b == 0 ? LUKS_MEASURE_OFF : LUKS_MEASURE_ON;
	o->measure_pcr = pcr;
	return 0;
}

struct luks_measure_plan hi_luks_measure_decide(const struct luks_opts *o, bool tpm_present)
{
	struct luks_measure_plan m = { false, false, LUKS_MEASURE_PCR };
	if (o->measure == LUKS_MEASURE_ON) {
		m.measure = m.required = true;
		m.pcr = o->measure_pcr;
	} else if (o->measure == LUKS_MEASURE_AUTO) {
		m.measure = tpm_present;
	}
	return m;
}

static void note_ignored(struct luks_opts *o, const char *word)
{
	size_t len = strlen(o->ignored);
	snprintf(o->ignored + len, sizeof o->ignored - len, "%s%s", len ? "," : "", word);
}

/* tpm2-device=: the systemd-tpm2 token is tried whenever the header has
 * one and the first TPM is there (stages/luks.c opens DEV/tpm0, else
 * DEV/tpmrm0): auto names that TPM. */
static int opt_tpm2_device(const char *v, struct luks_opts *o, char *err, size_t errlen)
{
	(void)o;
	if (v && (!strcmp(v, "auto") || !strcmp(v, "/dev/tpmrm0") || !strcmp(v, "/dev/tpm0")))
		return 0;
	snprintf(err, errlen, "tpm2-device=%s: hardinit uses the first TPM, /dev/tpm0 or /dev/tpmrm0 (tpm2-device=auto)",
		 v ? v : "");
	return -1;
}

/* fixate-volume-key=: systemd's volume key id, the digest its
 * tpm2-measure-pcr= extends into the sha256 bank, lower-case hex. */
static int opt_fixate(const char *v, struct luks_opts *o, char *err, size_t errlen)
{
	if (!v || strlen(v) != 2 * SHA256_BYTES || hi_hex_decode(o->fixate_id, SHA256_BYTES, v) < 0) {
		snprintf(err, errlen, "fixate-volume-key=%.70s: give the volume key's id, %d hex digits "
			 "(the sha256 digest of its tpm2-measure-pcr= measurement)", v ? v : "", 2 * SHA256_BYTES);
		return -1;
	}
	o->fixate = true;
	return 0;
}

static int opt_tries(const char *v, struct luks_opts *o, char *err, size_t errlen)
{
	if (v && opt_int(v, LUKS_TRIES_MAX, &o->tries) == 0)
		return 0;
	snprintf(err, errlen, "tries=%s: hardinit takes 0 to %d (systemd-cryptsetup takes more)", v ? v : "",
		 LUKS_TRIES_MAX);
	return -1;
}

static int opt_timeout(const char *v, struct luks_opts *o, char *err, size_t errlen)
{
	if (v && opt_int(v, LUKS_TIMEOUT_MAX_S, &o->timeout_s) == 0)
		return 0;
	snprintf(err, errlen, "timeout=%s: give seconds, 0 to %d", v ? v : "", LUKS_TIMEOUT_MAX_S);
	return -1;
}

/* The options, one row each, as init/config_table.c holds the config's
 * keys: a word that changes nothing here, a flag it sets, a value it
 * reads, or a refusal. A word with no row is skipped and named, as
 * systemd-cryptsetup does ("unknown option, ignoring"). */
enum opt_kind { OPT_NOTHING, OPT_FLAG, OPT_VALUE, OPT_REFUSED };
static const struct luks_opt_row {
	const char *word;
	enum opt_kind kind;
	size_t flag;             /* OPT_FLAG: offsetof the bool in struct luks_opts */
	int (*set)(const char *v, struct luks_opts *o, char *err, size_t errlen);
} opt_rows[] = {
	{ "luks", OPT_NOTHING, 0, NULL }, { "none", OPT_NOTHING, 0, NULL }, { "nofail", OPT_NOTHING, 0, NULL },
	{ "_netdev", OPT_NOTHING, 0, NULL }, { "x-initrd.attach", OPT_NOTHING, 0, NULL },
	{ "headless", OPT_NOTHING, 0, NULL }, { "verify", OPT_NOTHING, 0, NULL },
	{ "tpm2-device", OPT_VALUE, 0, opt_tpm2_device }, { "fixate-volume-key", OPT_VALUE, 0, opt_fixate },
	{ "tpm2-measure-pcr", OPT_VALUE, 0, opt_measure }, { "tries", OPT_VALUE, 0, opt_tries },
	{ "timeout", OPT_VALUE, 0, opt_timeout },
	{ "discard", OPT_FLAG, offsetof(struct luks_opts, dm.discard), NULL },
	{ "readonly", OPT_FLAG, offsetof(struct luks_opts, dm.readonly), NULL },
	{ "read-only", OPT_FLAG, offsetof(struct luks_opts, dm.readonly), NULL },
	{ "same-cpu-crypt", OPT_FLAG, offsetof(struct luks_opts, dm.same_cpu_crypt), NULL },
	{ "submit-from-crypt-cpus", OPT_FLAG, offsetof(struct luks_opts, dm.submit_from_crypt_cpus), NULL },
	{ "no-read-workqueue", OPT_FLAG, offsetof(struct luks_opts, dm.no_read_workqueue), NULL },
	{ "no-write-workqueue", OPT_FLAG, offsetof(struct luks_opts, dm.no_write_workqueue), NULL },
	{ "noauto", OPT_FLAG, offsetof(struct luks_opts, noauto), NULL },
	/* What would open the volume otherwise than its LUKS2 header says,
	 * or needs a key source this stage does not have. */
	{ "plain", OPT_REFUSED, 0, NULL }, { "tcrypt", OPT_REFUSED, 0, NULL }, { "bitlk", OPT_REFUSED, 0, NULL },
	{ "header", OPT_REFUSED, 0, NULL }, { "cipher", OPT_REFUSED, 0, NULL }, { "hash", OPT_REFUSED, 0, NULL },
	{ "size", OPT_REFUSED, 0, NULL }, { "offset", OPT_REFUSED, 0, NULL }, { "skip", OPT_REFUSED, 0, NULL },
	{ "keyfile-offset", OPT_REFUSED, 0, NULL }, { "keyfile-size", OPT_REFUSED, 0, NULL },
	{ "fido2-device", OPT_REFUSED, 0, NULL }, { "pkcs11-uri", OPT_REFUSED, 0, NULL },
	{ "integrity", OPT_REFUSED, 0, NULL }, { "veracrypt", OPT_REFUSED, 0, NULL }, { "keyslot", OPT_REFUSED, 0, NULL },
	{ "key-slot", OPT_REFUSED, 0, NULL }, { "swap", OPT_REFUSED, 0, NULL }, { "tmp", OPT_REFUSED, 0, NULL },
	{ "tpm2-measure-keyslot-nvpcr", OPT_REFUSED, 0, NULL },
};

static int opt_word(char *w, struct luks_opts *o, char *err, size_t errlen)
{
	char *v = strchr(w, '=');

	if (v)
		*v++ = '\0';
	for (size_t i = 0; i < sizeof opt_rows / sizeof opt_rows[0]; i++) {
		const struct luks_opt_row *r = &opt_rows[i];
		if (strcmp(w, r->word) != 0)
			continue;
		if (r->kind == OPT_FLAG)
			*(bool *)((char *)o + r->flag) = true;
		if (r->kind == OPT_VALUE)
			return r->set(v, o, err, errlen);
		if (r->kind == OPT_REFUSED) {
			snprintf(err, errlen, "option %s is not supported by hardinit's LUKS2 stage "
				 "(passphrase on the console, header on the device)", w);
			return -1;
		}
		return 0;
	}
	note_ignored(o, w);     /* systemd-cryptsetup: "unknown option, ignoring" */
	return 0;
}

int hi_luks_options_parse(const char *text, struct luks_opts *o, char *err, size_t errlen)
{
	char buf[512], *save = NULL;

	if (!text)
		return 0;
	if (strlen(text) >= sizeof buf) {
		snprintf(err, errlen, "options '%.40s...' longer than %zu bytes", text, sizeof buf - 1);
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", text);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (opt_word(w, o, err, errlen) < 0)
			return -1;
	return 0;
}

bool hi_luks_uuid_parse(const char *text, char out[LUKS_UUID_MAX + 1])
{
	static const int dash[] = { 8, 13, 18, 23 };
	if (!text || strlen(text) != LUKS_UUID_MAX)
		return false;
	for (int i = 0; i < LUKS_UUID_MAX; i++) {
		bool want_dash = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];
		if (want_dash ? text[i] != '-' : !isxdigit((unsigned char)text[i]))
			return false;
		out[i] = (char)tolower((unsigned char)text[i]);
	}
	out[LUKS_UUID_MAX] = '\0';
	return true;
}

/* "luks-UUID" or "UUID" (systemd accepts both in rd.luks.uuid=). */
static bool uuid_word(const char *text, char out[LUKS_UUID_MAX + 1])
{
	if (!strncmp(text, "luks-", 5) && strlen(text) == 5 + LUKS_UUID_MAX)
		text += 5;
	return hi_luks_uuid_parse(text, out);
}

static bool name_ok(const char *n)
{
	size_t len = strlen(n);
	if (!len || len >= LUKS_NAME_MAX || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)n[i]) && !strchr("-_.+#", n[i]))
			return false;
	return true;
}

static struct luks_volume *plan_find(struct luks_plan *p, const char *uuid)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].uuid, uuid))
			return &p->v[i];
	return NULL;
}

static struct luks_volume *plan_add(struct luks_plan *p, const char *uuid, char *err, size_t errlen)
{
	struct luks_volume *v = plan_find(p, uuid);
	if (v)
		return v;
	if (p->n >= LUKS_VOLUMES_MAX) {
		snprintf(err, errlen, "more than %d encrypted volumes", LUKS_VOLUMES_MAX);
		return NULL;
	}
	v = &p->v[p->n++];
	memset(v, 0, sizeof *v);
	snprintf(v->uuid, sizeof v->uuid, "%s", uuid);
	snprintf(v->name, sizeof v->name, "luks-%s", uuid);
	return v;
}

int hi_luks_crypttab_parse(const char *text, size_t len, struct luks_plan *plan, char *err, size_t errlen)
{
	char line[1024], why[LUKS_ERR_MAX];
	size_t pos = 0;

	for (int lineno = 1; pos < len; lineno++) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		if (end - pos >= sizeof line) {
			snprintf(err, errlen, "crypttab line %d: longer than %zu bytes", lineno, sizeof line - 1);
			return -1;
		}
		memcpy(line, text + pos, end - pos);
		line[end - pos] = '\0';
		pos = end + 1;
		char *f[5] = { 0 }, *save = NULL;
		int n = 0;
		for (char *w = strtok_r(line, " \t\r", &save); w && n < 5; w = strtok_r(NULL, " \t\r", &save))
			f[n++] = w;
		if (n == 0 || f[0][0] == '#')
			continue;
		if (n < 2 || n > 4) {
			snprintf(err, errlen, "crypttab line %d: %d fields; give NAME DEVICE [KEYFILE [OPTIONS]]", lineno, n);
			return -1;
		}
		if (!name_ok(f[0])) {
			snprintf(err, errlen, "crypttab line %d: bad name '%.64s' (letters, digits, -_.+#, under %d bytes)",
				 lineno, f[0], LUKS_NAME_MAX);
			return -1;
		}
		char uuid[LUKS_UUID_MAX + 1];
		const char *u = !strncmp(f[1], "UUID=", 5) ? f[1] + 5
			: !strncmp(f[1], "/dev/disk/by-uuid/", 18) ? f[1] + 18 : NULL;
		if (!u || !hi_luks_uuid_parse(u, uuid)) {
			snprintf(err, errlen, "crypttab line %d: device '%.80s' is not UUID=... or /dev/disk/by-uuid/... "
				 "(the LUKS UUID cryptsetup luksUUID prints)", lineno, f[1]);
			return -1;
		}
		if (n >= 3 && strcmp(f[2], "none") && strcmp(f[2], "-")) {
			snprintf(err, errlen, "crypttab line %d: key file %.80s: key files are not supported; give none "
				 "(the passphrase is asked on the console)", lineno, f[2]);
			return -1;
		}
		if (plan_find(plan, uuid)) {
			snprintf(err, errlen, "crypttab line %d: UUID %s listed twice", lineno, uuid);
			return -1;
		}
		struct luks_volume *v = plan_add(plan, uuid, err, errlen);
		if (!v)
			return -1;
		snprintf(v->name, sizeof v->name, "%s", f[0]);
		v->from_crypttab = true;
		if (n == 4 && hi_luks_options_parse(f[3], &v->o, why, sizeof why) < 0) {
			snprintf(err, errlen, "crypttab line %d: %s", lineno, why);
			return -1;
		}
	}
	return 0;
}

static bool word_is(const struct cmdline_word *w, const char *key)
{
	return w->key && !strcmp(w->key, key);
}

static bool off_word(const char *v)
{
	return v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off"));
}

/* One rd.luks.name= word, UUID=NAME, into cmdv. 0, or -1 with err. */
static int cmd_name(const struct cmdline_word *w, struct luks_plan *cmdv, char *err, size_t errlen)
{
	char uuid[LUKS_UUID_MAX + 1], u[LUKS_UUID_MAX + 8];
	const char *v = w->value, *eq = strchr(v, '=');

	if (!eq || (size_t)(eq - v) >= sizeof u) {
		snprintf(err, errlen, "%s=%.60s: give UUID=NAME", w->key, v);
		return -1;
	}
	memcpy(u, v, (size_t)(eq - v));
	u[eq - v] = '\0';
	if (!uuid_word(u, uuid) || !name_ok(eq + 1)) {
		snprintf(err, errlen, "%s=%.60s: give UUID=NAME (a LUKS UUID; a name of letters, digits, -_.+#)", w->key, v);
		return -1;
	}
	struct luks_volume *vol = plan_add(cmdv, uuid, err, errlen);
	if (!vol)
		return -1;
	snprintf(vol->name, sizeof vol->name, "%s", eq + 1);
	return 0;
}

/* The command line's volumes: rd.luks.uuid= and rd.luks.name=. */
static int cmd_volumes(const struct cmdline *cmd, struct luks_plan *cmdv, char *err, size_t errlen)
{
	char uuid[LUKS_UUID_MAX + 1];

	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		if (!w->value)
			continue;
		if (word_is(w, "rd.luks.uuid") || word_is(w, "luks.uuid")) {
			if (!uuid_word(w->value, uuid)) {
				snprintf(err, errlen, "%s=%.60s: not a UUID; give the LUKS UUID (cryptsetup luksUUID)", w->key,
					 w->value);
				return -1;
			}
			if (!plan_add(cmdv, uuid, err, errlen))
				return -1;
		} else if ((word_is(w, "rd.luks.name") || word_is(w, "luks.name")) && cmd_name(w, cmdv, err, errlen) < 0) {
			return -1;
		}
	}
	return 0;
}

/* Options: UUID=OPTS for one volume (added when the command line had not
 * named it), OPTS for every command-line one (*global, checked here). */
static int cmd_options(const struct cmdline *cmd, struct luks_plan *cmdv, const char **global, char *err,
		       size_t errlen)
{
	char uuid[LUKS_UUID_MAX + 1], u[LUKS_UUID_MAX + 8], why[LUKS_ERR_MAX];

	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		if (!w->value || !(word_is(w, "rd.luks.options") || word_is(w, "luks.options")))
			continue;
		const char *eq = strchr(w->value, '=');
		size_t ulen = eq ? (size_t)(eq - w->value) : 0;
		if (eq && ulen < sizeof u) {
			memcpy(u, w->value, ulen);
			u[ulen] = '\0';
		}
		if (!eq || ulen >= sizeof u || !uuid_word(u, uuid)) {
			*global = w->value;
			continue;
		}
		struct luks_volume *vol = plan_find(cmdv, uuid);
		if (!vol && !(vol = plan_add(cmdv, uuid, err, errlen)))
			return -1;
		if (hi_luks_options_parse(eq + 1, &vol->o, why, sizeof why) < 0) {
			snprintf(err, errlen, "%s=: %s", w->key, why);
			return -1;
		}
		vol->own_opts = true;
	}
	struct luks_opts probe = { .tries = 0 };
	if (*global && hi_luks_options_parse(*global, &probe, why, sizeof why) < 0) {
		snprintf(err, errlen, "rd.luks.options=: %s", why);
		return -1;
	}
	return 0;
}

/* The crypttab first (its names win), limited to the command line's
 * UUIDs when it gives any; then the command line's own volumes. */
static int merge(struct luks_plan *plan, const struct luks_plan *crypttab, struct luks_plan *cmdv,
		 const char *global, char *err, size_t errlen)
{
	char why[LUKS_ERR_MAX];

	for (size_t i = 0; crypttab && i < crypttab->n; i++) {
		const struct luks_volume *c = &crypttab->v[i];
		if ((cmdv->n && !plan_find(cmdv, c->uuid)) || (!cmdv->n && c->o.noauto))
			continue;
		struct luks_volume *v = plan_add(plan, c->uuid, err, errlen);
		if (!v)
			return -1;
		*v = *c;
	}
	for (size_t i = 0; i < cmdv->n; i++) {
		const struct luks_volume *c = &cmdv->v[i];
		if (plan_find(plan, c->uuid))
			continue;
		struct luks_volume *v = plan_add(plan, c->uuid, err, errlen);
		if (!v)
			return -1;
		*v = *c;
		if (global && !v->own_opts)
			hi_luks_options_parse(global, &v->o, why, sizeof why);
	}
	return 0;
}

int hi_luks_plan_resolve(const struct cmdline *cmd, const struct luks_plan *crypttab, struct luks_plan *plan,
		      char *err, size_t errlen)
{
	struct luks_plan cmdv = { .n = 0 };
	const char *global_opts = NULL;
	bool use_crypttab = true;

	memset(plan, 0, sizeof *plan);
	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		if ((word_is(w, "rd.luks") || word_is(w, "luks")) && off_word(w->value))
			return 0;
		if ((word_is(w, "rd.luks.crypttab") || word_is(w, "luks.crypttab")) && off_word(w->value))
			use_crypttab = false;
	}
	if (cmd_volumes(cmd, &cmdv, err, errlen) < 0 || cmd_options(cmd, &cmdv, &global_opts, err, errlen) < 0)
		return -1;
	return merge(plan, use_crypttab ? crypttab : NULL, &cmdv, global_opts, err, errlen);
}

int hi_luks_crypttab_read(const char *config_path, struct luks_plan *ct, char *msg, size_t msglen)
{
	char path[LUKS_CRYPTTAB_PATH_MAX], err[LUKS_ERR_MAX];
	static char text[LUKS_CRYPTTAB_MAX];
	const char *slash = strrchr(config_path, '/');
	size_t len = 0;

	memset(ct, 0, sizeof *ct);
	if (!slash)
		return 0;
	snprintf(path, sizeof path, "%.*s/%s", (int)(slash - config_path), config_path, LUKS_CRYPTTAB);
	int r = hi_fs_read(path, text, sizeof text, &len);
	if (r < 0 && errno == ENOENT)
		return 0;
	if (r < 0) {
		snprintf(msg, msglen, "luks: cannot read %s: %s; rebuild the initramfs (--crypttab)", path, strerror(errno));
		return -1;
	}
	if (hi_luks_crypttab_parse(text, len, ct, err, sizeof err) < 0) {
		snprintf(msg, msglen, "luks: %s: %s; fix it and rebuild the initramfs", path, err);
		return -1;
	}
	return 0;
}
