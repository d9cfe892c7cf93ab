#include "tpm.h"

#include <stdio.h>
#include <string.h>

#include "sha256.h"
#include "tpm_wire.h"

#define TPM_CC_PCR_EXTEND    0x00000182
#define TPM_CC_PCR_EVENT     0x0000013C
#define TPM_CC_GET_CAPABILITY 0x0000017A
#define TPM_CC_PCR_READ      0x0000017E
#define TPM_CAP_PCRS         0x00000005
#define TPM_PCR_MAX          23

/* ---- algorithms -------------------------------------------------------- */

static const struct { uint16_t alg; unsigned size; const char *name; } algs[] = {
	{ TPM_ALG_SHA1, 20, "sha1" },
	{ TPM_ALG_SHA256, 32, "sha256" },
	{ TPM_ALG_SHA384, 48, "sha384" },
	{ TPM_ALG_SHA512, 64, "sha512" },
	{ TPM_ALG_SM3_256, 32, "sm3_256" },
};

unsigned hi_tpm_alg_size(uint16_t alg)
{
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (algs[i].alg == alg)
			return algs[i].size;
	return 0;
}

const char *hi_tpm_alg_name(uint16_t alg)
{
	static char other[8];

	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (algs[i].alg == alg)
			return algs[i].name;
	snprintf(other, sizeof other, "0x%04x", alg);
	return other;
}

/* ---- commands ----------------------------------------------------------- */

long hi_tpm_cmd_get_pcr_banks(uint8_t *out, size_t cap)
{
	struct buf b = { out, 0, cap, false };

	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_GET_CAPABILITY);
	put(&b, TPM_CAP_PCRS, 4);
	put(&b, 0, 4);           /* property: ignored for PCRS */
	put(&b, 1, 4);           /* propertyCount */
	return finish(&b);
}

long hi_tpm_cmd_pcr_event(uint8_t *out, size_t cap, unsigned pcr, const void *event, size_t len)
{
	struct buf b = { out, 0, cap, false };

	if (pcr > TPM_PCR_MAX || len > TPM_EVENT_MAX)
		return -1;
	header(&b, TPM_ST_SESSIONS, TPM_CC_PCR_EVENT);
	put(&b, pcr, 4);
	password_session(&b);
	put(&b, len, 2);
	put_bytes(&b, event, len);
	return finish(&b);
}

long hi_tpm_cmd_pcr_extend(uint8_t *out, size_t cap, unsigned pcr, const struct tpm_digests *d)
{
	struct buf b = { out, 0, cap, false };

	if (pcr > TPM_PCR_MAX || d->n == 0 || d->n > TPM_MAX_BANKS)
		return -1;
	header(&b, TPM_ST_SESSIONS, TPM_CC_PCR_EXTEND);
	put(&b, pcr, 4);
	password_session(&b);
	put(&b, d->n, 4);        /* TPML_DIGEST_VALUES */
	for (size_t i = 0; i < d->n; i++) {
		if (d->d[i].size != hi_tpm_alg_size(d->d[i].alg) || d->d[i].size == 0)
			return -1;
		put(&b, d->d[i].alg, 2);
		put_bytes(&b, d->d[i].bytes, d->d[i].size);
	}
	return finish(&b);
}

long hi_tpm_cmd_pcr_extend_sha256(uint8_t *out, size_t cap, unsigned pcr, const uint8_t digest[32])
{
	struct tpm_digests d = { .n = 1 };

	d.d[0].alg = TPM_ALG_SHA256;
	d.d[0].size = 32;
	memcpy(d.d[0].bytes, digest, 32);
	return hi_tpm_cmd_pcr_extend(out, cap, pcr, &d);
}

long hi_tpm_cmd_pcr_read(uint8_t *out, size_t cap, unsigned pcr, uint16_t alg)
{
	struct buf b = { out, 0, cap, false };

	if (pcr > TPM_PCR_MAX)
		return -1;
	header(&b, TPM_ST_NO_SESSIONS, TPM_CC_PCR_READ);
	put(&b, 1, 4);           /* TPML_PCR_SELECTION: one bank */
	put(&b, alg, 2);
	put(&b, 3, 1);           /* sizeofSelect: PCRs 0-23 */
	for (unsigned i = 0; i < 3; i++)
		put(&b, pcr / 8 == i ? 1u << (pcr % 8) : 0, 1);
	return finish(&b);
}

/* ---- responses ---------------------------------------------------------- */

