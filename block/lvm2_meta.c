/* LVM2's text metadata, as lvm2 writes it into a PV's metadata area:
 *   VGNAME { id = "..." seqno = N extent_size = N
 *     physical_volumes { pv0 { id = "..." dev_size = N pe_start = N pe_count = N } }
 *     logical_volumes { LVNAME { id = "..." status = ["READ", "WRITE", "VISIBLE"]
 *       segment1 { start_extent = N extent_count = N type = "striped"
 *         stripe_count = N stripe_size = N stripes = ["pv0", N, ...] } } } }
 *   contents = "Text Format Volume Group" version = 1 ...
 * Read in one pass by a bounded tokenizer (no tree): each key is taken by
 * where it sits (the path of section names above it); unknown keys and
 * sections are skipped, nesting is capped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lvm2.h"
#include "lvm2_meta.h"

#define TOKEN_MAX 256   /* a string or word value: ids, names, types */

enum tok { T_END, T_WORD, T_STRING, T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET, T_EQ, T_COMMA, T_BAD };

struct lex {
	const char *p, *end;
	unsigned line;
	enum tok t;
	char text[TOKEN_MAX];
	unsigned nodes;
};

/* Where the parser is: which section it is in, by level. */
enum where { W_TOP, W_VG, W_PVS, W_PV, W_LVS, W_LV, W_SEG, W_OTHER };

struct meta {
	struct lex lx;
	struct lvm2_vg *vg;
	char *why;
	size_t whylen;
	int seen_vg;
	struct lvm2_pv *pv;
	struct lvm2_lv *lv;
	struct lvm2_seg *seg;
	char seg_type[LVM2_TYPE_MAX];
	int seg_has_stripes;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct meta *m, const char *fmt, ...)
{
	char msg[LVM2_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(m->why, m->whylen, "metadata line %u: %s", m->lx.line, msg);
	return -1;
}

static int word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '+' || c == '.' || c == '-';
}

static void skip_space(struct lex *lx)
{
	while (lx->p < lx->end && *lx->p) {
		char c = *lx->p;
		if (c == '\n') {
			lx->line++;
			lx->p++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			lx->p++;
		} else if (c == '#') {
			while (lx->p < lx->end && *lx->p && *lx->p != '\n')
				lx->p++;
		} else {
			return;
		}
	}
}

static enum tok lex_string(struct lex *lx)
{
	size_t n = 0;

	lx->p++;
	while (lx->p < lx->end && *lx->p && *lx->p != '"') {
		char c = *lx->p++;
		if (c == '\\') {
			if (lx->p >= lx->end || !*lx->p)
				break;
			c = *lx->p++;
		}
		if (c == '\n')
			lx->line++;
		if (n + 1 >= sizeof lx->text)
			return lx->t = T_BAD;
		lx->text[n++] = c;
	}
	if (lx->p >= lx->end || *lx->p != '"')
		return lx->t = T_BAD;
	lx->p++;
	lx->text[n] = '\0';
	return lx->t = T_STRING;
}

static enum tok next(struct lex *lx)
{
	skip_space(lx);
	lx->text[0] = '\0';
	if (++lx->nodes > LVM2_MAX_NODES)
		return lx->t = T_BAD;
	if (lx->p >= lx->end || !*lx->p)
		return lx->t = T_END;
	char c = *lx->p;
	static const char punct[] = "{}[]=,";
	static const enum tok ptok[] = { T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET, T_EQ, T_COMMA };
	const char *at = strchr(punct, c);
	if (at) {
		lx->p++;
		return lx->t = ptok[at - punct];
	}
	if (c == '"')
		return lex_string(lx);
	size_t n = 0;
	while (lx->p < lx->end && word_char(*lx->p)) {
		if (n + 1 >= sizeof lx->text)
			return lx->t = T_BAD;
		lx->text[n++] = *lx->p++;
	}
	lx->text[n] = '\0';
	return lx->t = n ? T_WORD : T_BAD;
}

static int number(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* "xxxxxx-xxxx-...": 32 id characters once the dashes are gone. */
static int take_id(const char *s, char *out)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == '-')
			continue;
		if (n >= LVM2_ID_LEN)
			return -1;
		char c = *s;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '!' || c == '#'))
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	return n == LVM2_ID_LEN ? 0 : -1;
}

static int set_u64(struct meta *m, const char *key, enum tok t, const char *text, uint64_t *dst)
{
	if (t != T_WORD || number(text, dst) < 0)
		return fail(m, "%s is not a number", key);
	return 0;
}

