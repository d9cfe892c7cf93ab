/* PCR 11's boot phases and the every-bank extend: the bank hashes and
 * HMACs against FIPS 180-4 / RFC 2202 / RFC 4231 vectors (computed by
 * Python's hashlib), systemd's choice of banks, TPM2_PCR_Read and the
 * multi-bank TPM2_PCR_Extend as bytes, the whole extend against a
 * scripted TPM, systemd-pcrphase's StubPcrKernelImage condition and the
 * CEL-JSON record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "measure.h"
#include "pcrphase.h"
#include "sha256.h"
#include "sink.h"
#include "tap.h"
#include "tpm.h"
#include "tpm_extend.h"

static const char *hex_of(const void *data, size_t n)
{
	static char out[2 * TPM_CMD_MAX + 1];
	return hi_hex_encode(out, data, n);
}

static void test_bank_digests(void)
{
	static const struct { uint16_t alg; const char *abc, *jefe, *longkey; } v[] = {
		{ TPM_ALG_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
		  "90d0dace1c1bdc957339307803160335bde6df2b" },
		{ TPM_ALG_SHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ TPM_ALG_SHA384,
		  "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
		  "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
		  "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952" },
		{ TPM_ALG_SHA512,
		  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
		  "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
		  "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598" },
	};
	static const char jefe_msg[] = "what do ya want for nothing?";
	static const char long_msg[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	uint8_t longkey[131];
	struct tpm_digest d;

	memset(longkey, 0xaa, sizeof longkey);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const char *name = hi_tpm_alg_name(v[i].alg);
		char what[80];
		tap_ok(hi_tpm_bank_digest(v[i].alg, NULL, 0, "abc", 3, &d) == 0 && d.alg == v[i].alg &&
		       d.size == hi_tpm_alg_size(v[i].alg), "%s: a digest of the bank's size", name);
		snprintf(what, sizeof what, "%s of 'abc' (FIPS 180-4)", name);
		tap_streq(hex_of(d.bytes, d.size), v[i].abc, what);
		hi_tpm_bank_digest(v[i].alg, (const uint8_t *)"Jefe", 4, jefe_msg, strlen(jefe_msg), &d);
		snprintf(what, sizeof what, "HMAC-%s, key 'Jefe' (RFC 2202/4231 case 2)", name);
		tap_streq(hex_of(d.bytes, d.size), v[i].jefe, what);
		hi_tpm_bank_digest(v[i].alg, longkey, sizeof longkey, long_msg, strlen(long_msg), &d);
		snprintf(what, sizeof what, "HMAC-%s, a key longer than a block (RFC 4231 case 6)", name);
		tap_streq(hex_of(d.bytes, d.size), v[i].longkey, what);
	}
	tap_ok(hi_tpm_bank_digest(TPM_ALG_SM3_256, NULL, 0, "abc", 3, &d) == -1, "sm3_256: a hash hardinit lacks is -1");

	/* A million 'a': many SHA-1 blocks through the sha1 bank's hash. */
	static char a[1000000];
	memset(a, 'a', sizeof a);
	tap_ok(hi_tpm_bank_digest(TPM_ALG_SHA1, NULL, 0, a, sizeof a, &d) == 0 && d.size == 20, "sha1 of a million 'a': 20 bytes");
	tap_streq(hex_of(d.bytes, d.size), "34aa973cd4c4daa4f61eeb2bdbad27316534016f", "sha1 of a million 'a'");
}

