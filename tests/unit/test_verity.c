/* Unit tests: the veritysetup superblock parser, the options words and the
 * table line, against images made here by veritysetup format (cryptsetup-bin)
 * with a fixed salt, so the expected values are veritysetup's own. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "verity_judge.h"
#include "verity_sb.h"

static char dir[] = "/tmp/hardinit-verity-XXXXXX";
static char err[VERITY_ERR_MAX];
static const char salt[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/* veritysetup format ARGS; the Root hash line into root (65 bytes). */
static int veritysetup(const char *args, char *root)
{
	char cmd[1024], line[256];

	snprintf(cmd, sizeof cmd, "cd %s && veritysetup format --salt=%s %s 2>&1", dir, salt, args);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	root[0] = '\0';
	while (fgets(line, sizeof line, f))
		sscanf(line, "Root hash: %128s", root);
	return pclose(f) == 0 && strlen(root) >= 64 ? 0 : -1;
}

static size_t read_at(const char *name, unsigned char *buf, size_t cap, off_t off)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, cap, off);
	if (fd >= 0)
		close(fd);
	return n < 0 ? 0 : (size_t)n;
}

static long long file_size(const char *name)
{
	char path[256];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void make_data(const char *name, long long bytes)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "head -c %lld /dev/urandom > %s/%s", bytes, dir, name);
	if (system(cmd) != 0)
		tap_ok(0, "make %s", name);
}

static void test_separate_hash(void)
{
	unsigned char sb[VERITY_SB_SIZE];
	struct verity_params p;
	char root[160], table[VERITY_TABLE_MAX], want[VERITY_TABLE_MAX];
	uint64_t sectors, end;

	make_data("data", 1 << 20);
	if (!tap_ok(veritysetup("data hash", root) == 0, "veritysetup format data hash"))
		return;
	hi_verity_params_defaults(&p);
	size_t n = read_at("hash", sb, sizeof sb, 0);
	tap_ok(hi_verity_sb_parse(sb, n, &p, err, sizeof err) == 0, "superblock of veritysetup parses");
	tap_ok(p.hash_type == 1 && p.data_block_size == 4096 && p.hash_block_size == 4096 && p.data_blocks == 256,
	       "superblock: type 1, 4096/4096, 256 data blocks");
	tap_streq(p.algorithm, "sha256", "superblock: algorithm");
	tap_streq(p.salt_hex, salt, "superblock: salt");
	tap_ok(hi_verity_hash_end(&p, &end) == 0 && (long long)end == file_size("hash"),
	       "hash tree end equals the size veritysetup wrote (%llu)", (unsigned long long)end);
	int len = hi_verity_table(&p, "254:0", "254:16", root, table, sizeof table, &sectors, err, sizeof err);
	snprintf(want, sizeof want, "1 254:0 254:16 4096 4096 256 1 sha256 %s %s", root, salt);
	tap_ok(len == (int)strlen(want), "table length");
	tap_streq(table, want, "table line: start block 1 after the superblock");
	tap_ok(sectors == 2048, "table covers 2048 sectors");
	char got[80];
	tap_ok(hi_verity_table_root_hash(table, got, sizeof got) == 0, "root hash read back from the table");
	tap_streq(got, root, "root hash field of the table");

	p.on_corruption = VERITY_RESTART;
	p.ignore_zero_blocks = true;
	snprintf(p.sig_key_desc, sizeof p.sig_key_desc, "%s", "verity:root");
	hi_verity_table(&p, "254:0", "254:16", root, table, sizeof table, &sectors, err, sizeof err);
	tap_contains(table, " 4 restart_on_corruption ignore_zero_blocks root_hash_sig_key_desc verity:root",
		     "optional arguments counted, signature key last");

	/* Damaged superblocks. */
	unsigned char bad[VERITY_SB_SIZE];
	memcpy(bad, sb, sizeof bad);
	tap_ok(hi_verity_sb_parse(sb, 100, &p, err, sizeof err) < 0, "truncated superblock refused");
	tap_contains(err, "truncated", "truncated: says so");
	bad[0] = 'X';
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "bad magic refused");
	tap_contains(err, "bad magic", "bad magic: says so");
	memcpy(bad, sb, sizeof bad);
	bad[8] = 2;
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "version 2 refused");
	tap_contains(err, "version", "version: says so");
	memcpy(bad, sb, sizeof bad);
	bad[64] = 0; bad[65] = 0x0c;  /* 3072 */
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "block size 3072 refused");
	memcpy(bad, sb, sizeof bad);
	bad[80] = 0x2c; bad[81] = 1;  /* 300 */
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "salt of 300 bytes refused");
	memcpy(bad, sb, sizeof bad);
	memset(bad + 32, 'a', 32);
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "unterminated algorithm refused");
	memcpy(bad, sb, sizeof bad);
	memset(bad + 72, 0, 8);
	tap_ok(hi_verity_sb_parse(bad, sizeof bad, &p, err, sizeof err) < 0, "zero data blocks refused");
}

