/* Unit tests: the luks stage's pure parts (stages/luks.c): the crypttab
 * lines and options, the volumes the command line and the crypttab name
 * (systemd-cryptsetup-generator's rules); and block/luks2_dm.c:
 * cryptsetup's key description and dm uuid, the dm-crypt table (the key by keyring reference, never the
 * key) for a header made by cryptsetup, and the passphrase line reader;
 * and the stage's device scan against a temporary tree: the volume's
 * UUID matched whole, two devices carrying it refused. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "config.h"
#include "fixture.h"
#include "luks.h"
#include "prompt.h"
#include "luks2_dm.h"
#include "luks2_hdr.h"
#include "luks_scan.h"
#include "sha256.h"
#include "md_bytes.h"
#include "tap.h"

static char err[LUKS_ERR_MAX];
static const char U1[] = "0f2c6b4e-1111-4a55-8d9c-0123456789ab";
static const char U2[] = "9a9a9a9a-2222-4b66-9e0d-abcdefabcdef";

static void cmd(struct cmdline *c, const char *text)
{
	char e[200];
	if (hi_cmdline_parse(c, text, strlen(text), e, sizeof e) < 0)
		tap_ok(0, "cmdline_parse %s: %s", text, e);
}

static void test_crypttab(void)
{
	struct luks_plan p;
	char text[600];

	memset(&p, 0, sizeof p);
	snprintf(text, sizeof text, "# comment\n\ncryptroot UUID=%s none luks,discard,tries=5,x-made-up\n"
		 "data\t/dev/disk/by-uuid/%s\t-\n", U1, U2);
	tap_ok(hi_luks_crypttab_parse(text, strlen(text), &p, err, sizeof err) == 0 && p.n == 2, "crypttab: two volumes");
	tap_ok(!strcmp(p.v[0].name, "cryptroot") && !strcmp(p.v[0].uuid, U1) && p.v[0].o.dm.discard && p.v[0].o.tries == 5,
	       "crypttab: name, UUID=, discard, tries=5");
	tap_streq(p.v[0].o.ignored, "x-made-up", "crypttab: an unknown option is ignored and named (as systemd does)");
	tap_ok(!strcmp(p.v[1].name, "data") && !strcmp(p.v[1].uuid, U2), "crypttab: /dev/disk/by-uuid/ device, key -");
	memset(&p, 0, sizeof p);
	snprintf(text, sizeof text, "cryptroot UUID=%s none luks,tpm2-device=auto,discard\n", U1);
	tap_ok(hi_luks_crypttab_parse(text, strlen(text), &p, err, sizeof err) == 0 && p.n == 1 && p.v[0].o.dm.discard &&
		       !p.v[0].o.ignored[0],
	       "crypttab: tpm2-device=auto (systemd-cryptenroll's crypttab line) is taken: the token is tried");

	struct { const char *line; const char *want; } bad[] = {
		{ "x UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab /etc/key luks", "key files are not supported" },
		{ "x /dev/sda2 none", "is not UUID=" },
		{ "x UUID=zz none", "is not UUID=" },
		{ "onlyname", "1 fields" },
		{ "x UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,fido2-device=auto", "fido2-device is not supported" },
		{ "x UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none luks,tpm2-device=/dev/tpm1", "tpm2-device=/dev/tpm1: hardinit uses the first TPM, /dev/tpm0 or /dev/tpmrm0" },
		{ "x UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none plain", "plain is not supported" },
		{ "x UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none tries=99", "tries=99" },
		{ "a/b UUID=0f2c6b4e-1111-4a55-8d9c-0123456789ab none", "bad name" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&p, 0, sizeof p);
		int rc = hi_luks_crypttab_parse(bad[i].line, strlen(bad[i].line), &p, err, sizeof err);
		tap_ok(rc < 0, "crypttab refused: %s", bad[i].line);
		tap_contains(err, bad[i].want, "  and the error says why");
	}
	memset(&p, 0, sizeof p);
	snprintf(text, sizeof text, "a UUID=%s\nb UUID=%s\n", U1, U1);
	tap_ok(hi_luks_crypttab_parse(text, strlen(text), &p, err, sizeof err) < 0 && strstr(err, "line 2"),
	       "crypttab: a UUID twice refused, naming line 2");
}

/* tpm2-measure-pcr=: after any unlock, passphrase or token, the volume's
 * identity goes into PCR 15 when a TPM is there (systemd-cryptsetup's
 * defence against a planted volume opened by a passphrase its writer
 * knows); no turns it off; yes or N makes a failure the boot's. */