static void test_good_banks(void)
{
	struct tpm_banks banks = { .n = 3 };
	struct tpm_digest value[3];
	uint16_t algs[TPM_MAX_BANKS];

	banks.alg[0] = TPM_ALG_SHA1, banks.pcrs[0] = TPM_PCRS_ALL;
	banks.alg[1] = TPM_ALG_SHA256, banks.pcrs[1] = TPM_PCRS_ALL;
	banks.alg[2] = TPM_ALG_SHA384, banks.pcrs[2] = 0x00FFFF;     /* not all 24: never used */
	memset(value, 0, sizeof value);
	for (int i = 0; i < 3; i++)
		value[i].size = (uint8_t)hi_tpm_alg_size(banks.alg[i]);
	value[1].bytes[5] = 1;
	value[2].bytes[0] = 1;
	size_t n = hi_tpm_good_banks(&banks, value, 11, algs);
	tap_ok(n == 1 && algs[0] == TPM_ALG_SHA256, "only the bank whose PCR holds a measurement (sha256)");
	value[0].bytes[0] = 7;
	n = hi_tpm_good_banks(&banks, value, 11, algs);
	tap_ok(n == 2 && algs[0] == TPM_ALG_SHA1 && algs[1] == TPM_ALG_SHA256, "both measured banks, in the TPM's order");
	memset(value[0].bytes, 0, sizeof value[0].bytes);
	memset(value[1].bytes, 0xFF, value[1].size);
	n = hi_tpm_good_banks(&banks, value, 11, algs);
	tap_ok(n == 2 && algs[0] == TPM_ALG_SHA1 && algs[1] == TPM_ALG_SHA256,
	       "none measured (zeros, all ones): every bank with PCRs 0-23, as systemd falls back");
	banks.n = 1;
	banks.pcrs[0] = 0x7FFFFF;
	tap_ok(hi_tpm_good_banks(&banks, value, 11, algs) == 0, "no bank with all of PCRs 0-23: none");
}

static void test_wire(void)
{
	uint8_t cmd[TPM_CMD_MAX];
	struct tpm_digests d = { .n = 2 };
	char why[200];

	d.d[0].alg = TPM_ALG_SHA1, d.d[0].size = 20;
	memset(d.d[0].bytes, 0x11, 20);
	d.d[1].alg = TPM_ALG_SHA256, d.d[1].size = 32;
	memset(d.d[1].bytes, 0x22, 32);
	long n = hi_tpm_cmd_pcr_extend(cmd, sizeof cmd, 11, &d);
	tap_streq(hex_of(cmd, n > 0 ? (size_t)n : 0),
		  "80020000005700000182" "0000000b" "00000009" "40000009" "0000" "00" "0000" "00000002"
		  "0004" "1111111111111111111111111111111111111111"
		  "000b" "2222222222222222222222222222222222222222222222222222222222222222",
		  "PCR_Extend of PCR 11 with a sha1 and a sha256 digest (Part 3, 22.2)");
	d.d[1].size = 20;
	tap_ok(hi_tpm_cmd_pcr_extend(cmd, sizeof cmd, 11, &d) == -1, "a digest of the wrong size for its bank is refused");
	d.n = 0;
	tap_ok(hi_tpm_cmd_pcr_extend(cmd, sizeof cmd, 11, &d) == -1, "no digest at all is refused");
	n = hi_tpm_cmd_pcr_read(cmd, sizeof cmd, 11, TPM_ALG_SHA256);
	tap_streq(hex_of(cmd, n > 0 ? (size_t)n : 0), "8001000000140000017e" "00000001" "000b" "03" "000800",
		  "PCR_Read of PCR 11, sha256 (Part 3, 22.4)");

	static const uint8_t ok[] = {
		0x80, 0x01, 0, 0, 0, 0x3e, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x00, 0x0b, 3, 0, 8, 0,
		0, 0, 0, 1, 0, 32,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
		29, 30, 31, 32,
	};
	struct tpm_digest v;
	tap_ok(hi_tpm_resp_pcr_read(ok, sizeof ok, TPM_ALG_SHA256, &v, why, sizeof why) == 0 && v.size == 32 &&
	       v.bytes[0] == 1 && v.bytes[31] == 32, "a PCR_Read answer gives the value");
	tap_ok(hi_tpm_resp_pcr_read(ok, sizeof ok - 1, TPM_ALG_SHA256, &v, why, sizeof why) == -1,
	       "a cut answer is refused");
	tap_ok(hi_tpm_resp_pcr_read(ok, sizeof ok, TPM_ALG_SHA1, &v, why, sizeof why) == -1,
	       "an answer of another bank is refused");
	tap_contains(why, "sha256, not sha1", "and says which");
	static const uint8_t none[] = { 0x80, 0x01, 0, 0, 0, 0x17, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0x00, 0x0b,
					3, 0, 0, 0, 0, 0, 0 };
	uint8_t none_ok[sizeof none - 3 + 4];
	memcpy(none_ok, none, 24);
	memset(none_ok + 24, 0, 4);
	none_ok[5] = (uint8_t)sizeof none_ok;
	tap_ok(hi_tpm_resp_pcr_read(none_ok, sizeof none_ok, TPM_ALG_SHA256, &v, why, sizeof why) == 0 && v.size == 0,
	       "an unallocated PCR answers an empty selection: no value");
}

