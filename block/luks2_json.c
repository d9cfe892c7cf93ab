/* The LUKS2 JSON area, read by a small bounded parser of its own: a
 * cursor over the text, objects walked key by key with a handler per
 * level, every string and number bounded, the depth capped. What LUKS2
 * stores as a JSON string (offsets, sizes: "uint64 in a string") and what
 * it stores as a number are both read as unsigned integers. Unknown keys
 * are skipped (well-formed); unknown keyslot, kdf or segment types are
 * kept and marked unusable, so a volume with one odd keyslot still opens
 * through another. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "luks2.h"
#include "luks2_json.h"
#include "tpm.h"

struct jcur {
	const char *s;
	size_t n, i;
	int depth;
	char *err;
	size_t errlen;
};

#define J_KEY_MAX 64
#define J_STR_MAX 512            /* the longest string value kept (base64 of 64 bytes is 88) */

__attribute__((format(printf, 2, 3))) static int jfail(struct jcur *c, const char *fmt, ...)
{
	va_list ap;
	char what[160];

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (c->err[0] == '\0')
		snprintf(c->err, c->errlen, "%s (at byte %zu)", what, c->i);
	return -1;
}

static void ws(struct jcur *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
		c->i++;
}

static int peek(struct jcur *c)
{
	ws(c);
	return c->i < c->n ? (unsigned char)c->s[c->i] : -1;
}

static int expect(struct jcur *c, char ch)
{
	if (peek(c) != ch)
		return jfail(c, "expected '%c'", ch);
	c->i++;
	return 0;
}

/* A string into out (cap bytes, NUL-terminated). Escapes: \" \\ \/ and
 * the control ones; \u only for ASCII (LUKS2 writes nothing else). */
static int jstring(struct jcur *c, char *out, size_t cap)
{
	size_t k = 0;

	if (expect(c, '"') < 0)
		return -1;
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i++];
		if (ch == '"') {
			if (out)
				out[k] = '\0';
			return 0;
		}
		if (ch < 0x20)
			return jfail(c, "control character in a string");
		if (ch == '\\') {
			if (c->i >= c->n)
				break;
			char e = c->s[c->i++];
			switch (e) {
			case '"': case '\\': case '/': ch = (unsigned char)e; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u': {
				unsigned v = 0;
				if (c->n - c->i < 4)
					return jfail(c, "short \\u escape");
				for (int d = 0; d < 4; d++) {
					char h = c->s[c->i++];
					v <<= 4;
					if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
					else return jfail(c, "bad \\u escape");
				}
				if (v == 0 || v > 0x7f)
					return jfail(c, "\\u escape outside ASCII");
				ch = (unsigned char)v;
				break;
			}
			default:
				return jfail(c, "bad escape \\%c", e);
			}
		}
		if (out) {
			if (k + 1 >= cap)
				return jfail(c, "string longer than %zu bytes", cap - 1);
			out[k++] = (char)ch;
		}
	}
	return jfail(c, "unterminated string");
}

static int jskip(struct jcur *c);

static int jskip_container(struct jcur *c, char open, char close)
{
	if (++c->depth > LUKS2_JSON_DEPTH_MAX)
		return jfail(c, "nested deeper than %d", LUKS2_JSON_DEPTH_MAX);
	c->i++;
	if (peek(c) == close) {
		c->i++;
		c->depth--;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			if (jstring(c, NULL, 0) < 0 || expect(c, ':') < 0)
				return -1;
		}
		if (jskip(c) < 0)
			return -1;
		int ch = peek(c);
		c->i++;
		if (ch == close)
			break;
		if (ch != ',')
			return jfail(c, "expected ',' or '%c'", close);
	}
	c->depth--;
	return 0;
}

