/* libFuzzer target for the signed PCR policy's parsers: byte 0 % 4 picks
 * one, the rest is its input.
 *   0: tpm2-pcr-signature.json (tpm/tpm2_pcrsig.c: hi_tpm2_pcrsig_find),
 *      which the boot loader hands over (the UKI's .pcrsig), looked up for
 *      the sha256 bank (sha1 when byte 0 & 4), PCR 11, the key of
 *      tests/unit/test_tpm2_authorize.c and a policy of 0x5a bytes, so
 *      the seeds reach a match;
 *   1: the token's PEM public key (hi_tpm2_rsa_pub_parse), from the disk;
 *   2: a LoadExternal response, 3: a VerifySignature response
 *      (tpm/tpm2_authorize.c), from the TPM or whoever sits on its bus.
 * Invariants: a signature found has 1 to its buffer's bytes; a key parsed
 * has a 1024-4096-bit modulus without a leading zero and exponent 65537,
 * and encodes into LoadExternal; a name is 2 to its buffer's bytes; a
 * ticket is TPM_ST_VERIFIED with at most 64 bytes; every refusal is a
 * NUL-terminated, non-empty line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm.h"
#include "tpm2_authorize.h"
#include "tpm2_pcrsig.h"

static void line_ok(const char *why, size_t cap)
{
	if (!memchr(why, '\0', cap) || !why[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t fp[32] = { 0xa8, 0xb4, 0x27, 0xcf, 0xf1, 0x3f, 0xed, 0x2c, 0x51, 0x86, 0x41,
					0xb5, 0x80, 0x5c, 0x59, 0xed, 0xd8, 0x14, 0xa9, 0xef, 0xa7, 0xdb,
					0x0e, 0xf0, 0xe8, 0x8f, 0x10, 0x08, 0x78, 0xcb, 0xc5, 0xf3 };
	static uint8_t out[TPM_CMD_MAX];
	static struct tpm2_rsa_pub k;
	uint8_t pol[32], sig[TPM2_RSA_MAX], name[TPM2_RSA_MAX];
	char why[300];
	size_t n = 0;
	uint32_t h;

	if (size < 1)
		return 0;
	memset(why, 0x7f, sizeof why);
	const uint8_t *in = data + 1;
	size_t len = size - 1;
	switch (data[0] % 4) {
	case 0: {
		memset(pol, 0x5a, sizeof pol);
		struct tpm2_pcrsig_want w = { data[0] & 4 ? TPM_ALG_SHA1 : TPM_ALG_SHA256, 1u << 11, fp, pol, sizeof pol };
		int rc = hi_tpm2_pcrsig_find((const char *)in, len, &w, sig, sizeof sig, &n, why, sizeof why);
		if (rc == TPM2_PCRSIG_FOUND) {
			if (n == 0 || n > sizeof sig)
				abort();
		} else if (rc == TPM2_PCRSIG_NONE || rc == TPM2_PCRSIG_BAD) {
			line_ok(why, sizeof why);
		} else {
			abort();
		}
		break;
	}
	case 1:
		if (hi_tpm2_rsa_pub_parse(in, len, &k, why, sizeof why) == 0) {
			if (k.nlen < TPM2_RSA_MIN || k.nlen > TPM2_RSA_MAX || k.n[0] == 0 || k.e != 65537)
				abort();
			if (hi_tpm2_cmd_load_external(out, sizeof out, &k) < 0 || hi_tpm2_rsa_name(&k, name) < 0)
				abort();
		} else {
			line_ok(why, sizeof why);
		}
		break;
	case 2: {
		long rc = hi_tpm2_resp_load_external(in, len, &h, name, 34, &n, why, sizeof why);
		if (rc == 0 && (n < 2 || n > 34))
			abort();
		if (rc < 0)
			line_ok(why, sizeof why);
		break;
	}
	default: {
		static struct tpm2_ticket t;
		long rc = hi_tpm2_resp_verify_signature(in, len, &t, why, sizeof why);
		if (rc == 0 && (t.tag != 0x8022 || t.len > TPM2_TICKET_DIGEST_MAX))
			abort();
		if (rc < 0)
			line_ok(why, sizeof why);
		break;
	}
	}
	return 0;
}
