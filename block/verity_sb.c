/* dm-verity parameters: the veritysetup superblock, the options words and
 * the table line. The layout is cryptsetup's lib/verity/verity.c (struct
 * verity_sb, little-endian, 512 bytes); the table is the kernel's
 * Documentation/admin-guide/device-mapper/verity.rst. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "verity_sb.h"

#define SB_MAGIC        "verity\0\0"
#define SB_OFF_VERSION  8
#define SB_OFF_HASHTYPE 12
#define SB_OFF_ALG      32
#define SB_OFF_DBS      64
#define SB_OFF_HBS      68
#define SB_OFF_BLOCKS   72
#define SB_OFF_SALTSZ   80
#define SB_OFF_SALT     88
#define BLOCK_SIZE_MIN  512
#define BLOCK_SIZE_MAX  (512 * 1024)   /* cryptsetup's limit; the kernel's is PAGE_SIZE for data */
/* The longest options text: a base64 root-hash-signature= and the rest. */

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le64(const unsigned char *b)
{
	return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

void hi_verity_params_defaults(struct verity_params *p)
{
	memset(p, 0, sizeof *p);
	p->hash_type = 1;
	snprintf(p->algorithm, sizeof p->algorithm, "sha256");
	p->data_block_size = 4096;
	p->hash_block_size = 4096;
	p->superblock = true;
	p->on_corruption = VERITY_EIO;
}

static bool block_size_ok(unsigned n)
{
	return n >= BLOCK_SIZE_MIN && n <= BLOCK_SIZE_MAX && (n & (n - 1)) == 0;
}

/* An algorithm name goes into the table line as one word. */
static bool algorithm_ok(const char *a)
{
	if (!*a)
		return false;
	for (; *a; a++)
		if (!isalnum((unsigned char)*a) && *a != '-' && *a != '_')
			return false;
	return true;
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int hi_verity_sb_parse(const unsigned char *buf, size_t len, struct verity_params *p,
		    char *err, size_t errlen)
{
	char alg[VERITY_ALG_MAX + 1];

	if (len < VERITY_SB_SIZE)
		return fail(err, errlen, "verity superblock truncated (fewer than 512 bytes); check the hash device and hash-offset=");
	if (memcmp(buf, SB_MAGIC, 8) != 0)
		return fail(err, errlen, "no verity superblock (bad magic); check the hash device and hash-offset=, or give the parameters with superblock=no");
	if (le32(buf + SB_OFF_VERSION) != 1)
		return fail(err, errlen, "verity superblock version is not 1; remake the hash with veritysetup format");
	uint32_t type = le32(buf + SB_OFF_HASHTYPE);
	if (type > 1)
		return fail(err, errlen, "verity superblock hash type is not 0 or 1; remake the hash with veritysetup format");
	memcpy(alg, buf + SB_OFF_ALG, VERITY_ALG_MAX);
	alg[VERITY_ALG_MAX] = '\0';
	if (strnlen((const char *)buf + SB_OFF_ALG, VERITY_ALG_MAX) == VERITY_ALG_MAX || !algorithm_ok(alg))
		return fail(err, errlen, "verity superblock algorithm name is not valid; remake the hash with veritysetup format");
	uint32_t dbs = le32(buf + SB_OFF_DBS), hbs = le32(buf + SB_OFF_HBS);
	if (!block_size_ok(dbs) || !block_size_ok(hbs))
		return fail(err, errlen, "verity superblock block size is not a power of two from 512 to 512 KiB; remake the hash");
	uint64_t blocks = le64(buf + SB_OFF_BLOCKS);
	if (blocks == 0 || blocks > UINT64_MAX / dbs / 2)
		return fail(err, errlen, "verity superblock data block count is zero or too large; remake the hash");
	unsigned salt = (unsigned)buf[SB_OFF_SALTSZ] | (unsigned)buf[SB_OFF_SALTSZ + 1] << 8;
	if (salt > VERITY_SALT_MAX)
		return fail(err, errlen, "verity superblock salt is longer than 256 bytes; remake the hash");

	p->hash_type = type;
	snprintf(p->algorithm, sizeof p->algorithm, "%s", alg);
	p->data_block_size = dbs;
	p->hash_block_size = hbs;
	p->data_blocks = blocks;
	p->salt_size = salt;
	memcpy(p->salt, buf + SB_OFF_SALT, salt);
	hex_of(p->salt, salt, p->salt_hex);
	return 0;
}

/* ---- options ------------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = n;
	return 0;
}

int hi_verity_bool_word(const char *s, bool *out)
{
	if (!strcmp(s, "yes") || !strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "on"))
		return *out = true, 0;
	if (!strcmp(s, "no") || !strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "off"))
		return *out = false, 0;
	return -1;
}

static int hex_nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "-" is veritysetup's word for no salt. */
static int parse_salt(const char *s, struct verity_params *p)
{
	size_t n = strlen(s);

	if (!strcmp(s, "-"))
		n = 0;
	if (n % 2 || n / 2 > VERITY_SALT_MAX)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		p->salt[i] = (unsigned char)(hi << 4 | lo);
	}
	p->salt_size = n / 2;
	hex_of(p->salt, p->salt_size, p->salt_hex);
	return 0;
}

static int set_flag(const char *w, struct verity_params *p)
{
	static const struct { const char *word; enum verity_corruption c; } modes[] = {
		{ "ignore-corruption", VERITY_IGNORE }, { "restart-on-corruption", VERITY_RESTART },
		{ "panic-on-corruption", VERITY_PANIC },
	};

	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (!strcmp(w, modes[i].word)) {
			p->on_corruption = modes[i].c;
			p->corruption_set = true;
			return 0;
		}
	if (!strcmp(w, "ignore-zero-blocks"))
		return p->ignore_zero_blocks = true, 0;
	if (!strcmp(w, "check-at-most-once"))
		return p->check_at_most_once = true, 0;
	return -1;
}

static int set_valued(const char *key, const char *v, struct verity_params *p)
{
	uint64_t n;

	if (!strcmp(key, "superblock"))
		return hi_verity_bool_word(v, &p->superblock);
	if (!strcmp(key, "salt"))
		return parse_salt(v, p);
	if (!strcmp(key, "hash")) {
		if (strlen(v) > VERITY_ALG_MAX || !algorithm_ok(v))
			return -1;
		snprintf(p->algorithm, sizeof p->algorithm, "%s", v);
		return 0;
	}
	if (!strcmp(key, "root-hash-signature")) {
		unsigned char der[VERITY_SIG_MAX];
		if (strlen(v) >= sizeof p->sig_source || strpbrk(v, " \t\n"))
			return -1;
		if (strncmp(v, "base64:", 7) == 0 ? hi_verity_sig_base64(v + 7, der, sizeof der) < 0 : v[0] != '/')
			return -1;
		snprintf(p->sig_source, sizeof p->sig_source, "%s", v);
		snprintf(p->sig_key_desc, sizeof p->sig_key_desc, "%s", VERITY_SIG_KEY_DESC);
		return 0;
	}
	if (!strcmp(key, "root-hash-signature-key")) {
		if (!*v || strlen(v) >= sizeof p->sig_key_desc || strpbrk(v, " \t\n"))
			return -1;
		snprintf(p->sig_key_desc, sizeof p->sig_key_desc, "%s", v);
		return 0;
	}
	if (parse_u64(v, &n) < 0)
		return -1;
	if (!strcmp(key, "hash-offset"))
		return n % 512 ? -1 : (p->hash_offset = n, 0);
	if (!strcmp(key, "data-blocks"))
		return n == 0 ? -1 : (p->data_blocks = n, 0);
	if (!strcmp(key, "format"))
		return n > 1 ? -1 : (p->hash_type = (unsigned)n, 0);
	if (!strcmp(key, "data-block-size"))
		return !block_size_ok((unsigned)n) || n > BLOCK_SIZE_MAX ? -1 : (p->data_block_size = (unsigned)n, 0);
	if (!strcmp(key, "hash-block-size"))
		return !block_size_ok((unsigned)n) || n > BLOCK_SIZE_MAX ? -1 : (p->hash_block_size = (unsigned)n, 0);
	return -1;
}

int hi_verity_options_parse(const char *text, struct verity_params *p, char *err, size_t errlen)
{
	char buf[VERITY_OPTION_MAX];
	char *save = NULL;

	if (strlen(text) >= sizeof buf)
		return fail(err, errlen, "verity options longer than 2648 bytes; shorten systemd.verity_root_options=");
	snprintf(buf, sizeof buf, "%s", text);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		int rc;
		if (eq) {
			*eq = '\0';
			rc = set_valued(w, eq + 1, p);
			*eq = '=';
		} else {
			rc = set_flag(w, p);
		}
		if (rc < 0) {
			snprintf(err, errlen, "verity option '%.80s' is unknown or has a bad value; see hardinit.conf(5) [verity] options", w);
			return -1;
		}
	}
	return 0;
}

