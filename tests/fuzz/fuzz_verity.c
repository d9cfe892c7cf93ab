/* libFuzzer target for the verity parsers of bytes an attacker controls:
 * the veritysetup superblock (the hash device), the
 * systemd.verity_root_options words and the judge of command-line words
 * against an embedded root hash (the boot loader's command line). The
 * first byte chooses: 0 the superblock, 1 the options, 2 the judge (its
 * upper bits pick the embedded options); the rest is the input. Then the
 * table line, the hash tree's end and the measured text are made from
 * whatever parsed. The parsers are block/verity_sb.c, outside CORE_SRC,
 * so it is built in. Invariants (abort on a breach):
 *   - what a parser accepts is in range: block sizes powers of two from
 *     512 to 512 KiB, a salt of at most 256 bytes with its hex, a hash
 *     offset a multiple of 512, a format of 0 or 1;
 *   - a table line fits its buffer, covers data_blocks blocks, gives back
 *     its root hash and its options (verity_table_options), and its tree
 *     does not end before the hash offset;
 *   - the measured text is one field starting with the root hash;
 *   - an options text the judge does not refuse never leaves the embedded
 *     setup weaker or changed: no ignore-corruption, ignore-zero-blocks
 *     or check-at-most-once it did not have, the same corruption mode
 *     unless it was ignore, the same tree layout, the same signature key
 *     and signature unless it had none;
 *   - the base64 decoder of root-hash-signature=base64: (run on every
 *     options input too) gives at most 3 bytes per 4 digits and never
 *     writes past its buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verity_judge.h"
#include "verity_sb.h"

static const char root_hash[] = "9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d";

static bool power_of_two_in_range(unsigned n)
{
	return n >= 512 && n <= 512 * 1024 && (n & (n - 1)) == 0;
}

static void check_params(const struct verity_params *p)
{
	if (!power_of_two_in_range(p->data_block_size) || !power_of_two_in_range(p->hash_block_size))
		abort();
	if (p->salt_size > VERITY_SALT_MAX || strlen(p->salt_hex) != 2 * p->salt_size)
		abort();
	if (p->hash_offset % 512 || p->hash_type > 1 || !p->algorithm[0])
		abort();
}

static bool same_layout(const struct verity_params *a, const struct verity_params *b)
{
	return a->hash_type == b->hash_type && !strcmp(a->algorithm, b->algorithm) &&
	       a->data_block_size == b->data_block_size && a->hash_block_size == b->hash_block_size &&
	       a->data_blocks == b->data_blocks && a->salt_size == b->salt_size &&
	       !memcmp(a->salt, b->salt, a->salt_size) && a->hash_offset == b->hash_offset &&
	       a->superblock == b->superblock;
}

/* The judge's promise: what it lets through is the embedded setup or a
 * stronger one. */
static void check_judge(const char *text, unsigned pick)
{
	static const char *const embedded[] = {
		"", "ignore-corruption", "restart-on-corruption", "panic-on-corruption,ignore-zero-blocks",
		"check-at-most-once", "root-hash-signature-key=verity:a", "superblock=no,data-blocks=8,salt=00",
		"root-hash-signature=/etc/hardinit/root.roothash.p7s",
	};
	struct verity_anchor a = { .roothash = root_hash, .data = "/dev/vda", .hash = (pick & 8) ? "" : "/dev/vdb" };
	char word[128], err[VERITY_ERR_MAX];
	const char *why = NULL;

	hi_verity_params_defaults(&a.p);
	if (hi_verity_options_parse(embedded[pick % 8], &a.p, err, sizeof err) < 0)
		abort();
	enum verity_effect e = hi_verity_word_judge(&a, "systemd.verity_root_options", text, word, sizeof word, &why);
	if (e < VW_OTHER || e > VW_WEAKENS || !why || (verity_effect_refused(e) && strlen(why) < 20))
		abort();
	if (memchr(word, '\0', sizeof word) == NULL)
		abort();
	struct verity_params got = a.p;
	got.corruption_set = false;
	if (verity_effect_refused(e) || hi_verity_options_parse(text, &got, err, sizeof err) < 0)
		return;
	if ((got.on_corruption == VERITY_IGNORE && a.p.on_corruption != VERITY_IGNORE) ||
	    (a.p.on_corruption != VERITY_IGNORE && got.on_corruption != a.p.on_corruption) ||
	    (got.ignore_zero_blocks && !a.p.ignore_zero_blocks) ||
	    (got.check_at_most_once && !a.p.check_at_most_once) || !same_layout(&got, &a.p) ||
	    (a.p.sig_key_desc[0] && strcmp(got.sig_key_desc, a.p.sig_key_desc) != 0) ||
	    (a.p.sig_key_desc[0] && strcmp(got.sig_source, a.p.sig_source) != 0))
		abort();
	/* The other words of the table: whatever the value, bounded. */
	hi_verity_word_judge(&a, (pick & 16) ? "roothash" : "systemd.verity", text, word, sizeof word, &why);
}

static void check_table(struct verity_params *p)
{
	char err[VERITY_ERR_MAX], table[VERITY_TABLE_MAX], back[200], text[960];
	struct verity_params q;
	uint64_t sectors, end;

	if (p->data_blocks == 0)
		p->data_blocks = 1;
	const char *hash = strcmp(p->algorithm, "sha256") == 0 ? root_hash : "00";
	int n = hi_verity_table(p, "254:0", "254:1", hash, table, sizeof table, &sectors, err, sizeof err);
	if (n < 0)
		return;
	if ((size_t)n != strlen(table) || (size_t)n >= sizeof table || sectors != p->data_blocks * (p->data_block_size / 512))
		abort();
	if (hi_verity_table_root_hash(table, back, sizeof back) < 0 || strcmp(back, hash) != 0)
		abort();
	/* Checked parameters: the tree starts at or after the hash offset. */
	if (hi_verity_hash_end(p, &end) == 0 && end < p->hash_offset)
		abort();
	hi_verity_params_defaults(&q);
	if (hi_verity_table_options(table, &q) < 0 || q.on_corruption != p->on_corruption ||
	    q.ignore_zero_blocks != p->ignore_zero_blocks || q.check_at_most_once != p->check_at_most_once ||
	    strcmp(q.sig_key_desc, p->sig_key_desc) != 0)
		abort();
	if (hi_verity_measure_text(text, sizeof text, hash, p, "PARTUUID=00", 4096, "/dev/vdb", 4096) >= 0 &&
	    (strncmp(text, hash, strlen(hash)) != 0 || strpbrk(text, " \t\n")))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verity_params p;
	char err[VERITY_ERR_MAX];
	static char text[VERITY_SIG_SOURCE_MAX + 700];
	unsigned char der[64];

	if (size < 1)
		return 0;
	hi_verity_params_defaults(&p);
	size_t n = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
	memcpy(text, data + 1, n);
	text[n] = '\0';
	switch (data[0] % 3) {
	case 0:
		if (hi_verity_sb_parse(data + 1, size - 1, &p, err, sizeof err) < 0)
			return 0;
		if (p.data_blocks == 0)
			abort();
		break;
	case 1: {
		int got = hi_verity_sig_base64(text, der, sizeof der);
		if (got > (int)sizeof der || (got >= 0 && (size_t)got > strlen(text) * 3 / 4))
			abort();
		if (hi_verity_options_parse(text, &p, err, sizeof err) < 0)
			return 0;
		hi_verity_options_weaken(&p);
		break;
	}
	default:
		check_judge(text, data[0] / 3);
		return 0;
	}
	check_params(&p);
	check_table(&p);
	return 0;
}
