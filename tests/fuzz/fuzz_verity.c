/* Fuzz target: the verity superblock parser and the options words, the
 * two readers of bytes an attacker controls (the hash device, the command
 * line). Input: a first byte choosing the parser, then the bytes. The
 * parsers are stages/verity_sb.c, outside CORE_SRC, so it is built in. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "verity_sb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verity_params p;
	char err[VERITY_ERR_MAX], table[VERITY_TABLE_MAX], text[700], hash[200];
	uint64_t sectors, end;

	if (size < 1)
		return 0;
	verity_params_defaults(&p);
	if (data[0] & 1) {
		size_t n = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
		memcpy(text, data + 1, n);
		text[n] = '\0';
		if (verity_options_parse(text, &p, err, sizeof err) < 0)
			return 0;
	} else if (verity_sb_parse(data + 1, size - 1, &p, err, sizeof err) < 0) {
		return 0;
	}
	verity_options_weaken(&p);
	verity_hash_end(&p, &end);
	if (p.data_blocks == 0)
		p.data_blocks = 1;
	snprintf(hash, sizeof hash, "%0*d", p.algorithm[0] ? 64 : 2, 0);
	if (verity_table(&p, "254:0", "254:1", hash, table, sizeof table, &sectors, err, sizeof err) > 0)
		verity_table_root_hash(table, hash, sizeof hash);
	return 0;
}