static void test_hash_offset(void)
{
	unsigned char sb[VERITY_SB_SIZE];
	struct verity_params p;
	char root[160], table[VERITY_TABLE_MAX], want[VERITY_TABLE_MAX];
	uint64_t sectors, end;

	make_data("both", 1 << 20);
	if (!tap_ok(veritysetup("--hash-offset=1048576 --data-blocks=256 both both", root) == 0,
		    "veritysetup format with the tree appended (hash offset 1 MiB)"))
		return;
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("hash-offset=1048576", &p, err, sizeof err) == 0, "hash-offset= option");
	size_t n = read_at("both", sb, sizeof sb, 1048576);
	tap_ok(hi_verity_sb_parse(sb, n, &p, err, sizeof err) == 0 && p.data_blocks == 256, "superblock at the offset parses");
	tap_ok(hi_verity_hash_end(&p, &end) == 0 && (long long)end == file_size("both"), "tree ends at the end of the device");
	hi_verity_table(&p, "254:0", "254:0", root, table, sizeof table, &sectors, err, sizeof err);
	snprintf(want, sizeof want, "1 254:0 254:0 4096 4096 256 257 sha256 %s %s", root, salt);
	tap_streq(table, want, "table line: tree starts at block 257");
}

static void test_no_superblock_sha512(void)
{
	unsigned char sb[VERITY_SB_SIZE];
	struct verity_params p;
	char root[160], table[VERITY_TABLE_MAX], want[VERITY_TABLE_MAX], opts[400];
	uint64_t sectors, end;

	make_data("d512", 1 << 20);
	if (!tap_ok(veritysetup("--hash=sha512 --data-block-size=1024 --hash-block-size=1024 d512 h512", root) == 0,
		    "veritysetup format sha512 1024-byte blocks"))
		return;
	tap_ok(strlen(root) == 128 && hi_verity_check_root_hash(root, "sha512", err, sizeof err) == 0,
	       "sha512 root hash of 128 digits accepted");
	hi_verity_params_defaults(&p);
	size_t n = read_at("h512", sb, sizeof sb, 0);
	tap_ok(hi_verity_sb_parse(sb, n, &p, err, sizeof err) == 0 && p.data_block_size == 1024 && p.data_blocks == 1024 &&
	       strcmp(p.algorithm, "sha512") == 0, "sha512 superblock: 1024-byte blocks, 1024 data blocks");
	tap_ok(hi_verity_hash_end(&p, &end) == 0 && (long long)end == file_size("h512"), "sha512 tree size matches veritysetup");

	snprintf(opts, sizeof opts, "superblock=no,format=1,data-block-size=4096,hash-block-size=4096,data-blocks=256,hash=sha256,salt=%s,panic-on-corruption", salt);
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse(opts, &p, err, sizeof err) == 0, "no-superblock options parse");
	tap_ok(!p.superblock && p.on_corruption == VERITY_PANIC && p.corruption_set, "superblock=no, panic-on-corruption");
	tap_ok(hi_verity_params_check(&p, err, sizeof err) == 0, "full parameters are complete");
	const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	hi_verity_table(&p, "8:0", "8:16", hex, table, sizeof table, &sectors, err, sizeof err);
	snprintf(want, sizeof want, "1 8:0 8:16 4096 4096 256 0 sha256 %s %s 1 panic_on_corruption", hex, salt);
	tap_streq(table, want, "no superblock: tree starts at block 0");
}