static int set_id(struct meta *m, enum tok t, const char *text, char *dst)
{
	if (t != T_STRING || take_id(text, dst) < 0)
		return fail(m, "id \"%s\" is not an LVM2 id", text);
	return 0;
}

/* One array element: status flags of an LV, the stripes of a segment. */
static int array_item(struct meta *m, enum where w, const char *key, unsigned i, enum tok t, const char *text)
{
	if (w == W_LV && !strcmp(key, "status") && t == T_STRING) {
		if (!strcmp(text, "VISIBLE"))
			m->lv->visible = 1;
		else if (!strcmp(text, "READ"))
			m->lv->readable = 1;
		else if (!strcmp(text, "WRITE"))
			m->lv->writable = 1;
		return 0;
	}
	if (w != W_SEG || strcmp(key, "stripes") != 0 || !m->seg)
		return 0;
	struct lvm2_seg *seg = m->seg;
	unsigned k = i / 2;
	if (k >= LVM2_MAX_STRIPES)
		return fail(m, "more than %d stripes in a segment", LVM2_MAX_STRIPES);
	if (i % 2 == 0) {
		if (t != T_STRING)
			return fail(m, "stripes: \"%s\" is not a PV name", text);
		unsigned pv;
		for (pv = 0; pv < m->vg->n_pvs && strcmp(m->vg->pvs[pv].name, text) != 0; pv++)
			;
		if (pv == m->vg->n_pvs)
			return fail(m, "stripes: no PV named %s in physical_volumes", text);
		seg->stripes[k].pv = pv;
		m->seg_has_stripes = (int)k + 1;
		return 0;
	}
	return set_u64(m, "a stripe's extent", t, text, &seg->stripes[k].extent);
}

static int value(struct meta *m, enum where w, const char *key, enum tok t, const char *text)
{
	struct lvm2_vg *vg = m->vg;

	switch (w) {
	case W_VG:
		if (!strcmp(key, "id"))
			return set_id(m, t, text, vg->id);
		if (!strcmp(key, "seqno"))
			return set_u64(m, key, t, text, &vg->seqno);
		if (!strcmp(key, "extent_size"))
			return set_u64(m, key, t, text, &vg->extent_size);
		return 0;
	case W_PV:
		if (!strcmp(key, "id"))
			return set_id(m, t, text, m->pv->id);
		if (!strcmp(key, "dev_size"))
			return set_u64(m, key, t, text, &m->pv->dev_size);
		if (!strcmp(key, "pe_start"))
			return set_u64(m, key, t, text, &m->pv->pe_start);
		if (!strcmp(key, "pe_count"))
			return set_u64(m, key, t, text, &m->pv->pe_count);
		return 0;
	case W_LV:
		if (!strcmp(key, "id"))
			return set_id(m, t, text, m->lv->id);
		return 0;
	case W_SEG:
		if (!strcmp(key, "type")) {
			if (t != T_STRING)
				return fail(m, "a segment type is not a string: %s", text);
			snprintf(m->seg_type, sizeof m->seg_type, "%s", text);
			return 0;
		}
		if (!m->seg)
			return 0;
		if (!strcmp(key, "start_extent"))
			return set_u64(m, key, t, text, &m->seg->start_extent);
		if (!strcmp(key, "extent_count"))
			return set_u64(m, key, t, text, &m->seg->extent_count);
		if (!strcmp(key, "stripe_size"))
			return set_u64(m, key, t, text, &m->seg->stripe_size);
		if (!strcmp(key, "stripe_count")) {
			uint64_t n;
			if (set_u64(m, key, t, text, &n) < 0)
				return -1;
			if (n == 0 || n > LVM2_MAX_STRIPES)
				return fail(m, "stripe_count %s is not 1 to %d", text, LVM2_MAX_STRIPES);
			m->seg->stripe_count = (unsigned)n;
		}
		return 0;
	default:
		return 0;
	}
}

static int parse_section(struct meta *m, enum where w, const char *name, unsigned depth);

/* key = value | key = [ v, v, ... ] */
static int assignment(struct meta *m, enum where w, const char *key_in)
{
	char key[TOKEN_MAX];
	snprintf(key, sizeof key, "%s", key_in);
	enum tok t = next(&m->lx);
	if (t == T_WORD || t == T_STRING)
		return value(m, w, key, t, m->lx.text);
	if (t != T_LBRACKET)
		return fail(m, "%s = has no value", key);
	for (unsigned i = 0;; i++) {
		t = next(&m->lx);
		if (t == T_RBRACKET)
			return 0;
		if (t != T_WORD && t != T_STRING)
			return fail(m, "%s = [ ... ] holds something that is not a value", key);
		if (array_item(m, w, key, i, t, m->lx.text) < 0)
			return -1;
		t = next(&m->lx);
		if (t == T_RBRACKET)
			return 0;
		if (t != T_COMMA)
			return fail(m, "%s = [ ... ] lacks a comma or its ]", key);
	}
}

