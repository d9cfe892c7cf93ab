/* Unit tests: the LUKS2 header reader (block/luks2_hdr.c, luks2_json.c)
 * against headers made here by Debian's cryptsetup luksFormat on image
 * files (pbkdf2 and argon2id keyslots, small costs), so the expected values
 * are cryptsetup's own; then damaged copies, the newer copy, and JSON the
 * parser must refuse with a reason. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "luks2.h"
#include "luks2_hdr.h"
#include "luks2_json.h"
#include "tap.h"

#define IMG_HEAD (512 * 1024)       /* both copies of every header made here */

static char dir[] = "/tmp/hardinit-luks2-XXXXXX";
static char err[LUKS2_ERR_MAX], note[LUKS2_ERR_MAX];

struct mem { uint8_t *p; size_t n; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mem *m = ctx;
	if (off > m->n || len > m->n - off)
		return -1;
	memcpy(buf, m->p + off, len);
	return 0;
}

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[1024], full[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	snprintf(full, sizeof full, "cd %s && (%s) >/dev/null 2>&1", dir, cmd);
	return system(full) == 0 ? 0 : -1;
}

/* luksFormat NAME with the passphrase "pass" and ARGS; its first
 * IMG_HEAD bytes into m. */
static int format(const char *name, const char *args, struct mem *m)
{
	char path[300];
	if (sh("rm -f %s && truncate -s 4M %s", name, name) < 0)
		return -1;
	char a[700];
	snprintf(a, sizeof a, "%s %s", args, name);
	if (sh("printf pass | cryptsetup luksFormat -q --type luks2 --key-file - %s", a) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY);
	m->p = calloc(1, IMG_HEAD);
	m->n = IMG_HEAD;
	ssize_t got = fd < 0 ? -1 : pread(fd, m->p, IMG_HEAD, 0);
	if (fd >= 0)
		close(fd);
	return got == IMG_HEAD ? 0 : -1;
}

static const char uuid[] = "2f9bdb0e-6b1e-4a55-8d9c-0123456789ab";

static void test_pbkdf2(void)
{
	struct mem m;
	struct luks2_hdr h;
	char args[300];

	snprintf(args, sizeof args, "--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --hash sha256 "
		 "--luks2-metadata-size 16k --luks2-keyslots-size 256k --uuid %s --label vol1", uuid);
	if (!tap_ok(format("p.img", args, &m) == 0, "cryptsetup luksFormat (pbkdf2)"))
		return;
	int rc = hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err);
	if (!tap_ok(rc == 0, "pbkdf2 header reads: %s", rc ? err : "ok"))
		return;
	tap_streq(h.uuid, uuid, "uuid");
	tap_streq(h.label, "vol1", "label");
	tap_ok(h.hdr_size == 16384 && !h.from_secondary && note[0] == '\0', "16 KiB copies, primary used, no note");
	tap_ok(h.json_size == 12288 && h.keyslots_size == 262144, "config: json_size, keyslots_size");
	const struct luks2_keyslot *k = &h.keyslot[0];
	tap_ok(k->used && k->usable && !strcmp(k->type, "luks2") && k->key_size == 64, "keyslot 0: luks2, 64-byte key");
	tap_ok(k->area_offset == 32768 && k->area_size == 258048 && k->area_key_size == 64 &&
	       !strcmp(k->area_encryption, "aes-xts-plain64"), "keyslot 0: area");
	tap_ok(k->kdf.type == LUKS2_KDF_PBKDF2 && !strcmp(k->kdf.hash, "sha256") && k->kdf.iterations == 1000 &&
	       k->kdf.salt_len == 32, "keyslot 0: pbkdf2 sha256, 1000 iterations, 32-byte salt");
	tap_ok(k->af_stripes == 4000 && !strcmp(k->af_hash, "sha256"), "keyslot 0: af luks1, 4000 stripes, sha256");
	tap_ok(!h.keyslot[1].used, "keyslot 1 unused");
	const struct luks2_segment *s = &h.segment[0];
	tap_ok(s->used && !strcmp(s->type, "crypt") && s->offset == 1048576 && s->sector_size >= 512
	       && s->dynamic && s->iv_tweak == 0 && !strcmp(s->encryption, "aes-xts-plain64"),
	       "segment 0: crypt, dynamic, aes-xts-plain64");
	const struct luks2_digest *d = hi_luks2_segment_digest(&h, 0);
	tap_ok(d && !strcmp(d->type, "pbkdf2") && d->keyslots == 1 && d->segments == 1 && !strcmp(d->hash, "sha256") &&
	       d->salt_len == 32 && d->digest_len == 32 && d->iterations >= 1000, "digest 0: pbkdf2 over keyslot 0, segment 0");
	tap_ok(h.json && strstr(h.json, "\"keyslots\"") && h.json_len == strlen(h.json), "JSON text kept");
	hi_luks2_hdr_free(&h);
	free(m.p);
}

