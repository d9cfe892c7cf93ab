/* The TPM2 wire for tpm/'s encoders and decoders (internal to tpm/):
 * a bounded writer that marks itself bad instead of overflowing, the
 * command header whose size is filled in at the end, and a bounded
 * big-endian reader that marks itself bad instead of reading past. */
#ifndef HARDINIT_TPM_WIRE_H
#define HARDINIT_TPM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TPM_ST_NO_SESSIONS   0x8001
#define TPM_ST_SESSIONS      0x8002
#define TPM_RS_PW            0x40000009   /* the password session: empty auth */
#define TPM_HEADER           10

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool bad;
};

static inline void put(struct buf *b, uint64_t v, unsigned bytes)
{
	if (b->len + bytes > b->cap) {
		b->bad = true;
		return;
	}
	for (unsigned i = 0; i < bytes; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static inline void put_bytes(struct buf *b, const void *data, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->bad = true;
		return;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* The header's size field is known only at the end. */
static inline long finish(struct buf *b)
{
	if (b->bad || b->len < TPM_HEADER)
		return -1;
	for (int i = 0; i < 4; i++)
		b->p[2 + i] = (uint8_t)(b->len >> (24 - 8 * i));
	return (long)b->len;
}

static inline void header(struct buf *b, uint16_t tag, uint32_t cc)
{
	put(b, tag, 2);
	put(b, 0, 4);
	put(b, cc, 4);
}

/* An empty password authorization: handle, empty nonce, no attributes,
 * empty hmac, behind its size. */
static inline void password_session(struct buf *b)
{
	put(b, 9, 4);
	put(b, TPM_RS_PW, 4);
	put(b, 0, 2);
	put(b, 0, 1);
	put(b, 0, 2);
}

struct reader {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static inline uint64_t get(struct reader *r, unsigned bytes)
{
	uint64_t v = 0;

	if (r->bad || r->len - r->pos < bytes) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->pos++];
	return v;
}

#endif