/* Any value, checked for form and thrown away. */
static int jskip(struct jcur *c)
{
	int ch = peek(c);

	if (ch == '{' || ch == '[')
		return jskip_container(c, (char)ch, ch == '{' ? '}' : ']');
	if (ch == '"')
		return jstring(c, NULL, 0);
	static const char *const words[] = { "true", "false", "null" };
	for (size_t w = 0; w < 3; w++) {
		size_t len = strlen(words[w]);
		if (c->n - c->i >= len && !memcmp(c->s + c->i, words[w], len)) {
			c->i += len;
			return 0;
		}
	}
	size_t start = c->i;
	if (ch == '-')
		c->i++;
	while (c->i < c->n && strchr("0123456789.eE+-", c->s[c->i]))
		c->i++;
	if (c->i == start || (c->i == start + 1 && ch == '-'))
		return jfail(c, "expected a value");
	return 0;
}

/* An unsigned integer written as a number or as a string of digits. */
static int juint(struct jcur *c, uint64_t max, uint64_t *out)
{
	char buf[24];
	const char *p;
	size_t len;

	if (peek(c) == '"') {
		if (jstring(c, buf, sizeof buf) < 0)
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
		return jfail(c, "expected an unsigned integer");
	uint64_t v = 0;
	for (size_t k = 0; k < len; k++) {
		if (p[k] < '0' || p[k] > '9')
			return jfail(c, "expected an unsigned integer");
		unsigned d = (unsigned)(p[k] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return jfail(c, "integer too large");
		v = v * 10 + d;
	}
	if (v > max)
		return jfail(c, "value %llu over the limit %llu", (unsigned long long)v, (unsigned long long)max);
	*out = v;
	return 0;
}

static int ju32(struct jcur *c, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (juint(c, max, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int jname(struct jcur *c, char *out, size_t cap)
{
	return jstring(c, out, cap);
}

static int jbase64(struct jcur *c, uint8_t *out, size_t cap, size_t *len)
{
	char text[J_STR_MAX];
	if (jstring(c, text, sizeof text) < 0)
		return -1;
	int n = hi_luks2_base64_decode(text, strlen(text), out, cap);
	if (n < 0)
		return jfail(c, "bad base64 or more than %zu bytes", cap);
	*len = (size_t)n;
	return 0;
}

/* Walk an object: handler(c, key, ctx) consumes each value. */
typedef int (*jhandler)(struct jcur *c, const char *key, void *ctx);

static int jobject(struct jcur *c, jhandler fn, void *ctx)
{
	char key[J_KEY_MAX];

	if (peek(c) != '{')
		return jfail(c, "expected an object");
	if (++c->depth > LUKS2_JSON_DEPTH_MAX)
		return jfail(c, "nested deeper than %d", LUKS2_JSON_DEPTH_MAX);
	c->i++;
	if (peek(c) == '}') {
		c->i++;
		c->depth--;
		return 0;
	}
	for (;;) {
		if (jstring(c, key, sizeof key) < 0 || expect(c, ':') < 0)
			return -1;
		if (fn(c, key, ctx) < 0)
			return -1;
		int ch = peek(c);
		c->i++;
		if (ch == '}')
			break;
		if (ch != ',')
			return jfail(c, "expected ',' or '}'");
	}
	c->depth--;
	return 0;
}

/* An object key that is an index: "0".."max-1". */
static int jindex(struct jcur *c, const char *key, int max, const char *what)
{
	int v = 0;
	if (!key[0] || strlen(key) > 3)
		return jfail(c, "%s id '%s' is not a number", what, key);
	for (const char *p = key; *p; p++) {
		if (*p < '0' || *p > '9')
			return jfail(c, "%s id '%s' is not a number", what, key);
		v = v * 10 + (*p - '0');
	}
	if (v >= max)
		return jfail(c, "%s id %d over the limit %d", what, v, max - 1);
	return v;
}

/* An array of index strings into a bit mask. */
static int jidlist(struct jcur *c, int max, uint32_t *mask, const char *what)
{
	char id[8];

	if (expect(c, '[') < 0)
		return -1;
	if (peek(c) == ']') {
		c->i++;
		return 0;
	}
	for (int k = 0; k <= max; k++) {
		if (jstring(c, id, sizeof id) < 0)
			return -1;
		int v = jindex(c, id, max, what);
		if (v < 0)
			return -1;
		*mask |= 1u << v;
		int ch = peek(c);
		c->i++;
		if (ch == ']')
			return 0;
		if (ch != ',')
			return jfail(c, "expected ',' or ']'");
	}
	return jfail(c, "more than %d %s ids", max, what);
}

/* ---- keyslots --------------------------------------------------------- */

static int kdf_key(struct jcur *c, const char *key, void *ctx)
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
	return jskip(c);
}

static int af_key(struct jcur *c, const char *key, void *ctx)
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
	return jskip(c);
}

static int area_key(struct jcur *c, const char *key, void *ctx)
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
	return jskip(c);
}

static int keyslot_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_keyslot *ks = ctx;
	uint32_t prio;

	if (!strcmp(key, "type"))
		return jname(c, ks->type, sizeof ks->type);
	if (!strcmp(key, "key_size"))
		return ju32(c, UINT32_MAX, &ks->key_size);
	if (!strcmp(key, "kdf"))
		return jobject(c, kdf_key, &ks->kdf);
	if (!strcmp(key, "af"))
		return jobject(c, af_key, ks);
	if (!strcmp(key, "area"))
		return jobject(c, area_key, ks);
	if (!strcmp(key, "priority")) {
		if (ju32(c, 2, &prio) < 0)
			return -1;
		ks->priority = (int)prio;
		return 0;
	}
	return jskip(c);
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

static int keyslots_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_KEYSLOTS_MAX, "keyslot");
	if (id < 0)
		return -1;
	struct luks2_keyslot *ks = &h->keyslot[id];
	if (ks->used)
		return jfail(c, "keyslot %d twice", id);
	memset(ks, 0, sizeof *ks);
	ks->used = true;
	ks->usable = true;
	ks->priority = 1;
	if (jobject(c, keyslot_key, ks) < 0)
		return -1;
	keyslot_check(ks);
	return 0;
}