static void test_measure(void)
{
	struct { const char *opts; bool tpm; bool measure, required; int pcr; } cases[] = {
		{ "luks", true, true, false, 15 },
		{ "luks", false, false, false, 15 },
		{ "tpm2-measure-pcr=no", true, false, false, 15 },
		{ "tpm2-measure-pcr=0", true, false, false, 15 },           /* systemd's boolean: 0 is no */
		{ "tpm2-measure-pcr=off", false, false, false, 15 },
		{ "tpm2-measure-pcr=yes", true, true, true, 15 },
		{ "tpm2-measure-pcr=yes", false, true, true, 15 },          /* no TPM: the failure, not a skip */
		{ "tpm2-measure-pcr=1", true, true, true, 15 },
		{ "tpm2-measure-pcr=9", true, true, true, 9 },
		{ "tpm2-measure-pcr=23", false, true, true, 23 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct luks_opts o;
		memset(&o, 0, sizeof o);
		int rc = hi_luks_options_parse(cases[i].opts, &o, err, sizeof err);
		struct luks_measure_plan m = hi_luks_measure_decide(&o, cases[i].tpm);
		tap_ok(rc == 0 && m.measure == cases[i].measure && m.required == cases[i].required &&
			       (!m.measure || m.pcr == cases[i].pcr) && !o.ignored[0],
		       "%s, %s TPM: %s%s, PCR %d", cases[i].opts, cases[i].tpm ? "a" : "no",
		       cases[i].measure ? "measured" : "not measured", cases[i].required ? " (required)" : "", cases[i].pcr);
	}
	const char *bad[] = { "tpm2-measure-pcr=24", "tpm2-measure-pcr=maybe", "tpm2-measure-pcr", "tpm2-measure-pcr=-1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct luks_opts o;
		memset(&o, 0, sizeof o);
		tap_ok(hi_luks_options_parse(bad[i], &o, err, sizeof err) < 0 && strstr(err, "give yes, no or a PCR 0 to 23"),
		       "%s refused: %s", bad[i], err);
	}
}

/* fixate-volume-key=: systemd's volume key id, HMAC-SHA256 of
 * "cryptsetup:NAME:UUID" under the volume key (the vector: Python's hmac). */
static void test_fixate(void)
{
	static const char id_hex[] = "144ba04c294ba88115ddf64b025b9cb89ec83804cba875940029f2afcb407310";
	uint8_t vk[64], id[SHA256_BYTES];
	char text[200], hex[SHA256_HEX];
	struct luks_opts o;

	for (int i = 0; i < 64; i++)
		vk[i] = (uint8_t)i;
	hi_luks2_volume_key_id("cryptroot", U1, vk, sizeof vk, id);
	tap_streq(hi_hex_encode(hex, id, sizeof id), id_hex, "volume key id: HMAC-SHA256 of cryptsetup:NAME:UUID under the key");
	memset(&o, 0, sizeof o);
	snprintf(text, sizeof text, "luks,fixate-volume-key=%s", id_hex);
	tap_ok(hi_luks_options_parse(text, &o, err, sizeof err) == 0 && o.fixate && !memcmp(o.fixate_id, id, sizeof id) &&
		       !o.ignored[0],
	       "fixate-volume-key=ID taken, not ignored");
	const char *bad[] = { "fixate-volume-key=", "fixate-volume-key", "fixate-volume-key=144ba04c",
			      "fixate-volume-key=zz4ba04c294ba88115ddf64b025b9cb89ec83804cba875940029f2afcb407310" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&o, 0, sizeof o);
		tap_ok(hi_luks_options_parse(bad[i], &o, err, sizeof err) < 0 && strstr(err, "64 hex digits"), "%s refused", bad[i]);
	}
	memset(&o, 0, sizeof o);
	tap_ok(hi_luks_options_parse("tpm2-measure-keyslot-nvpcr=x", &o, err, sizeof err) < 0,
	       "tpm2-measure-keyslot-nvpcr= refused (hardinit cannot measure into an NvPCR)");
}

