/* The LUKS2 JSON area, read through the bounded JSON cursor (init/json.h):
 * objects walked key by key with a handler per level, every string and
 * number bounded, the depth capped (LUKS2_JSON_DEPTH_MAX), the first
 * error kept. What LUKS2
 * stores as a JSON string (offsets, sizes: "uint64 in a string") and what
 * it stores as a number are both read as unsigned integers. Unknown keys
 * are skipped (well-formed); unknown keyslot, kdf or segment types are
 * kept and marked unusable, so a volume with one odd keyslot still opens
 * through another. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "json.h"
#include "luks2.h"
#include "luks2_json.h"
#include "tcg_alg.h"

#define J_STR_MAX 512            /* the longest string value kept (base64 of 64 bytes is 88) */

/* An unsigned integer written as a number or as a string of digits. */
static int juint(struct hi_json *c, uint64_t max, uint64_t *out)
{
	char buf[24];
	const char *p;
	size_t len;

	if (hi_json_peek(c) == '"') {
		if (hi_json_string(c, buf, sizeof buf) < 0)
			return -1;
		p = buf;
		len = strlen(buf);
	} else {
		p = c->s + c->i;
		len = 0;
		while (c->i + len < c->n && c->s[c->i + len] >= '0' && c->s[c->i + len] <= '9')
			len++;
		c->i += len;
	}
	if (len == 0 || len > 20)
		return hi_json_fail(c, "expected an unsigned integer");
	uint64_t v = 0;
	for (size_t k = 0; k < len; k++) {
		if (p[k] < '0' || p[k] > '9')
			return hi_json_fail(c, "expected an unsigned integer");
		unsigned d = (unsigned)(p[k] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return hi_json_fail(c, "integer too large");
		v = v * 10 + d;
	}
	if (v > max)
		return hi_json_fail(c, "value %llu over the limit %llu", (unsigned long long)v, (unsigned long long)max);
	*out = v;
	return 0;
}

static int ju32(struct hi_json *c, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (juint(c, max, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int jname(struct hi_json *c, char *out, size_t cap)
{
	return hi_json_string(c, out, cap);
}

static int jbase64(struct hi_json *c, uint8_t *out, size_t cap, size_t *len)
{
	char text[J_STR_MAX];
	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	int n = hi_base64_decode(text, strlen(text), out, cap);
	if (n < 0)
		return hi_json_fail(c, "bad base64 or more than %zu bytes", cap);
	*len = (size_t)n;
	return 0;
}

/* An object key that is an index: "0".."max-1". */
static int jindex(struct hi_json *c, const char *key, int max, const char *what)
{
	int v = 0;
	if (!key[0] || strlen(key) > 3)
		return hi_json_fail(c, "%s id '%s' is not a number", what, key);
	for (const char *p = key; *p; p++) {
		if (*p < '0' || *p > '9')
			return hi_json_fail(c, "%s id '%s' is not a number", what, key);
		v = v * 10 + (*p - '0');
	}
	if (v >= max)
		return hi_json_fail(c, "%s id %d over the limit %d", what, v, max - 1);
	return v;
}

/* An array of index strings into a bit mask. */
static int jidlist(struct hi_json *c, int max, uint32_t *mask, const char *what)
{
	char id[8];

	if (hi_json_expect(c, '[') < 0)
		return -1;
	if (hi_json_peek(c) == ']') {
		c->i++;
		return 0;
	}
	for (int k = 0; k <= max; k++) {
		if (hi_json_string(c, id, sizeof id) < 0)
			return -1;
		int v = jindex(c, id, max, what);
		if (v < 0)
			return -1;
		*mask |= 1u << v;
		int ch = hi_json_peek(c);
		c->i++;
		if (ch == ']')
			return 0;
		if (ch != ',')
			return hi_json_fail(c, "expected ',' or ']'");
	}
	return hi_json_fail(c, "more than %d %s ids", max, what);
}

/* ---- keyslots --------------------------------------------------------- */

static int kdf_key(struct hi_json *c, const char *key, void *ctx)
{
	struct hi_luks2_kdf *k = ctx;
	char type[LUKS2_NAME_MAX];

	if (!strcmp(key, "type")) {
		if (jname(c, type, sizeof type) < 0)
			return -1;
		k->type = !strcmp(type, "pbkdf2") ? LUKS2_KDF_PBKDF2 : !strcmp(type, "argon2i") ? LUKS2_KDF_ARGON2I
			: !strcmp(type, "argon2id") ? LUKS2_KDF_ARGON2ID : LUKS2_KDF_NONE;
		return 0;
	}
	if (!strcmp(key, "hash"))
		return jname(c, k->hash, sizeof k->hash);
	if (!strcmp(key, "iterations"))
		return ju32(c, UINT32_MAX, &k->iterations);
	if (!strcmp(key, "time"))
		return ju32(c, UINT32_MAX, &k->time);
	if (!strcmp(key, "memory"))
		return ju32(c, UINT32_MAX, &k->memory);
	if (!strcmp(key, "cpus"))
		return ju32(c, UINT32_MAX, &k->cpus);
	if (!strcmp(key, "salt"))
		return jbase64(c, k->salt, sizeof k->salt, &k->salt_len);
	return hi_json_skip(c);
}

static int af_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_keyslot *ks = ctx;
	char type[LUKS2_NAME_MAX];

	if (!strcmp(key, "type")) {
		if (jname(c, type, sizeof type) < 0)
			return -1;
		if (strcmp(type, "luks1") != 0)
			ks->usable = false;
		return 0;
	}
	if (!strcmp(key, "stripes"))
		return ju32(c, UINT32_MAX, &ks->af_stripes);
	if (!strcmp(key, "hash"))
		return jname(c, ks->af_hash, sizeof ks->af_hash);
	return hi_json_skip(c);
}

static int area_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_keyslot *ks = ctx;
	char type[LUKS2_NAME_MAX];

	if (!strcmp(key, "type")) {
		if (jname(c, type, sizeof type) < 0)
			return -1;
		if (strcmp(type, "raw") != 0)
			ks->usable = false;
		return 0;
	}
	if (!strcmp(key, "offset"))
		return juint(c, UINT64_MAX / 2, &ks->area_offset);
	if (!strcmp(key, "size"))
		return juint(c, UINT64_MAX / 2, &ks->area_size);
	if (!strcmp(key, "encryption"))
		return jname(c, ks->area_encryption, sizeof ks->area_encryption);
	if (!strcmp(key, "key_size"))
		return ju32(c, UINT32_MAX, &ks->area_key_size);
	return hi_json_skip(c);
}

static int keyslot_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_keyslot *ks = ctx;
	uint32_t prio;

	if (!strcmp(key, "type"))
		return jname(c, ks->type, sizeof ks->type);
	if (!strcmp(key, "key_size"))
		return ju32(c, UINT32_MAX, &ks->key_size);
	if (!strcmp(key, "kdf"))
		return hi_json_walk(c, '{', kdf_key, &ks->kdf);
	if (!strcmp(key, "af"))
		return hi_json_walk(c, '{', af_key, ks);
	if (!strcmp(key, "area"))
		return hi_json_walk(c, '{', area_key, ks);
	if (!strcmp(key, "priority")) {
		if (ju32(c, 2, &prio) < 0)
			return -1;
		ks->priority = (int)prio;
		return 0;
	}
	return hi_json_skip(c);
}

/* What makes a keyslot one this code can open; checked after parsing so
 * the order of keys does not matter. */
static void keyslot_check(struct luks2_keyslot *ks)
{
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
}

static int keyslots_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_KEYSLOTS_MAX, "keyslot");
	if (id < 0)
		return -1;
	struct luks2_keyslot *ks = &h->keyslot[id];
	if (ks->used)
		return hi_json_fail(c, "keyslot %d twice", id);
	memset(ks, 0, sizeof *ks);
	ks->used = true;
	ks->usable = true;
	ks->priority = 1;
	if (hi_json_walk(c, '{', keyslot_key, ks) < 0)
		return -1;
	keyslot_check(ks);
	return 0;
}

