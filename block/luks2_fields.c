/* The field tables' reader (block/luks2_fields.h): each value read
 * bounded through the JSON cursor (init/json.h), stored where its field
 * says. What LUKS2 stores as a JSON string (offsets, sizes: "uint64 in a
 * string") and what it stores as a number are both read as unsigned
 * integers. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "json.h"
#include "luks2.h"
#include "luks2_fields.h"

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

/* A base64 string of at most text_max characters into out. */
static int jbase64(struct hi_json *c, size_t text_max, uint8_t *out, size_t cap, size_t *len)
{
	char text[J_B64_MAX];
	if (hi_json_string(c, text, text_max < sizeof text ? text_max : sizeof text) < 0)
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

/* ---- the tables' walk ------------------------------------------------ */

/* One object being read through its table. */
struct jrec {
	const struct luks2_jtable *t;
	char *base;
	unsigned seen;          /* bit k: field k was there */
};

static void name_unsupported(const struct jrec *r, const char *key)
{
	if (!r->t->names_unsupported)
		return;
	char *u = r->base + r->t->unsupported;
	if (!u[0])
		snprintf(u, LUKS2_NAME_MAX, "%s", key);
}

static void store_uint(void *dst, size_t size, uint64_t v)
{
	if (size == sizeof(uint64_t)) {
		memcpy(dst, &v, sizeof v);
	} else if (size == sizeof(uint32_t)) {
		uint32_t x = (uint32_t)v;
		memcpy(dst, &x, sizeof x);
	} else {
		uint16_t x = (uint16_t)v;
		memcpy(dst, &x, sizeof x);
	}
}

static int read_uint(struct hi_json *c, const struct luks2_jfield *f, char *base)
{
	uint64_t v;

	if (f->size < sizeof v && f->max >> (8 * f->size))
		return hi_json_fail(c, "internal error: \"%s\" wider than its field; report a bug", f->name);
	if (f->word && hi_json_peek(c) == '"') {
		size_t n = strlen(f->word);
		if (c->n - c->i >= n + 2 && !memcmp(c->s + c->i + 1, f->word, n) && c->s[c->i + n + 1] == '"') {
			c->i += n + 2;
			base[f->flag] = true;
			return 0;
		}
	}
	if (juint(c, f->max, &v) < 0)
		return -1;
	store_uint(base + f->off, f->size, v);
	return 0;
}

static int read_word(struct hi_json *c, const struct luks2_jfield *f, char *base)
{
	const struct luks2_jwords *w = f->words;
	char text[LUKS2_NAME_MAX];

	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	for (size_t k = 0; k < w->n; k++)
		if (w->nocase ? !strcasecmp(text, w->names[k]) : !strcmp(text, w->names[k])) {
			store_uint(base + f->off, f->size, w->vals[k]);
			return 0;
		}
	if (w->strict)
		return hi_json_fail(c, "%s '%s' is not one systemd writes", f->name, text);
	store_uint(base + f->off, f->size, w->other);
	return 0;
}

static int read_is(struct hi_json *c, const struct luks2_jfield *f, char *base)
{
	char text[LUKS2_NAME_MAX];

	if (hi_json_string(c, text, sizeof text) < 0)
		return -1;
	if (!strcmp(text, f->word))
		return 0;
	if (f->kind == JF_IS)
		return hi_json_fail(c, "%s '%s' is not %s", f->what, text, f->word);
	base[f->flag] = false;
	return 0;
}

static int read_bool(struct hi_json *c, const struct luks2_jfield *f, const struct jrec *r)
{
	bool b = false;

	if (jbool(c, &b) < 0)
		return -1;
	if (!f->true_unsupported)
		*(bool *)(r->base + f->off) = b;
	else if (b)
		name_unsupported(r, f->name);
	return 0;
}

struct jmap {
	const struct luks2_jfield *f;
	char *base;
};

static int map_key(struct hi_json *c, const char *key, void *ctx)
{
	const struct jmap *m = ctx;
	const struct luks2_jfield *f = m->f;
	int id = jindex(c, key, (int)f->max, f->what);
	if (id < 0)
		return -1;
	char *e = m->base + f->off + (size_t)id * f->elem;
	if (*(bool *)e)
		return hi_json_fail(c, "%s %d twice", f->what, id);
	memset(e, 0, f->elem);
	*(bool *)e = true;
	if (f->start)
		f->start(c, e);
	if (hi_luks2_jtable_read(c, f->sub, e, NULL) < 0)
		return -1;
	return f->finish ? f->finish(c, e, id) : 0;
}

/* A field's value, through its kind, into the record's struct. */
static int read_field(struct hi_json *c, const struct luks2_jfield *f, const struct jrec *r)
{
	char *base = r->base;

	if (f->shards && hi_json_peek(c) == '[') {
		*(size_t *)(base + f->len) = 1;  /* present; never used: the token is skipped */
		name_unsupported(r, f->name);
		return hi_json_skip(c);
	}
	switch (f->kind) {
	case JF_SKIP: return hi_json_skip(c);
	case JF_STR: return hi_json_string(c, base + f->off, f->size);
	case JF_UINT: return read_uint(c, f, base);
	case JF_WORD: return read_word(c, f, base);
	case JF_IS:
	case JF_IS_OR_FLAG: return read_is(c, f, base);
	case JF_BASE64: return jbase64(c, f->max, (uint8_t *)base + f->off, f->size, (size_t *)(base + f->len));
	case JF_HEX: return hi_json_hex(c, (uint8_t *)base + f->off, f->size, (size_t *)(base + f->len), NULL);
	case JF_BOOL: return read_bool(c, f, r);
	case JF_IDLIST: return jidlist(c, (int)f->max, (uint32_t *)(base + f->off), f->what);
	case JF_PCRS: return jpcrs(c, (uint32_t *)(base + f->off));
	case JF_OBJECT: return hi_luks2_jtable_read(c, f->sub, base + f->off, NULL);
	case JF_MAP: return hi_json_walk(c, '{', map_key, &(struct jmap){ .f = f, .base = base });
	}
	return hi_json_fail(c, "internal error: \"%s\" has no kind; report a bug", f->name);
}

static bool is_foreign(const struct luks2_jtable *t, const char *key)
{
	for (const char *const *p = t->foreign; p && *p; p++)
		if (!strncmp(key, *p, strlen(*p)))
			return true;
	return false;
}

static int record_key(struct hi_json *c, const char *key, void *ctx)
{
	struct jrec *r = ctx;

	for (size_t k = 0; k < r->t->n; k++) {
		const struct luks2_jfield *f = &r->t->f[k];
		if (strcmp(key, f->name) != 0)
			continue;
		if (f->once && r->seen & 1u << k)
			return hi_json_fail(c, "\"%s\" twice", key);
		r->seen |= 1u << k;
		return read_field(c, f, r);
	}
	if (is_foreign(r->t, key))
		name_unsupported(r, key);
	return hi_json_skip(c);
}

int hi_luks2_jtable_read(struct hi_json *c, const struct luks2_jtable *t, void *base, unsigned *seen)
{
	struct jrec r = { .t = t, .base = base };
	int rc = hi_json_walk(c, '{', record_key, &r);
	if (seen)
		*seen = r.seen;
	return rc;
}

const char *hi_luks2_jtable_missing(const struct luks2_jtable *t, unsigned seen)
{
	for (size_t k = 0; k < t->n; k++)
		if (t->f[k].need && !(seen & 1u << k))
			return t->f[k].name;
	return NULL;
}

bool hi_luks2_jtable_seen(const struct luks2_jtable *t, unsigned seen, const char *name)
{
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->f[k].name, name))
			return seen & 1u << k;
	return false;
}