static void test_plan(void)
{
	struct cmdline c;
	struct luks_plan ct, p;
	char text[600];

	memset(&ct, 0, sizeof ct);
	snprintf(text, sizeof text, "cryptroot UUID=%s none\ndata UUID=%s none discard\n", U1, U2);
	hi_luks_crypttab_parse(text, strlen(text), &ct, err, sizeof err);

	cmd(&c, "root=/dev/mapper/x");
	tap_ok(hi_luks_plan_resolve(&c, &ct, &p, err, sizeof err) == 0 && p.n == 2, "no rd.luks words: every crypttab volume");

	snprintf(text, sizeof text, "rd.luks.uuid=%s", U2);
	cmd(&c, text);
	tap_ok(hi_luks_plan_resolve(&c, &ct, &p, err, sizeof err) == 0 && p.n == 1 && !strcmp(p.v[0].name, "data") &&
	       p.v[0].o.dm.discard, "rd.luks.uuid= limits the crypttab to that UUID; the crypttab's name and options win");

	snprintf(text, sizeof text, "rd.luks.uuid=luks-%s rd.luks.crypttab=no", U2);
	cmd(&c, text);
	tap_ok(hi_luks_plan_resolve(&c, &ct, &p, err, sizeof err) == 0 && p.n == 1 && !strcmp(p.v[0].name, "luks-9a9a9a9a-2222-4b66-9e0d-abcdefabcdef"),
	       "rd.luks.crypttab=no: the default name luks-UUID (luks- prefix accepted)");

	snprintf(text, sizeof text, "rd.luks.name=%s=cr_root rd.luks.options=%s=discard,tries=2 rd.luks.options=readonly", U1, U1);
	cmd(&c, text);
	tap_ok(hi_luks_plan_resolve(&c, NULL, &p, err, sizeof err) == 0 && p.n == 1 && !strcmp(p.v[0].name, "cr_root") &&
	       p.v[0].o.dm.discard && p.v[0].o.tries == 2 && !p.v[0].o.dm.readonly,
	       "rd.luks.name=UUID=NAME with rd.luks.options=UUID=... (the per-volume options only)");

	snprintf(text, sizeof text, "rd.luks.uuid=%s rd.luks.options=readonly,discard", U1);
	cmd(&c, text);
	tap_ok(hi_luks_plan_resolve(&c, NULL, &p, err, sizeof err) == 0 && p.n == 1 && p.v[0].o.dm.readonly && p.v[0].o.dm.discard,
	       "rd.luks.options= without a UUID applies to the command line's volumes");

	snprintf(text, sizeof text, "rd.luks=no rd.luks.uuid=%s", U1);
	cmd(&c, text);
	tap_ok(hi_luks_plan_resolve(&c, &ct, &p, err, sizeof err) == 0 && p.n == 0, "rd.luks=no: nothing opened");

	cmd(&c, "rd.luks.uuid=nonsense");
	tap_ok(hi_luks_plan_resolve(&c, NULL, &p, err, sizeof err) < 0, "rd.luks.uuid=nonsense refused");
	tap_contains(err, "not a UUID", "  and the error says so");
	cmd(&c, "rd.luks.options=header=/x");
	tap_ok(hi_luks_plan_resolve(&c, NULL, &p, err, sizeof err) < 0 && strstr(err, "header is not supported"),
	       "rd.luks.options=header=... refused");
}

struct mem { uint8_t *p; size_t n; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mem *m = ctx;
	if (off > m->n || len > m->n - off)
		return -1;
	memcpy(buf, m->p + off, len);
	return 0;
}

