/* dm-verity parameters without libcryptsetup: the veritysetup format-1
 * superblock, systemd's verity_root_options words, and the kernel's
 * "verity" target line. Pure functions on bytes and strings, so unit tests
 * and the fuzzer reach every path. */
#ifndef HARDINIT_VERITY_SB_H
#define HARDINIT_VERITY_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config_types.h"

#define VERITY_SB_SIZE        512    /* cryptsetup's struct verity_sb */
#define VERITY_SALT_MAX       256    /* its salt[] field */
#define VERITY_ALG_MAX        32     /* its algorithm[] field */
#define VERITY_HASH_HEX_MAX   128    /* sha512: the longest digest the kernel offers here */
#define VERITY_SIG_DESC_MAX   128
/* root-hash-signature=: a path in the initramfs or base64:DER. A PKCS#7
 * signature made with -nocerts -noattr is about 450 bytes for RSA-2048
 * (600 base64 digits); 4 KiB of DER covers RSA-8192 with room to spare,
 * and the kernel command line (2048 bytes on x86) bounds the base64 form. */
#define VERITY_SIG_SOURCE_MAX 2048
#define VERITY_SIG_MAX        4096
/* The user key hardinit loads the signature into and names in the table
 * (root_hash_sig_key_desc): fixed, so the measured options do not depend
 * on where the signature came from. */
#define VERITY_SIG_KEY_DESC   "hardinit:verity:root"
/* Where the builder's --verity-roothash-sig puts the signature (hardinit
 * limits prints it). */
#define VERITY_SIG_EMBED_PATH "/etc/hardinit/root.roothash.p7s"
#define VERITY_TABLE_MAX      1024
#define VERITY_ERR_MAX        256
#define VERITY_OPTION_MAX     (VERITY_SIG_SOURCE_MAX + 600)   /* one option word, a signature path or base64 in it */

struct verity_params {
	unsigned hash_type;            /* 1: normal; 0: Chrome OS */
	char algorithm[VERITY_ALG_MAX + 1];
	unsigned data_block_size;
	unsigned hash_block_size;
	uint64_t data_blocks;
	unsigned char salt[VERITY_SALT_MAX];
	size_t salt_size;
	char salt_hex[2 * VERITY_SALT_MAX + 1];   /* options: salt= as given */
	uint64_t hash_offset;          /* bytes: where the superblock (or, with none, the tree) starts */
	bool superblock;               /* read the parameters from a superblock */
	enum verity_corruption on_corruption;
	bool corruption_set;           /* an option word chose on_corruption */
	bool ignore_zero_blocks;
	bool check_at_most_once;
	char sig_key_desc[VERITY_SIG_DESC_MAX];  /* root_hash_sig_key_desc; empty: none */
	char sig_source[VERITY_SIG_SOURCE_MAX];  /* root-hash-signature=: path or base64:...; empty: none */
};

/* Defaults: what veritysetup format uses when not told otherwise. */
void hi_verity_params_defaults(struct verity_params *p);

/* Read a superblock (the first VERITY_SB_SIZE bytes at hash_offset) into
 * p. len is how many bytes were read. Returns 0, or -1 with err set
 * ("what; what to do") for a short read, a bad magic, version, hash type,
 * block size, algorithm or salt size. */
int hi_verity_sb_parse(const unsigned char *buf, size_t len, struct verity_params *p,
		    char *err, size_t errlen);

/* Apply systemd.verity_root_options words (comma-separated): superblock=,
 * hash-offset=, format=, data-block-size=, hash-block-size=, data-blocks=,
 * hash=, salt=, ignore-corruption, restart-on-corruption,
 * panic-on-corruption, ignore-zero-blocks, check-at-most-once,
 * root-hash-signature-key= (hardinit's: a key description),
 * root-hash-signature= (systemd's: an absolute path in the initramfs or
 * base64:DER; it also sets sig_key_desc to VERITY_SIG_KEY_DESC, the key
 * the verity stage loads it into). Returns 0, or -1 with err naming the
 * word. */
int hi_verity_options_parse(const char *text, struct verity_params *p, char *err, size_t errlen);

/* The DER bytes of a "base64:..." signature source (standard alphabet,
 * '=' padding optional, nothing else). Returns the length, or -1 when it
 * is not base64, is empty or is longer than cap. */
int hi_verity_sig_base64(const char *text, unsigned char *out, size_t cap);

/* Whether the words weaken verity (ignore-corruption, ignore-zero-blocks,
 * check-at-most-once): refused from the command line under the lock. */
bool hi_verity_options_weaken(const struct verity_params *p);

/* A root hash: hex, even, and the digest length of the algorithm when it
 * is a known one. Returns 0, or -1 with err. */
int hi_verity_check_root_hash(const char *hex, const char *algorithm, char *err, size_t errlen);

/* Parameters given in full (no superblock) must be complete. */
int hi_verity_params_check(const struct verity_params *p, char *err, size_t errlen);

/* The table line of the "verity" target, and its length in 512-byte
 * sectors. data and hash are "MAJ:MIN". Returns the line length, or -1
 * with err when it does not fit or a parameter is out of range. */
int hi_verity_table(const struct verity_params *p, const char *data, const char *hash,
		 const char *root_hash, char *out, size_t cap, uint64_t *sectors,
		 char *err, size_t errlen);

/* Bytes the hash device must hold from its start: up to the end of the
 * tree (cryptsetup's VERITY_hash_blocks). Returns 0, or -1 when the
 * algorithm's digest size is not known (the kernel then checks alone). */
int hi_verity_hash_end(const struct verity_params *p, uint64_t *bytes);

const char *hi_verity_corruption_name(enum verity_corruption c);

/* Pick the root hash field (the 9th word) from a table line. Returns 0,
 * or -1 when the line is not a verity table. */
int hi_verity_table_root_hash(const char *table, char *out, size_t cap);

/* The optional arguments of a live table line (corruption mode,
 * ignore_zero_blocks, check_at_most_once, root_hash_sig_key_desc) into p,
 * whose other fields are left alone. Returns 0, or -1 when the line is not
 * a verity table or an argument is not one hardinit writes. */
int hi_verity_table_options(const char *table, struct verity_params *p);

/* A yes/no word as systemd reads one (yes, 1, true, on; no, 0, false,
 * off): 0 with *out, or -1. */
int hi_verity_bool_word(const char *s, bool *out);

/* The kernel's words for p's options, '+'-joined ("none" when there are
 * none): what the measurement, the report and hardinit audit compare. */
void hi_verity_options_words(const struct verity_params *p, char *out, size_t cap);

/* What the verity measurement describes after "hardinit:verity-root-hash:"
 * (no white space, so a log line keeps one text field): the root hash,
 * each device's identity (the name the boot found it by, and its size in
 * bytes), the tree's layout and the options with the corruption mode.
 * Returns the length, or -1 when it does not fit cap. */
int hi_verity_measure_text(char *out, size_t cap, const char *roothash, const struct verity_params *p,
			const char *data_spec, uint64_t data_bytes, const char *hash_spec, uint64_t hash_bytes);

#endif
