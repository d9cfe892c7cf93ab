/* Unit tests: the systemd-tpm2 LUKS2 token (block/luks2_json.c). The
 * token below is the one Debian 12's systemd-cryptenroll 252 wrote with
 * --tpm2-device=swtpm:... --tpm2-pcrs=7 on a volume made by cryptsetup
 * (exported with `cryptsetup token export`), so the fields are systemd's
 * own; then the variants systemd writes (pin, signed policy, RSA, no bank
 * before 250) and what a token must not be. The second token is Debian
 * 13's systemd-cryptenroll 257 with --tpm2-with-pin=yes --tpm2-pcrs=7
 * against swtpm: its tpm2_salt and tpm2_srk are read; the fields this
 * reader cannot honour are named so the token is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luks2.h"
#include "luks2_json.h"
#include "tap.h"
#include "tpm.h"

static const char enrolled[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AJ4AIC8JvW0SPf1dg5Cfr2RBNrahqdaHcEt68uK7qM6dmth2"
	"ABB2IzNKtqD8QEzF40c0kp7RDgbW8tG7Fuy+J+mE+tRCXXhgE6yrSBfnvyRomrr/85jL9t5JZWDfqcXF19ziHq3ffPg/S4EcUmNXuaC8woDMsY"
	"+4Z/jHtZnzgexOeZgscmRakeBHANP0RELlvoDd+xSTX8vnK7aKlHEBQABOAAgACwAAABIAIItWgtgbKUNdCNeSeBUGEdx+WSOy/vzOaEoJV3tA"
	"EwqLABAAIH7/TvG+3oV/nKQ1uqPTmaU/nyUylOiNKAGTjUn94TWZ\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":\"sha256\","
	"\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"8b5682d81b29435d08d79278150611dc7e5923b2fefcce684a09577b40130a8b\","
	"\"tpm2-pin\":false}";

static const char enrolled257[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AJ4AIIeOi20vOnFUMd1/L67RLst8RRci4Q9Dum6/UUzN"
	"fiEWABCSnrMD1p4AaRDjEsSZMRMjbs2VMW0wvgVmw+q7Kz1BzFQ3OyuXlketOcArAa/q3w+q/lvDiIwiZHJJ66wERFI1ANYQqZuo0D1a5hIfOHZM"
	"haYVDdmk02S/4Q5AR1rE6oyM1XIdJjm718Sz7ZE71ZOGXXR5SDJk0PLAWgBOAAgACwAAABIAILjbkvrnweDFiOc1LS/BDyfHs4TjL3BqUgyxC/f/"
	"7olwABAAILJz2t6n7b38VIS/VdBfrmiHjf7liRbjuXEWQ0vycWsj\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":\"sha256\","
	"\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"b8db92fae7c1e0c588e7352d2fc10f27c7b384e32f706a520cb10bf7ffee8970\","
	"\"tpm2-pin\":true,\"tpm2_salt\":\"zkkxdM+xRsfWZujUacGvk6DqpuDZwuWqvnVm3u1exUg=\",\"tpm2_srk\":\"gQAAAQAiAAutdl8A0P"
	"hQOM89qoWcVkAwsrdL1wmJI/+d7ECgGC73gwAAAAEAWgAjAAsAAwRyAAAABgCAAEMAEAADABAAIAzwFhe+PS59LPLyOnn5JgzCCpzQwzfxmtWISz4m"
	"QD+jACDD3jYbiOi450eYMl/j43d0gCvQsnJtE5N2FCSVowIu0g==\"}";

static struct hi_luks2_tpm2_token t;
static char err[LUKS2_ERR_MAX];

static int parse(const char *json)
{
	return hi_luks2_tpm2_token_parse(json, strlen(json), &t, err, sizeof err);
}

/* enrolled with one field replaced: "from" (a whole "key":value) by "to". */
static char *edit(const char *from, const char *to)
{
	static char out[4096];
	const char *at = strstr(enrolled, from);
	if (!at) {
		snprintf(out, sizeof out, "(no %s)", from);
		return out;
	}
	snprintf(out, sizeof out, "%.*s%s%s", (int)(at - enrolled), enrolled, to, at + strlen(from));
	return out;
}