/* Entering section name inside w: what it is, and its slot. */
static int enter(struct meta *m, enum where w, const char *name, enum where *inner)
{
	struct lvm2_vg *vg = m->vg;

	*inner = W_OTHER;
	switch (w) {
	case W_TOP:
		if (m->seen_vg++)
			return fail(m, "a second volume group %s in one metadata text", name);
		if (!hi_lvm2_name_valid(name))
			return fail(m, "volume group name \"%s\" is not one lvm2 makes", name);
		snprintf(vg->name, sizeof vg->name, "%s", name);
		*inner = W_VG;
		return 0;
	case W_VG:
		if (!strcmp(name, "physical_volumes"))
			*inner = W_PVS;
		else if (!strcmp(name, "logical_volumes"))
			*inner = W_LVS;
		return 0;
	case W_PVS:
		if (vg->n_pvs >= LVM2_MAX_PVS)
			return fail(m, "more than %d physical volumes", LVM2_MAX_PVS);
		m->pv = &vg->pvs[vg->n_pvs++];
		memset(m->pv, 0, sizeof *m->pv);
		snprintf(m->pv->name, sizeof m->pv->name, "%s", name);
		*inner = W_PV;
		return 0;
	case W_LVS:
		if (vg->n_lvs >= LVM2_MAX_LVS)
			return fail(m, "more than %d logical volumes", LVM2_MAX_LVS);
		if (!hi_lvm2_name_valid(name))
			return fail(m, "logical volume name \"%s\" is not one lvm2 makes", name);
		m->lv = &vg->lvs[vg->n_lvs++];
		memset(m->lv, 0, sizeof *m->lv);
		snprintf(m->lv->name, sizeof m->lv->name, "%s", name);
		m->lv->first_seg = vg->n_segs;
		*inner = W_LV;
		return 0;
	case W_LV:
		if (strncmp(name, "segment", 7) != 0)
			return 0;
		if (vg->n_segs >= LVM2_MAX_SEGS)
			return fail(m, "more than %d segments", LVM2_MAX_SEGS);
		m->seg = &vg->segs[vg->n_segs];
		memset(m->seg, 0, sizeof *m->seg);
		m->seg_type[0] = '\0';
		m->seg_has_stripes = 0;
		*inner = W_SEG;
		return 0;
	default:
		return 0;
	}
}

/* Leaving a segment: keep it if striped, else name its type on the LV. */
static int leave_seg(struct meta *m)
{
	struct lvm2_lv *lv = m->lv;
	struct lvm2_seg *seg = m->seg;

	m->seg = NULL;
	if (strcmp(m->seg_type, "striped") != 0) {
		if (!lv->unsupported[0])
			snprintf(lv->unsupported, sizeof lv->unsupported, "%s", m->seg_type[0] ? m->seg_type : "(none)");
		return 0;
	}
	if (seg->stripe_count == 0 || (unsigned)m->seg_has_stripes != seg->stripe_count)
		return fail(m, "a striped segment of %s has stripe_count and stripes that disagree", lv->name);
	if (seg->extent_count == 0)
		return fail(m, "a segment of %s has no extents", lv->name);
	m->vg->n_segs++;
	lv->n_segs++;
	lv->extents += seg->extent_count;
	return 0;
}

static int parse_section(struct meta *m, enum where w, const char *name, unsigned depth)
{
	if (depth > LVM2_MAX_DEPTH)
		return fail(m, "sections nested deeper than %d", LVM2_MAX_DEPTH);
	for (;;) {
		enum tok t = next(&m->lx);
		if (t == T_END)
			return w == W_TOP ? 0 : fail(m, "section %s is not closed", name);
		if (t == T_RBRACE) {
			if (w == W_TOP)
				return fail(m, "a } with no section open");
			return w == W_SEG ? leave_seg(m) : 0;
		}
		if (t != T_WORD)
			return fail(m, "expected a name, found \"%s\"", m->lx.t == T_BAD ? "bad token" : m->lx.text);
		char key[TOKEN_MAX];
		snprintf(key, sizeof key, "%s", m->lx.text);
		t = next(&m->lx);
		if (t == T_EQ) {
			if (assignment(m, w, key) < 0)
				return -1;
			continue;
		}
		if (t != T_LBRACE)
			return fail(m, "%s is followed by neither = nor {", key);
		enum where inner;
		if (enter(m, w, key, &inner) < 0 || parse_section(m, inner, key, depth + 1) < 0)
			return -1;
	}
}

