/* The LUKS2 JSON area, read through field tables (block/luks2_fields.h):
 * every string and number bounded, the depth capped
 * (LUKS2_JSON_DEPTH_MAX), the first error kept. Unknown keys are skipped
 * (well-formed); unknown keyslot, kdf or segment types are kept and
 * marked unusable, so a volume with one odd keyslot still opens through
 * another. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "luks2.h"
#include "luks2_fields.h"
#include "luks2_json.h"
#include "tcg_alg.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define TABLE(fields) { .f = fields, .n = N(fields) }
/* A field's destination in type, and a byte string's length. */
#define AT(type, m) .off = offsetof(type, m), .size = sizeof(((type *)0)->m)
#define LEN(type, m) .len = offsetof(type, m)

/* ---- the header: keyslots ------------------------------------------ */

static const char *const kdf_names[] = { "pbkdf2", "argon2i", "argon2id" };
static const uint16_t kdf_vals[] = { LUKS2_KDF_PBKDF2, LUKS2_KDF_ARGON2I, LUKS2_KDF_ARGON2ID };
static const struct luks2_jwords kdf_types = { kdf_names, kdf_vals, N(kdf_names), .other = LUKS2_KDF_NONE };

#define KDF(m) AT(struct hi_luks2_kdf, m)
static const struct luks2_jfield kdf_fields[] = {
	{ "type", JF_WORD, KDF(type), .words = &kdf_types },
	{ "hash", JF_STR, KDF(hash) },
	{ "iterations", JF_UINT, KDF(iterations), .max = UINT32_MAX },
	{ "time", JF_UINT, KDF(time), .max = UINT32_MAX },
	{ "memory", JF_UINT, KDF(memory), .max = UINT32_MAX },
	{ "cpus", JF_UINT, KDF(cpus), .max = UINT32_MAX },
	{ "salt", JF_BASE64, KDF(salt), LEN(struct hi_luks2_kdf, salt_len), .max = J_STR_MAX },
};

/* The af and area objects fill the keyslot itself; a type this code
 * cannot open leaves the keyslot kept but not usable. */
#define KS(m) AT(struct luks2_keyslot, m)
#define KS_USABLE .flag = offsetof(struct luks2_keyslot, usable)
static const struct luks2_jfield af_fields[] = {
	{ "type", JF_IS_OR_FLAG, .word = "luks1", KS_USABLE },
	{ "stripes", JF_UINT, KS(af_stripes), .max = UINT32_MAX },
	{ "hash", JF_STR, KS(af_hash) },
};

static const struct luks2_jfield area_fields[] = {
	{ "type", JF_IS_OR_FLAG, .word = "raw", KS_USABLE },
	{ "offset", JF_UINT, KS(area_offset), .max = UINT64_MAX / 2 },
	{ "size", JF_UINT, KS(area_size), .max = UINT64_MAX / 2 },
	{ "encryption", JF_STR, KS(area_encryption) },
	{ "key_size", JF_UINT, KS(area_key_size), .max = UINT32_MAX },
};

static const struct luks2_jtable kdf_table = TABLE(kdf_fields), af_table = TABLE(af_fields), area_table = TABLE(area_fields);

static const struct luks2_jfield keyslot_fields[] = {
	{ "type", JF_STR, KS(type) },
	{ "key_size", JF_UINT, KS(key_size), .max = UINT32_MAX },
	{ "kdf", JF_OBJECT, KS(kdf), .sub = &kdf_table },
	{ "af", JF_OBJECT, .sub = &af_table },
	{ "area", JF_OBJECT, .sub = &area_table },
	{ "priority", JF_UINT, KS(priority), .max = 2 },
};

static const struct luks2_jtable keyslot_table = TABLE(keyslot_fields);

/* Until its fields say otherwise: usable, of normal priority. */
static void keyslot_start(struct hi_json *c, void *elem)
{
	struct luks2_keyslot *ks = elem;
	ks->usable = true;
	ks->priority = 1;
}

/* What makes a keyslot one this code can open; checked after parsing so
 * the order of keys does not matter. */