static void refused(const char *json, const char *want, const char *name)
{
	tap_ok(parse(json) < 0, "refused: %s", name);
	tap_contains(err, want, name);
}

static void test_enrolled(void)
{
	tap_ok(parse(enrolled) == 0, "systemd-cryptenroll 252's token parses (%s)", err);
	tap_ok(t.keyslots == 1u << 1, "keyslot 1");
	tap_ok(t.pcrs == 1u << 7, "PCR 7");
	tap_ok(t.pcr_bank == TPM_ALG_SHA256 && t.primary_alg == TPM_ALG_ECC, "sha256 bank, ECC primary");
	tap_ok(!t.pin && t.pubkey_len == 0 && t.pubkey_pcrs == 0, "no PIN, no signed policy");
	/* luksDump: the blob starts 00 9e 00 20 2f 09 (TPM2B_PRIVATE of 158
	 * bytes) and the TPM2B_PUBLIC of 78 follows. */
	tap_ok(t.blob_len == 2 + 0x9e + 2 + 0x4e && t.blob[0] == 0x00 && t.blob[1] == 0x9e && t.blob[2] == 0x00 &&
		       t.blob[3] == 0x20 && t.blob[2 + 0x9e] == 0x00 && t.blob[3 + 0x9e] == 0x4e,
	       "tpm2-blob: TPM2B_PRIVATE then TPM2B_PUBLIC, %zu bytes", t.blob_len);
	tap_ok(t.policy_hash_len == 32 && t.policy_hash[0] == 0x8b && t.policy_hash[31] == 0x8b,
	       "tpm2-policy-hash: 32 bytes from hex");
}

