#include "verity_judge.h"

#include <stdio.h>
#include <string.h>

enum rule_kind {
	R_FIXED,       /* only the embedded value */
	R_WEAKENS,     /* never (unless the embedded options say the same) */
	R_MODE,        /* only away from ignore-corruption */
	R_SIGNATURE,   /* only where the embedded config checks no signature */
	R_DEVICE,      /* only the embedded device, or one where it names none */
	R_SWITCH,      /* only on */
	R_OPTIONS,     /* each of its words by its own row */
	R_ROOT,        /* ignored */
};

/* Every kernel command-line word the verity stage reads, and every word
 * of systemd.verity_root_options=, with what it does to a root whose hash
 * the initramfs embeds. A value equal to the embedded one changes nothing
 * and is taken; otherwise the row decides: "refused" says why it changes
 * or weakens verity, "taken" why it strengthens it (or why it is
 * harmless). The kernel's own spellings of the options (underscores:
 * check_at_most_once) are the same rows, so they are refused by name, not
 * as unknown; an option word with no row changes verity in a way hardinit
 * cannot judge and is refused.
 *
 * Not in this table: the hardinit.verity.* overrides (roothash, data,
 * hash, options, enabled, on_corruption): the config stage puts them under
 * the config lock's rules whenever the initramfs embeds a root hash, so
 * roothash, data, hash and options cannot change, enabled cannot turn off
 * and on_corruption can only leave ignore; and words hardinit never reads
 * (usrhash=, systemd.verity_usr_*: it sets up no /usr verity). */
static const struct verity_rule {
	const char *name;
	bool option;            /* a word of systemd.verity_root_options= */
	enum rule_kind kind;
	const char *refused;
	const char *taken;
} verity_rules[] = {
	{ "roothash", false, R_FIXED,
	  "it replaces the embedded root hash, so / would verify against a hash the boot loader chose", NULL },
	{ "systemd.verity", false, R_SWITCH,
	  "it turns verity off, so / would be mounted without verification", "verity is on already" },
	{ "rd.systemd.verity", false, R_SWITCH,
	  "systemd's initrd spelling of turning verity off (hardinit does not act on it; it is refused so that nothing after it does)",
	  "verity is on already" },
	{ "systemd.verity_root_data", false, R_DEVICE,
	  "it names another data device than the embedded config", "the embedded config names no data device; the embedded root hash still decides what verifies" },
	{ "systemd.verity_root_hash", false, R_DEVICE,
	  "it names another hash device than the embedded config", "the embedded config names no hash device; the embedded root hash still decides what verifies" },
	{ "systemd.verity_root_options", false, R_OPTIONS, NULL, NULL },
	{ "root", false, R_ROOT, NULL,
	  "/ is the verity device, never root= (which would be the data device without verification)" },
	{ "ignore-corruption", true, R_WEAKENS,
	  "a corrupted block would be read as if it verified", NULL },
	{ "ignore-zero-blocks", true, R_WEAKENS,
	  "blocks the tree records as zeroes would be returned without being read and verified", NULL },
	{ "check-at-most-once", true, R_WEAKENS,
	  "each block would be verified on its first read only, so a device changed under the running system is not caught", NULL },
	{ "restart-on-corruption", true, R_MODE,
	  "it changes what a corrupted block does (eio, restart or panic all refuse it; the embedded config chose)",
	  "a corrupted block is refused instead of read, which the embedded ignore-corruption allowed" },
	{ "panic-on-corruption", true, R_MODE,
	  "it changes what a corrupted block does (eio, restart or panic all refuse it; the embedded config chose)",
	  "a corrupted block is refused instead of read, which the embedded ignore-corruption allowed" },
	{ "root-hash-signature-key", true, R_SIGNATURE,
	  "it replaces the key the embedded config checks the root hash's signature with",
	  "it adds a check of the root hash's signature" },
	{ "root-hash-signature", true, R_SIGNATURE,
	  "it replaces the signature the embedded config checks the root hash with",
	  "it adds a check of the root hash's signature by the kernel" },
	{ "superblock", true, R_FIXED, "it changes where the tree's parameters are read from", NULL },
	{ "hash-offset", true, R_FIXED, "it moves the hash tree from where the embedded config has it", NULL },
	{ "format", true, R_FIXED, "it changes the tree's hash format", NULL },
	{ "data-block-size", true, R_FIXED, "it changes the tree's data block size", NULL },
	{ "hash-block-size", true, R_FIXED, "it changes the tree's hash block size", NULL },
	{ "data-blocks", true, R_FIXED, "it changes how much of the data device is verified", NULL },
	{ "hash", true, R_FIXED, "it changes the tree's hash algorithm", NULL },
	{ "salt", true, R_FIXED, "it changes the tree's salt", NULL },
};

static const char not_an_option[] = "it is not a verity option hardinit knows, so what it does to verity cannot be judged";
static const char bad_value[] = "its value is not one hardinit can read, so what it does to verity cannot be judged";

static const struct verity_rule *find_rule(const char *name, bool option)
{
	for (size_t i = 0; i < sizeof verity_rules / sizeof verity_rules[0]; i++)
		if (verity_rules[i].option == option && !strcmp(verity_rules[i].name, name))
			return &verity_rules[i];
	return NULL;
}