static void test_options_and_hashes(void)
{
	struct verity_params p;
	char table[VERITY_TABLE_MAX];
	uint64_t sectors;

	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("", &p, err, sizeof err) == 0, "empty options");
	tap_ok(!hi_verity_options_weaken(&p), "defaults do not weaken");
	tap_ok(hi_verity_options_parse("check-at-most-once", &p, err, sizeof err) == 0 && hi_verity_options_weaken(&p),
	       "check-at-most-once weakens");
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("ignore-corruption", &p, err, sizeof err) == 0 && hi_verity_options_weaken(&p),
	       "ignore-corruption weakens");
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("ignore-zero-blocks,restart-on-corruption", &p, err, sizeof err) == 0 &&
	       hi_verity_options_weaken(&p) && p.on_corruption == VERITY_RESTART, "two words");
	static const char *const bad[] = {
		"frobnicate", "hash-offset=100", "hash-offset=-1", "data-block-size=3000", "format=2",
		"salt=abc", "salt=zz", "superblock=maybe", "data-blocks=0", "hash=sha 256", "data-blocks=99999999999999999999999",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hi_verity_params_defaults(&p);
		tap_ok(hi_verity_options_parse(bad[i], &p, err, sizeof err) < 0 && strstr(err, "verity option"),
		       "bad option '%s' refused", bad[i]);
	}
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("salt=-", &p, err, sizeof err) == 0 && p.salt_size == 0, "salt=- is no salt");
	p.data_blocks = 8;
	const char *hex = "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef";
	tap_ok(hi_verity_table(&p, "1:2", "3:4", hex, table, sizeof table, &sectors, err, sizeof err) > 0 &&
	       strstr(table, " - ") == NULL && table[strlen(table) - 1] == '-', "no salt is written as -");
	tap_ok(hi_verity_check_root_hash(hex, "sha256", err, sizeof err) == 0, "upper-case hex accepted");
	tap_ok(hi_verity_check_root_hash("abcd", "sha256", err, sizeof err) < 0, "short root hash refused");
	tap_contains(err, "4 hex digits, sha256 needs 64", "short root hash: says the lengths");
	tap_ok(hi_verity_check_root_hash("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg", "sha256",
				      err, sizeof err) < 0, "non-hex root hash refused");
	tap_contains(err, "not hex (character 64)", "non-hex: says where");
	tap_ok(hi_verity_check_root_hash("", "sha256", err, sizeof err) < 0, "empty root hash refused");
	tap_ok(hi_verity_check_root_hash("abcd", "", err, sizeof err) == 0, "unknown algorithm: length left to the kernel");
	p.data_blocks = 0;
	tap_ok(hi_verity_table(&p, "1:2", "3:4", hex, table, sizeof table, &sectors, err, sizeof err) < 0 &&
	       strstr(err, "data-blocks="), "no data block count: table refused");
	tap_ok(hi_verity_table_root_hash("1 2 3", table, sizeof table) < 0, "short table: no root hash");
}

/* The table of command-line words against an embedded root hash: what
 * each word does, the held-out spellings included. */
static const char anchor_hash[] = "9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d";