/* ---- segments, digests, tokens, config ----------------------------- */

static int segment_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_segment *s = ctx;

	if (!strcmp(key, "type"))
		return jname(c, s->type, sizeof s->type);
	if (!strcmp(key, "offset"))
		return juint(c, UINT64_MAX / 2, &s->offset);
	if (!strcmp(key, "size")) {
		if (hi_json_peek(c) == '"' && c->n - c->i >= 9 && !memcmp(c->s + c->i, "\"dynamic\"", 9)) {
			c->i += 9;
			s->dynamic = true;
			return 0;
		}
		return juint(c, UINT64_MAX / 2, &s->size);
	}
	if (!strcmp(key, "iv_tweak"))
		return juint(c, UINT64_MAX, &s->iv_tweak);
	if (!strcmp(key, "encryption"))
		return jname(c, s->encryption, sizeof s->encryption);
	if (!strcmp(key, "sector_size"))
		return ju32(c, 4096, &s->sector_size);
	return hi_json_skip(c);
}

static int segments_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_SEGMENTS_MAX, "segment");
	if (id < 0)
		return -1;
	struct luks2_segment *s = &h->segment[id];
	if (s->used)
		return hi_json_fail(c, "segment %d twice", id);
	s->used = true;
	if (hi_json_walk(c, '{', segment_key, s) < 0)
		return -1;
	if (!strcmp(s->type, "crypt")) {
		unsigned ss = s->sector_size;
		if (ss < 512 || (ss & (ss - 1)) || !s->encryption[0] || s->offset % 512 || (!s->dynamic && !s->size))
			return hi_json_fail(c, "segment %d: bad sector size, offset, size or encryption", id);
	}
	return 0;
}

