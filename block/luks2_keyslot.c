/* Opening a LUKS2 keyslot with a passphrase, as cryptsetup does: the
 * keyslot's KDF (pbkdf2, argon2i, argon2id) gives the area key; the area
 * (key_size * stripes bytes) is read and decrypted sector by sector; the
 * luks1 anti-forensic merge gives the candidate volume key; the digest
 * bound to the keyslot says whether it is the volume key. Every buffer
 * that holds key material is locked in memory and wiped before it is
 * freed; nothing here logs. argon2 is libargon2's (Debian's
 * libargon2-dev, the reference implementation). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <argon2.h>

#include "luks2.h"
#include "luks2_hdr.h"
#include "luks2_keyslot.h"
#include "pbkdf2.h"
#include "sha256.h"
#include "sha512.h"

/* The luks1 diffuse: each digest-sized block i of buf replaced by
 * H(be32(i) || block), the last partial block by the digest's prefix;
 * H is sha256 (cryptsetup's default) or sha512 (systemd-cryptenroll's). */
static void diffuse(uint8_t *buf, size_t len, bool is512)
{
	uint8_t d[SHA512_BYTES];
	size_t dlen = is512 ? SHA512_BYTES : SHA256_BYTES;
	size_t blocks = len / dlen, pad = len % dlen;

	for (size_t i = 0; i <= blocks; i++) {
		size_t n = i < blocks ? dlen : pad;
		if (!n)
			break;
		uint32_t iv = htonl((uint32_t)i);
		if (is512) {
			struct sha512 s;
			hi_sha512_init(&s);
			hi_sha512_update(&s, &iv, sizeof iv);
			hi_sha512_update(&s, buf + i * dlen, n);
			hi_sha512_final(&s, d);
			explicit_bzero(&s, sizeof s);
		} else {
			struct sha256 s;
			hi_sha256_init(&s);
			hi_sha256_update(&s, &iv, sizeof iv);
			hi_sha256_update(&s, buf + i * dlen, n);
			hi_sha256_final(&s, d);
			explicit_bzero(&s, sizeof s);
		}
		memcpy(buf + i * dlen, d, n);
	}
	explicit_bzero(d, sizeof d);
}

int hi_luks2_af_merge(const uint8_t *src, size_t keylen, unsigned stripes, const char *hash, uint8_t *out)
{
	uint8_t acc[LUKS2_KEY_MAX];

	bool is512 = hash && !strcmp(hash, "sha512");
	if (!hash || (strcmp(hash, "sha256") != 0 && !is512) || keylen == 0 || keylen > LUKS2_KEY_MAX || stripes == 0)
		return -1;
	memset(acc, 0, keylen);
	for (unsigned i = 0; i + 1 < stripes; i++) {
		for (size_t k = 0; k < keylen; k++)
			acc[k] ^= src[i * keylen + k];
		diffuse(acc, keylen, is512);
	}
	for (size_t k = 0; k < keylen; k++)
		out[k] = acc[k] ^ src[(size_t)(stripes - 1) * keylen + k];
	explicit_bzero(acc, sizeof acc);
	return 0;
}

int hi_luks2_kdf_within(const struct hi_luks2_kdf *k, uint64_t free_kib, char *err, size_t errlen)
{
	if (k->type == LUKS2_KDF_PBKDF2) {
		if (k->iterations <= LUKS2_PBKDF2_ITERATIONS_MAX)
			return 0;
		snprintf(err, errlen, "pbkdf2 asks %u iterations, over hardinit's limit of %u (minutes of work before "
			 "the boot goes on); the header is damaged or hostile, or re-create the keyslot with cryptsetup's "
			 "default --iter-time", k->iterations, LUKS2_PBKDF2_ITERATIONS_MAX);
		return -1;
	}
	if (k->type != LUKS2_KDF_ARGON2I && k->type != LUKS2_KDF_ARGON2ID)
		return 0;
	uint64_t usable = free_kib > LUKS2_KDF_MEM_RESERVE ? free_kib - LUKS2_KDF_MEM_RESERVE : 0;
	if (k->memory > LUKS2_ARGON2_MEMORY_MAX || k->cpus > LUKS2_ARGON2_CPUS_MAX) {
		snprintf(err, errlen, "argon2 memory %u KiB or %u lanes over the limits (%u KiB, %d)", k->memory, k->cpus,
			 LUKS2_ARGON2_MEMORY_MAX, LUKS2_ARGON2_CPUS_MAX);
		return -1;
	}
	if (k->memory > usable) {
		snprintf(err, errlen, "argon2 asks %u KiB of memory, and this machine has %llu KiB free (%u KiB kept "
			 "for the kernel); boot with more memory, or re-create the keyslot with a smaller --pbkdf-memory",
			 k->memory, (unsigned long long)free_kib, LUKS2_KDF_MEM_RESERVE);
		return -1;
	}
	if ((uint64_t)k->time * k->memory > LUKS2_ARGON2_WORK_MAX) {
		snprintf(err, errlen, "argon2 asks %u passes over %u KiB, over hardinit's limit of %llu KiB written "
			 "(minutes of work before the boot goes on); the header is damaged or hostile, or re-create the "
			 "keyslot with cryptsetup's default --iter-time", k->time, k->memory,
			 (unsigned long long)LUKS2_ARGON2_WORK_MAX);
		return -1;
	}
	return 0;
}