/* ---- segments, digests, tokens, config ----------------------------- */

static int segment_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_segment *s = ctx;

	if (!strcmp(key, "type"))
		return jname(c, s->type, sizeof s->type);
	if (!strcmp(key, "offset"))
		return juint(c, UINT64_MAX / 2, &s->offset);
	if (!strcmp(key, "size")) {
		if (peek(c) == '"' && c->n - c->i >= 9 && !memcmp(c->s + c->i, "\"dynamic\"", 9)) {
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
	return jskip(c);
}

static int segments_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_SEGMENTS_MAX, "segment");
	if (id < 0)
		return -1;
	struct luks2_segment *s = &h->segment[id];
	if (s->used)
		return jfail(c, "segment %d twice", id);
	s->used = true;
	if (jobject(c, segment_key, s) < 0)
		return -1;
	if (!strcmp(s->type, "crypt")) {
		unsigned ss = s->sector_size;
		if (ss < 512 || (ss & (ss - 1)) || !s->encryption[0] || s->offset % 512 || (!s->dynamic && !s->size))
			return jfail(c, "segment %d: bad sector size, offset, size or encryption", id);
	}
	return 0;
}

static int digest_key(struct jcur *c, const char *key, void *ctx)
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
	return jskip(c);
}

static int digests_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_DIGESTS_MAX, "digest");
	if (id < 0)
		return -1;
	struct luks2_digest *d = &h->digest[id];
	if (d->used)
		return jfail(c, "digest %d twice", id);
	d->used = true;
	if (jobject(c, digest_key, d) < 0)
		return -1;
	if (!strcmp(d->type, "pbkdf2") &&
	    (!d->hash[0] || !d->iterations || !d->salt_len || !d->digest_len))
		return jfail(c, "digest %d: hash, iterations, salt or digest missing", id);
	return 0;
}

static int token_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_token *t = ctx;
	if (!strcmp(key, "type"))
		return jname(c, t->type, sizeof t->type);
	return jskip(c);
}