static void anchor_with(struct verity_anchor *a, const char *options, enum verity_corruption mode)
{
	memset(a, 0, sizeof *a);
	a->roothash = anchor_hash;
	a->data = "LABEL=vroot";
	a->hash = "/dev/vdb";
	hi_verity_params_defaults(&a->p);
	if (hi_verity_options_parse(options, &a->p, err, sizeof err) < 0)
		tap_ok(0, "anchor options '%s' parse", options);
	if (!a->p.corruption_set)
		a->p.on_corruption = mode;
}

static void test_judge(void)
{
	struct verity_anchor a;
	char word[200];
	const char *why;
	static const struct { const char *key, *value; enum verity_effect want; const char *word; } cases[] = {
		{ "roothash", "8b4332f63d3b62e3fa38037cb624dafd1842e3c8a4336e28fc85417d7eca8a2d", VW_CHANGES, NULL },
		{ "roothash", anchor_hash, VW_SAME, NULL },
		{ "roothash", "9B4332F63D3B62E3FA38037CB624DAFD1942E3C9A4336E28FC95417D7ECA8A2D", VW_SAME, NULL },
		{ "roothash", "", VW_IGNORED, NULL },
		{ "systemd.verity_root_data", "/dev/sdb", VW_CHANGES, NULL },
		{ "systemd.verity_root_data", "LABEL=vroot", VW_SAME, NULL },
		{ "systemd.verity_root_hash", "/dev/sdc", VW_CHANGES, NULL },
		{ "systemd.verity", "no", VW_WEAKENS, NULL },
		{ "systemd.verity", "0", VW_WEAKENS, NULL },
		{ "systemd.verity", "false", VW_WEAKENS, NULL },
		{ "systemd.verity", "off", VW_WEAKENS, NULL },
		{ "systemd.verity", "maybe", VW_CHANGES, NULL },
		{ "systemd.verity", "yes", VW_SAME, NULL },
		{ "systemd.verity", "1", VW_SAME, NULL },
		{ "systemd.verity", NULL, VW_SAME, NULL },
		{ "rd.systemd.verity", "0", VW_WEAKENS, NULL },
		{ "root", "/dev/sdb1", VW_IGNORED, NULL },
		{ "rw", NULL, VW_OTHER, NULL },
		{ "quiet", NULL, VW_OTHER, NULL },
		{ "usrhash", "00", VW_OTHER, NULL },
		{ "systemd.verity_root_options", "ignore-corruption", VW_WEAKENS, "ignore-corruption" },
		{ "systemd.verity_root_options", "ignore_corruption", VW_WEAKENS, "ignore_corruption" },
		{ "systemd.verity_root_options", "restart-on-corruption,ignore-corruption", VW_WEAKENS, "ignore-corruption" },
		{ "systemd.verity_root_options", "ignore-corruption,restart-on-corruption", VW_WEAKENS, "ignore-corruption" },
		{ "systemd.verity_root_options", "ignore-zero-blocks", VW_WEAKENS, "ignore-zero-blocks" },
		{ "systemd.verity_root_options", "ignore_zero_blocks", VW_WEAKENS, "ignore_zero_blocks" },
		{ "systemd.verity_root_options", "check-at-most-once", VW_WEAKENS, "check-at-most-once" },
		{ "systemd.verity_root_options", "check_at_most_once", VW_WEAKENS, "check_at_most_once" },
		{ "systemd.verity_root_options", "restart-on-corruption", VW_CHANGES, "restart-on-corruption" },
		{ "systemd.verity_root_options", "panic-on-corruption", VW_CHANGES, "panic-on-corruption" },
		{ "systemd.verity_root_options", "eio,restart-on-corruption", VW_CHANGES, NULL },
		{ "systemd.verity_root_options", "superblock=no", VW_CHANGES, "superblock=no" },
		{ "systemd.verity_root_options", "hash-offset=4096", VW_CHANGES, "hash-offset=4096" },
		{ "systemd.verity_root_options", "hash-offset=abc", VW_CHANGES, "hash-offset=abc" },
		{ "systemd.verity_root_options", "hash=sha1", VW_CHANGES, "hash=sha1" },
		{ "systemd.verity_root_options", "salt=00", VW_CHANGES, "salt=00" },
		{ "systemd.verity_root_options", "data-blocks=1", VW_CHANGES, "data-blocks=1" },
		{ "systemd.verity_root_options", "format=0", VW_CHANGES, "format=0" },
		{ "systemd.verity_root_options", "frobnicate", VW_CHANGES, "frobnicate" },
		{ "systemd.verity_root_options", "root_hash_sig_key_desc=x", VW_CHANGES, NULL },
		{ "systemd.verity_root_options", "root-hash-signature-key=verity:root", VW_STRENGTHENS, NULL },
		{ "systemd.verity_root_options", "superblock=yes,hash-offset=0", VW_SAME, NULL },
		{ "systemd.verity_root_options", "", VW_IGNORED, NULL },
	};

	anchor_with(&a, "", VERITY_EIO);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum verity_effect e = hi_verity_word_judge(&a, cases[i].key, cases[i].value, word, sizeof word, &why);
		tap_ok(e == cases[i].want, "eio anchor: %s%s%s is effect %d (got %d: %s)", cases[i].key,
		       cases[i].value ? "=" : "", cases[i].value ? cases[i].value : "", cases[i].want, e, why);
		if (cases[i].word)
			tap_ok(!strcmp(word, cases[i].word), "  the deciding word of %s is %s (got %s)", cases[i].value,
			       cases[i].word, word);
		if (verity_effect_refused(e))
			tap_ok(why && strlen(why) > 20, "  with a reason: %s", why);
	}
	/* Only away from ignore is a corruption mode stronger; the same word
	 * as the embedded options is no change. */
	anchor_with(&a, "ignore-corruption", VERITY_EIO);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "restart-on-corruption", word, sizeof word, &why) ==
	       VW_STRENGTHENS, "ignore anchor: restart-on-corruption strengthens (%s)", why);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "ignore-corruption", word, sizeof word, &why) ==
	       VW_SAME, "ignore anchor: ignore-corruption is the same");
	anchor_with(&a, "", VERITY_RESTART);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "restart-on-corruption", word, sizeof word, &why) ==
	       VW_SAME, "restart anchor ([verity] on_corruption): restart-on-corruption is the same");
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "panic-on-corruption", word, sizeof word, &why) ==
	       VW_CHANGES, "restart anchor: panic-on-corruption changes");
	anchor_with(&a, "root-hash-signature-key=verity:a", VERITY_EIO);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "root-hash-signature-key=verity:b", word, sizeof word,
				 &why) == VW_CHANGES, "another signature key changes");
	a.data = "";
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_data", "/dev/vda", word, sizeof word, &why) == VW_ADDS,
	       "a data device the embedded config leaves open is added");
	char longopt[800];
	memset(longopt, 'a', sizeof longopt - 1);
	longopt[sizeof longopt - 1] = '\0';
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", longopt, word, sizeof word, &why) == VW_CHANGES,
	       "an options text over the limit is refused");
}