static int digest_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_digest *d = ctx;

	if (!strcmp(key, "type"))
		return jname(c, d->type, sizeof d->type);
	if (!strcmp(key, "keyslots"))
		return jidlist(c, LUKS2_KEYSLOTS_MAX, &d->keyslots, "keyslot");
	if (!strcmp(key, "segments"))
		return jidlist(c, LUKS2_SEGMENTS_MAX, &d->segments, "segment");
	if (!strcmp(key, "hash"))
		return jname(c, d->hash, sizeof d->hash);
	if (!strcmp(key, "iterations"))
		return ju32(c, UINT32_MAX, &d->iterations);
	if (!strcmp(key, "salt"))
		return jbase64(c, d->salt, sizeof d->salt, &d->salt_len);
	if (!strcmp(key, "digest"))
		return jbase64(c, d->digest, sizeof d->digest, &d->digest_len);
	return hi_json_skip(c);
}

static int digests_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_DIGESTS_MAX, "digest");
	if (id < 0)
		return -1;
	struct luks2_digest *d = &h->digest[id];
	if (d->used)
		return hi_json_fail(c, "digest %d twice", id);
	d->used = true;
	if (hi_json_walk(c, '{', digest_key, d) < 0)
		return -1;
	if (!strcmp(d->type, "pbkdf2") &&
	    (!d->hash[0] || !d->iterations || !d->salt_len || !d->digest_len))
		return hi_json_fail(c, "digest %d: hash, iterations, salt or digest missing", id);
	return 0;
}

static int token_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_token *t = ctx;
	if (!strcmp(key, "type"))
		return jname(c, t->type, sizeof t->type);
	return hi_json_skip(c);
}

static int tokens_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_TOKENS_MAX, "token");
	if (id < 0)
		return -1;
	struct luks2_token *t = &h->token[id];
	if (t->used)
		return hi_json_fail(c, "token %d twice", id);
	t->used = true;
	hi_json_peek(c);
	t->off = c->i;
	if (hi_json_walk(c, '{', token_key, t) < 0)
		return -1;
	t->len = c->i - t->off;
	return 0;
}

static int config_key(struct hi_json *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	if (!strcmp(key, "json_size"))
		return juint(c, LUKS2_HDR_SIZE_MAX, &h->json_size);
	if (!strcmp(key, "keyslots_size"))
		return juint(c, UINT64_MAX / 2, &h->keyslots_size);
	return hi_json_skip(c);
}

struct top {
	struct luks2_hdr *h;
	unsigned seen;
};

static int top_key(struct hi_json *c, const char *key, void *ctx)
{
	struct top *t = ctx;
	static const char *const names[] = { "keyslots", "tokens", "segments", "digests", "config" };
	static const hi_json_fn fns[] = { keyslots_key, tokens_key, segments_key, digests_key, config_key };

	for (unsigned k = 0; k < 5; k++)
		if (!strcmp(key, names[k])) {
			if (t->seen & 1u << k)
				return hi_json_fail(c, "\"%s\" twice", key);
			t->seen |= 1u << k;
			return hi_json_walk(c, '{', fns[k], t->h);
		}
	return hi_json_skip(c);
}

