#include "tpm_extend.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bearssl.h>

#include "sha256.h"
#include "sha512.h"
#include "tpm_dev.h"

/* ---- one hash over the three families ----------------------------------- */

struct hash {
	uint16_t alg;
	union {
		br_sha1_context s1;   /* BearSSL, already linked for the session */
		struct sha256 s256;
		struct sha512 s512;
	} u;
};

static unsigned block_size(uint16_t alg)
{
	return alg == TPM_ALG_SHA384 || alg == TPM_ALG_SHA512 ? 128 : 64;
}

static int hash_init(struct hash *h, uint16_t alg)
{
	h->alg = alg;
	switch (alg) {
	case TPM_ALG_SHA1: br_sha1_init(&h->u.s1); return 0;
	case TPM_ALG_SHA256: hi_sha256_init(&h->u.s256); return 0;
	case TPM_ALG_SHA384: hi_sha384_init(&h->u.s512); return 0;
	case TPM_ALG_SHA512: hi_sha512_init(&h->u.s512); return 0;
	default: return -1;
	}
}

static void hash_update(struct hash *h, const void *data, size_t len)
{
	if (h->alg == TPM_ALG_SHA1)
		br_sha1_update(&h->u.s1, data, len);
	else if (h->alg == TPM_ALG_SHA256)
		hi_sha256_update(&h->u.s256, data, len);
	else
		hi_sha512_update(&h->u.s512, data, len);
}

/* out gets hi_tpm_alg_size(alg) bytes. */
static void hash_final(struct hash *h, uint8_t *out)
{
	uint8_t full[SHA512_BYTES];

	if (h->alg == TPM_ALG_SHA1)
		br_sha1_out(&h->u.s1, out);
	else if (h->alg == TPM_ALG_SHA256)
		hi_sha256_final(&h->u.s256, out);
	else {
		hi_sha512_final(&h->u.s512, full);
		memcpy(out, full, hi_tpm_alg_size(h->alg));
		memset(full, 0, sizeof full);
	}
}

int hi_tpm_bank_digest(uint16_t alg, const uint8_t *key, size_t keylen, const void *data, size_t len,
		    struct tpm_digest *out)
{
	struct hash h;
	unsigned bs = block_size(alg);
	uint8_t pad[128], kh[TPM_DIGEST_MAX], inner[TPM_DIGEST_MAX];

	memset(out, 0, sizeof *out);
	if (hash_init(&h, alg) < 0)
		return -1;
	out->alg = alg;
	out->size = (uint8_t)hi_tpm_alg_size(alg);
	if (keylen == 0) {
		hash_update(&h, data, len);
		hash_final(&h, out->bytes);
		return 0;
	}
	/* HMAC (RFC 2104): a key longer than a block is hashed first. */
	memset(pad, 0, sizeof pad);
	if (keylen > bs) {
		hash_update(&h, key, keylen);
		hash_final(&h, kh);
		memcpy(pad, kh, out->size);
		hash_init(&h, alg);
	} else {
		memcpy(pad, key, keylen);
	}
	for (unsigned i = 0; i < bs; i++)
		pad[i] ^= 0x36;
	hash_update(&h, pad, bs);
	hash_update(&h, data, len);
	hash_final(&h, inner);
	for (unsigned i = 0; i < bs; i++)
		pad[i] ^= 0x36 ^ 0x5c;
	hash_init(&h, alg);
	hash_update(&h, pad, bs);
	hash_update(&h, inner, out->size);
	hash_final(&h, out->bytes);
	memset(pad, 0, sizeof pad);
	memset(kh, 0, sizeof kh);
	memset(inner, 0, sizeof inner);
	memset(&h, 0, sizeof h);
	return 0;
}

/* ---- systemd's banks ---------------------------------------------------- */

/* A value something was measured into: not all zeros (reset) nor all
 * ones (PCRs 17-22 before a D-RTM). */
static bool value_good(const struct tpm_digest *v)
{
	bool zero = true, ones = true;

	if (v->size == 0)
		return false;
	for (unsigned i = 0; i < v->size; i++) {
		zero &= v->bytes[i] == 0x00;
		ones &= v->bytes[i] == 0xFF;
	}
	return !zero && !ones;
}