static int check_vg(struct meta *m)
{
	struct lvm2_vg *vg = m->vg;

	if (!m->seen_vg)
		return fail(m, "no volume group in the text");
	if (!vg->id[0] || vg->extent_size == 0)
		return fail(m, "volume group %s lacks its id or extent_size", vg->name);
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if (!vg->pvs[i].id[0])
			return fail(m, "physical volume %s lacks its id", vg->pvs[i].name);
	for (unsigned i = 0; i < vg->n_lvs; i++)
		if (!vg->lvs[i].id[0])
			return fail(m, "logical volume %s lacks its id", vg->lvs[i].name);
	return 0;
}

int hi_lvm2_meta_parse(const char *text, size_t len, struct lvm2_vg *vg, char *why, size_t whylen)
{
	static struct meta m;   /* the tokenizer's buffer is not for PID 1's stack */

	memset(&m, 0, sizeof m);
	/* The tables are zeroed entry by entry as the text fills them: a scan
	 * parses one text per PV, and the VG is most of a megabyte. */
	memset(vg, 0, offsetof(struct lvm2_vg, pvs));
	m.lx.p = text;
	m.lx.end = text + len;
	m.lx.line = 1;
	m.vg = vg;
	m.why = why;
	m.whylen = whylen;
	if (parse_section(&m, W_TOP, "", 0) < 0 || check_vg(&m) < 0)
		return -1;
	return 0;
}

/* ---- names, ids and the table ---- */

int hi_lvm2_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= LVM2_NAME_MAX || name[0] == '-' || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!word_char(name[i]))
			return 0;
	return 1;
}

void hi_lvm2_id_format(const char *id, char *out, size_t cap)
{
	static const unsigned groups[] = { 6, 4, 4, 4, 4, 4, 6 };
	char buf[LVM2_ID_LEN + 8];
	size_t o = 0, at = 0;

	for (unsigned g = 0; g < 7 && at < strlen(id); g++) {
		if (g)
			buf[o++] = '-';
		for (unsigned k = 0; k < groups[g] && id[at]; k++)
			buf[o++] = id[at++];
	}
	buf[o] = '\0';
	snprintf(out, cap, "%s", buf);
}

const struct lvm2_lv *hi_lvm2_lv_find(const struct lvm2_vg *vg, const char *name)
{
	for (unsigned i = 0; i < vg->n_lvs; i++)
		if (!strcmp(vg->lvs[i].name, name))
			return &vg->lvs[i];
	return NULL;
}

static int put_mangled(const char *s, char *out, size_t cap, size_t *o)
{
	for (; *s; s++) {
		unsigned n = *s == '-' ? 2 : 1;
		if (*o + n >= cap)
			return -1;
		out[(*o)++] = *s;
		if (n == 2)
			out[(*o)++] = '-';
	}
	return 0;
}

int hi_lvm2_dm_name(const char *vg, const char *lv, char *out, size_t cap)
{
	size_t o = 0;

	if (cap == 0 || put_mangled(vg, out, cap, &o) < 0 || o + 1 >= cap)
		return -1;
	out[o++] = '-';
	if (put_mangled(lv, out, cap, &o) < 0)
		return -1;
	out[o] = '\0';
	return 0;
}

int hi_lvm2_dm_name_split(const char *name, char *vg, size_t vgcap, char *lv, size_t lvcap)
{
	char *dst = vg;
	size_t cap = vgcap, o = 0;
	int parts = 1;

	for (const char *p = name; *p; p++) {
		char c = *p;
		if (c == '-' && p[1] == '-') {
			p++;
		} else if (c == '-') {
			if (parts == 2 || o == 0)
				return -1;
			dst[o] = '\0';
			dst = lv;
			cap = lvcap;
			o = 0;
			parts = 2;
			continue;
		}
		if (o + 1 >= cap)
			return -1;
		dst[o++] = c;
	}
	if (parts != 2 || o == 0)
		return -1;
	dst[o] = '\0';
	return hi_lvm2_name_valid(vg) && hi_lvm2_name_valid(lv) ? 0 : -1;
}

