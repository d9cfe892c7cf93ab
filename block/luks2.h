/* LUKS2 on-disk metadata: the binary header (two copies) and the JSON
 * area, read without libcryptsetup and without a JSON library. The format
 * is cryptsetup's "LUKS2 On-Disk Format Specification": each copy is a
 * 4096-byte binary header followed by the JSON area, hdr_size bytes in
 * all; the primary at 0, the secondary at hdr_size (or, when the primary
 * is unreadable, at one of the standard sizes). The checksum (sha256) is
 * over the whole copy with its checksum field zeroed; the valid copy with
 * the higher seqid wins. Everything here is pure: bytes come through a
 * read callback, so tests and the fuzz target feed memory. */
#ifndef HARDINIT_LUKS2_H
#define HARDINIT_LUKS2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LUKS2_BIN_SIZE        4096
#define LUKS2_HDR_SIZE_MIN    (16 * 1024)        /* the spec's smallest copy */
/* The bytes of a copy its checksum covers: all hdr_size of them; in a fuzz
 * build alone (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, set by the Makefile
 * for build/fuzz only) the 512-byte binary header, so that fuzz_luks2, which
 * must make each copy's checksum valid, does not spend its time in sha256
 * of 16 KiB four times an input (150 inputs/s instead of thousands). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define LUKS2_CSUM_SPAN(hdr_size) ((void)(hdr_size), (uint64_t)512)
#else
#define LUKS2_CSUM_SPAN(hdr_size) (hdr_size)
#endif
#define LUKS2_HDR_SIZE_MAX    (4 * 1024 * 1024)  /* and its largest */
#define LUKS2_UUID_MAX        40
#define LUKS2_LABEL_MAX       48
#define LUKS2_KEYSLOTS_MAX    32                 /* cryptsetup's LUKS2_KEYSLOTS_MAX */
#define LUKS2_SEGMENTS_MAX    8
#define LUKS2_DIGESTS_MAX     8
#define LUKS2_TOKENS_MAX      32
#define LUKS2_KEY_MAX         64                 /* 512 bits: aes-xts with AES-256 */
#define LUKS2_SALT_MAX        64
#define LUKS2_DIGEST_MAX      64
#define LUKS2_NAME_MAX        32                 /* hash and type names */
#define LUKS2_CIPHER_MAX      64                 /* "aes-xts-plain64" */
#define LUKS2_STRIPES_MAX     4000               /* what LUKS2 keyslots use */
#define LUKS2_JSON_DEPTH_MAX  12
#define LUKS2_ERR_MAX         256

enum luks2_kdf_type { LUKS2_KDF_NONE, LUKS2_KDF_PBKDF2, LUKS2_KDF_ARGON2I, LUKS2_KDF_ARGON2ID };

struct hi_luks2_kdf {
	enum luks2_kdf_type type;
	char hash[LUKS2_NAME_MAX];      /* pbkdf2 */
	uint32_t iterations;            /* pbkdf2 */
	uint32_t time, memory, cpus;    /* argon2: passes, KiB, lanes */
	uint8_t salt[LUKS2_SALT_MAX];
	size_t salt_len;
};

struct luks2_keyslot {
	bool used;
	bool usable;                    /* type luks2, area raw, af luks1: one we can open */
	char type[LUKS2_NAME_MAX];
	uint32_t key_size;              /* the volume key's bytes */
	uint64_t area_offset, area_size;
	char area_encryption[LUKS2_CIPHER_MAX];
	uint32_t area_key_size;
	struct hi_luks2_kdf kdf;
	uint32_t af_stripes;
	char af_hash[LUKS2_NAME_MAX];
	int priority;                   /* 0 ignore, 1 normal (default), 2 high */
};

struct luks2_segment {
	bool used;
	char type[LUKS2_NAME_MAX];
	uint64_t offset;                /* bytes */
	uint64_t size;                  /* bytes; 0 with dynamic */
	bool dynamic;
	uint64_t iv_tweak;
	char encryption[LUKS2_CIPHER_MAX];
	uint32_t sector_size;
};

struct luks2_digest {
	bool used;
	char type[LUKS2_NAME_MAX];
	uint32_t keyslots, segments;    /* bit i: keyslot/segment i */
	char hash[LUKS2_NAME_MAX];
	uint32_t iterations;
	uint8_t salt[LUKS2_SALT_MAX];
	size_t salt_len;
	uint8_t digest[LUKS2_DIGEST_MAX];
	size_t digest_len;
};

/* A token's JSON is kept as text (its span in hdr->json) for a token
 * handler to parse (systemd-tpm2: luks2_tpm2_token below). */
struct luks2_token {
	bool used;
	char type[LUKS2_NAME_MAX];
	size_t off, len;
};

struct luks2_hdr {
	uint64_t hdr_size, seqid, offset;   /* offset: where the copy used lies */
	bool from_secondary;
	char uuid[LUKS2_UUID_MAX + 1];
	char label[LUKS2_LABEL_MAX + 1];
	uint64_t json_size, keyslots_size;
	struct luks2_keyslot keyslot[LUKS2_KEYSLOTS_MAX];
	struct luks2_segment segment[LUKS2_SEGMENTS_MAX];
	struct luks2_digest digest[LUKS2_DIGESTS_MAX];
	struct luks2_token token[LUKS2_TOKENS_MAX];
	char *json;                         /* the JSON text (malloc'd), NUL-terminated */
	size_t json_len;
};

