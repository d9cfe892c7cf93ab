/* libFuzzer target for what a TPM answers and what the image's IMA policy
 * says: the response decoders (a TPM, or something posing as one at
 * /dev/tpmrm0, writes these bytes) of the measure stages and of the unseal
 * (tpm/tpm2_unseal.c: CreatePrimary, Load, StartAuthSession,
 * PolicyGetDigest, Unseal, ReadPublic, the token's tpm2-blob split and
 * its tpm2_srk; the salted
 * session's response check and decryption, tpm/tpm2_session.c), the
 * response-code text, and the IMA policy splitter. The first byte picks
 * which; the rest is the input.
 * Invariants: a decoded digest list is within its bounds with each digest
 * of its algorithm's size, and every text is NUL-terminated in its buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ima.h"
#include "measure.h"
#include "tpm.h"
#include "tpm2_unseal.h"

static void check_text(const char *s, size_t cap)
{
	if (!memchr(s, '\0', cap))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[160];

	if (size < 1)
		return 0;
	const uint8_t *in = data + 1;
	size_t len = size - 1;
	switch (data[0] % 13) {
	case 0: {
		struct tpm_digests d;
		long rc = hi_tpm_resp_pcr_event(in, len, &d, why, sizeof why);
		if (rc == 0) {
			if (d.n > TPM_MAX_BANKS)
				abort();
			for (size_t i = 0; i < d.n; i++)
				if (d.d[i].size != hi_tpm_alg_size(d.d[i].alg) || d.d[i].size == 0)
					abort();
		} else if (rc < 0) {
			check_text(why, sizeof why);
		}
		break;
	}
	case 1: {
		struct tpm_banks b;
		long rc = hi_tpm_resp_pcr_banks(in, len, &b, why, sizeof why);
		if (rc == 0 && b.n > TPM_MAX_BANKS)
			abort();
		/* The same bytes as a PCR_Read answer (tpm/tpm_extend.c reads PCR 11). */
		struct tpm_digest v;
		rc = hi_tpm_resp_pcr_read(in, len, TPM_ALG_SHA256, &v, why, sizeof why);
		if (rc == 0 && v.size != 0 && v.size != 32)
			abort();
		if (rc < 0)
			check_text(why, sizeof why);
		break;
	}
	case 2: {
		uint32_t rc = 0;
		memcpy(&rc, in, len < 4 ? len : 4);
		char text[96];
		hi_tpm_rc_text(rc, text, sizeof text);
		check_text(text, sizeof text);
		break;
	}
	case 3: {
		/* A response under a session whose key the input also sets: the
		 * first 32 bytes are the session key, so some HMACs verify and
		 * the decryption runs too. */
		static uint8_t resp[TPM_CMD_MAX];
		struct tpm2_session s = { .keylen = 32, .ntlen = 32 };
		uint8_t *params = NULL;
		size_t plen = 0;
		if (len < 32 || len - 32 > sizeof resp)
			break;
		memcpy(s.key, in, 32);
		memcpy(resp, in + 32, len - 32);
		if (hi_tpm2_session_resp(&s, 0x15E, resp, len - 32, &params, &plen, why, sizeof why) == 0) {
			if (params < resp || params + plen > resp + (len - 32) || s.ntlen > sizeof s.nonce_tpm)
				abort();
			uint8_t secret[TPM2_SECRET_MAX];
			size_t n = 0;
			if (hi_tpm2_unseal_params(params, plen, secret, sizeof secret, &n, why, sizeof why) == 0 &&
			    (n == 0 || n > sizeof secret))
				abort();
		} else {
			check_text(why, sizeof why);
		}
		break;
	}
	case 4: {
		uint32_t h;
		struct tpm2_primary_pub pub;
		long rc = hi_tpm2_resp_create_primary(in, len, &h, &pub, why, sizeof why);
		if (rc < 0)
			check_text(why, sizeof why);
		if (rc == 0 && ((pub.type != TPM_ALG_ECC && pub.type != TPM_ALG_RSA) || pub.nlen > sizeof pub.n))
			abort();
		break;
	}
	case 5: {
		uint32_t h;
		uint8_t name[TPM2_NAME_MAX];
		size_t n = 0;
		if (hi_tpm2_resp_load(in, len, &h, name, &n, why, sizeof why) == 0 && (n < 2 || n > sizeof name))
			abort();
		break;
	}
	case 6: {
		uint32_t h;
		uint8_t nonce[TPM_DIGEST_MAX];
		size_t n = 0;
		if (hi_tpm2_resp_start_session(in, len, &h, nonce, &n, why, sizeof why) == 0 && n > sizeof nonce)
			abort();
		break;
	}
	case 7: {
		uint8_t d[TPM_DIGEST_MAX];
		size_t n = 0;
		if (hi_tpm2_resp_policy_digest(in, len, d, &n, why, sizeof why) == 0 && n > sizeof d)
			abort();
		break;
	}
	case 8: {
		uint8_t secret[TPM2_SECRET_MAX];
		size_t n = 0;
		long rc = hi_tpm2_unseal_params(in, len, secret, sizeof secret, &n, why, sizeof why);
		if ((rc == 0 && (n == 0 || n > sizeof secret)) || (rc != 0 && n != 0))
			abort();
		break;
	}
	case 9: {
		struct tpm2_sealed s;
		if (hi_tpm2_blob_split(in, len, &s, why, sizeof why) == 0 &&
		    (s.priv != in || s.priv_len < 3 || s.pub != in + s.priv_len || s.pub_len < 3 ||
		     s.priv_len + s.pub_len > len))
			abort();
		break;
	}
	case 10: {
		struct tpm2_srk k;
		if (hi_tpm2_srk_parse(in, len, &k, why, sizeof why) == 0 &&
		    (k.namelen != 34 || (k.alg != TPM_ALG_ECC && k.alg != TPM_ALG_RSA)))
			abort();
		check_text(why, sizeof why);
		break;
	}
	case 11: {
		const uint8_t *p = NULL;
		size_t n = 0;
		uint8_t name[TPM2_NAME_MAX];
		size_t namelen = 0;
		if (hi_tpm2_resp_read_public(in, len, &p, &n, why, sizeof why) == 0) {
			if (p < in || n < 3 || p + n > in + len)
				abort();
			if (hi_tpm2_public_name(p, n, name, &namelen) == 0 && namelen != 34)
				abort();
		}
		break;
	}
	default: {
		static struct ima_rule rules[IMA_POLICY_MAX_RULES];
		long n = hi_ima_policy_rules((const char *)in, len, rules, IMA_POLICY_MAX_RULES, why, sizeof why);
		if (n > IMA_POLICY_MAX_RULES)
			abort();
		for (long i = 0; i < n; i++) {
			check_text(rules[i].text, sizeof rules[i].text);
			if (!rules[i].text[0] || strchr(rules[i].text, '#') || strchr(rules[i].text, '\n'))
				abort();
		}
		break;
	}
	}
	return 0;
}
