/* LUKS2 keyslots (block/luks2_keyslot.c): the KDF, the AF merge, the
 * digest check, a volume key from a passphrase; the types are block/luks2.h. */
#ifndef HARDINIT_LUKS2_KEYSLOT_H
#define HARDINIT_LUKS2_KEYSLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luks2.h"

/* The luks1 anti-forensic merge: stripes blocks of keylen bytes in src,
 * diffused with hash (sha256), into out. Returns 0, or -1 (hash). */
int hi_luks2_af_merge(const uint8_t *src, size_t keylen, unsigned stripes, const char *hash, uint8_t *out);

/* Is the KDF's cost within what PID 1 may spend: PBKDF2 iterations up to
 * LUKS2_PBKDF2_ITERATIONS_MAX; argon2 passes x memory up to
 * LUKS2_ARGON2_WORK_MAX, its memory within LUKS2_ARGON2_MEMORY_MAX and
 * within free_kib (the machine's free memory) less LUKS2_KDF_MEM_RESERVE,
 * so it is refused with a line, not met by the OOM killer, which cannot
 * take PID 1 and panics. 0, or -1 with err. */
int hi_luks2_kdf_within(const struct hi_luks2_kdf *k, uint64_t free_kib, char *err, size_t errlen);

/* The keyslot's KDF of the passphrase into out (area_key_size bytes),
 * after hi_luks2_kdf_within with the machine's free memory (sysinfo). */
int hi_luks2_kdf(const struct hi_luks2_kdf *k, const uint8_t *pass, size_t passlen, uint8_t *out, size_t outlen,
	      char *err, size_t errlen);

/* Is vk the volume key digest d describes (PBKDF2 of vk with its salt and
 * iterations, compared in constant time)? 1 yes, 0 no, -1 unsupported. */
int hi_luks2_digest_check(const struct luks2_digest *d, const uint8_t *vk, size_t vklen);

/* Open keyslot slot with a passphrase: KDF, the area read through rd and
 * decrypted with dec, the AF merge, the digest check. vk gets the volume
 * key (LUKS2_KEY_MAX bytes, *vklen set). Returns 0 opened, 1 the
 * passphrase is not this keyslot's, -1 error (err). */
int hi_luks2_keyslot_open(const struct luks2_hdr *h, int slot, const uint8_t *pass, size_t passlen,
		       luks2_read_fn rd, void *ctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
		       char *err, size_t errlen);

/* Every keyslot that can open segment 0, high priority first. Returns 0
 * with *slot set, 1 when none takes the passphrase, -1 when no keyslot
 * could be tried (err says why). */
int hi_luks2_open_passphrase(const struct luks2_hdr *h, const uint8_t *pass, size_t passlen,
			  luks2_read_fn rd, void *ctx, luks2_decrypt_fn dec, uint8_t *vk, size_t *vklen,
			  int *slot, char *err, size_t errlen);

#endif