/* Reads len bytes at off into buf; returns 0, or -1 (short read, error). */
typedef int (*luks2_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* ---- the systemd-tpm2 token (block/luks2_json.c) ----------------- */

/* What systemd-cryptenroll --tpm2-device= (systemd 250-252) writes:
 * "keyslots" (the keyslot whose passphrase is the base64 of the sealed
 * secret), "tpm2-blob" (base64 of TPM2B_PRIVATE then TPM2B_PUBLIC, as
 * marshalled), "tpm2-pcrs" (an array of PCR numbers), "tpm2-pcr-bank"
 * ("sha1", "sha256", "sha384", "sha512"; absent before systemd 250:
 * sha256), "tpm2-primary-alg" ("ecc" or "rsa"; absent before 250: ecc),
 * "tpm2-policy-hash" (hex), "tpm2-pin" (bool), and for a signed PCR policy
 * "tpm2_pubkey" (base64 of a PEM public key) with "tpm2_pubkey_pcrs".
 * systemd 254 and later add "tpm2_salt" (base64: the PIN goes through
 * PBKDF2 with it), 255 and later "tpm2_srk" (base64 of tpm2-tss's
 * serialized ESYS_TR of the storage root key the blob was sealed under)
 * and, for systemd-pcrlock's policy, "tpm2_pcrlock" with
 * "tpm2_pcrlock_nv". A field this reader cannot honour (tpm2_pcrlock
 * true, a blob in several shards, any other tpm2-* or tpm2_* key: each
 * may change the policy) is named in "unsupported", and the token is
 * skipped before any TPM command, so no try of the TPM's
 * dictionary-attack lockout is spent on a policy that cannot succeed. */
#define LUKS2_TPM2_BLOB_MAX   1024      /* a sealed keyed-hash object is ~200 bytes */
#define LUKS2_TPM2_SRK_MAX    640       /* handle, name, type, TPM2B_PUBLIC: 136 bytes for ECC, ~330 for RSA */
#define LUKS2_TPM2_PUBKEY_MAX 2048      /* a PEM RSA-4096 public key is ~800 */
#define LUKS2_TPM2_PCRS       24        /* PCRs 0-23, as systemd binds them */

struct hi_luks2_tpm2_token {
	uint32_t keyslots;              /* bit i: keyslot i */
	uint32_t pcrs;                  /* bit i: PCR i, in the policy by value */
	uint16_t pcr_bank;              /* TPM_ALG_SHA256 and so on (crypto/tcg_alg.h) */
	uint16_t primary_alg;           /* TPM_ALG_ECC or TPM_ALG_RSA */
	bool pin;                       /* PolicyAuthValue: the PIN's SHA-256 is the object's auth */
	uint8_t blob[LUKS2_TPM2_BLOB_MAX];
	size_t blob_len;
	uint8_t policy_hash[LUKS2_DIGEST_MAX];
	size_t policy_hash_len;
	uint32_t pubkey_pcrs;           /* bit i: PCR i, in the signed policy */
	uint8_t pubkey[LUKS2_TPM2_PUBKEY_MAX];
	size_t pubkey_len;
	uint8_t salt[LUKS2_SALT_MAX];   /* tpm2_salt, 0 bytes: none (the PIN's SHA-256 as 252) */
	size_t salt_len;
	uint8_t srk[LUKS2_TPM2_SRK_MAX];/* tpm2_srk, 0 bytes: none (252's transient primary) */
	size_t srk_len;
	char unsupported[LUKS2_NAME_MAX];  /* the first field that cannot be honoured, "": none */
};

/* ---- keyslots (block/luks2_keyslot.c) ------------------------------ */

#define LUKS2_AREA_MAX        (LUKS2_KEY_MAX * LUKS2_STRIPES_MAX)  /* the AF material read */
#define LUKS2_ARGON2_MEMORY_MAX (4u * 1024 * 1024)             /* KiB: cryptsetup's own cap */
#define LUKS2_ARGON2_CPUS_MAX 16
/* A KDF runs in PID 1 before the boot can go on: a header asks for its
 * cost, so the cost is bounded. cryptsetup benchmarks a keyslot to 2 s
 * (a few million PBKDF2 iterations, an argon2 of 1 GiB over a few
 * passes); these are dozens of times that, and far below 2^32. */
#define LUKS2_PBKDF2_ITERATIONS_MAX (1u << 27)     /* about a minute of PBKDF2-SHA256 on a fast core */
#define LUKS2_ARGON2_WORK_MAX   (1ull << 27)       /* passes x KiB: 128 GiB written, minutes on one lane */
#define LUKS2_KDF_MEM_RESERVE   (64u * 1024)       /* KiB of free memory argon2 leaves to the kernel and PID 1 */
#define LUKS2_PASS_MAX        512                                /* cryptsetup's default too */

/* Decrypts len bytes (whole 512-byte sectors, IV = sector number from 0)
 * in place with a dm-crypt cipher spec. crypto/afalg.c's is the kernel's. */
typedef int (*luks2_decrypt_fn)(const char *spec, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len,
				char *err, size_t errlen);

/* ---- the dm-crypt table (block/luks2_dm.c) ------------------------ */

#define LUKS2_TABLE_MAX 512
#define LUKS2_DM_UUID_PREFIX "CRYPT-LUKS2-"   /* cryptsetup's dm uuid of an opened LUKS2 volume */
#define LUKS2_IDENTITY_MAX 192   /* "cryptsetup:" NAME (a dm name, < 128) ":" UUID */

/* crypttab's discard, readonly and dm-crypt flag options. */
struct luks2_dm_opts {
	bool discard, readonly, same_cpu_crypt, submit_from_crypt_cpus, no_read_workqueue, no_write_workqueue;
};

#endif