static int header_of(const char *args, struct luks2_hdr *h)
{
	char cmdtext[600], note[LUKS2_ERR_MAX];
	static uint8_t img[64 * 1024];
	snprintf(cmdtext, sizeof cmdtext, "f=$(mktemp) && truncate -s 20M $f && printf p | cryptsetup luksFormat -q "
		 "--type luks2 --key-file - --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --luks2-metadata-size 16k "
		 "--luks2-keyslots-size 256k --uuid %s %s $f >/dev/null 2>&1 && head -c 65536 $f; rm -f $f", U1, args);
	FILE *f = popen(cmdtext, "r");
	size_t n = f ? fread(img, 1, sizeof img, f) : 0;
	if (f)
		pclose(f);
	struct mem m = { img, n };
	return n == sizeof img ? hi_luks2_hdr_read(mem_read, &m, h, note, sizeof note, err, sizeof err) : -1;
}

static void test_table(void)
{
	struct luks2_hdr h;
	struct luks2_dm_opts o = { .discard = false };
	char desc[80], table[LUKS2_TABLE_MAX], want[LUKS2_TABLE_MAX], uuid[129];
	uint64_t sectors;

	hi_luks2_key_desc(U1, 0, desc, sizeof desc);
	tap_streq(desc, "cryptsetup:0f2c6b4e-1111-4a55-8d9c-0123456789ab-d0", "key description as cryptsetup 2.x");
	hi_luks2_dm_uuid(U1, "cr_root", uuid, sizeof uuid);
	tap_streq(uuid, "CRYPT-LUKS2-0f2c6b4e11114a558d9c0123456789ab-cr_root", "dm uuid as cryptsetup");

	if (!tap_ok(header_of("--sector-size 512", &h) == 0, "cryptsetup header (512-byte sectors): %s", err))
		return;
	tap_ok(hi_luks2_dm_table(&h, &o, "254:3", 20 << 20, desc, table, sizeof table, &sectors, err, sizeof err) == 0,
	       "table for a 20 MiB device");
	snprintf(want, sizeof want, "aes-xts-plain64 :64:logon:%s 0 254:3 2048", desc);
	tap_streq(table, want, "table: cipher, key by keyring reference, iv_tweak, device, data offset");
	tap_ok(sectors == (20 << 20) / 512 - 2048, "table: the data segment's length in sectors");
	tap_ok(!strstr(table, "0000000000"), "no key material in the table");
	o.discard = o.no_read_workqueue = true;
	hi_luks2_dm_table(&h, &o, "254:3", 20 << 20, desc, table, sizeof table, &sectors, err, sizeof err);
	snprintf(want, sizeof want, "aes-xts-plain64 :64:logon:%s 0 254:3 2048 2 allow_discards no_read_workqueue", desc);
	tap_streq(table, want, "table: discard and no-read-workqueue as features");
	tap_ok(hi_luks2_dm_table(&h, &o, "254:3", 512 * 1024, desc, table, sizeof table, &sectors, err, sizeof err) < 0 &&
	       strstr(err, "ends before the data offset"), "a device smaller than the data offset refused");
	/* A header that keeps the real keyslots but names its own table in
	 * the segment's encryption (63 bytes are room enough for a cipher,
	 * a key and a device): refused before any passphrase is asked. */
	snprintf(h.segment[0].encryption, sizeof h.segment[0].encryption, "aes-ecb %064d 0 254:0 32768 0", 0);
	tap_ok(hi_luks2_dm_table(&h, &o, "254:3", 20 << 20, desc, table, sizeof table, &sectors, err, sizeof err) < 0 &&
	       strstr(err, "encryption is not a cipher spec"), "a segment encryption with table words of its own refused: %s", err);
	/* A well-formed spec that encrypts nothing: refused too. */
	snprintf(h.segment[0].encryption, sizeof h.segment[0].encryption, "cipher_null-ecb");
	tap_ok(hi_luks2_dm_table(&h, &o, "254:3", 20 << 20, desc, table, sizeof table, &sectors, err, sizeof err) < 0 &&
	       strstr(err, "not encrypted (cipher_null)"), "a cipher_null segment refused: %s", err);
	snprintf(h.segment[0].encryption, sizeof h.segment[0].encryption, "capi:ecb(cipher_null)-plain");
	tap_ok(hi_luks2_dm_table(&h, &o, "254:3", 20 << 20, desc, table, sizeof table, &sectors, err, sizeof err) < 0 &&
	       strstr(err, "not encrypted (cipher_null)"), "... and its capi spelling: %s", err);
	hi_luks2_hdr_free(&h);

	o.discard = o.no_read_workqueue = false;
	if (!tap_ok(header_of("--sector-size 4096", &h) == 0, "cryptsetup header (4096-byte sectors)"))
		return;
	hi_luks2_dm_table(&h, &o, "8:1", (20 << 20) + 1000, desc, table, sizeof table, &sectors, err, sizeof err);
	snprintf(want, sizeof want, "aes-xts-plain64 :64:logon:%s 0 8:1 2048 1 sector_size:4096", desc);
	tap_streq(table, want, "table: sector_size:4096 feature");
	tap_ok(sectors % 8 == 0 && sectors == ((20 << 20) - (1 << 20)) / 512, "length a whole number of 4096-byte sectors");
	hi_luks2_hdr_free(&h);
}

