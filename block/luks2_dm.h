/* The dm-crypt table of a LUKS2 volume (block/luks2_dm.c), naming the key
 * in the kernel keyring; the types are block/luks2.h. */
#ifndef HARDINIT_LUKS2_DM_H
#define HARDINIT_LUKS2_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luks2.h"
#include "sha256.h"

/* The dm-crypt table of segment 0 of h over device devnum ("254:0") of
 * dev_bytes, the key referenced in the kernel keyring by key_desc (never
 * the key): "aes-xts-plain64 :64:logon:cryptsetup:UUID-d0 0 254:0 32768
 * [features]". *sectors gets the length. Returns 0 or -1 with err. */
int hi_luks2_dm_table(const struct luks2_hdr *h, const struct luks2_dm_opts *o, const char *devnum, uint64_t dev_bytes,
	       const char *key_desc, char *out, size_t cap, uint64_t *sectors, char *err, size_t errlen);

/* Is spec a dm-crypt cipher spec as cryptsetup writes one into a LUKS2
 * segment: CIPHER-MODE[-IV[:IVOPTS]] (aes-xts-plain64,
 * aes-cbc-essiv:sha256, aes-ecb) or capi:SPEC-IV[:IVOPTS]
 * (capi:xts(aes)-plain64), each part letters, digits and '_' (the capi
 * spec also parentheses and commas, balanced; IVOPTS also '-'). It is the
 * table's first word: a space would let the header write the rest. */
bool hi_luks2_cipher_spec_ok(const char *spec);

/* The volume key into the kernel for dm-crypt to read and nobody else:
 * a "logon" key (its payload cannot be read from user space) named desc
 * in this thread's keyring, found by dm-crypt while it loads the table.
 * Its serial, or -1 with errno. Dropped (revoked and unlinked) once the
 * table is loaded: no later process finds it. */
long hi_luks2_key_add(const char *desc, const uint8_t *vk, size_t len);
void hi_luks2_key_drop(long serial);

/* cryptsetup's names: the key "cryptsetup:UUID-dN" and the dm uuid
 * "CRYPT-LUKS2-<uuid without dashes>-NAME". */
void hi_luks2_key_desc(const char *uuid, int digest, char *out, size_t cap);

void hi_luks2_dm_uuid(const char *uuid, const char *name, char *out, size_t cap);

/* A volume's identity as systemd-cryptsetup names it when it measures the
 * volume: "cryptsetup:NAME:UUID". Its length, or -1 when it does not fit. */
int hi_luks2_identity(const char *name, const char *uuid, char *out, size_t cap);

/* systemd's volume key id (fixate-volume-key=): HMAC-SHA256 of the
 * identity under the volume key, the digest tpm2-measure-pcr= extends into
 * the sha256 bank. It names the key without revealing it. */
void hi_luks2_volume_key_id(const char *name, const char *uuid, const uint8_t *vk, size_t vklen,
			 uint8_t out[SHA256_BYTES]);

#endif