/* A TPM with banks sha1 and sha256 (all 24 PCRs), sha384 (PCRs 0-15). */
struct fake {
	uint8_t pcr11[3][TPM_DIGEST_MAX];
	uint8_t extend[TPM_CMD_MAX];
	size_t extend_len;
	unsigned calls;
	uint32_t answer_rc;   /* not 0: every command answered with this response code */
};

static void put_be(uint8_t *p, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static int fake_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		     size_t errlen)
{
	static const uint16_t algs[3] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384 };
	struct fake *f = ctx;
	uint32_t cc = (uint32_t)cmd[6] << 24 | (uint32_t)cmd[7] << 16 | (uint32_t)cmd[8] << 8 | cmd[9];
	size_t n = 10;

	f->calls++;
	memset(resp, 0, cap);
	put_be(resp, 0x8001, 2);
	if (f->answer_rc) {
		put_be(resp + 2, 10, 4);
		put_be(resp + 6, f->answer_rc, 4);
		*rlen = 10;
		return 0;
	}
	if (cc == 0x17A) {                       /* GetCapability(PCRS) */
		n += 1;
		put_be(resp + n, 5, 4), n += 4;
		put_be(resp + n, 3, 4), n += 4;
		for (int i = 0; i < 3; i++) {
			put_be(resp + n, algs[i], 2), n += 2;
			resp[n++] = 3;
			resp[n++] = 0xFF, resp[n++] = 0xFF, resp[n++] = i == 2 ? 0 : 0xFF;
		}
	} else if (cc == 0x17E) {                /* PCR_Read */
		uint16_t alg = (uint16_t)(cmd[14] << 8 | cmd[15]);
		int i = alg == TPM_ALG_SHA1 ? 0 : alg == TPM_ALG_SHA256 ? 1 : 2;
		bool allocated = i != 2;
		n += 4;
		put_be(resp + n, 1, 4), n += 4;
		put_be(resp + n, alg, 2), n += 2;
		resp[n++] = 3, resp[n++] = 0, resp[n++] = allocated ? 8 : 0, resp[n++] = 0;
		put_be(resp + n, allocated, 4), n += 4;
		if (allocated) {
			unsigned size = hi_tpm_alg_size(alg);
			put_be(resp + n, size, 2), n += 2;
			memcpy(resp + n, f->pcr11[i], size), n += size;
		}
	} else if (cc == 0x182) {                /* PCR_Extend */
		memcpy(f->extend, cmd, len);
		f->extend_len = len;
		put_be(resp, 0x8002, 2);
	} else {
		snprintf(err, errlen, "unexpected command 0x%x", cc);
		return -1;
	}
	put_be(resp + 2, (uint32_t)n, 4);
	*rlen = n;
	return 0;
}