static int tokens_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	int id = jindex(c, key, LUKS2_TOKENS_MAX, "token");
	if (id < 0)
		return -1;
	struct luks2_token *t = &h->token[id];
	if (t->used)
		return jfail(c, "token %d twice", id);
	t->used = true;
	peek(c);
	t->off = c->i;
	if (jobject(c, token_key, t) < 0)
		return -1;
	t->len = c->i - t->off;
	return 0;
}

static int config_key(struct jcur *c, const char *key, void *ctx)
{
	struct luks2_hdr *h = ctx;
	if (!strcmp(key, "json_size"))
		return juint(c, LUKS2_HDR_SIZE_MAX, &h->json_size);
	if (!strcmp(key, "keyslots_size"))
		return juint(c, UINT64_MAX / 2, &h->keyslots_size);
	return jskip(c);
}

struct top {
	struct luks2_hdr *h;
	unsigned seen;
};

static int top_key(struct jcur *c, const char *key, void *ctx)
{
	struct top *t = ctx;
	static const char *const names[] = { "keyslots", "tokens", "segments", "digests", "config" };
	static const jhandler fns[] = { keyslots_key, tokens_key, segments_key, digests_key, config_key };

	for (unsigned k = 0; k < 5; k++)
		if (!strcmp(key, names[k])) {
			if (t->seen & 1u << k)
				return jfail(c, "\"%s\" twice", key);
			t->seen |= 1u << k;
			return jobject(c, fns[k], t->h);
		}
	return jskip(c);
}