/* Free memory in KiB as the kernel counts it now (the initramfs's own
 * files are not free: they are in memory that argon2 cannot take). */
static uint64_t free_kib(void)
{
	struct sysinfo si;
	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.freeram * (si.mem_unit ? si.mem_unit : 1) / 1024;
}

int hi_luks2_kdf(const struct hi_luks2_kdf *k, const uint8_t *pass, size_t passlen, uint8_t *out, size_t outlen,
	      char *err, size_t errlen)
{
	if (hi_luks2_kdf_within(k, k->type == LUKS2_KDF_PBKDF2 ? 0 : free_kib(), err, errlen) < 0)
		return -1;
	if (k->type == LUKS2_KDF_PBKDF2) {
		if (hi_pbkdf2(k->hash, pass, passlen, k->salt, k->salt_len, k->iterations, out, outlen) < 0) {
			snprintf(err, errlen, "pbkdf2 with %s: not supported (sha256 and sha512 are)", k->hash);
			return -1;
		}
		return 0;
	}
	if (k->type != LUKS2_KDF_ARGON2I && k->type != LUKS2_KDF_ARGON2ID) {
		snprintf(err, errlen, "unknown KDF");
		return -1;
	}
	argon2_context ctx = {
		.out = out, .outlen = (uint32_t)outlen,
		.pwd = (uint8_t *)pass, .pwdlen = (uint32_t)passlen,
		.salt = (uint8_t *)k->salt, .saltlen = (uint32_t)k->salt_len,
		.t_cost = k->time, .m_cost = k->memory, .lanes = k->cpus, .threads = k->cpus,
		.version = ARGON2_VERSION_13, .flags = ARGON2_DEFAULT_FLAGS,
	};
	int rc = argon2_ctx(&ctx, k->type == LUKS2_KDF_ARGON2I ? Argon2_i : Argon2_id);
	if (rc != ARGON2_OK) {
		snprintf(err, errlen, "argon2: %s", argon2_error_message(rc));
		return -1;
	}
	return 0;
}

int hi_luks2_digest_check(const struct luks2_digest *d, const uint8_t *vk, size_t vklen)
{
	uint8_t got[LUKS2_DIGEST_MAX];

	/* The digest's PBKDF2 is the header's to ask too: the same bound. */
	if (strcmp(d->type, "pbkdf2") != 0 || !d->digest_len || d->iterations > LUKS2_PBKDF2_ITERATIONS_MAX ||
	    hi_pbkdf2(d->hash, vk, vklen, d->salt, d->salt_len, d->iterations, got, d->digest_len) < 0)
		return -1;
	int same = hi_ct_equal(got, d->digest, d->digest_len);
	explicit_bzero(got, sizeof got);
	return same;
}

static const struct luks2_digest *keyslot_digest(const struct luks2_hdr *h, int slot)
{
	for (int i = 0; i < LUKS2_DIGESTS_MAX; i++)
		if (h->digest[i].used && (h->digest[i].keyslots >> slot & 1))
			return &h->digest[i];
	return NULL;
}

/* Key material: locked so it is never swapped, wiped before it is freed. */
static uint8_t *secret_alloc(size_t len)
{
	uint8_t *p = calloc(1, len);
	if (p)
		mlock(p, len);
	return p;
}

static void secret_free(uint8_t *p, size_t len)
{
	if (!p)
		return;
	explicit_bzero(p, len);
	munlock(p, len);
	free(p);
}