static void test_extend_measure(void)
{
	struct fake f;
	struct tpm_digests done;
	struct tpm_digest want;
	char err[200] = "", banks[80];

	memset(&f, 0, sizeof f);
	f.pcr11[1][0] = 0x42;                    /* only sha256's PCR 11 measured */
	long rc = hi_tpm_extend_measure(fake_xfer, &f, 11, NULL, 0, "enter-initrd", 12, &done, err, sizeof err);
	tap_ok(rc == 0 && done.n == 1 && done.d[0].alg == TPM_ALG_SHA256, "enter-initrd: the measured bank only (%s)",
	       err);
	hi_tpm_bank_digest(TPM_ALG_SHA256, NULL, 0, "enter-initrd", 12, &want);
	tap_ok(f.extend_len == 10 + 4 + 4 + 9 + 4 + 2 + 32 && !memcmp(f.extend + f.extend_len - 32, want.bytes, 32) &&
	       f.extend[13] == 11, "one PCR_Extend of PCR 11 with sha256('enter-initrd')");
	tap_streq(hex_of(want.bytes, 32), "51e6b92f405d1f98d96e3de343d61d420ad6923b25de21d766f9298192f14fed",
		  "sha256('enter-initrd') is the word's hash, no NUL (hashlib)");
	memset(&f, 0, sizeof f);
	rc = hi_tpm_extend_measure(fake_xfer, &f, 11, NULL, 0, "leave-initrd", 12, &done, err, sizeof err);
	hi_tpm_digests_banks(&done, banks, sizeof banks);
	tap_ok(rc == 0, "nothing measured yet: every full bank");
	tap_streq(banks, "sha1, sha256", "the banks as systemd's log names them (sha384 lacks PCRs 16-23)");
	hi_tpm_bank_digest(TPM_ALG_SHA1, NULL, 0, "leave-initrd", 12, &want);
	tap_ok(!memcmp(f.extend + 33, want.bytes, 20), "the sha1 digest is sha1('leave-initrd')");
	rc = hi_tpm_extend_measure(fake_xfer, &f, 15, (const uint8_t *)"key", 3, "cryptsetup:x:y", 14, &done, err,
				sizeof err);
	hi_tpm_bank_digest(TPM_ALG_SHA256, (const uint8_t *)"key", 3, "cryptsetup:x:y", 14, &want);
	tap_ok(rc == 0 && done.n == 2 && !memcmp(done.d[1].bytes, want.bytes, 32),
	       "with a key: each bank's HMAC of the data");

	/* A TPM that answers response code 1 is a TPM that failed, never one
	 * that is absent: the stages skip only on TPM_EXTEND_NO_NODE. */
	memset(&f, 0, sizeof f);
	f.answer_rc = 1;
	rc = hi_tpm_extend_measure(fake_xfer, &f, 11, NULL, 0, "enter-initrd", 12, &done, err, sizeof err);
	tap_ok(rc == 1 && rc != TPM_EXTEND_NO_NODE, "a TPM answering code 1: that code, not the absent TPM's answer");
	char dir[] = "/tmp/hardinit-pcrphase-nonode-XXXXXX", path[256];
	if (!mkdtemp(dir))
		fixture_die("mkdtemp", dir);
	rc = hi_tpm_extend_at(dir, 1000, 11, NULL, 0, "enter-initrd", 12, &done, path, sizeof path, err, sizeof err);
	tap_ok(rc == TPM_EXTEND_NO_NODE, "no TPM node: TPM_EXTEND_NO_NODE (%ld: %s)", rc, err);
	rmdir(dir);
}

static void test_condition(void)
{
	char why[200];

	tap_ok(hi_pcrphase_condition("11", why, sizeof why) == 1, "StubPcrKernelImage 11: measure");
	tap_ok(hi_pcrphase_condition("", why, sizeof why) == 0, "no StubPcrKernelImage: skip");
	tap_contains(why, "StubPcrKernelImage", "and say why");
	tap_ok(hi_pcrphase_condition("12", why, sizeof why) == -1, "another PCR: refuse");
	tap_contains(why, "PCR 12, not 11", "and say which");
	tap_ok(hi_pcrphase_condition("1x", why, sizeof why) == -1 && hi_pcrphase_condition("-11", why, sizeof why) == -1 &&
	       hi_pcrphase_condition(" 11", why, sizeof why) == -1, "not a number: refuse");
}