int hi_luks2_json_parse(const char *text, size_t len, struct luks2_hdr *h, char *err, size_t errlen)
{
	struct jcur c = { .s = text, .n = len, .err = err, .errlen = errlen };
	struct top t = { .h = h };

	err[0] = '\0';
	memset(h->keyslot, 0, sizeof h->keyslot);
	memset(h->segment, 0, sizeof h->segment);
	memset(h->digest, 0, sizeof h->digest);
	memset(h->token, 0, sizeof h->token);
	h->json_size = h->keyslots_size = 0;
	if (jobject(&c, top_key, &t) < 0)
		return -1;
	if (peek(&c) != -1)
		return jfail(&c, "text after the top-level object");
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

static int b64val(char ch)
{
	if (ch >= 'A' && ch <= 'Z') return ch - 'A';
	if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9') return ch - '0' + 52;
	if (ch == '+') return 62;
	if (ch == '/') return 63;
	return -1;
}

int hi_luks2_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			char ch = text[i + k];
			if (ch == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || (v[k] = b64val(ch)) < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		uint8_t b[3] = { (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w };
		for (int k = 0; k < 3 - pad; k++) {
			if (n >= cap)
				return -1;
			out[n++] = b[k];
		}
	}
	return (int)n;
}

/* ---- the systemd-tpm2 token ------------------------------------------ */

#define J_B64_MAX (LUKS2_TPM2_PUBKEY_MAX / 3 * 4 + 8)  /* the longest base64 field */

/* A base64 string longer than J_STR_MAX (the blob, the PEM key). */
static int jbase64_long(struct jcur *c, uint8_t *out, size_t cap, size_t *len)
{
	char text[J_B64_MAX];
	if (jstring(c, text, sizeof text) < 0)
		return -1;
	int n = hi_luks2_base64_decode(text, strlen(text), out, cap);
	if (n < 0)
		return jfail(c, "bad base64 or more than %zu bytes", cap);
	*len = (size_t)n;
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9') return ch - '0';
	if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
	return -1;
}

static int jhex(struct jcur *c, uint8_t *out, size_t cap, size_t *len)
{
	char text[2 * LUKS2_DIGEST_MAX + 2];
	if (jstring(c, text, sizeof text) < 0)
		return -1;
	size_t n = strlen(text);
	if (n % 2 || n / 2 > cap)
		return jfail(c, "not hex of at most %zu bytes", cap);
	for (size_t k = 0; k < n; k += 2) {
		int hi = hexval(text[k]), lo = hexval(text[k + 1]);
		if (hi < 0 || lo < 0)
			return jfail(c, "not hex");
		out[k / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

/* An array of PCR numbers (JSON integers 0-23) into a mask. */
static int jpcrs(struct jcur *c, uint32_t *mask)
{
	uint64_t v;

	if (expect(c, '[') < 0)
		return -1;
	if (peek(c) == ']') {
		c->i++;
		return 0;
	}
	for (int k = 0; k <= LUKS2_TPM2_PCRS; k++) {
		if (peek(c) == '"')
			return jfail(c, "a PCR number is a JSON number, not a string");
		if (juint(c, LUKS2_TPM2_PCRS - 1, &v) < 0)
			return -1;
		*mask |= 1u << v;
		int ch = peek(c);
		c->i++;
		if (ch == ']')
			return 0;
		if (ch != ',')
			return jfail(c, "expected ',' or ']'");
	}
	return jfail(c, "more than %d PCRs", LUKS2_TPM2_PCRS);
}

static int jbool(struct jcur *c, bool *out)
{
	peek(c);
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
	return jfail(c, "expected true or false");
}

/* systemd's names for the banks and primary algorithms (tpm2-util.c),
 * compared without case as systemd does. */
static int jword(struct jcur *c, const char *const *names, const uint16_t *vals, size_t n, uint16_t *out,
		 const char *what)
{
	char text[LUKS2_NAME_MAX];
	if (jstring(c, text, sizeof text) < 0)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!strcasecmp(text, names[k])) {
			*out = vals[k];
			return 0;
		}
	return jfail(c, "%s '%s' is not one systemd writes", what, text);
}

enum { TK_TYPE = 1, TK_PCRS = 2, TK_BLOB = 4, TK_POLICY = 8, TK_PUBKEY = 16 };

struct tk {
	struct hi_luks2_tpm2_token *t;
	unsigned seen;
};

static int tpm2_token_key(struct jcur *c, const char *key, void *ctx)
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
			return jfail(c, "token type '%s' is not systemd-tpm2", type);
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
	if (!strcmp(key, "tpm2-blob")) {
		k->seen |= TK_BLOB;
		return jbase64_long(c, t->blob, sizeof t->blob, &t->blob_len);
	}
	if (!strcmp(key, "tpm2-policy-hash")) {
		k->seen |= TK_POLICY;
		return jhex(c, t->policy_hash, sizeof t->policy_hash, &t->policy_hash_len);
	}
	if (!strcmp(key, "tpm2-pin"))
		return jbool(c, &t->pin);
	if (!strcmp(key, "tpm2_pubkey_pcrs"))
		return jpcrs(c, &t->pubkey_pcrs);
	if (!strcmp(key, "tpm2_pubkey")) {
		k->seen |= TK_PUBKEY;
		return jbase64_long(c, t->pubkey, sizeof t->pubkey, &t->pubkey_len);
	}
	return jskip(c);
}

int hi_luks2_tpm2_token_parse(const char *text, size_t len, struct hi_luks2_tpm2_token *t, char *err, size_t errlen)
{
	struct jcur c = { .s = text, .n = len, .err = err, .errlen = errlen };
	struct tk k = { .t = t };
	static const struct { unsigned bit; const char *name; } need[] = {
		{ TK_TYPE, "type" }, { TK_PCRS, "tpm2-pcrs" }, { TK_BLOB, "tpm2-blob" },
		{ TK_POLICY, "tpm2-policy-hash" },
	};

	err[0] = '\0';
	memset(t, 0, sizeof *t);
	t->pcr_bank = TPM_ALG_SHA256;           /* systemd before 250 */
	t->primary_alg = TPM_ALG_ECC;           /* the same */
	if (jobject(&c, tpm2_token_key, &k) < 0)
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

int hi_luks2_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;

	if ((len + 2) / 3 * 4 + 1 > cap)
		return -1;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);
		out[n++] = abc[w >> 18 & 63];
		out[n++] = abc[w >> 12 & 63];
		out[n++] = i + 1 < len ? abc[w >> 6 & 63] : '=';
		out[n++] = i + 2 < len ? abc[w & 63] : '=';
	}
	out[n] = '\0';
	return (int)n;
}