size_t hi_tpm_good_banks(const struct tpm_banks *banks, const struct tpm_digest *value, unsigned pcr, uint16_t *algs)
{
	size_t good = 0, fallback = 0;
	uint16_t fb[TPM_MAX_BANKS];

	for (size_t i = 0; i < banks->n && i < TPM_MAX_BANKS; i++) {
		if ((banks->pcrs[i] & TPM_PCRS_ALL) != TPM_PCRS_ALL || pcr > 23)
			continue;
		if (value_good(&value[i]))
			algs[good++] = banks->alg[i];
		else
			fb[fallback++] = banks->alg[i];
	}
	if (good > 0)
		return good;
	memcpy(algs, fb, fallback * sizeof fb[0]);
	return fallback;
}

/* ---- the extend ---------------------------------------------------------- */

static long transact(tpm_xfer_fn xfer, void *ctx, const uint8_t *cmd, long clen, uint8_t *resp, size_t *rlen,
		     char *err, size_t errlen)
{
	if (clen < 0) {
		snprintf(err, errlen, "the command does not encode");
		return -1;
	}
	if (xfer(ctx, cmd, (size_t)clen, resp, TPM_CMD_MAX, rlen, err, errlen) < 0)
		return -1;
	return 0;
}

long hi_tpm_extend_measure(tpm_xfer_fn xfer, void *ctx, unsigned pcr, const uint8_t *key, size_t keylen,
			const void *data, size_t len, struct tpm_digests *done, char *err, size_t errlen)
{
	static uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];   /* not on PID 1's stack */
	struct tpm_banks banks;
	struct tpm_digest value[TPM_MAX_BANKS];
	uint16_t algs[TPM_MAX_BANKS];
	size_t rlen = 0;
	char why[160];
	long rc;

	done->n = 0;
	if (transact(xfer, ctx, cmd, hi_tpm_cmd_get_pcr_banks(cmd, sizeof cmd), resp, &rlen, err, errlen) < 0)
		return -1;
	rc = hi_tpm_resp_pcr_banks(resp, rlen, &banks, why, sizeof why);
	if (rc != 0) {
		if (rc < 0)
			snprintf(err, errlen, "its PCR banks: %s", why);
		return rc;
	}
	for (size_t i = 0; i < banks.n; i++) {
		if (transact(xfer, ctx, cmd, hi_tpm_cmd_pcr_read(cmd, sizeof cmd, pcr, banks.alg[i]), resp, &rlen, err,
			     errlen) < 0)
			return -1;
		rc = hi_tpm_resp_pcr_read(resp, rlen, banks.alg[i], &value[i], why, sizeof why);
		if (rc != 0) {
			if (rc < 0)
				snprintf(err, errlen, "reading PCR %u (%s): %s", pcr, hi_tpm_alg_name(banks.alg[i]), why);
			return rc;
		}
	}
	size_t n = hi_tpm_good_banks(&banks, value, pcr, algs);
	if (n == 0) {
		snprintf(err, errlen, "the TPM has no bank with PCRs 0-23 allocated");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (hi_tpm_bank_digest(algs[i], key, keylen, data, len, &done->d[i]) < 0) {
			snprintf(err, errlen, "its %s bank uses a hash hardinit does not carry", hi_tpm_alg_name(algs[i]));
			memset(done, 0, sizeof *done);
			return -1;
		}
	}
	done->n = n;
	rc = transact(xfer, ctx, cmd, hi_tpm_cmd_pcr_extend(cmd, sizeof cmd, pcr, done), resp, &rlen, err, errlen);
	memset(cmd, 0, sizeof cmd);
	if (rc < 0)
		return -1;
	rc = hi_tpm_resp_code(resp, rlen, why, sizeof why);
	if (rc < 0)
		snprintf(err, errlen, "%s", why);
	else if (rc > 0)
		hi_tpm_rc_text((uint32_t)rc, err, errlen);
	return rc;
}

void hi_tpm_digests_banks(const struct tpm_digests *d, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < d->n && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "", hi_tpm_alg_name(d->d[i].alg));
}

long hi_tpm_extend_at(const char *dev_dir, int timeout_ms, unsigned pcr, const uint8_t *key, size_t keylen,
		      const void *data, size_t len, struct tpm_digests *done, char *path, size_t pathcap, char *err,
		      size_t errlen)
{
	struct tpm_dev d;

	if (hi_tpm_dev_open(&d, dev_dir, TPM_USE_EXTEND, timeout_ms, path, pathcap) < 0) {
		int saved = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return TPM_EXTEND_NO_NODE;
	}
	long rc = hi_tpm_extend_measure(hi_tpm_dev_xfer, &d, pcr, key, keylen, data, len, done, err, errlen);
	hi_tpm_dev_close(&d);
	return rc;
}
