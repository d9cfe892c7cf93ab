/* libFuzzer target for the systemd-tpm2 LUKS2 token (block/luks2_json.c):
 * the token's JSON comes from the disk's header, which anyone holding the
 * disk can write. Invariants: a parsed token's lengths are within their
 * buffers, its masks within 24 PCRs and the keyslot table, its bank and
 * primary algorithm among those systemd writes, the name of a field
 * not honoured NUL-terminated; an error is a
 * NUL-terminated line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luks2.h"
#include "luks2_json.h"
#include "tpm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hi_luks2_tpm2_token t;
	char err[LUKS2_ERR_MAX];

	if (hi_luks2_tpm2_token_parse((const char *)data, size, &t, err, sizeof err) == 0) {
		if (t.blob_len == 0 || t.blob_len > sizeof t.blob || t.policy_hash_len == 0 ||
		    t.policy_hash_len > sizeof t.policy_hash || t.pubkey_len > sizeof t.pubkey ||
		    t.salt_len > sizeof t.salt || t.srk_len > sizeof t.srk ||
		    !memchr(t.unsupported, '\0', sizeof t.unsupported))
			abort();
		if ((t.pcrs | t.pubkey_pcrs) >> LUKS2_TPM2_PCRS || t.keyslots == 0)
			abort();
		if (t.pcr_bank != TPM_ALG_SHA1 && t.pcr_bank != TPM_ALG_SHA256 && t.pcr_bank != TPM_ALG_SHA384 &&
		    t.pcr_bank != TPM_ALG_SHA512)
			abort();
		if (t.primary_alg != TPM_ALG_ECC && t.primary_alg != TPM_ALG_RSA)
			abort();
		if (t.pubkey_pcrs && !t.pubkey_len)
			abort();
	} else if (!memchr(err, '\0', sizeof err) || !err[0]) {
		abort();
	}
	return 0;
}