int hi_luks2_json_parse(const char *text, size_t len, struct luks2_hdr *h, char *err, size_t errlen)
{
	struct hi_json c = { .s = text, .n = len, .err = err, .errlen = errlen,
			    .depth_max = LUKS2_JSON_DEPTH_MAX, .first_error = true };
	struct top t = { .h = h };

	err[0] = '\0';
	memset(h->keyslot, 0, sizeof h->keyslot);
	memset(h->segment, 0, sizeof h->segment);
	memset(h->digest, 0, sizeof h->digest);
	memset(h->token, 0, sizeof h->token);
	h->json_size = h->keyslots_size = 0;
	if (hi_json_walk(&c, '{', top_key, &t) < 0)
		return -1;
	if (hi_json_peek(&c) != -1)
		return hi_json_fail(&c, "text after the top-level object");
	if ((t.seen & 0x1d) != 0x1d) {
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

#define J_B64_MAX (LUKS2_TPM2_PUBKEY_MAX / 3 * 4 + 8)  /* the longest base64 field */

/* A base64 string longer than J_STR_MAX (the blob, the PEM key). */
static int jbase64_long(struct hi_json *c, uint8_t *out, size_t cap, size_t *len)
{
	char text[J_B64_MAX];
	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	int n = hi_base64_decode(text, strlen(text), out, cap);
	if (n < 0)
		return hi_json_fail(c, "bad base64 or more than %zu bytes", cap);
	*len = (size_t)n;
	return 0;
}

/* A field this reader cannot honour: named (the first one) and its value
 * skipped; the token parses, and its user skips it (luks2.h). */
static int unsupported(struct hi_json *c, struct hi_luks2_tpm2_token *t, const char *key)
{
	if (!t->unsupported[0])
		snprintf(t->unsupported, sizeof t->unsupported, "%s", key);
	return hi_json_skip(c);
}

/* An array of PCR numbers (JSON integers 0-23) into a mask. */
static int jpcrs(struct hi_json *c, uint32_t *mask)
{
	uint64_t v;

	if (hi_json_expect(c, '[') < 0)
		return -1;
	if (hi_json_peek(c) == ']') {
		c->i++;
		return 0;
	}
	for (int k = 0; k <= LUKS2_TPM2_PCRS; k++) {
		if (hi_json_peek(c) == '"')
			return hi_json_fail(c, "a PCR number is a JSON number, not a string");
		if (juint(c, LUKS2_TPM2_PCRS - 1, &v) < 0)
			return -1;
		*mask |= 1u << v;
		int ch = hi_json_peek(c);
		c->i++;
		if (ch == ']')
			return 0;
		if (ch != ',')
			return hi_json_fail(c, "expected ',' or ']'");
	}
	return hi_json_fail(c, "more than %d PCRs", LUKS2_TPM2_PCRS);
}

static int jbool(struct hi_json *c, bool *out)
{
	hi_json_peek(c);
	if (c->n - c->i >= 4 && !memcmp(c->s + c->i, "true", 4)) {
		c->i += 4;
		*out = true;
		return 0;
	}
	if (c->n - c->i >= 5 && !memcmp(c->s + c->i, "false", 5)) {
		c->i += 5;
		*out = false;
		return 0;
	}
	return hi_json_fail(c, "expected true or false");
}

/* systemd's names for the banks and primary algorithms (tpm2-util.c),
 * compared without case as systemd does. */
static int jword(struct hi_json *c, const char *const *names, const uint16_t *vals, size_t n, uint16_t *out,
		 const char *what)
{
	char text[LUKS2_NAME_MAX];
	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!strcasecmp(text, names[k])) {
			*out = vals[k];
			return 0;
		}
	return hi_json_fail(c, "%s '%s' is not one systemd writes", what, text);
}

enum { TK_TYPE = 1, TK_PCRS = 2, TK_BLOB = 4, TK_POLICY = 8, TK_PUBKEY = 16 };

struct tk {
	struct hi_luks2_tpm2_token *t;
	unsigned seen;
};

static int tpm2_token_key(struct hi_json *c, const char *key, void *ctx)
{
	struct tk *k = ctx;
	struct hi_luks2_tpm2_token *t = k->t;
	static const char *const banks[] = { "sha1", "sha256", "sha384", "sha512" };
	static const uint16_t bank_algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512 };
	static const char *const prims[] = { "ecc", "rsa" };
	static const uint16_t prim_algs[] = { TPM_ALG_ECC, TPM_ALG_RSA };
	char type[LUKS2_NAME_MAX];

	if (!strcmp(key, "type")) {
		if (jname(c, type, sizeof type) < 0)
			return -1;
		if (strcmp(type, "systemd-tpm2") != 0)
			return hi_json_fail(c, "token type '%s' is not systemd-tpm2", type);
		k->seen |= TK_TYPE;
		return 0;
	}
	if (!strcmp(key, "keyslots"))
		return jidlist(c, LUKS2_KEYSLOTS_MAX, &t->keyslots, "keyslot");
	if (!strcmp(key, "tpm2-pcrs")) {
		k->seen |= TK_PCRS;
		return jpcrs(c, &t->pcrs);
	}
	if (!strcmp(key, "tpm2-pcr-bank"))
		return jword(c, banks, bank_algs, 4, &t->pcr_bank, "tpm2-pcr-bank");
	if (!strcmp(key, "tpm2-primary-alg"))
		return jword(c, prims, prim_algs, 2, &t->primary_alg, "tpm2-primary-alg");
	/* systemd 255 writes an array of shards for a signed policy with
	 * pcrlock: not this reader's. */
	if (!strcmp(key, "tpm2-blob")) {
		k->seen |= TK_BLOB;
		if (hi_json_peek(c) == '[') {
			t->blob_len = 1;         /* present; never used: the token is skipped */
			return unsupported(c, t, key);
		}
		return jbase64_long(c, t->blob, sizeof t->blob, &t->blob_len);
	}
	if (!strcmp(key, "tpm2-policy-hash")) {
		k->seen |= TK_POLICY;
		if (hi_json_peek(c) == '[') {
			t->policy_hash_len = 1;
			return unsupported(c, t, key);
		}
		return hi_json_hex(c, t->policy_hash, sizeof t->policy_hash, &t->policy_hash_len, NULL);
	}
	if (!strcmp(key, "tpm2-pin"))
		return jbool(c, &t->pin);
	if (!strcmp(key, "tpm2_salt"))
		return jbase64_long(c, t->salt, sizeof t->salt, &t->salt_len);
	if (!strcmp(key, "tpm2_srk"))
		return jbase64_long(c, t->srk, sizeof t->srk, &t->srk_len);
	if (!strcmp(key, "tpm2_pcrlock")) {
		bool on = false;
		if (jbool(c, &on) < 0)
			return -1;
		if (on && !t->unsupported[0])
			snprintf(t->unsupported, sizeof t->unsupported, "%s", key);
		return 0;
	}
	/* The pcrlock policy's NV index: read only with tpm2_pcrlock true,
	 * which is refused above. */
	if (!strcmp(key, "tpm2_pcrlock_nv"))
		return hi_json_skip(c);
	if (!strcmp(key, "tpm2_pubkey_pcrs"))
		return jpcrs(c, &t->pubkey_pcrs);
	if (!strcmp(key, "tpm2_pubkey")) {
		k->seen |= TK_PUBKEY;
		return jbase64_long(c, t->pubkey, sizeof t->pubkey, &t->pubkey_len);
	}
	/* Another field of systemd's own (its names start so) may change the
	 * policy the TPM checks: not honoured, the token is not tried. */
	if (!strncmp(key, "tpm2-", 5) || !strncmp(key, "tpm2_", 5))
		return unsupported(c, t, key);
	return hi_json_skip(c);
}

