/* The LUKS2 binary header: two copies, each checked (magic, version,
 * size, offset, sha256 checksum) and its JSON parsed; the valid copy with
 * the higher seqid is used. Offsets and sizes in the binary header are
 * big-endian (the spec's struct luks2_hdr_disk). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "luks2.h"
#include "luks2_hdr.h"
#include "luks2_json.h"
#include "sha256.h"

#define OFF_MAGIC      0
#define OFF_VERSION    6
#define OFF_HDR_SIZE   8
#define OFF_SEQID      16
#define OFF_LABEL      24
#define OFF_CSUM_ALG   72
#define OFF_UUID       168
#define OFF_HDR_OFFSET 256
#define OFF_CSUM       448
#define CSUM_ALG_LEN   32
#define MAGIC_LEN      6

static const uint8_t magic_primary[MAGIC_LEN] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static const uint8_t magic_secondary[MAGIC_LEN] = { 'S', 'K', 'U', 'L', 0xba, 0xbe };

/* Where a secondary copy may be: each size a copy may have (the spec). */
static const uint64_t standard_sizes[] = {
	16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304,
};
#define N_STANDARD (sizeof standard_sizes / sizeof standard_sizes[0])

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool standard_size(uint64_t size)
{
	for (size_t i = 0; i < N_STANDARD; i++)
		if (standard_sizes[i] == size)
			return true;
	return false;
}

bool hi_luks2_is_luks2(const uint8_t *p, size_t len)
{
	return len >= 8 && (!memcmp(p, magic_primary, MAGIC_LEN) || !memcmp(p, magic_secondary, MAGIC_LEN)) &&
	       p[OFF_VERSION] == 0 && p[OFF_VERSION + 1] == 2;
}

bool hi_luks2_uuid_is(const uint8_t *p, size_t len, const char *uuid)
{
	if (len < OFF_UUID + LUKS2_UUID_MAX)
		return false;
	const char *field = (const char *)p + OFF_UUID;
	return memchr(field, '\0', LUKS2_UUID_MAX) && !strcasecmp(field, uuid);
}

struct copy {
	uint64_t offset, hdr_size, seqid;
	char *area;            /* hdr_size bytes */
	struct luks2_hdr h;
	char why[160];
	bool ok;
};