static void test_argon2id(void)
{
	struct mem m;
	struct luks2_hdr h;

	if (!tap_ok(format("a.img", "--pbkdf argon2id --pbkdf-force-iterations 4 --pbkdf-memory 32 "
			   "--pbkdf-parallel 1 --sector-size 512 --luks2-metadata-size 64k --luks2-keyslots-size 256k",
			   &m) == 0, "cryptsetup luksFormat (argon2id, 64 KiB copies)"))
		return;
	int rc = hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err);
	if (!tap_ok(rc == 0, "argon2id header reads: %s", rc ? err : "ok"))
		return;
	const struct hi_luks2_kdf *k = &h.keyslot[0].kdf;
	tap_ok(h.hdr_size == 65536 && h.json_size == 65536 - 4096, "64 KiB copies");
	tap_ok(h.keyslot[0].usable && k->type == LUKS2_KDF_ARGON2ID && k->time == 4 && k->memory == 32 && k->cpus == 1 &&
	       k->salt_len == 32, "keyslot 0: argon2id, time 4, 32 KiB, 1 lane, 32-byte salt");
	tap_ok(h.segment[0].sector_size == 512, "segment 0: 512-byte sectors");
	hi_luks2_hdr_free(&h);

	/* The primary's magic gone: its size says nothing, so the secondary
	 * is found at a standard offset (64 KiB here, not the first tried). */
	m.p[0] ^= 0xff;
	rc = hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err);
	tap_ok(rc == 0 && h.from_secondary && h.offset == 65536 && h.keyslot[0].usable,
	       "primary magic damaged: the secondary at 64 KiB is found and used (%s)", rc ? err : note);
	tap_contains(note, "primary copy no LUKS2 magic", "the note names the damaged primary");
	hi_luks2_hdr_free(&h);
	m.p[0] ^= 0xff;

	/* One byte of the primary's JSON: its checksum fails. */
	m.p[4096 + 10] ^= 0x01;
	rc = hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err);
	tap_ok(rc == 0 && h.from_secondary, "primary JSON damaged: the secondary is used");
	tap_contains(note, "checksum mismatch", "the note says the primary's checksum fails");
	hi_luks2_hdr_free(&h);

	/* Both damaged: one error naming both. */
	m.p[65536 + 4096 + 10] ^= 0x01;
	rc = hi_luks2_hdr_read(mem_read, &m, &h, note, sizeof note, err, sizeof err);
	tap_ok(rc < 0, "both copies damaged: refused");
	tap_contains(err, "primary copy: checksum mismatch (damaged); secondary copy: checksum mismatch", "the error names both copies");
	hi_luks2_hdr_free(&h);
	free(m.p);
}

/* The newer valid copy wins: a primary from before a metadata change and
 * a secondary from after it. */