static void test_cel(void)
{
	struct tpm_digests d = { .n = 2 };
	char rec[1024], want[1024];
	struct sink s;

	hi_tpm_bank_digest(TPM_ALG_SHA1, NULL, 0, "enter-initrd", 12, &d.d[0]);
	hi_tpm_bank_digest(TPM_ALG_SHA256, NULL, 0, "enter-initrd", 12, &d.d[1]);
	hi_sink_init(&s, rec, sizeof rec);
	hi_measure_cel_record(&s, 11, &d, "enter-initrd", PCRPHASE_EVENT_TYPE, "0123456789abcdef0123456789abcdef",
			      1234567890123ull);
	int n = snprintf(want, sizeof want,
		 "\x1e{\"pcr\":11,\"digests\":[{\"hashAlg\":\"sha1\",\"digest\":\"%s\"},", hex_of(d.d[0].bytes, 20));
	snprintf(want + n, sizeof want - (size_t)n,
		 "{\"hashAlg\":\"sha256\",\"digest\":\"%s\"}],\"content_type\":\"systemd\",\"content\":{\"string\":"
		 "\"enter-initrd\",\"bootId\":\"0123456789abcdef0123456789abcdef\",\"timestamp\":1234567890,"
		 "\"eventType\":\"phase\"}}\n", hex_of(d.d[1].bytes, 32));
	tap_ok(!s.full, "the record fits");
	tap_streq(rec, want, "a phase's record: systemd's fields in systemd's order, every bank, microseconds");

	/* hardinit's own events: no eventType (systemd writes none for a
	 * word without one); a text with a quote is escaped; no boot id, no
	 * bootId field. */
	d.n = 1;
	hi_sink_init(&s, rec, sizeof rec);
	hi_measure_cel_record(&s, 12, &d, "hardinit:x:\"q\"", NULL, "", 999);
	tap_contains(rec, "\"content\":{\"string\":\"hardinit:x:\\\"q\\\"\",\"timestamp\":0}}\n",
		     "an event without a type or boot id: string and timestamp only");
	hi_sink_init(&s, rec, 40);
	hi_measure_cel_record(&s, 11, &d, "enter-initrd", PCRPHASE_EVENT_TYPE, "", 0);
	tap_ok(s.full, "a record that does not fit is reported full");
}

/* The boot id as systemd writes an id128, and the append's file protocol. */
static void test_cel_append(void)
{
	static struct boot b;
	const char *root = fixture_tree("hardinit-cel");
	char id[MEASURE_BOOT_ID_MAX], why[600], path[512];
	struct stat st;

	boot_at(&b, root, MODE_INITRAMFS);
	hi_measure_boot_id(&b, id);
	tap_streq(id, "", "no boot_id: empty");
	fixture_put(root, "proc/sys/kernel/random/boot_id", "c0ffee00-1111-2222-3333-444455556666\n");
	hi_measure_boot_id(&b, id);
	tap_streq(id, "c0ffee00111122223333444455556666", "the boot id without dashes");
	fixture_put(root, "proc/sys/kernel/random/boot_id", "c0ffee00-1111-2222-3333-4444555566\n");
	hi_measure_boot_id(&b, id);
	tap_streq(id, "", "a short one: empty");

	fixture_path(path, sizeof path, root, "run/log/systemd/tpm2-measure.log");
	tap_ok(hi_measure_cel_append(&b, "\x1e{}\n", 4, why, sizeof why) == 0, "appended (%s)", why);
	tap_ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600,
	       "created 0600 as systemd creates it, the sticky bit cleared after the write (%o)", st.st_mode & 07777);
	tap_ok(hi_measure_cel_append(&b, "\x1e[]\n", 4, why, sizeof why) == 0, "appended again");
	tap_streq(fixture_get(root, "run/log/systemd/tpm2-measure.log"), "\x1e{}\n\x1e[]\n", "both records, in order");
	/* A writer that died mid-record left the sticky bit: systemd stops
	 * appending to such a log, and so does hardinit. */
	tap_ok(chmod(path, 01600) == 0, "the sticky bit set by a writer that died");
	tap_ok(hi_measure_cel_append(&b, "\x1e{}\n", 4, why, sizeof why) == -1, "not appended");
	tap_contains(why, "sticky bit", "and why says so");
	tap_ok(stat(path, &st) == 0 && st.st_size == 8, "the log is as it was");
	fixture_rmtree(root);
}

int main(void)
{
	test_bank_digests();
	test_good_banks();
	test_wire();
	test_extend_measure();
	test_condition();
	test_cel();
	test_cel_append();
	return tap_done();
}