static int base64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int hi_verity_sig_base64(const char *text, unsigned char *out, size_t cap)
{
	size_t n = strlen(text), len = 0;
	uint32_t acc = 0;
	unsigned bits = 0;

	while (n > 0 && text[n - 1] == '=')
		n--;
	if (n == 0 || n % 4 == 1 || strlen(text) - n > 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int v = base64_value((unsigned char)text[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len == cap)
				return -1;
			out[len++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return len > (size_t)INT32_MAX ? -1 : (int)len;
}

bool hi_verity_options_weaken(const struct verity_params *p)
{
	return p->on_corruption == VERITY_IGNORE || p->ignore_zero_blocks || p->check_at_most_once;
}

/* ---- root hash and table ------------------------------------------------ */

static int digest_size(const char *alg)
{
	static const struct { const char *name; int bytes; } known[] = {
		{ "sha1", 20 }, { "sha224", 28 }, { "sha256", 32 }, { "sha384", 48 }, { "sha512", 64 },
		{ "sha3-256", 32 }, { "sha3-512", 64 }, { "blake2b-256", 32 }, { "blake2b-512", 64 },
		{ "crc32", 4 }, { "crc32c", 4 }, { "sm3", 32 },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(alg, known[i].name))
			return known[i].bytes;
	return -1;
}

int hi_verity_check_root_hash(const char *hex, const char *algorithm, char *err, size_t errlen)
{
	size_t n = strlen(hex);

	if (n == 0)
		return fail(err, errlen, "verity root hash is empty; set [verity] roothash or roothash=");
	for (size_t i = 0; i < n; i++)
		if (hex_nibble((unsigned char)hex[i]) < 0) {
			snprintf(err, errlen, "verity root hash is not hex (character %zu); copy the Root hash line of veritysetup format", i + 1);
			return -1;
		}
	int want = digest_size(algorithm);
	if (n % 2 || n > VERITY_HASH_HEX_MAX || (want > 0 && n != (size_t)want * 2)) {
		snprintf(err, errlen, "verity root hash has %zu hex digits, %s needs %d; copy the Root hash line of veritysetup format",
			 n, algorithm, want > 0 ? want * 2 : VERITY_HASH_HEX_MAX);
		return -1;
	}
	return 0;
}

int hi_verity_params_check(const struct verity_params *p, char *err, size_t errlen)
{
	if (!block_size_ok(p->data_block_size) || !block_size_ok(p->hash_block_size))
		return fail(err, errlen, "verity block sizes must be powers of two from 512 to 512 KiB");
	if (p->data_blocks == 0)
		return fail(err, errlen, "verity data block count unknown: without a superblock give data-blocks= in the options");
	if (p->data_blocks > UINT64_MAX / p->data_block_size / 2)
		return fail(err, errlen, "verity data block count too large");
	if (!algorithm_ok(p->algorithm))
		return fail(err, errlen, "verity hash algorithm name is not valid");
	if (p->hash_offset % 512)
		return fail(err, errlen, "verity hash-offset must be a multiple of 512");
	if (!p->superblock && p->hash_offset % p->hash_block_size)
		return fail(err, errlen, "verity hash-offset must be a multiple of the hash block size without a superblock");
	return 0;
}

/* The tree starts one hash block after the superblock (cryptsetup's
 * VERITY_hash_offset_block), or at hash_offset itself without one. */
static uint64_t hash_start_block(const struct verity_params *p)
{
	uint64_t off = p->hash_offset;
	if (p->superblock)
		off += VERITY_SB_SIZE + p->hash_block_size - 1;
	return off / p->hash_block_size;
}

/* The kernel's hash_per_block_bits: digests per hash block, rounded down
 * to a power of two (dm-verity-target.c, verity_ctr). */
int hi_verity_hash_end(const struct verity_params *p, uint64_t *bytes)
{
	int ds = digest_size(p->algorithm);
	unsigned bits = 0;

	if (ds <= 0 || p->hash_block_size / (unsigned)ds < 2)
		return -1;
	while ((2u << bits) <= p->hash_block_size / (unsigned)ds)
		bits++;
	uint64_t end = hash_start_block(p);
	for (unsigned level = 1; p->data_blocks > 1 && bits * (level - 1) < 64; level++) {
		unsigned shift = bits * level;
		uint64_t blocks = shift >= 64 ? 1 : (p->data_blocks >> shift) + ((p->data_blocks & ((1ull << shift) - 1)) != 0);
		end += blocks;
		if (blocks <= 1)
			break;
	}
	if (end > UINT64_MAX / p->hash_block_size)
		return -1;
	*bytes = end * p->hash_block_size;
	return 0;
}

const char *hi_verity_corruption_name(enum verity_corruption c)
{
	static const char *const names[] = { "eio", "restart", "panic", "ignore" };
	return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

static int append_options(const struct verity_params *p, char *out, size_t cap, size_t len)
{
	static const char *const mode_words[] = { NULL, "restart_on_corruption", "panic_on_corruption", "ignore_corruption" };
	const char *words[5];
	int n = 0, args = 0;

	if (p->on_corruption != VERITY_EIO)
		words[n++] = mode_words[p->on_corruption], args++;
	if (p->ignore_zero_blocks)
		words[n++] = "ignore_zero_blocks", args++;
	if (p->check_at_most_once)
		words[n++] = "check_at_most_once", args++;
	if (p->sig_key_desc[0])
		args += 2;
	if (args == 0)
		return (int)len;
	int w = snprintf(out + len, cap - len, " %d", args);
	for (int i = 0; i < n && w >= 0 && (size_t)w < cap - len; i++) {
		len += (size_t)w;
		w = snprintf(out + len, cap - len, " %s", words[i]);
	}
	if (w >= 0 && (size_t)w < cap - len && p->sig_key_desc[0]) {
		len += (size_t)w;
		w = snprintf(out + len, cap - len, " root_hash_sig_key_desc %s", p->sig_key_desc);
	}
	if (w < 0 || (size_t)w >= cap - len)
		return -1;
	return (int)(len + (size_t)w);
}

int hi_verity_table(const struct verity_params *p, const char *data, const char *hash,
		 const char *root_hash, char *out, size_t cap, uint64_t *sectors,
		 char *err, size_t errlen)
{
	if (hi_verity_params_check(p, err, errlen) < 0)
		return -1;
	if (hi_verity_check_root_hash(root_hash, p->algorithm, err, errlen) < 0)
		return -1;
	int n = snprintf(out, cap, "%u %s %s %u %u %" PRIu64 " %" PRIu64 " %s %s %s",
			 p->hash_type, data, hash, p->data_block_size, p->hash_block_size,
			 p->data_blocks, hash_start_block(p), p->algorithm, root_hash,
			 p->salt_size ? p->salt_hex : "-");
	if (n < 0 || (size_t)n >= cap || (n = append_options(p, out, cap, (size_t)n)) < 0)
		return fail(err, errlen, "verity table line too long (internal limit VERITY_TABLE_MAX)");
	*sectors = p->data_blocks * (p->data_block_size / 512);
	return n;
}

int hi_verity_table_root_hash(const char *table, char *out, size_t cap)
{
	const char *s = table;

	for (int field = 0; field < 8; field++) {
		s += strcspn(s, " ");
		if (!*s)
			return -1;
		s += strspn(s, " ");
	}
	size_t n = strcspn(s, " ");
	if (n == 0 || n >= cap)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* ---- the live table's options -------------------------------------------- */

int hi_verity_table_options(const char *table, struct verity_params *p)
{
	char buf[VERITY_TABLE_MAX], *save = NULL;

	if (strlen(table) >= sizeof buf)
		return -1;
	snprintf(buf, sizeof buf, "%s", table);
	char *w = strtok_r(buf, " ", &save);
	for (int field = 1; w && field < 10; field++)
		w = strtok_r(NULL, " ", &save);
	if (!w)
		return -1;   /* fewer than the 10 fixed fields */
	p->on_corruption = VERITY_EIO;
	p->ignore_zero_blocks = p->check_at_most_once = false;
	p->sig_key_desc[0] = '\0';
	char *count = strtok_r(NULL, " ", &save);
	if (!count)
		return 0;
	long n = strtol(count, NULL, 10);
	for (long i = 0; i < n; i++) {
		w = strtok_r(NULL, " ", &save);
		if (!w)
			return -1;
		if (!strcmp(w, "restart_on_corruption"))
			p->on_corruption = VERITY_RESTART;
		else if (!strcmp(w, "panic_on_corruption"))
			p->on_corruption = VERITY_PANIC;
		else if (!strcmp(w, "ignore_corruption"))
			p->on_corruption = VERITY_IGNORE;
		else if (!strcmp(w, "ignore_zero_blocks"))
			p->ignore_zero_blocks = true;
		else if (!strcmp(w, "check_at_most_once"))
			p->check_at_most_once = true;
		else if (!strcmp(w, "root_hash_sig_key_desc") && i + 1 < n && (w = strtok_r(NULL, " ", &save)))
			snprintf(p->sig_key_desc, sizeof p->sig_key_desc, "%s", w), i++;
		else
			return -1;
	}
	return 0;
}

void hi_verity_options_words(const struct verity_params *p, char *out, size_t cap)
{
	char line[VERITY_TABLE_MAX];
	int len = append_options(p, line, sizeof line, 0);

	/* " N word word ..." without the count. */
	const char *words = len > 0 ? strchr(line + 1, ' ') : NULL;
	if (!words) {
		snprintf(out, cap, "none");
		return;
	}
	snprintf(out, cap, "%s", words + 1);
	for (char *c = out; *c; c++)
		if (*c == ' ')
			*c = '+';
}

/* ---- the measurement -------------------------------------------------------- */

/* The devices by the name the boot found them by (UUID=, PARTUUID=,
 * LABEL= or a path, as the embedded config or the command line gave it)
 * and their size: MAJ:MIN and /dev/dm-N depend on the order the kernel
 * probes in, so a PCR policy sealed to them would break on a later boot,
 * while the name and size are what the config chose and what was set up.
 * The salt, block sizes and format need no place of their own but are
 * cheap: the root hash already binds them (the tree is salted and
 * shaped by them). */
int hi_verity_measure_text(char *out, size_t cap, const char *roothash, const struct verity_params *p,
			const char *data_spec, uint64_t data_bytes, const char *hash_spec, uint64_t hash_bytes)
{
	char words[VERITY_TABLE_MAX];

	hi_verity_options_words(p, words, sizeof words);
	int n = snprintf(out, cap, "%s;data=%s,%" PRIu64 ";hash=%s,%" PRIu64 ";hash_offset=%" PRIu64
			 ";format=%u;alg=%s;blocks=%u/%u;data_blocks=%" PRIu64 ";options=%s;on_corruption=%s",
			 roothash, data_spec, data_bytes, hash_spec, hash_bytes, p->hash_offset, p->hash_type,
			 p->algorithm, p->data_block_size, p->hash_block_size, p->data_blocks, words,
			 hi_verity_corruption_name(p->on_corruption));
	if (n < 0 || (size_t)n >= cap)
		return -1;
	for (char *c = out; *c; c++)
		if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			return -1;   /* one text field in the log line */
	return n;
}
