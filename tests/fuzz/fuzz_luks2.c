/* Fuzz target: the LUKS2 header reader (block/luks2_hdr.c) and its JSON
 * parser (block/luks2_json.c), the bytes of a disk anyone can write.
 * and the luks stage's readers of the crypttab and of the rd.luks.* words
 * (stages/luks.c). Input: byte 0 chooses the mode, the rest is the data.
 *   0x00-0xbf: the data is the JSON text, parsed alone (most runs);
 *   0xc0-0xcf: the data is a crypttab;
 *   0xd0-0xdf: the data is a kernel command line, resolved into volumes
 *              with a fixed crypttab;
 *   0xe0-0xef: the data is the start of the device as it is;
 *   0xf0-0xff: the data is the JSON area of a primary copy whose binary
 *              header and checksum are made valid here (so the fuzzer gets
 *              past the checksum), with a valid or damaged secondary. The
 *              fuzz build's checksum covers a copy's first 512 bytes
 *              (LUKS2_CSUM_SPAN), not 16 KiB: four sha256 of 16 KiB per
 *              input held the target at ~150 inputs/s.
 * Invariants: a usable keyslot's sizes are within the limits, a token's
 * span lies inside the JSON text, the text is NUL-terminated, a dm-crypt
 * table made from the header has the words hardinit writes and no more
 * (the segment's encryption is one word of them). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "luks2.h"
#include "luks2_dm.h"
#include "luks2_hdr.h"
#include "luks2_json.h"
#include "luks_plan.h"
#include "sha256.h"
#include "tpm2_unseal.h"

#define COPY 16384

struct mem { const uint8_t *p; size_t n; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mem *m = ctx;
	if (off > m->n || len > m->n - off)
		return -1;
	memcpy(buf, m->p + off, len);
	return 0;
}

static void make_copy(uint8_t *c, const uint8_t *json, size_t len, int secondary, uint64_t seqid)
{
	memset(c, 0, COPY);
	memcpy(c, secondary ? "SKUL\xba\xbe" : "LUKS\xba\xbe", 6);
	c[7] = 2;
	c[8 + 6] = COPY >> 8;                     /* hdr_size, big-endian */
	c[16 + 7] = (uint8_t)seqid;
	memcpy(c + 72, "sha256", 6);
	memcpy(c + 168, "00000000-0000-0000-0000-000000000000", 36);
	if (secondary)
		c[256 + 6] = COPY >> 8;           /* hdr_offset */
	memcpy(c + 4096, json, len > COPY - 4096 ? COPY - 4096 : len);
	hi_sha256(c, LUKS2_CSUM_SPAN(COPY), c + 448);   /* 512 bytes in the fuzz build */
}

static void check(const struct luks2_hdr *h)
{
	if (h->json && strlen(h->json) != h->json_len)
		abort();
	for (int i = 0; i < LUKS2_KEYSLOTS_MAX; i++) {
		const struct luks2_keyslot *k = &h->keyslot[i];
		if (k->usable && (k->key_size > LUKS2_KEY_MAX || k->area_key_size > LUKS2_KEY_MAX ||
				  k->af_stripes > LUKS2_STRIPES_MAX || k->kdf.salt_len > LUKS2_SALT_MAX ||
				  k->area_size < (uint64_t)k->key_size * k->af_stripes))
			abort();
	}
	for (int i = 0; i < LUKS2_TOKENS_MAX; i++)
		if (h->token[i].used && h->json && h->token[i].off + h->token[i].len > h->json_len)
			abort();
	for (int i = 0; i < LUKS2_DIGESTS_MAX; i++)
		if (h->digest[i].digest_len > LUKS2_DIGEST_MAX || h->digest[i].salt_len > LUKS2_SALT_MAX)
			abort();
	/* CIPHER KEYREF IV_TWEAK DEVICE OFFSET, no features asked: 5 words. */
	static const struct luks2_dm_opts none;
	char table[LUKS2_TABLE_MAX], err[LUKS2_ERR_MAX];
	uint64_t sectors;
	if (hi_luks2_dm_table(h, &none, "254:0", 1ull << 40, "cryptsetup:x-d0", table, sizeof table, &sectors, err,
			   sizeof err) == 0) {
		int words = 0;
		for (char *p = table; *p; p++)
			words += (p == table || p[-1] == ' ') && *p != ' ';
		bool sector_feature = h->segment[0].sector_size != 512;
		if (words != (sector_feature ? 7 : 5) || strchr(h->segment[0].encryption, ' '))
			abort();
	}
}

/* Every volume: a UUID of 36 bytes, a name within its bound, sane tries. */
static void check_plan(const struct luks_plan *p)
{
	if (p->n > LUKS_VOLUMES_MAX)
		abort();
	for (size_t i = 0; i < p->n; i++)
		if (strlen(p->v[i].uuid) != LUKS_UUID_MAX || !p->v[i].name[0] || strlen(p->v[i].name) >= LUKS_NAME_MAX ||
		    p->v[i].o.tries < 0 || p->v[i].o.tries > LUKS_TRIES_MAX)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct luks2_hdr h;
	char err[LUKS2_ERR_MAX], note[LUKS2_ERR_MAX];

	if (size < 1)
		return 0;
	int mode = data[0] < 0xc0 ? 0 : data[0] < 0xd0 ? 3 : data[0] < 0xe0 ? 4 : data[0] < 0xf0 ? 2 : 1;
	data++;
	size--;
	if (mode == 3 || mode == 4) {
		static struct luks_plan ct, plan;
		static struct cmdline c;
		memset(&ct, 0, sizeof ct);
		if (mode == 3) {
			if (hi_luks_crypttab_parse((const char *)data, size, &ct, err, sizeof err) == 0)
				check_plan(&ct);
			return 0;
		}
		static const char tab[] = "root UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none discard\n";
		hi_luks_crypttab_parse(tab, sizeof tab - 1, &ct, err, sizeof err);
		if (hi_cmdline_parse(&c, (const char *)data, size, err, sizeof err) == 0 &&
		    hi_luks_plan_resolve(&c, &ct, &plan, err, sizeof err) == 0)
			check_plan(&plan);
		return 0;
	}
	if (mode == 0) {
		memset(&h, 0, sizeof h);
		if (hi_luks2_json_parse((const char *)data, size, &h, err, sizeof err) == 0)
			check(&h);
		return 0;
	}
	if (mode == 2) {
		struct mem m = { data, size };
		if (hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err) == 0)
			check(&h);
		hi_luks2_hdr_free(&h);
		return 0;
	}
	static uint8_t img[2 * COPY];          /* static: no fresh pages per input */
	make_copy(img, data, size, 0, 1);
	make_copy(img + COPY, data, size, 1, size & 1 ? 2 : 1);
	if (size & 2)
		img[COPY + 24] ^= 1;                 /* a damaged secondary (its label) */
	struct mem m = { img, 2 * COPY };
	if (hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err) == 0)
		check(&h);
	hi_luks2_hdr_free(&h);
	return 0;
}