int hi_luks2_keyslot_open(const struct luks2_hdr *h, int slot, const uint8_t *pass, size_t passlen,
		       luks2_read_fn rd, void *ctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		       char *err, size_t errlen)
{
	const struct luks2_keyslot *ks = slot >= 0 && slot < LUKS2_KEYSLOTS_MAX ? &h->keyslot[slot] : NULL;
	const struct luks2_digest *d = ks ? keyslot_digest(h, slot) : NULL;
	char why[LUKS2_ERR_MAX];
	int rc = -1;

	if (!ks || !ks->used || !ks->usable) {
		snprintf(err, errlen, "keyslot %d: not a keyslot this reader can open", slot);
		return -1;
	}
	if (!d || strcmp(d->type, "pbkdf2") != 0 || !hi_pbkdf2_supported(d->hash)) {
		snprintf(err, errlen, "keyslot %d: no pbkdf2-sha256 digest bound to it", slot);
		return -1;
	}
	if (d->iterations > LUKS2_PBKDF2_ITERATIONS_MAX) {
		snprintf(err, errlen, "keyslot %d: its digest asks %u pbkdf2 iterations, over hardinit's limit of %u; "
			 "the header is damaged or hostile", slot, d->iterations, LUKS2_PBKDF2_ITERATIONS_MAX);
		return -1;
	}
	size_t af_len = (size_t)ks->key_size * ks->af_stripes;
	size_t area_len = (af_len + 511) / 512 * 512;
	if (area_len > ks->area_size || area_len > LUKS2_AREA_MAX + 511) {
		snprintf(err, errlen, "keyslot %d: area of %llu bytes is smaller than its %zu bytes of key material", slot,
			 (unsigned long long)ks->area_size, area_len);
		return -1;
	}
	uint8_t *akey = secret_alloc(LUKS2_KEY_MAX), *area = secret_alloc(area_len);
	if (!akey || !area) {
		snprintf(err, errlen, "keyslot %d: no memory", slot);
		goto out;
	}
	if (hi_luks2_kdf(&ks->kdf, pass, passlen, akey, ks->area_key_size, why, sizeof why) < 0) {
		snprintf(err, errlen, "keyslot %d: %s", slot, why);
		goto out;
	}
	if (rd(ctx, ks->area_offset, area, area_len) < 0) {
		snprintf(err, errlen, "keyslot %d: its area at %llu cannot be read", slot,
			 (unsigned long long)ks->area_offset);
		goto out;
	}
	if (dec(ks->area_encryption, akey, ks->area_key_size, area, area_len, why, sizeof why) < 0) {
		snprintf(err, errlen, "keyslot %d: %s", slot, why);
		goto out;
	}
	if (hi_luks2_af_merge(area, ks->key_size, ks->af_stripes, ks->af_hash, vk) < 0) {
		snprintf(err, errlen, "keyslot %d: af hash %s not supported (sha256 and sha512 are)", slot, ks->af_hash);
		goto out;
	}
	*vklen = ks->key_size;
	rc = hi_luks2_digest_check(d, vk, ks->key_size) == 1 ? 0 : 1;
	if (rc)
		explicit_bzero(vk, LUKS2_KEY_MAX);
out:
	secret_free(akey, LUKS2_KEY_MAX);
	secret_free(area, area_len);
	return rc;
}

int hi_luks2_open_passphrase(const struct luks2_hdr *h, const uint8_t *pass, size_t passlen,
			  luks2_read_fn rd, void *ctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
			  int *slot, char *err, size_t errlen)
{
	const struct luks2_digest *seg = hi_luks2_segment_digest(h, 0);
	bool tried = false;

	err[0] = '\0';
	if (!seg) {
		snprintf(err, errlen, "no digest covers segment 0");
		return -1;
	}
	for (int prio = 2; prio >= 1; prio--)
		for (int i = 0; i < LUKS2_KEYSLOTS_MAX; i++) {
			const struct luks2_keyslot *ks = &h->keyslot[i];
			if (!ks->used || !ks->usable || ks->priority != prio || !(seg->keyslots >> i & 1))
				continue;
			char why[LUKS2_ERR_MAX];
			int rc = hi_luks2_keyslot_open(h, i, pass, passlen, rd, ctx, dec, vk, vklen, why, sizeof why);
			if (rc == 0) {
				*slot = i;
				return 0;
			}
			if (rc < 0 && !err[0])
				snprintf(err, errlen, "%s", why);
			tried |= rc > 0;
		}
	if (tried)
		return 1;
	if (!err[0])
		snprintf(err, errlen, "no keyslot this reader can open (luks2 type, pbkdf2-sha256 or argon2)");
	return -1;
}