int hi_luks2_tpm2_token_parse(const char *text, size_t len, struct hi_luks2_tpm2_token *t, char *err, size_t errlen)
{
	struct hi_json c = { .s = text, .n = len, .err = err, .errlen = errlen,
			    .depth_max = LUKS2_JSON_DEPTH_MAX, .first_error = true };
	struct tk k = { .t = t };
	static const struct { unsigned bit; const char *name; } need[] = {
		{ TK_TYPE, "type" }, { TK_PCRS, "tpm2-pcrs" }, { TK_BLOB, "tpm2-blob" },
		{ TK_POLICY, "tpm2-policy-hash" },
	};

	err[0] = '\0';
	memset(t, 0, sizeof *t);
	t->pcr_bank = TPM_ALG_SHA256;           /* systemd before 250 */
	t->primary_alg = TPM_ALG_ECC;           /* the same */
	if (hi_json_walk(&c, '{', tpm2_token_key, &k) < 0)
		return -1;
	for (size_t n = 0; n < sizeof need / sizeof need[0]; n++)
		if (!(k.seen & need[n].bit)) {
			snprintf(err, errlen, "the systemd-tpm2 token has no \"%s\"", need[n].name);
			return -1;
		}
	if (!t->keyslots) {
		snprintf(err, errlen, "the systemd-tpm2 token names no keyslot");
		return -1;
	}
	if (!t->blob_len || !t->policy_hash_len) {
		snprintf(err, errlen, "the systemd-tpm2 token's tpm2-blob or tpm2-policy-hash is empty");
		return -1;
	}
	if (t->pubkey_pcrs && !(k.seen & TK_PUBKEY)) {
		snprintf(err, errlen, "the systemd-tpm2 token has tpm2_pubkey_pcrs but no tpm2_pubkey");
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