static int keyslot_finish(struct hi_json *c, void *elem, int id)
{
	struct luks2_keyslot *ks = elem;
	const struct hi_luks2_kdf *k = &ks->kdf;
	bool kdf_ok = k->salt_len > 0 &&
		      ((k->type == LUKS2_KDF_PBKDF2 && k->iterations > 0 && k->hash[0]) ||
		       ((k->type == LUKS2_KDF_ARGON2I || k->type == LUKS2_KDF_ARGON2ID) && k->time > 0 &&
			k->memory > 0 && k->cpus > 0));
	uint64_t af_bytes = (uint64_t)ks->key_size * ks->af_stripes;
	ks->usable = ks->usable && !strcmp(ks->type, "luks2") && ks->key_size > 0 &&
		     ks->key_size <= LUKS2_KEY_MAX && ks->area_key_size > 0 &&
		     ks->area_key_size <= LUKS2_KEY_MAX && ks->area_encryption[0] && kdf_ok &&
		     ks->af_stripes > 0 && ks->af_stripes <= LUKS2_STRIPES_MAX && ks->af_hash[0] &&
		     ks->area_size >= af_bytes && ks->area_offset > 0 && ks->priority != 0;
	return 0;
}

/* ---- the header: segments, digests, tokens, config ------------------ */

#define SEG(m) AT(struct luks2_segment, m)
static const struct luks2_jfield segment_fields[] = {
	{ "type", JF_STR, SEG(type) },
	{ "offset", JF_UINT, SEG(offset), .max = UINT64_MAX / 2 },
	{ "size", JF_UINT, SEG(size), .max = UINT64_MAX / 2, .word = "dynamic",
	  .flag = offsetof(struct luks2_segment, dynamic) },
	{ "iv_tweak", JF_UINT, SEG(iv_tweak), .max = UINT64_MAX },
	{ "encryption", JF_STR, SEG(encryption) },
	{ "sector_size", JF_UINT, SEG(sector_size), .max = 4096 },
};

static int segment_finish(struct hi_json *c, void *elem, int id)
{
	const struct luks2_segment *s = elem;
	unsigned ss = s->sector_size;

	if (!strcmp(s->type, "crypt") &&
	    (ss < 512 || (ss & (ss - 1)) || !s->encryption[0] || s->offset % 512 || (!s->dynamic && !s->size)))
		return hi_json_fail(c, "segment %d: bad sector size, offset, size or encryption", id);
	return 0;
}

#define DG(m) AT(struct luks2_digest, m)
static const struct luks2_jfield digest_fields[] = {
	{ "type", JF_STR, DG(type) },
	{ "keyslots", JF_IDLIST, DG(keyslots), .max = LUKS2_KEYSLOTS_MAX, .what = "keyslot" },
	{ "segments", JF_IDLIST, DG(segments), .max = LUKS2_SEGMENTS_MAX, .what = "segment" },
	{ "hash", JF_STR, DG(hash) },
	{ "iterations", JF_UINT, DG(iterations), .max = UINT32_MAX },
	{ "salt", JF_BASE64, DG(salt), LEN(struct luks2_digest, salt_len), .max = J_STR_MAX },
	{ "digest", JF_BASE64, DG(digest), LEN(struct luks2_digest, digest_len), .max = J_STR_MAX },
};

static int digest_finish(struct hi_json *c, void *elem, int id)
{
	const struct luks2_digest *d = elem;

	if (!strcmp(d->type, "pbkdf2") && (!d->hash[0] || !d->iterations || !d->salt_len || !d->digest_len))
		return hi_json_fail(c, "digest %d: hash, iterations, salt or digest missing", id);
	return 0;
}

/* A token is kept as its type and its span of the text, for its
 * handler (the systemd-tpm2 token's below). */
static const struct luks2_jfield token_fields[] = {
	{ "type", JF_STR, AT(struct luks2_token, type) },
};

static void token_start(struct hi_json *c, void *elem)
{
	struct luks2_token *t = elem;
	hi_json_peek(c);
	t->off = c->i;
}

static int token_finish(struct hi_json *c, void *elem, int id)
{
	struct luks2_token *t = elem;
	t->len = c->i - t->off;
	return 0;
}

#define HDR(m) AT(struct luks2_hdr, m)
static const struct luks2_jfield config_fields[] = {
	{ "json_size", JF_UINT, HDR(json_size), .max = LUKS2_HDR_SIZE_MAX },
	{ "keyslots_size", JF_UINT, HDR(keyslots_size), .max = UINT64_MAX / 2 },
};