/* The segment's encryption as cryptsetup writes it, nothing else. */
static void test_cipher_spec(void)
{
	const char *good[] = { "aes-xts-plain64", "aes-cbc-essiv:sha256", "serpent-xts-plain64", "aes-ecb",
			       "twofish-cbc-plain", "aes-xts-plain64be", "capi:xts(aes)-plain64",
			       "capi:adiantum(xchacha12,aes)-plain64", "cipher_null-ecb", "aes-cbc-essiv:sha3-256" };
	const char *bad[] = { "aes-ecb 0011 0 254:0 32768 0", "aes", "", "aes-xts-plain64 1", "aes-xts-plain64\t",
			      "aes--plain64", "-xts-plain64", "aes-xts-", "aes-xts-plain64:", "capi:xts(aes-plain64",
			      "capi:xts(aes)", "aes-xts-plain64-x", "aes-xts-plain64:sha256 x", "aes/xts-plain64",
			      "capi:)xts(aes(-plain64", "aes-xts-essiv:sha256:x" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		tap_ok(hi_luks2_cipher_spec_ok(good[i]), "cipher spec taken: %s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		tap_ok(!hi_luks2_cipher_spec_ok(bad[i]), "cipher spec refused: '%s'", bad[i]);
}

static void test_read_line(void)
{
	int p[2];
	char out[16];

	if (pipe(p) < 0)
		return;
	tap_ok(write(p[1], "abc\nxyz\r", 8) == 8, "write two lines");
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 1000) == 3 && !strcmp(out, "abc"), "first line, \\n");
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 1000) == 3 && !strcmp(out, "xyz"), "second line, \\r");
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 50) < 0 && out[0] == '\0', "nothing typed: times out, buffer wiped");
	tap_ok(write(p[1], "0123456789abcdefXYZ\n", 20) == 20, "write a long line");
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 1000) < 0 && out[0] == '\0', "longer than the buffer: refused, wiped");
	tap_ok(write(p[1], "next\n", 5) == 5, "write a line after it");
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 1000) == 4 && !strcmp(out, "next"),
	       "the long line's rest was dropped: the next try reads the next line");
	close(p[1]);
	tap_ok(hi_prompt_read_line(p[0], out, sizeof out, 1000) < 0, "end of input: refused");
	close(p[0]);
}

/* A device of the temporary tree: sys/class/block/NAME/dev and dev/NAME,
 * a regular file holding a LUKS2 binary header whose uuid field is
 * uuid_field (40 bytes, copied as given: no NUL added past its text). */
static void put_luks_dev(const char *root, const char *name, const char *devnum, const char *uuid_field, size_t len)
{
	static uint8_t img[LUKS2_BIN_SIZE];
	char rel[64];

	memset(img, 0, sizeof img);
	memcpy(img, "LUKS\xba\xbe\x00\x02", 8);
	memcpy(img + 168, uuid_field, len);
	snprintf(rel, sizeof rel, "sys/class/block/%s/dev", name);
	fixture_put(root, rel, devnum);
	snprintf(rel, sizeof rel, "dev/%s", name);
	fixture_put_bytes(root, rel, img, sizeof img);
}