static void test_newer_copy(void)
{
	struct mem old, cur;
	struct luks2_hdr h;

	if (!tap_ok(format("n.img", "--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --luks2-metadata-size 16k "
			   "--luks2-keyslots-size 256k", &old) == 0, "luksFormat for the seqid test"))
		return;
	if (!tap_ok(sh("cryptsetup config --label newer n.img") == 0, "cryptsetup config --label newer"))
		return;
	char path[300];
	snprintf(path, sizeof path, "%s/n.img", dir);
	int fd = open(path, O_RDONLY);
	cur.p = calloc(1, IMG_HEAD);
	cur.n = IMG_HEAD;
	if (fd < 0 || pread(fd, cur.p, IMG_HEAD, 0) != IMG_HEAD)
		tap_ok(0, "read n.img");
	if (fd >= 0)
		close(fd);
	memcpy(cur.p, old.p, 16384);    /* the old primary, the new secondary */
	int rc = hi_luks2_hdr_read(mem_read, &cur, &h, note, sizeof note, err, sizeof err);
	tap_ok(rc == 0 && h.from_secondary && !strcmp(h.label, "newer"), "the newer (secondary) copy is used");
	tap_contains(note, "copies differ", "the note says the copies differ");
	hi_luks2_hdr_free(&h);
	free(old.p);
	free(cur.p);
}

static void json_refused(const char *json, const char *want, const char *name)
{
	struct luks2_hdr h;
	memset(&h, 0, sizeof h);
	int rc = hi_luks2_json_parse(json, strlen(json), &h, err, sizeof err);
	tap_ok(rc < 0, "refused: %s", name);
	tap_contains(err, want, name);
}

#define CFG "\"config\":{\"json_size\":\"12288\",\"keyslots_size\":\"16384\"}"
#define SEG "\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"4096\",\"size\":\"dynamic\",\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":512}}"