static const struct luks2_jtable segment_table = TABLE(segment_fields), digest_table = TABLE(digest_fields),
			   token_table = TABLE(token_fields), config_table = TABLE(config_fields);

_Static_assert(offsetof(struct luks2_keyslot, used) == 0 && offsetof(struct luks2_segment, used) == 0 &&
	       offsetof(struct luks2_digest, used) == 0 && offsetof(struct luks2_token, used) == 0,
	       "a JF_MAP element starts with its bool used");

#define MAP(m, n, w) HDR(m), .max = n, .what = w, .elem = sizeof(((struct luks2_hdr *)0)->m[0])
static const struct luks2_jfield hdr_fields[] = {
	{ "keyslots", JF_MAP, MAP(keyslot, LUKS2_KEYSLOTS_MAX, "keyslot"), .sub = &keyslot_table,
	  .start = keyslot_start, .finish = keyslot_finish, .once = true, .need = true },
	{ "tokens", JF_MAP, MAP(token, LUKS2_TOKENS_MAX, "token"), .sub = &token_table,
	  .start = token_start, .finish = token_finish, .once = true },
	{ "segments", JF_MAP, MAP(segment, LUKS2_SEGMENTS_MAX, "segment"), .sub = &segment_table,
	  .finish = segment_finish, .once = true, .need = true },
	{ "digests", JF_MAP, MAP(digest, LUKS2_DIGESTS_MAX, "digest"), .sub = &digest_table,
	  .finish = digest_finish, .once = true, .need = true },
	{ "config", JF_OBJECT, .sub = &config_table, .once = true, .need = true },
};

static const struct luks2_jtable hdr_table = TABLE(hdr_fields);

int hi_luks2_json_parse(const char *text, size_t len, struct luks2_hdr *h, char *err, size_t errlen)
{
	struct hi_json c = { .s = text, .n = len, .err = err, .errlen = errlen,
			    .depth_max = LUKS2_JSON_DEPTH_MAX, .first_error = true };
	unsigned seen = 0;

	err[0] = '\0';
	memset(h->keyslot, 0, sizeof h->keyslot);
	memset(h->segment, 0, sizeof h->segment);
	memset(h->digest, 0, sizeof h->digest);
	memset(h->token, 0, sizeof h->token);
	h->json_size = h->keyslots_size = 0;
	if (hi_luks2_jtable_read(&c, &hdr_table, h, &seen) < 0)
		return -1;
	if (hi_json_peek(&c) != -1)
		return hi_json_fail(&c, "text after the top-level object");
	if (hi_luks2_jtable_missing(&hdr_table, seen)) {
		snprintf(err, errlen, "keyslots, segments, digests or config missing");
		return -1;
	}
	if (!h->json_size) {
		snprintf(err, errlen, "config.json_size missing");
		return -1;
	}
	return 0;
}

/* ---- the systemd-tpm2 token ------------------------------------------ */

/* systemd's names for the banks and primary algorithms (tpm2-util.c),
 * compared without case as systemd does. */
static const char *const bank_names[] = { "sha1", "sha256", "sha384", "sha512" };
static const uint16_t bank_vals[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512 };
static const struct luks2_jwords banks = { bank_names, bank_vals, N(bank_names), .nocase = true, .strict = true };
static const char *const prim_names[] = { "ecc", "rsa" };
static const uint16_t prim_vals[] = { TPM_ALG_ECC, TPM_ALG_RSA };
static const struct luks2_jwords prims = { prim_names, prim_vals, N(prim_names), .nocase = true, .strict = true };