static void test_scan(void)
{
	static struct boot b;
	struct luks_scan s;
	char field[LUKS2_UUID_MAX];
	const char *root = fixture_tree("luks-scan");

	fixture_mkdir(root, "sys/class/block", 0755);
	boot_at(&b, root, MODE_INITRAMFS);
	put_luks_dev(root, "vdb", "254:16\n", U1, sizeof U1);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 1 && s.fd >= 0 && !strcmp(s.name[0], "vdb"), "scan: the one device carrying the UUID is taken, open");
	if (s.fd >= 0)
		close(s.fd);

	/* The wanted UUID and one more character: another volume's UUID,
	 * not this one's. */
	memset(field, 0, sizeof field);
	snprintf(field, sizeof field, "%sX", U1);
	put_luks_dev(root, "vdb", "254:16\n", field, sizeof field);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 0 && s.fd < 0, "scan: a header uuid of the UUID plus a character is not a match");
	/* 40 bytes of text and no NUL in the field: no UUID at all. */
	memset(field, 'a', sizeof field);
	memcpy(field, U1, strlen(U1));
	put_luks_dev(root, "vdb", "254:16\n", field, sizeof field);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 0 && s.fd < 0, "scan: a uuid field with no end within its 40 bytes is not a match");

	/* More entries than the scan reads, and the one it sees carrying the
	 * UUID: a second could sit past the bound (a disk with thousands of
	 * partitions pushing the real one out), so no device is taken. */
	put_luks_dev(root, "vdb", "254:16\n", U1, sizeof U1);
	char name[32];
	for (int i = 0; i < LUKS_SCAN_MAX; i++) {
		snprintf(name, sizeof name, "sys/class/block/sdq%d", i);
		fixture_mkdir(root, name, 0755);
	}
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.more && s.fd < 0, "scan: past LUKS_SCAN_MAX entries the one match seen is not taken");
	fixture_rmtree(root);
}

/* NAME: a 1 MiB device with the volume's LUKS2 header at its start and,
 * with end_sb, a 1.0 md superblock at its end: a member of a 1.0 array
 * (or 0.90) shows the array's header; the array itself (end_sb 0) too. */
static void put_md_luks_dev(const char *root, const char *name, const char *devnum, int end_sb)
{
	enum { BYTES = 1024 * 1024 };
	static uint8_t img[BYTES];
	uint64_t at = (BYTES / 512 - 16) & ~7u;
	char rel[64];

	memset(img, 0, sizeof img);
	memcpy(img, "LUKS\xba\xbe\x00\x02", 8);
	memcpy(img + 168, U1, sizeof U1);
	if (end_sb)
		md_make_v1(img + at * 512, at, "debian:1", 1, 2, 0, 10);
	snprintf(rel, sizeof rel, "sys/class/block/%s/dev", name);
	fixture_put(root, rel, devnum);
	snprintf(rel, sizeof rel, "sys/class/block/%s/size", name);
	fixture_put(root, rel, "2048\n");
	snprintf(rel, sizeof rel, "dev/%s", name);
	fixture_put_bytes(root, rel, img, sizeof img);
}

/* LUKS2 on a 1.0 RAID1: the header is on the array and on each member.
 * Only the array is the volume; a member opened alone would take writes
 * its mirror never sees. */