long hi_tpm_resp_code(const uint8_t *in, size_t len, char *why, size_t whylen)
{
	struct reader r = { in, len, 0, false };

	uint16_t tag = (uint16_t)get(&r, 2);
	uint32_t size = (uint32_t)get(&r, 4);
	uint32_t rc = (uint32_t)get(&r, 4);
	if (r.bad) {
		snprintf(why, whylen, "a response of %zu bytes is shorter than its header", len);
		return -1;
	}
	if (size != len) {
		snprintf(why, whylen, "the response says %u bytes but %zu arrived", size, len);
		return -1;
	}
	if (tag != TPM_ST_NO_SESSIONS && tag != TPM_ST_SESSIONS) {
		snprintf(why, whylen, "the response tag 0x%04x is not a TPM 2.0 tag", tag);
		return -1;
	}
	return rc;
}

bool hi_tpm_rc_asks_again(long rc)
{
	return rc == 0x922 || rc == 0x90A || rc == 0x908;
}

long hi_tpm_resp_pcr_banks(const uint8_t *in, size_t len, struct tpm_banks *banks, char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	banks->n = 0;
	if (rc != 0)
		return rc;
	get(&r, 1);                              /* moreData */
	uint32_t cap = (uint32_t)get(&r, 4);
	uint32_t count = (uint32_t)get(&r, 4);
	if (!r.bad && cap != TPM_CAP_PCRS) {
		snprintf(why, whylen, "the capability answered is 0x%x, not TPM_CAP_PCRS", cap);
		return -1;
	}
	if (!r.bad && count > 16) {
		snprintf(why, whylen, "%u PCR banks is more than a TPM has", count);
		return -1;
	}
	for (uint32_t i = 0; i < count && !r.bad; i++) {
		uint16_t alg = (uint16_t)get(&r, 2);
		uint8_t n = (uint8_t)get(&r, 1);
		bool active = false;
		uint32_t pcrs = 0;
		for (unsigned j = 0; j < n; j++) {
			uint8_t sel = (uint8_t)get(&r, 1);
			active |= sel != 0;
			if (j < 3)
				pcrs |= (uint32_t)sel << (8 * j);
		}
		if (active && !r.bad && banks->n < TPM_MAX_BANKS) {
			banks->pcrs[banks->n] = pcrs;
			banks->alg[banks->n++] = alg;
		}
	}
	if (r.bad) {
		snprintf(why, whylen, "the PCR selection list is cut short");
		return -1;
	}
	return 0;
}

long hi_tpm_resp_pcr_event(const uint8_t *in, size_t len, struct tpm_digests *out, char *why, size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	out->n = 0;
	if (rc != 0)
		return rc;
	uint32_t param_size = (uint32_t)get(&r, 4);
	if (!r.bad && param_size > len - r.pos) {
		snprintf(why, whylen, "the parameter area (%u bytes) runs past the response", param_size);
		return -1;
	}
	uint32_t count = (uint32_t)get(&r, 4);
	if (!r.bad && count > TPM_MAX_BANKS) {
		snprintf(why, whylen, "%u digests is more than the %d banks hardinit records", count, TPM_MAX_BANKS);
		return -1;
	}
	for (uint32_t i = 0; i < count && !r.bad; i++) {
		struct tpm_digest *d = &out->d[i];
		d->alg = (uint16_t)get(&r, 2);
		unsigned size = hi_tpm_alg_size(d->alg);
		if (!r.bad && size == 0) {
			snprintf(why, whylen, "digest of unknown algorithm 0x%04x", d->alg);
			return -1;
		}
		d->size = (uint8_t)size;
		for (unsigned j = 0; j < size; j++)
			d->bytes[j] = (uint8_t)get(&r, 1);
		out->n = i + 1;
	}
	if (r.bad) {
		out->n = 0;
		snprintf(why, whylen, "the digest list is cut short");
		return -1;
	}
	return 0;
}

long hi_tpm_resp_pcr_read(const uint8_t *in, size_t len, uint16_t alg, struct tpm_digest *out, char *why,
		       size_t whylen)
{
	long rc = hi_tpm_resp_code(in, len, why, whylen);
	struct reader r = { in, len, TPM_HEADER, false };

	memset(out, 0, sizeof *out);
	out->alg = alg;
	if (rc != 0)
		return rc;
	get(&r, 4);                              /* pcrUpdateCounter */
	uint32_t nsel = (uint32_t)get(&r, 4);
	if (!r.bad && nsel > 1) {
		snprintf(why, whylen, "%u PCR selections answered for one asked", nsel);
		return -1;
	}
	bool selected = false;
	for (uint32_t i = 0; i < nsel && !r.bad; i++) {
		uint16_t a = (uint16_t)get(&r, 2);
		uint8_t n = (uint8_t)get(&r, 1);
		for (unsigned j = 0; j < n; j++)
			selected |= get(&r, 1) != 0;
		if (!r.bad && a != alg) {
			snprintf(why, whylen, "the bank answered is %s, not %s", hi_tpm_alg_name(a), hi_tpm_alg_name(alg));
			return -1;
		}
	}
	uint32_t ndig = (uint32_t)get(&r, 4);
	if (!r.bad && ndig != (selected ? 1u : 0u)) {
		snprintf(why, whylen, "%u digests answered for %d PCRs", ndig, selected ? 1 : 0);
		return -1;
	}
	if (ndig == 1) {
		unsigned size = (unsigned)get(&r, 2);
		if (!r.bad && size != hi_tpm_alg_size(alg)) {
			snprintf(why, whylen, "a %s value of %u bytes", hi_tpm_alg_name(alg), size);
			return -1;
		}
		for (unsigned j = 0; j < size && !r.bad; j++)
			out->bytes[j] = (uint8_t)get(&r, 1);
		out->size = r.bad ? 0 : (uint8_t)size;
	}
	if (r.bad) {
		out->size = 0;
		snprintf(why, whylen, "the PCR value is cut short");
		return -1;
	}
	return 0;
}