#define TK(m) AT(struct hi_luks2_tpm2_token, m)
#define TK_LEN(m) LEN(struct hi_luks2_tpm2_token, m)
static const struct luks2_jfield tpm2_fields[] = {
	{ "type", JF_IS, .word = "systemd-tpm2", .what = "token type", .need = true },
	{ "keyslots", JF_IDLIST, TK(keyslots), .max = LUKS2_KEYSLOTS_MAX, .what = "keyslot" },
	{ "tpm2-pcrs", JF_PCRS, TK(pcrs), .need = true },
	{ "tpm2-pcr-bank", JF_WORD, TK(pcr_bank), .words = &banks },
	{ "tpm2-primary-alg", JF_WORD, TK(primary_alg), .words = &prims },
	/* systemd 255 writes an array of shards for a signed policy with
	 * pcrlock: not this reader's. */
	{ "tpm2-blob", JF_BASE64, TK(blob), TK_LEN(blob_len), .max = J_B64_MAX, .shards = true, .need = true },
	{ "tpm2-policy-hash", JF_HEX, TK(policy_hash), TK_LEN(policy_hash_len), .shards = true, .need = true },
	{ "tpm2-pin", JF_BOOL, TK(pin) },
	{ "tpm2_salt", JF_BASE64, TK(salt), TK_LEN(salt_len), .max = J_B64_MAX },
	{ "tpm2_srk", JF_BASE64, TK(srk), TK_LEN(srk_len), .max = J_B64_MAX },
	{ "tpm2_pcrlock", JF_BOOL, .true_unsupported = true },
	/* The pcrlock policy's NV index: read only with tpm2_pcrlock true,
	 * which is refused above. */
	{ .name = "tpm2_pcrlock_nv", .kind = JF_SKIP },
	{ "tpm2_pubkey_pcrs", JF_PCRS, TK(pubkey_pcrs) },
	{ "tpm2_pubkey", JF_BASE64, TK(pubkey), TK_LEN(pubkey_len), .max = J_B64_MAX },
};

/* Another field of systemd's own (its names start so) may change the
 * policy the TPM checks: not honoured, the token is not tried. */
static const char *const systemd_prefixes[] = { "tpm2-", "tpm2_", NULL };

static const struct luks2_jtable tpm2_table = { .f = tpm2_fields, .n = N(tpm2_fields), .names_unsupported = true,
					  .unsupported = offsetof(struct hi_luks2_tpm2_token, unsupported),
					  .foreign = systemd_prefixes };

_Static_assert(N(keyslot_fields) <= 32 && N(kdf_fields) <= 32 && N(segment_fields) <= 32 && N(digest_fields) <= 32 &&
	       N(hdr_fields) <= 32 && N(tpm2_fields) <= 32, "a table's fields each have a bit of an unsigned seen");

/* What a parsed token must hold besides its fields. */
static const char *tpm2_token_check(const struct hi_luks2_tpm2_token *t, unsigned seen)
{
	if (!t->keyslots)
		return "the systemd-tpm2 token names no keyslot";
	if (!t->blob_len || !t->policy_hash_len)
		return "the systemd-tpm2 token's tpm2-blob or tpm2-policy-hash is empty";
	if (t->pubkey_pcrs && !hi_luks2_jtable_seen(&tpm2_table, seen, "tpm2_pubkey"))
		return "the systemd-tpm2 token has tpm2_pubkey_pcrs but no tpm2_pubkey";
	return NULL;
}

int hi_luks2_tpm2_token_parse(const char *text, size_t len, struct hi_luks2_tpm2_token *t, char *err, size_t errlen)
{
	struct hi_json c = { .s = text, .n = len, .err = err, .errlen = errlen,
			    .depth_max = LUKS2_JSON_DEPTH_MAX, .first_error = true };
	unsigned seen = 0;

	err[0] = '\0';
	memset(t, 0, sizeof *t);
	t->pcr_bank = TPM_ALG_SHA256;           /* systemd before 250 */
	t->primary_alg = TPM_ALG_ECC;           /* the same */
	if (hi_luks2_jtable_read(&c, &tpm2_table, t, &seen) < 0)
		return -1;
	const char *no = hi_luks2_jtable_missing(&tpm2_table, seen);
	if (no) {
		snprintf(err, errlen, "the systemd-tpm2 token has no \"%s\"", no);
		return -1;
	}
	const char *bad = tpm2_token_check(t, seen);
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		return -1;
	}
	return 0;
}

int hi_luks2_tpm2_token(const struct luks2_hdr *h, int id, struct hi_luks2_tpm2_token *t, char *err, size_t errlen)
{
	if (id < 0 || id >= LUKS2_TOKENS_MAX || !h->token[id].used || !h->json ||
	    h->token[id].off + h->token[id].len > h->json_len) {
		snprintf(err, errlen, "no token %d", id);
		return -1;
	}
	return hi_luks2_tpm2_token_parse(h->json + h->token[id].off, h->token[id].len, t, err, errlen);
}