/* The live table's options read back, and the measured text. */
static void test_table_options_and_measure(void)
{
	struct verity_params p, q;
	char table[VERITY_TABLE_MAX], words[VERITY_TABLE_MAX], text[960], other[960];
	uint64_t sectors;

	hi_verity_params_defaults(&p);
	p.data_blocks = 256;
	hi_verity_options_words(&p, words, sizeof words);
	tap_streq(words, "none", "no options: none");
	p.on_corruption = VERITY_PANIC;
	p.check_at_most_once = true;
	snprintf(p.sig_key_desc, sizeof p.sig_key_desc, "verity:root");
	hi_verity_options_words(&p, words, sizeof words);
	tap_streq(words, "panic_on_corruption+check_at_most_once+root_hash_sig_key_desc+verity:root", "options words");
	hi_verity_table(&p, "254:0", "254:1", anchor_hash, table, sizeof table, &sectors, err, sizeof err);
	hi_verity_params_defaults(&q);
	tap_ok(hi_verity_table_options(table, &q) == 0 && q.on_corruption == VERITY_PANIC && q.check_at_most_once &&
	       !q.ignore_zero_blocks && !strcmp(q.sig_key_desc, "verity:root"), "table options read back");
	snprintf(table, sizeof table, "1 254:0 254:1 4096 4096 256 1 sha256 %s - 1 ignore_corruption", anchor_hash);
	tap_ok(hi_verity_table_options(table, &q) == 0 && q.on_corruption == VERITY_IGNORE && !q.check_at_most_once,
	       "a live ignore_corruption is read");
	snprintf(table, sizeof table, "1 254:0 254:1 4096 4096 256 1 sha256 %s -", anchor_hash);
	tap_ok(hi_verity_table_options(table, &q) == 0 && q.on_corruption == VERITY_EIO, "no options: eio");
	tap_ok(hi_verity_table_options("1 2 3", &q) < 0, "not a table: refused");
	tap_ok(hi_verity_table_options("1 a b 4096 4096 256 1 sha256 00 - 2 bogus", &q) < 0, "unknown argument: refused");

	hi_verity_params_defaults(&p);
	p.data_blocks = 256;
	int n = hi_verity_measure_text(text, sizeof text, anchor_hash, &p, "LABEL=vroot", 1048576, "/dev/vdb", 16384);
	tap_ok(n > 0 && !strchr(text, ' '), "measured text: one field");
	printf("# %s\n", text);
	tap_ok(strncmp(text, anchor_hash, 64) == 0, "measured text starts with the root hash");
	tap_contains(text, ";data=LABEL=vroot,1048576;hash=/dev/vdb,16384;", "measured text: the devices and sizes");
	tap_contains(text, ";options=none;on_corruption=eio", "measured text: options and corruption mode");
	p.on_corruption = VERITY_IGNORE;
	hi_verity_measure_text(other, sizeof other, anchor_hash, &p, "LABEL=vroot", 1048576, "/dev/vdb", 16384);
	tap_ok(strcmp(text, other) != 0, "ignoring corruption gives another text (%s)", other);
	p.on_corruption = VERITY_EIO;
	hi_verity_measure_text(other, sizeof other, anchor_hash, &p, "LABEL=vroot", 2097152, "/dev/vdb", 16384);
	tap_ok(strcmp(text, other) != 0, "another data device size gives another text");
	tap_ok(hi_verity_measure_text(text, 100, anchor_hash, &p, "LABEL=vroot", 1, "/dev/vdb", 1) < 0,
	       "a text over its cap is refused, not cut");
	tap_ok(hi_verity_measure_text(text, sizeof text, anchor_hash, &p, "LABEL=v root", 1, "/dev/vdb", 1) < 0,
	       "white space in a name is refused");
}