/* ---- response codes ----------------------------------------------------- */

static const struct { uint32_t rc; const char *name; } rc_names[] = {
	{ 0x100, "TPM_RC_INITIALIZE (the TPM was not started)" },
	{ 0x101, "TPM_RC_FAILURE (the TPM is in failure mode)" },
	{ 0x143, "TPM_RC_COMMAND_CODE (command not supported)" },
	{ 0x144, "TPM_RC_AUTHSIZE" },
	{ 0x901, "TPM_RC_CONTEXT_GAP" },
	{ 0x902, "TPM_RC_OBJECT_MEMORY" },
	{ 0x903, "TPM_RC_SESSION_MEMORY" },
	{ 0x904, "TPM_RC_MEMORY" },
	{ 0x907, "TPM_RC_LOCALITY (this locality may not extend that PCR)" },
	{ 0x908, "TPM_RC_YIELDED" },
	{ 0x909, "TPM_RC_CANCELED" },
	{ 0x90A, "TPM_RC_TESTING (self test still running; retry)" },
	{ 0x921, "TPM_RC_LOCKOUT" },
	{ 0x922, "TPM_RC_RETRY" },
	{ 0x923, "TPM_RC_NV_UNAVAILABLE" },
	/* format one, without the parameter/handle/session number */
	{ 0x084, "TPM_RC_VALUE" },
	{ 0x08B, "TPM_RC_HANDLE" },
	{ 0x08E, "TPM_RC_AUTH_FAIL" },
	{ 0x095, "TPM_RC_SIZE" },
	{ 0x08D, "TPM_RC_RANGE" },
	{ 0x097, "TPM_RC_TAG" },
	{ 0x098, "TPM_RC_SELECTOR" },
	{ 0x09A, "TPM_RC_INSUFFICIENT" },
	{ 0x0A2, "TPM_RC_BAD_AUTH" },
	{ 0x083, "TPM_RC_HASH" },
	{ 0x081, "TPM_RC_ASYMMETRIC" },
};

static const char *rc_name(uint32_t rc)
{
	for (size_t i = 0; i < sizeof rc_names / sizeof rc_names[0]; i++)
		if (rc_names[i].rc == rc)
			return rc_names[i].name;
	return NULL;
}

void hi_tpm_rc_text(uint32_t rc, char *out, size_t cap)
{
	/* Format one (bit 7): bits 0-5 the error, bit 6 parameter or not,
	 * bits 8-11 which parameter, or handle (1-7) / session (8-15). */
	if (rc & 0x80) {
		uint32_t base = (rc & 0x3F) | 0x80;
		unsigned n = (rc >> 8) & 0xF;
		const char *name = rc_name(base);
		const char *what = rc & 0x40 ? "parameter" : n >= 8 ? "session" : "handle";
		unsigned which = rc & 0x40 || n < 8 ? n : n - 8;
		if (name)
			snprintf(out, cap, "%s (%s %u; code 0x%x)", name, what, which, rc);
		else
			snprintf(out, cap, "TPM error 0x%03x (%s %u; code 0x%x)", base, what, which, rc);
		return;
	}
	const char *name = rc_name(rc);
	if (name)
		snprintf(out, cap, "%s (code 0x%x)", name, rc);
	else if (rc & 0x400)
		snprintf(out, cap, "vendor or TSS error code 0x%x", rc);
	else
		snprintf(out, cap, "TPM %s code 0x%x", rc & 0x800 ? "warning" : "error", rc);
}

void hi_tpm_replay_sha256(uint8_t pcr[32], const uint8_t digest[32])
{
	uint8_t both[64];

	memcpy(both, pcr, 32);
	memcpy(both + 32, digest, 32);
	hi_sha256(both, sizeof both, pcr);
}