int hi_lvm2_dm_uuid(const struct lvm2_vg *vg, const struct lvm2_lv *lv, char *out, size_t cap)
{
	int n = snprintf(out, cap, "LVM-%s%s", vg->id, lv->id);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int table_fail(char *why, size_t whylen, const struct lvm2_vg *vg, const struct lvm2_lv *lv, const char *what)
{
	snprintf(why, whylen, "LV %s/%s: %s", vg->name, lv->name, what);
	return -1;
}

/* PV offset in sectors of extent on stripe st, checking the run of n extents fits. */
static int stripe_offset(const struct lvm2_vg *vg, const struct lvm2_stripe *st, uint64_t n, uint64_t *off)
{
	const struct lvm2_pv *pv = &vg->pvs[st->pv];
	uint64_t end, sectors;

	if (__builtin_add_overflow(st->extent, n, &end) || end > pv->pe_count ||
	    __builtin_mul_overflow(st->extent, vg->extent_size, &sectors) ||
	    __builtin_add_overflow(sectors, pv->pe_start, off))
		return -1;
	return 0;
}

static int seg_target(const struct lvm2_vg *vg, const struct lvm2_lv *lv, const struct lvm2_seg *seg,
		      const char *const dev[], struct lvm2_target *t, char *why, size_t whylen)
{
	uint64_t per = seg->extent_count / seg->stripe_count;
	char detail[96];

	if (seg->extent_count % seg->stripe_count != 0)
		return table_fail(why, whylen, vg, lv, "a striped segment's extents do not divide among its stripes");
	if (__builtin_mul_overflow(seg->start_extent, vg->extent_size, &t->start) ||
	    __builtin_mul_overflow(seg->extent_count, vg->extent_size, &t->length))
		return table_fail(why, whylen, vg, lv, "a segment is larger than a device can be");
	int o;
	if (seg->stripe_count == 1) {
		snprintf(t->type, sizeof t->type, "linear");
		o = 0;
	} else {
		if (seg->stripe_size == 0 || (seg->stripe_size & (seg->stripe_size - 1)) != 0) {
			snprintf(detail, sizeof detail, "stripe_size %llu is not a power of two",
				 (unsigned long long)seg->stripe_size);
			return table_fail(why, whylen, vg, lv, detail);
		}
		snprintf(t->type, sizeof t->type, "striped");
		o = snprintf(t->params, sizeof t->params, "%u %llu ", seg->stripe_count,
			     (unsigned long long)seg->stripe_size);
	}
	for (unsigned i = 0; i < seg->stripe_count; i++) {
		uint64_t off;
		if (stripe_offset(vg, &seg->stripes[i], per, &off) < 0) {
			snprintf(detail, sizeof detail, "extents %llu+%llu are outside PV %s",
				 (unsigned long long)seg->stripes[i].extent, (unsigned long long)per,
				 vg->pvs[seg->stripes[i].pv].name);
			return table_fail(why, whylen, vg, lv, detail);
		}
		o += snprintf(t->params + o, sizeof t->params - (size_t)o, "%s%s %llu", i ? " " : "",
			      dev[seg->stripes[i].pv], (unsigned long long)off);
		if ((size_t)o >= sizeof t->params)
			return table_fail(why, whylen, vg, lv, "its table line is too long");
	}
	return 0;
}

int hi_lvm2_lv_table(const struct lvm2_vg *vg, const struct lvm2_lv *lv, const char *const dev[],
		  struct lvm2_target *out, unsigned cap, char *why, size_t whylen)
{
	char detail[LVM2_TYPE_MAX + 96];

	if (lv->unsupported[0]) {
		snprintf(detail, sizeof detail, "segment type %s is not supported (hardinit activates linear and striped LVs)",
			 lv->unsupported);
		return table_fail(why, whylen, vg, lv, detail);
	}
	if (lv->n_segs == 0)
		return table_fail(why, whylen, vg, lv, "it has no segments");
	if (lv->n_segs > cap)
		return table_fail(why, whylen, vg, lv, "it has more segments than one table holds");
	if (lv->first_seg + lv->n_segs > vg->n_segs)
		return table_fail(why, whylen, vg, lv, "its segments are out of the VG's");
	uint64_t next_extent = 0;
	for (unsigned i = 0; i < lv->n_segs; i++) {
		const struct lvm2_seg *seg = &vg->segs[lv->first_seg + i];
		if (seg->start_extent != next_extent)
			return table_fail(why, whylen, vg, lv, "its segments leave a hole or overlap");
		if (seg_target(vg, lv, seg, dev, &out[i], why, whylen) < 0)
			return -1;
		if (__builtin_add_overflow(next_extent, seg->extent_count, &next_extent))
			return table_fail(why, whylen, vg, lv, "a segment is larger than a device can be");
	}
	return (int)lv->n_segs;
}