static void test_variants(void)
{
	tap_ok(parse(edit("\"tpm2-pin\":false", "\"tpm2-pin\":true")) == 0 && t.pin, "tpm2-pin true");
	tap_ok(parse(edit("\"tpm2-primary-alg\":\"ecc\"", "\"tpm2-primary-alg\":\"RSA\"")) == 0 &&
		       t.primary_alg == TPM_ALG_RSA,
	       "tpm2-primary-alg rsa (any case, as systemd compares)");
	tap_ok(parse(edit("\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",", "")) == 0 &&
		       t.pcr_bank == TPM_ALG_SHA256 && t.primary_alg == TPM_ALG_ECC,
	       "no bank and no primary alg (systemd before 250): sha256 and ECC");
	tap_ok(parse(edit("\"tpm2-pcr-bank\":\"sha256\"", "\"tpm2-pcr-bank\":\"sha1\"")) == 0 && t.pcr_bank == TPM_ALG_SHA1,
	       "sha1 bank");
	tap_ok(parse(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[0,7,23]")) == 0 && t.pcrs == (1u | 1u << 7 | 1u << 23),
	       "PCRs 0, 7 and 23");
	tap_ok(parse(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[]")) == 0 && t.pcrs == 0,
	       "no PCR (a token bound only to the PIN or the signed policy)");
	/* A signed PCR 11 policy: base64 of the PEM key, its PCRs. */
	tap_ok(parse(edit("\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pubkey_pcrs\":[11],"
					       "\"tpm2_pubkey\":\"LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0K\"")) == 0 &&
		       t.pubkey_pcrs == 1u << 11 && t.pubkey_len == 27 && !memcmp(t.pubkey, "-----BEGIN PUBLIC KEY-----\n", 27),
	       "tpm2_pubkey and tpm2_pubkey_pcrs");
	tap_ok(parse(edit("\"tpm2-pin\":false", "\"tpm2-pin\":false,\"x-future\":{\"a\":[1,2]}")) == 0,
	       "an unknown field is skipped");
}

/* enrolled257 with "from" replaced by "to". */
static char *edit257(const char *from, const char *to)
{
	static char out[4096];
	const char *at = strstr(enrolled257, from);
	snprintf(out, sizeof out, "%.*s%s%s", at ? (int)(at - enrolled257) : 0, at ? enrolled257 : "(no match)", to,
		 at ? at + strlen(from) : "");
	return out;
}

static void test_enrolled257(void)
{
	tap_ok(parse(enrolled257) == 0, "systemd-cryptenroll 257's PIN token parses (%s)", err);
	tap_ok(t.pin && t.keyslots == 1u << 1 && t.pcrs == 1u << 7, "PIN, keyslot 1, PCR 7");
	tap_ok(t.salt_len == 32 && t.salt[0] == 0xce && t.salt[31] == 0x48, "tpm2_salt: its 32 bytes");
	/* handle 0x81000001, a 34-byte name, type 1, a TPM2B_PUBLIC of 90. */
	tap_ok(t.srk_len == 4 + 2 + 34 + 4 + 2 + 90 && t.srk[0] == 0x81 && t.srk[3] == 0x01,
	       "tpm2_srk: the serialized SRK, %zu bytes", t.srk_len);
	tap_ok(!t.unsupported[0], "nothing in it this reader cannot honour");
	/* What systemd writes and this reader cannot honour: named, and the
	 * rest still parses (the token is skipped by its user, not an error). */
	tap_ok(parse(edit257("\"tpm2-pin\":true", "\"tpm2-pin\":true,\"tpm2_pcrlock\":true")) == 0 &&
		       !strcmp(t.unsupported, "tpm2_pcrlock"),
	       "tpm2_pcrlock true: named as not honoured (%s)", t.unsupported);
	tap_ok(parse(edit257("\"tpm2-pin\":true", "\"tpm2-pin\":true,\"tpm2_pcrlock\":false,\"tpm2_pcrlock_nv\":\"AAAA\"")) == 0 &&
		       !t.unsupported[0],
	       "tpm2_pcrlock false: nothing to honour");
	tap_ok(parse(edit257("\"tpm2-pin\":true", "\"tpm2_argon2id\":{\"m\":1},\"tpm2-pin\":true")) == 0 &&
		       !strcmp(t.unsupported, "tpm2_argon2id"),
	       "an unknown tpm2_ key: named (%s)", t.unsupported);
	tap_ok(parse(edit257("\"tpm2-pin\":true", "\"tpm2-future\":[1],\"tpm2-pin\":true")) == 0 &&
		       !strcmp(t.unsupported, "tpm2-future"),
	       "an unknown tpm2- key: named (%s)", t.unsupported);
	tap_ok(parse(edit257("\"tpm2-policy-hash\":\"b8db92fae7c1e0c588e7352d2fc10f27c7b384e32f706a520cb10bf7ffee8970\"",
			     "\"tpm2-policy-hash\":[\"00\",\"11\"]")) == 0 &&
		       !strcmp(t.unsupported, "tpm2-policy-hash"),
	       "a policy hash in shards (pcrlock with a signed policy): named");
	tap_ok(parse(edit257("\"tpm2-blob\":\"AJ4A", "\"tpm2-blob\":[\"AJ4A\"],\"x\":\"AJ4A")) == 0 &&
		       !strcmp(t.unsupported, "tpm2-blob"),
	       "a blob in shards: named");
	refused(edit257("\"tpm2_salt\":\"zkkx", "\"tpm2_salt\":\"*kkx"), "bad base64", "tpm2_salt not base64");
}

static void test_refused(void)
{
	refused(edit("\"type\":\"systemd-tpm2\"", "\"type\":\"systemd-fido2\""), "not systemd-tpm2", "another token type");
	refused(edit(",\"tpm2-pcrs\":[7]", ""), "no \"tpm2-pcrs\"", "no tpm2-pcrs");
	refused(edit("\"tpm2-policy-hash\":\"8b5682d81b29435d08d79278150611dc7e5923b2fefcce684a09577b40130a8b\",", ""),
		"no \"tpm2-policy-hash\"", "no policy hash");
	refused(edit("\"keyslots\":[\"1\"]", "\"keyslots\":[]"), "names no keyslot", "no keyslot");
	refused(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[24]"), "over the limit 23", "PCR 24");
	refused(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[\"7\"]"), "not a string", "PCR as a string");
	refused(edit("\"tpm2-pcr-bank\":\"sha256\"", "\"tpm2-pcr-bank\":\"md5\""), "not one systemd writes", "unknown bank");
	refused(edit("\"tpm2-primary-alg\":\"ecc\"", "\"tpm2-primary-alg\":\"dsa\""), "not one systemd writes",
		"unknown primary alg");
	refused(edit("\"tpm2-policy-hash\":\"8b", "\"tpm2-policy-hash\":\"8"), "not hex", "odd-length policy hash");
	refused(edit("\"tpm2-policy-hash\":\"8b", "\"tpm2-policy-hash\":\"zz"), "not hex", "non-hex policy hash");
	refused(edit("\"tpm2-blob\":\"AJ4A", "\"tpm2-blob\":\"*J4A"), "bad base64", "bad base64 blob");
	refused(edit("\"tpm2-pin\":false", "\"tpm2-pin\":\"no\""), "true or false", "pin not a boolean");
	refused(edit("\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pubkey_pcrs\":[11]"), "but no tpm2_pubkey",
		"signed-policy PCRs without a key");

	/* A blob longer than LUKS2_TPM2_BLOB_MAX. */
	static char big[8192];
	size_t n = (LUKS2_TPM2_BLOB_MAX / 3 + 1) * 4;
	char *b64 = malloc(n + 1);
	memset(b64, 'A', n);
	b64[n] = '\0';
	snprintf(big, sizeof big, "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"0\"],\"tpm2-blob\":\"%s\",\"tpm2-pcrs\":[7],"
				  "\"tpm2-policy-hash\":\"00\"}", b64);
	refused(big, "more than 1024 bytes", "a blob over the limit");
	refused(edit("\"type\":\"systemd-tpm2\",", ""), "no \"type\"", "no type");
	refused(edit(",\"tpm2-pcrs\":[7]", ",\"tpm2-pcrs\":[7],\"type\":\"systemd-fido2\""), "not systemd-tpm2",
		"a second type of another kind");
	refused(edit("\"tpm2-blob\":\"AJ4A", "\"x-blob\":\"AJ4A"), "no \"tpm2-blob\"", "no tpm2-blob");
	refused(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[7],\"tpm2-blob\":\"\""), "tpm2-blob or tpm2-policy-hash is empty",
		"an empty blob");
	refused(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,7,8]"),
		"more than 24 PCRs", "26 PCR numbers");
	refused(edit("\"tpm2-pcrs\":[7]", "\"tpm2-pcrs\":[7 8]"), "expected ',' or ']'", "PCRs without a comma");
	refused(edit("\"keyslots\":[\"1\"]", "\"keyslots\":[\"32\"]"), "keyslot id 32 over the limit 31", "keyslot 32");
	refused(edit("\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pcrlock\":1"), "true or false", "pcrlock not a boolean");
	refused(edit("\"tpm2-pcr-bank\":\"sha256\"", "\"tpm2-pcr-bank\":[\"sha256\"]"), "expected '\"'", "a bank in an array");

	free(b64);
	refused("{\"type\":\"systemd-tpm2\"", "expected", "cut short");
}

/* Through the header: the token span the LUKS2 parser kept. */
static void test_from_header(void)
{
	static char json[4096];
	static struct luks2_hdr h;
	snprintf(json, sizeof json,
		 "{\"keyslots\":{},\"tokens\":{\"0\":%s},\"segments\":{},\"digests\":{},\"config\":{\"json_size\":\"12288\"}}",
		 enrolled);
	memset(&h, 0, sizeof h);
	h.json = json;
	h.json_len = strlen(json);
	tap_ok(hi_luks2_json_parse(json, strlen(json), &h, err, sizeof err) == 0, "header with the token parses (%s)", err);
	tap_ok(hi_luks2_tpm2_token(&h, 0, &t, err, sizeof err) == 0 && t.pcrs == 1u << 7 && t.keyslots == 2,
	       "token 0 read from the header's span");
	tap_ok(hi_luks2_tpm2_token(&h, 1, &t, err, sizeof err) < 0, "no token 1: refused");
	tap_contains(err, "no token 1", "no token 1: said");
}

int main(void)
{
	test_enrolled();
	test_variants();
	test_enrolled257();
	test_refused();
	test_from_header();
	return tap_done();
}