static void test_scan_md(void)
{
	static struct boot b;
	struct luks_scan s;
	const char *root = fixture_tree("luks-scan-md");

	fixture_mkdir(root, "sys/class/block", 0755);
	boot_at(&b, root, MODE_INITRAMFS);
	put_md_luks_dev(root, "vda1", "254:1\n", 1);
	put_md_luks_dev(root, "vdb1", "254:17\n", 1);
	put_md_luks_dev(root, "md1", "9:1\n", 0);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 1 && s.fd >= 0 && !strcmp(s.name[0], "md1"), "scan md: on a 1.0 array, the array is the one match");
	tap_ok(s.n_md == 2, "scan md: ... both members carry the header, neither is a match");
	if (s.fd >= 0)
		close(s.fd);
	/* The array not assembled (no md in the image), one disk left: the
	 * member alone is never the volume. */
	fixture_rmtree(root);
	root = fixture_tree("luks-scan-md");
	fixture_mkdir(root, "sys/class/block", 0755);
	boot_at(&b, root, MODE_INITRAMFS);
	put_md_luks_dev(root, "vda1", "254:1\n", 1);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 0 && s.fd < 0 && s.n_md == 1 && !strcmp(s.md_name, "vda1"),
	       "scan md: a lone 1.0 member carrying the header is not opened");
	tap_contains(s.md_what, "an md 1.0 member of array 5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9", "scan md: ... and says why");
	/* A running array's member (holders/mdN), whatever its superblock. */
	put_md_luks_dev(root, "vdc", "254:32\n", 0);
	fixture_mkdir(root, "sys/class/block/vdc/holders/md0", 0755);
	hi_luks_scan(b.sys, b.dev, U1, &s);
	tap_ok(s.n == 0 && s.n_md == 2, "scan md: a device held by a running array is no match");
	fixture_rmtree(root);
}

/* Two devices carrying the volume's UUID (a disk planted under it): the
 * stage refuses, naming both and the UUID, before a passphrase is asked
 * on the console or a byte is written to the TPM. The tree's console and
 * TPM nodes are regular files: anything written to them stays there. */
static void test_stage_duplicates(void)
{
	static struct boot b;
	static char text[200];
	char conf[BOOT_PATH_MAX + 32], want[BOOT_PATH_MAX + 32];
	const char *root = fixture_tree("luks-dup");

	fixture_mkdir(root, "sys/class/block", 0755);
	fixture_mkdir(root, "etc", 0755);
	fixture_put(root, "dev/mapper/control", "");
	fixture_put(root, "dev/console", "");
	fixture_put(root, "dev/tpm0", "");
	fixture_put(root, "dev/tpmrm0", "");
	put_luks_dev(root, "vdc", "254:32\n", U1, sizeof U1);
	put_luks_dev(root, "vdb", "254:16\n", U1, sizeof U1);
	put_luks_dev(root, "vdd", "254:48\n", U2, sizeof U2);
	boot_at(&b, root, MODE_INITRAMFS);
	hi_config_defaults(&b.cfg);
	snprintf(conf, sizeof conf, "%s/etc/hardinit.conf", root);
	snprintf(b.config_path, sizeof b.config_path, "%s", conf);
	snprintf(text, sizeof text, "rd.luks.uuid=%s", U1);
	cmd(&b.cmd, text);

	tap_ok(hi_stage_luks(&b) == -1, "stage: two devices with the volume's UUID refused");
	snprintf(want, sizeof want, "2 devices carry LUKS UUID %s: %s/dev/vdb, %s/dev/vdc;", U1, root, root);
	tap_contains(b.err, want, "  naming the UUID and both devices");
	tap_contains(b.err, "remove the disk that is not the volume", "  and saying what to do");
	tap_ok(!strstr(b.err, "vdd"), "  not naming the device with another UUID");
	const char *con = fixture_get(root, "dev/console");
	tap_ok(con && !con[0], "  no passphrase asked on the console");
	const char *tpm = fixture_get(root, "dev/tpm0");
	tap_ok(tpm && !tpm[0], "  no command sent to the TPM (tpm0)");
	tpm = fixture_get(root, "dev/tpmrm0");
	tap_ok(tpm && !tpm[0], "  no command sent to the TPM (tpmrm0)");

	b.cfg.root_duplicates = ROOT_DUP_WARN;
	b.luks_plan = NULL;
	b.err[0] = '\0';
	tap_ok(hi_stage_luks(&b) == -1 && strstr(b.err, want),
	       "stage: root_duplicates = warn does not let the luks stage choose (a key is at stake)");
	fixture_rmtree(root);
}

int main(void)
{
	test_scan();
	test_scan_md();
	test_stage_duplicates();
	test_crypttab();
	test_plan();
	test_measure();
	test_fixate();
	test_table();
	test_cipher_spec();
	test_read_line();
	return tap_done();
}