/* root-hash-signature=: systemd's word, a path or base64 DER; it names
 * hardinit's key in the table, and the judge takes it only where the
 * embedded config checks no signature. */
static void test_signature(void)
{
	struct verity_params p;
	unsigned char der[16];
	char table[VERITY_TABLE_MAX], words[VERITY_TABLE_MAX], word[200];
	uint64_t sectors;
	const char *why;

	tap_ok(hi_verity_sig_base64("MIIB", der, sizeof der) == 3 && der[0] == 0x30 && der[1] == 0x82 && der[2] == 0x01,
	       "base64 decodes");
	tap_ok(hi_verity_sig_base64("MIIBAA==", der, sizeof der) == 4 && der[3] == 0, "padding is read");
	tap_ok(hi_verity_sig_base64("MIIBAA", der, sizeof der) == 4, "padding may be left out");
	tap_ok(hi_verity_sig_base64("", der, sizeof der) < 0, "empty base64 refused");
	tap_ok(hi_verity_sig_base64("MII*", der, sizeof der) < 0, "a character outside base64 refused");
	tap_ok(hi_verity_sig_base64("MIIBA", der, sizeof der) < 0, "a dangling base64 digit refused");
	tap_ok(hi_verity_sig_base64("MIIB===", der, sizeof der) < 0, "three padding characters refused");
	tap_ok(hi_verity_sig_base64("AAAAAAAAAAAAAAAAAAAAAAAA", der, sizeof der) < 0, "more bytes than the buffer refused");

	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("root-hash-signature=/etc/hardinit/root.roothash.p7s", &p, err, sizeof err) == 0 &&
	       !strcmp(p.sig_source, "/etc/hardinit/root.roothash.p7s") && !strcmp(p.sig_key_desc, VERITY_SIG_KEY_DESC),
	       "root-hash-signature=PATH names hardinit's key");
	tap_ok(hi_verity_table(&p, "254:0", "254:1", anchor_hash, table, sizeof table, &sectors, err, sizeof err) < 0 ||
	       strstr(table, " 2 root_hash_sig_key_desc hardinit:verity:root") != NULL,
	       "the table names the key");
	p.data_blocks = 8;
	tap_ok(hi_verity_table(&p, "254:0", "254:1", anchor_hash, table, sizeof table, &sectors, err, sizeof err) > 0 &&
	       strstr(table, " 2 root_hash_sig_key_desc hardinit:verity:root") != NULL, "the table line ends with the key");
	hi_verity_options_words(&p, words, sizeof words);
	tap_ok(!strcmp(words, "root_hash_sig_key_desc+hardinit:verity:root"), "the measured options say the signature is checked");
	hi_verity_params_defaults(&p);
	tap_ok(hi_verity_options_parse("root-hash-signature=base64:MIIBAA==", &p, err, sizeof err) == 0 &&
	       !strcmp(p.sig_source, "base64:MIIBAA=="), "root-hash-signature=base64: parses");
	tap_ok(hi_verity_options_parse("root-hash-signature=base64:MI*B", &p, err, sizeof err) < 0, "bad base64 refused");
	tap_ok(hi_verity_options_parse("root-hash-signature=relative.p7s", &p, err, sizeof err) < 0, "a relative path refused");
	tap_ok(hi_verity_options_parse("root-hash-signature=", &p, err, sizeof err) < 0, "an empty signature refused");

	struct verity_anchor a = { .roothash = anchor_hash, .data = "LABEL=vroot", .hash = "/dev/vdb" };
	hi_verity_params_defaults(&a.p);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "root-hash-signature=base64:MIIB", word, sizeof word, &why) ==
	       VW_STRENGTHENS, "a signature where the embedded config has none strengthens");
	hi_verity_options_parse("root-hash-signature=/etc/hardinit/root.roothash.p7s", &a.p, err, sizeof err);
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "root-hash-signature=base64:MIIB", word, sizeof word, &why) ==
	       VW_CHANGES, "another signature than the embedded one is refused");
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "root-hash-signature=/etc/hardinit/root.roothash.p7s", word,
				 sizeof word, &why) == VW_SAME, "the embedded signature's own word is the same");
	tap_ok(hi_verity_word_judge(&a, "systemd.verity_root_options", "root-hash-signature-key=other", word, sizeof word, &why) ==
	       VW_CHANGES, "another key than the embedded signature's is refused");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	if (system("command -v veritysetup >/dev/null") != 0) {
		printf("1..0 # SKIP veritysetup (cryptsetup-bin) not installed\n");
		return 0;
	}
	test_separate_hash();
	test_hash_offset();
	test_no_superblock_sha512();
	test_options_and_hashes();
	test_judge();
	test_table_options_and_measure();
	test_signature();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		tap_ok(0, "cleanup");
	return tap_done();
}