static void copy_field(char *dst, size_t cap, const uint8_t *src, size_t len)
{
	size_t n = strnlen((const char *)src, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Why a copy is not used, into c->why; returns -1. */
__attribute__((format(printf, 2, 3))) static int why(struct copy *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof c->why, fmt, ap);
	va_end(ap);
	return -1;
}

/* The binary header of a copy at off: its magic, version, size, where it
 * says it lies, its checksum algorithm. Its size and seqid are kept even
 * when it is refused: the secondary is looked for after the primary's size. */
static int check_bin(const uint8_t *bin, uint64_t off, bool primary, struct copy *c)
{
	if (memcmp(bin, primary ? magic_primary : magic_secondary, MAGIC_LEN))
		return why(c, "no LUKS2 magic");
	unsigned version = (unsigned)bin[OFF_VERSION] << 8 | bin[OFF_VERSION + 1];
	if (version != 2)
		return why(c, "version %u, not 2", version);
	c->hdr_size = be64(bin + OFF_HDR_SIZE);
	c->seqid = be64(bin + OFF_SEQID);
	if (!standard_size(c->hdr_size))
		return why(c, "header size %llu is not one LUKS2 allows", (unsigned long long)c->hdr_size);
	if (be64(bin + OFF_HDR_OFFSET) != off)
		return why(c, "says it lies at %llu", (unsigned long long)be64(bin + OFF_HDR_OFFSET));
	char alg[CSUM_ALG_LEN + 1];
	copy_field(alg, sizeof alg, bin + OFF_CSUM_ALG, CSUM_ALG_LEN);
	if (strcmp(alg, "sha256") != 0)
		return why(c, "checksum algorithm '%.32s' is not supported (sha256 is)", alg);
	return 0;
}

/* The whole copy (hdr_size bytes) into c->area, its checksum checked:
 * sha256 over the copy with the checksum field zeroed; the stored checksum
 * is the digest padded with zeros to 64 bytes. */
static int read_area(luks2_read_fn rd, void *ctx, const uint8_t *bin, struct copy *c)
{
	uint8_t want[SHA256_BYTES], got[SHA256_BYTES];

	c->area = malloc(c->hdr_size + 1);
	if (!c->area)
		return why(c, "no memory for %llu bytes", (unsigned long long)c->hdr_size);
	memcpy(c->area, bin, LUKS2_BIN_SIZE);
	if (rd(ctx, c->offset + LUKS2_BIN_SIZE, c->area + LUKS2_BIN_SIZE, c->hdr_size - LUKS2_BIN_SIZE) < 0)
		return why(c, "its JSON area cannot be read");
	memcpy(want, bin + OFF_CSUM, sizeof want);
	memset(c->area + OFF_CSUM, 0, 64);
	hi_sha256(c->area, LUKS2_CSUM_SPAN(c->hdr_size), got);
	memcpy(c->area + OFF_CSUM, bin + OFF_CSUM, 64);
	if (memcmp(want, got, sizeof got) != 0)
		return why(c, "checksum mismatch (damaged)");
	return 0;
}

/* The copy's JSON area into c->h, with what the binary header says. */
static int parse_area(const uint8_t *bin, bool primary, struct copy *c)
{
	char err[LUKS2_ERR_MAX];
	size_t json_cap = c->hdr_size - LUKS2_BIN_SIZE;
	const char *json = c->area + LUKS2_BIN_SIZE;

	if (hi_luks2_json_parse(json, strnlen(json, json_cap), &c->h, err, sizeof err) < 0)
		return why(c, "JSON: %.140s", err);
	if (c->h.json_size != json_cap)
		return why(c, "config.json_size %llu does not match the header size", (unsigned long long)c->h.json_size);
	c->h.hdr_size = c->hdr_size;
	c->h.seqid = c->seqid;
	c->h.offset = c->offset;
	c->h.from_secondary = !primary;
	copy_field(c->h.uuid, sizeof c->h.uuid, bin + OFF_UUID, LUKS2_UUID_MAX);
	copy_field(c->h.label, sizeof c->h.label, bin + OFF_LABEL, LUKS2_LABEL_MAX);
	c->h.json_len = strnlen(json, json_cap);
	return 0;
}

/* Read and check one copy at off; c->ok and c->why say how it went. */
static void read_copy(luks2_read_fn rd, void *ctx, uint64_t off, bool primary, struct copy *c)
{
	uint8_t bin[LUKS2_BIN_SIZE];

	memset(c, 0, sizeof *c);
	c->offset = off;
	if (rd(ctx, off, bin, sizeof bin) < 0) {
		why(c, "cannot be read");
		return;
	}
	c->ok = check_bin(bin, off, primary, c) == 0 && read_area(rd, ctx, bin, c) == 0 && parse_area(bin, primary, c) == 0;
}

static void drop(struct copy *c)
{
	free(c->area);
	c->area = NULL;
}

int hi_luks2_hdr_read(luks2_read_fn rd, void *ctx, struct luks2_hdr *h,
		   char *note, size_t notelen, char *err, size_t errlen)
{
	struct copy *p = calloc(2, sizeof *p), *s = p ? p + 1 : NULL;
	int rc = -1;

	memset(h, 0, sizeof *h);
	if (note && notelen)
		note[0] = '\0';
	if (!p) {
		snprintf(err, errlen, "LUKS2 header: no memory");
		return -1;
	}
	read_copy(rd, ctx, 0, true, p);
	if (p->ok || p->hdr_size) {
		read_copy(rd, ctx, p->hdr_size ? p->hdr_size : LUKS2_HDR_SIZE_MIN, false, s);
	}
	/* The primary's size cannot be trusted (or it has none): the
	 * secondary is looked for at each standard offset. */
	for (size_t i = 0; !s->ok && !p->ok && i < N_STANDARD; i++) {
		struct copy t;
		read_copy(rd, ctx, standard_sizes[i], false, &t);
		if (t.ok || !s->offset) {
			drop(s);
			*s = t;
		} else {
			drop(&t);
		}
	}
	struct copy *use = p->ok && (!s->ok || p->seqid >= s->seqid) ? p : s->ok ? s : NULL;
	if (!use) {
		snprintf(err, errlen, "LUKS2 header: primary copy: %s; secondary copy%s: %s", p->why,
			 s->offset ? "" : " (none found)", s->offset ? s->why : "no LUKS2 magic at any standard offset");
		goto out;
	}
	struct copy *other = use == p ? s : p;
	if (note && notelen) {
		if (!other->ok)
			snprintf(note, notelen, "%s copy %s, using the %s at %llu", other == p ? "primary" : "secondary",
				 other->why[0] ? other->why : "unusable", use == p ? "primary" : "secondary",
				 (unsigned long long)use->offset);
		else if (other->seqid != use->seqid)
			snprintf(note, notelen, "the copies differ (seqid %llu and %llu), using the newer",
				 (unsigned long long)use->seqid, (unsigned long long)other->seqid);
	}
	*h = use->h;
	h->json = malloc(use->h.json_len + 1);
	if (!h->json) {
		snprintf(err, errlen, "LUKS2 header: no memory");
		goto out;
	}
	memcpy(h->json, use->area + LUKS2_BIN_SIZE, use->h.json_len);
	h->json[use->h.json_len] = '\0';
	rc = 0;
out:
	drop(p);
	drop(s);
	free(p);
	return rc;
}

void hi_luks2_hdr_free(struct luks2_hdr *h)
{
	free(h->json);
	h->json = NULL;
}

const struct luks2_digest *hi_luks2_segment_digest(const struct luks2_hdr *h, int segment)
{
	for (int i = 0; i < LUKS2_DIGESTS_MAX; i++)
		if (h->digest[i].used && (h->digest[i].segments >> segment & 1))
			return &h->digest[i];
	return NULL;
}