static bool params_same(const struct verity_params *a, const struct verity_params *b)
{
	return a->hash_type == b->hash_type && !strcmp(a->algorithm, b->algorithm) &&
	       a->data_block_size == b->data_block_size && a->hash_block_size == b->hash_block_size &&
	       a->data_blocks == b->data_blocks && a->salt_size == b->salt_size &&
	       !memcmp(a->salt, b->salt, a->salt_size) && a->hash_offset == b->hash_offset &&
	       a->superblock == b->superblock && a->on_corruption == b->on_corruption &&
	       a->ignore_zero_blocks == b->ignore_zero_blocks && a->check_at_most_once == b->check_at_most_once &&
	       !strcmp(a->sig_key_desc, b->sig_key_desc) && !strcmp(a->sig_source, b->sig_source);
}

static enum verity_effect by_kind(const struct verity_rule *r, const struct verity_anchor *a, const char **why)
{
	bool strengthens = (r->kind == R_MODE && a->p.on_corruption == VERITY_IGNORE) ||
			   (r->kind == R_SIGNATURE && !a->p.sig_key_desc[0]);
	*why = strengthens ? r->taken : r->refused;
	if (strengthens)
		return VW_STRENGTHENS;
	return r->kind == R_WEAKENS ? VW_WEAKENS : VW_CHANGES;
}

/* One word of systemd.verity_root_options=, as the row of its name (the
 * kernel's underscores read as dashes) and applied alone to the embedded
 * parameters: the same parameters after it are VW_SAME. */
static enum verity_effect judge_option(const struct verity_anchor *a, const char *word, const char **why)
{
	char norm[VERITY_OPTION_MAX], err[VERITY_ERR_MAX];
	struct verity_params q = a->p;

	snprintf(norm, sizeof norm, "%s", word);
	size_t name_len = strcspn(norm, "=");
	for (size_t i = 0; i < name_len; i++)
		if (norm[i] == '_')
			norm[i] = '-';
	char name[VERITY_OPTION_MAX];
	snprintf(name, sizeof name, "%.*s", (int)name_len, norm);
	const struct verity_rule *r = find_rule(name, true);
	if (!r) {
		*why = not_an_option;
		return VW_CHANGES;
	}
	if (hi_verity_options_parse(norm, &q, err, sizeof err) < 0) {
		*why = r->kind == R_WEAKENS ? r->refused : bad_value;
		return r->kind == R_WEAKENS ? VW_WEAKENS : VW_CHANGES;
	}
	if (params_same(&q, &a->p)) {
		*why = "it says what the embedded config says";
		return VW_SAME;
	}
	return by_kind(r, a, why);
}

static enum verity_effect judge_options(const struct verity_anchor *a, const char *text, char *word,
					size_t wordcap, const char **why)
{
	char buf[VERITY_OPTION_MAX], *save = NULL;
	enum verity_effect worst = VW_SAME;

	*why = "it says what the embedded config says";
	if (strlen(text) >= sizeof buf) {
		snprintf(word, wordcap, "%.40s...", text);
		*why = "it is longer than 2648 bytes, so what it does to verity cannot be judged";
		return VW_CHANGES;
	}
	snprintf(buf, sizeof buf, "%s", text);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		const char *this_why;
		enum verity_effect e = judge_option(a, w, &this_why);
		if (e > worst) {
			worst = e;
			*why = this_why;
			snprintf(word, wordcap, "%s", w);
		}
	}
	return worst;
}

enum verity_effect hi_verity_word_judge(const struct verity_anchor *a, const char *key, const char *value,
				     char *word, size_t wordcap, const char **why)
{
	const struct verity_rule *r = find_rule(key, false);
	bool on;

	*why = "";
	if (wordcap)
		word[0] = '\0';
	if (!r || (!value && r->kind != R_SWITCH))
		return VW_OTHER;   /* bare words of these keys are not read */
	snprintf(word, wordcap, "%s%s%s", key, value ? "=" : "", value ? value : "");
	if (value && !*value) {
		*why = "an empty value is not read";
		return VW_IGNORED;
	}
	switch (r->kind) {
	case R_OPTIONS:
		return judge_options(a, value, word, wordcap, why);
	case R_ROOT:
		*why = r->taken;
		return VW_IGNORED;
	case R_SWITCH:
		if (value && hi_verity_bool_word(value, &on) < 0) {
			*why = "it is not a yes/no value, so what it does to verity cannot be judged";
			return VW_CHANGES;
		}
		*why = !value || on ? r->taken : r->refused;
		return !value || on ? VW_SAME : VW_WEAKENS;
	case R_DEVICE:
	case R_FIXED: {
		const char *have = !strcmp(key, "roothash") ? a->roothash :
				   !strcmp(key, "systemd.verity_root_data") ? a->data : a->hash;
		if (!strcmp(key, "roothash") ? !strcasecmp(have, value) : !strcmp(have, value)) {
			*why = "it says what the embedded config says";
			return VW_SAME;
		}
		if (r->kind == R_DEVICE && !*have) {
			*why = r->taken;
			return VW_ADDS;
		}
		*why = r->refused;
		return VW_CHANGES;
	}
	default:
		return VW_OTHER;
	}
}