static void test_json(void)
{
	struct luks2_hdr h;
	char deep[200];

	json_refused("{\"keyslots\":{}", "expected ',' or '}'", "truncated object");
	json_refused("{\"keyslots\":{\"99\":{}}}", "keyslot id 99 over the limit", "keyslot id out of range");
	json_refused("{\"keyslots\":{\"0\":{},\"0\":{}}}", "keyslot 0 twice", "a keyslot twice");
	json_refused("{\"keyslots\":{\"0\":{\"key_size\":18446744073709551616}}}", "integer too large", "a huge number");
	json_refused("{\"keyslots\":{\"0\":{\"kdf\":{\"salt\":\"@@@@\"}}}}", "bad base64", "bad base64 salt");
	json_refused("{\"keyslots\":{},\"digests\":{},\"segments\":{},\"tokens\":{}}", "config missing", "no config");
	json_refused("{\"keyslots\":{},\"digests\":{},\"segments\":{\"0\":{\"type\":\"crypt\",\"sector_size\":1000}}}",
		     "bad sector size", "a crypt segment with a bad sector size");
	snprintf(deep, sizeof deep, "{\"x\":%.*s}", 40, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
	json_refused(deep, "nested deeper than", "nesting capped");
	json_refused("{\"keyslots\":{\"0\":{\"type\":\"lu\x01ks2\"}}}", "control character", "control byte in a string");
	json_refused("{\"keyslots\":{}} x", "text after", "text after the object");

	/* Each refusal of the field tables, one by one. */
	json_refused("{\"keyslots\":{\"x\":{}}}", "keyslot id 'x' is not a number", "a keyslot id not a number");
	json_refused("{\"segments\":{\"1\":{},\"1\":{}}}", "segment 1 twice", "a segment twice");
	json_refused("{\"digests\":{\"2\":{},\"2\":{}}}", "digest 2 twice", "a digest twice");
	json_refused("{\"tokens\":{\"0\":{},\"0\":{}}}", "token 0 twice", "a token twice");
	json_refused("{\"keyslots\":{},\"keyslots\":{}}", "\"keyslots\" twice", "keyslots twice");
	json_refused("{" CFG "," CFG "}", "\"config\" twice", "config twice");
	json_refused("{\"keyslots\":{\"0\":{\"key_size\":\"12a\"}}}", "expected an unsigned integer", "digits and a letter");
	json_refused("{\"keyslots\":{\"0\":{\"key_size\":-1}}}", "expected an unsigned integer", "a negative number");
	json_refused("{\"keyslots\":{\"0\":{\"priority\":3}}}", "value 3 over the limit 2", "priority 3");
	json_refused("{\"keyslots\":{\"0\":{\"kdf\":{\"iterations\":4294967296}}}}", "over the limit 4294967295",
		     "iterations over 32 bits");
	json_refused("{\"segments\":{\"0\":{\"sector_size\":8192}}}", "value 8192 over the limit 4096", "sector size 8192");
	json_refused("{\"config\":{\"json_size\":\"4194305\"}}", "value 4194305 over the limit 4194304", "json_size over 4 MiB");
	json_refused("{\"keyslots\":{\"0\":{\"type\":\"luks2-with-a-name-of-more-than-31-bytes\"}}}",
		     "string longer than 31 bytes", "a type over its field");
	json_refused("{\"keyslots\":{\"0\":{\"kdf\":{\"salt\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}}}}",
		     "more than 64 bytes", "a salt over 64 bytes");
	json_refused("{\"keyslots\":{},\"segments\":{},\"config\":{\"json_size\":\"12288\"},\"digests\":{\"0\":{\"type\":\"pbkdf2\","
		     "\"hash\":\"sha256\",\"iterations\":1000,\"salt\":\"AAAA\"}}}",
		     "digest 0: hash, iterations, salt or digest missing", "a pbkdf2 digest without its digest");
	json_refused("{\"digests\":{\"0\":{\"keyslots\":[\"32\"]}}}", "keyslot id 32 over the limit 31", "a digest's keyslot 32");
	json_refused("{\"digests\":{\"0\":{\"segments\":[\"0\" \"1\"]}}}", "expected ',' or ']'", "ids without a comma");
	/* One id may repeat (the mask takes it once); past that, refused. */
	json_refused("{\"digests\":{\"0\":{\"segments\":[\"0\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"0\",\"1\"]}}}",
		     "more than 8 segment ids", "ten segment ids");
	json_refused("{\"keyslots\":{},\"digests\":{},\"segments\":{},\"config\":{}}", "config.json_size missing",
		     "config without json_size");
	json_refused("{\"keyslots\":{},\"digests\":{}," CFG "}", "keyslots, segments, digests or config missing", "no segments");

	/* A keyslot of an unknown kdf is kept but not usable; tokens kept raw. */
	const char *ok = "{\"keyslots\":{\"3\":{\"type\":\"luks2\",\"key_size\":64,\"kdf\":{\"type\":\"scrypt\",\"salt\":\"AAAA\"},"
			 "\"af\":{\"type\":\"luks1\",\"stripes\":4000,\"hash\":\"sha256\"},\"area\":{\"type\":\"raw\",\"offset\":\"32768\","
			 "\"size\":\"258048\",\"encryption\":\"aes-xts-plain64\",\"key_size\":64}}},"
			 "\"tokens\":{\"1\":{\"type\":\"systemd-tpm2\",\"keyslots\":[\"3\"],\"tpm2-blob\":\"AAAA\"}},"
			 SEG ",\"digests\":{},\"x-extra\":[1,-2.5e3,true,null,\"\\u0041\"]," CFG "}";
	memset(&h, 0, sizeof h);
	int rc = hi_luks2_json_parse(ok, strlen(ok), &h, err, sizeof err);
	tap_ok(rc == 0, "well-formed JSON with unknown parts parses: %s", rc ? err : "ok");
	tap_ok(h.keyslot[3].used && !h.keyslot[3].usable, "keyslot with an unknown kdf: kept, not usable");
	tap_ok(h.segment[0].used && h.segment[0].dynamic && h.segment[0].size == 0 && h.segment[0].sector_size == 512 &&
	       h.segment[0].offset == 4096 && !strcmp(h.segment[0].encryption, "aes-xts-plain64"),
	       "segment 0: a dynamic size, its offset, sector size and encryption");
	tap_ok(h.json_size == 12288 && h.keyslots_size == 16384, "config: json_size and keyslots_size");
	tap_ok(h.token[1].used && !strcmp(h.token[1].type, "systemd-tpm2") && h.token[1].len > 0 &&
	       !strncmp(ok + h.token[1].off, "{\"type\":\"systemd-tpm2\"", 22) && ok[h.token[1].off + h.token[1].len - 1] == '}',
	       "token 1: type and raw JSON span kept");
}

/* A keyslot whose every field this code can open is usable; an af or
 * area of another type keeps it, unusable. */
#define KS_OK "{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"key_size\":64,\"priority\":2,\"kdf\":{\"type\":\"argon2id\"," \
	      "\"time\":4,\"memory\":1024,\"cpus\":1,\"salt\":\"AAAA\"},\"af\":{\"type\":\"luks1\",\"stripes\":4000," \
	      "\"hash\":\"sha256\"},\"area\":{\"type\":\"raw\",\"offset\":\"32768\",\"size\":\"258048\"," \
	      "\"encryption\":\"aes-xts-plain64\",\"key_size\":64}}},\"digests\":{}," SEG "," CFG "}"

static void keyslot_usable(const char *from, const char *to, bool want, const char *name)
{
	static struct luks2_hdr h;
	char json[1024];
	const char *at = strstr(KS_OK, from);

	snprintf(json, sizeof json, "%.*s%s%s", (int)(at - KS_OK), KS_OK, to, at + strlen(from));
	memset(&h, 0, sizeof h);
	int rc = hi_luks2_json_parse(json, strlen(json), &h, err, sizeof err);
	tap_ok(rc == 0 && h.keyslot[0].used && h.keyslot[0].usable == want, "%s (%s)", name, rc ? err : "parsed");
}

static void test_keyslot_usable(void)
{
	static struct luks2_hdr h;

	memset(&h, 0, sizeof h);
	tap_ok(hi_luks2_json_parse(KS_OK, strlen(KS_OK), &h, err, sizeof err) == 0 && h.keyslot[0].usable &&
	       h.keyslot[0].kdf.type == LUKS2_KDF_ARGON2ID && h.keyslot[0].kdf.time == 4 && h.keyslot[0].kdf.salt_len == 3 &&
	       h.keyslot[0].priority == 2 && h.keyslot[0].af_stripes == 4000 && h.keyslot[0].area_offset == 32768 &&
	       h.keyslot[0].area_size == 258048 && h.keyslot[0].area_key_size == 64, "an argon2id keyslot: usable, its fields read");
	keyslot_usable("\"type\":\"luks1\"", "\"type\":\"luks2\"", false, "an af of another type: unusable");
	keyslot_usable("\"type\":\"raw\"", "\"type\":\"RAW\"", false, "an area of another type: unusable");
	keyslot_usable("\"type\":\"argon2id\"", "\"type\":\"Argon2id\"", false, "a kdf type compared with case: unusable");
	keyslot_usable("\"priority\":2", "\"priority\":0", false, "priority 0 (ignore): unusable");
	keyslot_usable("\"priority\":2,", "", true, "no priority: normal, usable");
}

static void test_base64(void)
{
	uint8_t out[8];
	tap_ok(hi_base64_decode("Zm9vYmFy", 8, out, sizeof out) == 6 && !memcmp(out, "foobar", 6), "base64 foobar");
	tap_ok(hi_base64_decode("Zm9vYg==", 8, out, sizeof out) == 4 && !memcmp(out, "foob", 4), "base64 with ==");
	tap_ok(hi_base64_decode("Zm9vYmE=", 8, out, sizeof out) == 5, "base64 with =");
	tap_ok(hi_base64_decode("Zm=vYmE=", 8, out, sizeof out) < 0, "padding inside refused");
	tap_ok(hi_base64_decode("Zm9vYmFyZm9v", 12, out, sizeof out) < 0, "longer than the buffer refused");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_base64();
	test_json();
	test_keyslot_usable();
	test_pbkdf2();
	test_argon2id();
	test_newer_copy();
	sh("rm -rf %s", dir);
	return tap_done();
}
