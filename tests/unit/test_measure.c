/* Measured boot's pure pieces: SHA-256 against FIPS 180-4's vectors, the
 * TPM2 command encoder and response decoder against byte vectors written
 * from the TPM 2.0 Library spec, response-code text, the PCR replay, the
 * IMA policy splitter and the event log lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "fixture.h"
#include "ima.h"
#include "measure.h"
#include "measure_event.h"
#include "sha256.h"
#include "tap.h"
#include "tpm.h"

static const char *hex_of(const void *data, size_t n)
{
	static char out[2 * TPM_CMD_MAX + 1];
	return hi_hex_encode(out, data, n);
}

static void test_sha256(void)
{
	static const struct { const char *in, *want; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "hardinit", "c220b03fae30668a5e6941c3ab465a52797c12abf28d64a5e2ddbc39297e3b8e" },
	};
	uint8_t d[SHA256_BYTES];
	char hex[SHA256_HEX];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		hi_sha256(v[i].in, strlen(v[i].in), d);
		tap_streq(hi_hex_encode(hex, d, sizeof d), v[i].want, "sha256 of a FIPS 180-4 vector");
	}
	/* A million 'a', fed in uneven pieces: the block boundary logic. */
	struct sha256 s;
	static char a[1001];
	memset(a, 'a', sizeof a);
	hi_sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		hi_sha256_update(&s, a, i % 2 ? 999 : 1001);
	hi_sha256_final(&s, d);
	tap_streq(hi_hex_encode(hex, d, sizeof d), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		  "sha256 of a million 'a' in 999/1001-byte pieces");

	uint8_t back[4];
	tap_ok(hi_hex_decode(back, 4, "00ff7A10") == 0 && back[1] == 0xff && back[2] == 0x7a, "hex_decode");
	tap_ok(hi_hex_decode(back, 4, "00ff7A1") < 0 && hi_hex_decode(back, 4, "00ff7A1g") < 0 &&
	       hi_hex_decode(back, 4, "00ff7A1000") < 0, "hex_decode refuses short, bad and long input");
}

static void test_commands(void)
{
	uint8_t cmd[TPM_CMD_MAX];

	long n = hi_tpm_cmd_get_pcr_banks(cmd, sizeof cmd);
	tap_streq(n > 0 ? hex_of(cmd, (size_t)n) : "", "8001000000160000017a000000050000000000000001",
		  "GetCapability(TPM_CAP_PCRS) bytes");
	n = hi_tpm_cmd_pcr_event(cmd, sizeof cmd, 12, "ab", 2);
	tap_streq(n > 0 ? hex_of(cmd, (size_t)n) : "",
		  "80020000001f0000013c0000000c0000000940000009000000000000026162",
		  "PCR_Event(12, \"ab\") bytes: handle, password session, TPM2B_EVENT");
	uint8_t digest[32];
	memset(digest, 0x11, sizeof digest);
	n = hi_tpm_cmd_pcr_extend_sha256(cmd, sizeof cmd, 16, digest);
	tap_ok(n == 10 + 4 + 4 + 9 + 4 + 2 + 32 && cmd[9] == 0x82 && cmd[13] == 16 && cmd[n - 33] == 0x0b,
	       "PCR_Extend(16, sha256) layout");
	static uint8_t big[TPM_EVENT_MAX + 1];
	tap_ok(hi_tpm_cmd_pcr_event(cmd, sizeof cmd, 12, big, sizeof big) == -1, "an event over 1024 bytes is refused");
	tap_ok(hi_tpm_cmd_pcr_event(cmd, sizeof cmd, 24, "x", 1) == -1, "PCR 24 is refused");
	tap_ok(hi_tpm_cmd_pcr_event(cmd, 20, 12, "x", 1) == -1, "a command that does not fit is refused");
}

static void test_responses(void)
{
	char why[160];
	struct tpm_banks banks;
	/* sha1 selected (ff ff ff), sha256 not (00 00 00), sha384 partly. */
	static const uint8_t caps[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x25, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x04, 0x03, 0xff, 0xff, 0xff,
		0x00, 0x0b, 0x03, 0x00, 0x00, 0x00,
		0x00, 0x0c, 0x03, 0x00, 0x10, 0x00,
	};
	tap_ok(hi_tpm_resp_pcr_banks(caps, sizeof caps, &banks, why, sizeof why) == 0 && banks.n == 2 &&
	       banks.alg[0] == TPM_ALG_SHA1 && banks.alg[1] == TPM_ALG_SHA384,
	       "GetCapability response: the active banks (sha1, sha384; sha256 inactive)");
	tap_ok(hi_tpm_resp_pcr_banks(caps, sizeof caps - 1, &banks, why, sizeof why) == -1, "a truncated response is refused");
	tap_contains(why, "says 37 bytes but 36 arrived", "and says why");

	uint8_t resp[128];
	size_t len = 0;
	static const uint8_t head[] = { 0x80, 0x02, 0, 0, 0, 0, 0, 0, 0, 0 };
	memcpy(resp, head, sizeof head);
	len = sizeof head;
	uint8_t params[] = { 0, 0, 0, 0x2a, 0, 0, 0, 1, 0x00, 0x0b };
	memcpy(resp + len, params, sizeof params);
	len += sizeof params;
	for (int i = 0; i < 32; i++)
		resp[len++] = (uint8_t)i;
	static const uint8_t auth[] = { 0, 0, 0x01, 0, 0 };
	memcpy(resp + len, auth, sizeof auth);
	len += sizeof auth;
	resp[5] = (uint8_t)len;
	struct tpm_digests d;
	tap_ok(hi_tpm_resp_pcr_event(resp, len, &d, why, sizeof why) == 0 && d.n == 1 && d.d[0].alg == TPM_ALG_SHA256 &&
	       d.d[0].size == 32 && d.d[0].bytes[31] == 31, "PCR_Event response: one sha256 digest");
	resp[19] = 0x99;   /* an algorithm nobody knows */
	tap_ok(hi_tpm_resp_pcr_event(resp, len, &d, why, sizeof why) == -1 && d.n == 0, "an unknown digest algorithm is refused");

	static const uint8_t err[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x09, 0x07 };
	tap_ok(hi_tpm_resp_pcr_event(err, sizeof err, &d, why, sizeof why) == 0x907, "an error response returns its code");
	static const uint8_t tag[] = { 0x12, 0x34, 0, 0, 0, 10, 0, 0, 0, 0 };
	tap_ok(hi_tpm_resp_code(tag, sizeof tag, why, sizeof why) == -1, "a TPM 1.2 tag is refused");
}

static void test_rc_text(void)
{
	char t[160];

	hi_tpm_rc_text(0x907, t, sizeof t);
	tap_contains(t, "TPM_RC_LOCALITY", "0x907 is TPM_RC_LOCALITY");
	hi_tpm_rc_text(0x1c4, t, sizeof t);
	tap_contains(t, "TPM_RC_VALUE (parameter 1", "0x1c4: TPM_RC_VALUE of parameter 1");
	hi_tpm_rc_text(0x98e, t, sizeof t);
	tap_contains(t, "TPM_RC_AUTH_FAIL (session 1", "0x98e: TPM_RC_AUTH_FAIL of session 1");
	hi_tpm_rc_text(0x18b, t, sizeof t);
	tap_contains(t, "TPM_RC_HANDLE (handle 1", "0x18b: TPM_RC_HANDLE of handle 1");
	hi_tpm_rc_text(0x100, t, sizeof t);
	tap_contains(t, "not started", "0x100 says the TPM was not started");
	hi_tpm_rc_text(0x0b0d0000, t, sizeof t);
	tap_contains(t, "0xb0d0000", "an unknown code is printed as a number");
}

static void test_replay(void)
{
	uint8_t pcr[32] = { 0 }, d[32];
	char hex[SHA256_HEX];

	hi_sha256("hardinit", 8, d);
	hi_tpm_replay_sha256(pcr, d);
	tap_streq(hi_hex_encode(hex, pcr, 32), "1c84848b1ff47eedbe2c970880b498bc25bbae3660caa7fb85377e0de076a21e",
		  "replay: sha256(zeros || sha256(\"hardinit\")), as Python's hashlib computes it");
}

static void test_ima_rules(void)
{
	static const char policy[] =
		"# measure the SELinux state\n"
		"measure func=CRITICAL_DATA label=selinux\n"
		"\n"
		"   measure func=MODULE_CHECK  \n"
		"dont_measure fsmagic=0x9fa0 # proc\n";
	struct ima_rule rules[4];
	char why[160];

	long n = hi_ima_policy_rules(policy, strlen(policy), rules, 4, why, sizeof why);
	tap_ok(n == 3, "IMA policy: three rules, comments and blank lines skipped (%ld)", n);
	tap_ok(n == 3 && rules[0].line == 2 && rules[1].line == 4 && rules[2].line == 5, "each rule keeps its line number");
	tap_ok(n == 3 && strcmp(rules[1].text, "measure func=MODULE_CHECK") == 0, "white space around a rule is trimmed");
	tap_ok(n == 3 && strcmp(rules[2].text, "dont_measure fsmagic=0x9fa0") == 0, "a trailing comment is cut");
	tap_ok(hi_ima_policy_rules(policy, strlen(policy), rules, 2, why, sizeof why) == -1, "more rules than the limit: -1");
	tap_contains(why, "more than 2 rules", "and says the limit");
	tap_ok(hi_ima_policy_rules("measure\001x\n", 10, rules, 4, why, sizeof why) == -1, "a control byte is refused");
}

static void test_event_text(void)
{
	uint8_t d[32];
	char text[TPM_EVENT_MAX];

	hi_sha256("x", 1, d);
	hi_measure_event_text(text, sizeof text, "config", d);
	tap_streq(text, "hardinit:config:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
		  "event data: hardinit:NAME:sha256 of the content");
}

/* The SELinux and hand-off events say what was applied: a boot whose
 * SELinux mode, policy, hand-off program or init's words differ from the
 * built one extends another text, so its PCR differs from the prediction. */
static void test_applied_events(void)
{
	static struct boot b;
	char base[TPM_EVENT_MAX], text[TPM_EVENT_MAX];

	memset(&b, 0, sizeof b);
	hi_measure_event_for(&b, EV_SELINUX, text, sizeof text);
	tap_streq(text, "hardinit:selinux-policy:disabled", "selinux: no policy loaded: disabled");
	hi_sha256("policy", 6, b.selinux_policy_sha256);
	b.selinux_policy_hashed = true;
	b.selinux_applied = "enforcing";
	hi_measure_event_for(&b, EV_SELINUX, base, sizeof base);
	tap_contains(base, "hardinit:selinux-policy:enforcing:", "selinux: the mode read back, then the policy's digest");
	b.selinux_applied = "permissive";
	hi_measure_event_for(&b, EV_SELINUX, text, sizeof text);
	tap_ok(strcmp(text, base) != 0 && strstr(text, ":permissive:"), "selinux: permissive is another event");
	b.selinux_applied = "enforcing";
	b.selinux_policy_before = true;
	hi_measure_event_for(&b, EV_SELINUX, text, sizeof text);
	tap_streq(text, "hardinit:selinux-policy:enforcing:loaded-before-hardinit",
		  "selinux: a policy loaded before hardinit is not the measured one");

	char err[128];
	tap_ok(hi_cmdline_parse(&b.cmd, "root=/dev/vda", 13, err, sizeof err) == 0, "handoff: a plain command line");
	snprintf(b.handoff_init, sizeof b.handoff_init, "/sbin/init");
	hi_measure_event_for(&b, EV_HANDOFF, base, sizeof base);
	/* sha256("/sbin/init\0"), as a verifier recomputes it */
	uint8_t d[32];
	char hex[SHA256_HEX], want[TPM_EVENT_MAX];
	hi_sha256("/sbin/init", 11, d);
	snprintf(want, sizeof want, "hardinit:handoff:%s:%s", HARDINIT_VERSION, hi_hex_encode(hex, d, 32));
	tap_streq(base, want, "handoff: the version, then the digest of the program and its words, each NUL-ended");
	snprintf(b.handoff_init, sizeof b.handoff_init, "/bin/sh");
	hi_measure_event_for(&b, EV_HANDOFF, text, sizeof text);
	tap_ok(strcmp(text, base) != 0, "handoff: another program is another event");
	snprintf(b.handoff_init, sizeof b.handoff_init, "/sbin/init");
	tap_ok(hi_cmdline_parse(&b.cmd, "root=/dev/vda single", 20, err, sizeof err) == 0, "handoff: a word for init");
	hi_measure_event_for(&b, EV_HANDOFF, text, sizeof text);
	tap_ok(strcmp(text, base) != 0, "handoff: a word init is handed is another event");
	tap_ok(hi_cmdline_parse(&b.cmd, "root=/dev/vda -- x", 18, err, sizeof err) == 0, "handoff: words after --");
	hi_measure_event_for(&b, EV_HANDOFF, text, sizeof text);
	tap_ok(strcmp(text, base) != 0, "handoff: words after -- are another event");
	/* The kernel consumes words such as quiet, so 40 of them leave init's
	 * argv short while hardinit counts each: the word after them is still
	 * init's and still measured. */
	char many[512] = "root=/dev/vda";
	for (int i = 0; i < 40; i++)
		strcat(many, " quiet");
	tap_ok(hi_cmdline_parse(&b.cmd, many, strlen(many), err, sizeof err) == 0, "handoff: 40 bare words");
	hi_measure_event_for(&b, EV_HANDOFF, base, sizeof base);
	strcat(many, " --crash-shell");
	tap_ok(hi_cmdline_parse(&b.cmd, many, strlen(many), err, sizeof err) == 0, "handoff: and one more for init");
	hi_measure_event_for(&b, EV_HANDOFF, text, sizeof text);
	tap_ok(strcmp(text, base) != 0, "handoff: a word for init after 40 others is still another event");
}

/* A complete log of PCR pcr from the initial word init, the events'
 * texts those of names[] with suffix "aa", each line's sha256 digest that
 * of its text unless edit_at (1-based) names one whose text is changed
 * after it was hashed. */
static void make_log(char *out, size_t cap, unsigned log_pcr, const char *init, const char *const *names, size_t n,
		     size_t edit_at)
{
	int len = snprintf(out, cap, "# hardinit measurements\ninitial %u sha256 %s\n", log_pcr, init);
	for (size_t i = 0; i < n; i++) {
		char text[96], hex[SHA256_HEX];
		uint8_t d[32];
		snprintf(text, sizeof text, "hardinit:%s:aa", names[i]);
		hi_sha256(text, strlen(text), d);
		if (edit_at == i + 1)
			text[strlen(text) - 1] = 'b';
		len += snprintf(out + len, cap - (size_t)len, "event %u %s sha1=00 sha256=%s sha384=00\n", log_pcr, text,
				hi_hex_encode(hex, d, 32));
	}
}

/* The value a log of those names reaches from start, computed here. */
static void expected_value(const uint8_t start[32], const char *const *names, size_t n, uint8_t out[32])
{
	memcpy(out, start, 32);
	for (size_t i = 0; i < n; i++) {
		char text[96];
		uint8_t d[32], both[64];
		snprintf(text, sizeof text, "hardinit:%s:aa", names[i]);
		hi_sha256(text, strlen(text), d);
		memcpy(both, out, 32);
		memcpy(both + 32, d, 32);
		hi_sha256(both, 64, out);
	}
}

static const char *const all5[] = { "ima-policy", "verity-root-hash", "config", "selinux-policy", "handoff" };
static const char zeros_hex[] = "0000000000000000000000000000000000000000000000000000000000000000";

/* check the log: rc, and why contains want when it fails. */
static void check_log(const char *log, unsigned pcr, const uint8_t start[32], int want_rc, const char *want_why,
		      const char *what)
{
	static char text[8192];
	char why[200] = "";
	uint8_t value[32];

	snprintf(text, sizeof text, "%s", log);
	int rc = hi_measure_log_check(text, pcr, start, value, why, sizeof why);
	tap_ok(rc == want_rc, "%s: %s (%s)", what, want_rc ? "refused" : "replays", rc ? why : "ok");
	if (want_why)
		tap_contains(why, want_why, "  and says why");
}

static void test_log_check(void)
{
	static char log[8192], text[8192];
	static const char *const reordered[] = { "ima-policy", "config", "verity-root-hash", "selinux-policy", "handoff" };
	static const char *const doubled[] = { "ima-policy", "ima-policy", "verity-root-hash", "config",
					       "selinux-policy", "handoff" };
	static const char *const extra[] = { "ima-policy", "verity-root-hash", "config", "selinux-policy", "handoff",
					     "handoff" };
	uint8_t zero[32] = { 0 }, other[32], value[32], want[32];
	char why[200], hex[SHA256_HEX];

	/* The whole sequence from the reset value: the value computed here. */
	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	snprintf(text, sizeof text, "%s", log);
	int rc = hi_measure_log_check(text, 12, zero, value, why, sizeof why);
	expected_value(zero, all5, 5, want);
	tap_ok(rc == 0 && memcmp(value, want, 32) == 0, "a complete log replays to the value computed here (%s)",
	       rc ? why : "ok");
	/* initial "unknown" (sysfs unreadable at boot): the start is the expected one. */
	make_log(log, sizeof log, 12, "unknown", all5, 5, 0);
	check_log(log, 12, zero, 0, NULL, "initial unknown");

	/* The PCR is the config's, never the log's. */
	make_log(log, sizeof log, 14, zeros_hex, all5, 5, 0);
	check_log(log, 12, zero, -1, "the log is of PCR 14, the config's is 12", "a log of PCR 14 audited as PCR 12");
	make_log(log, sizeof log, 13, zeros_hex, all5, 5, 0);
	check_log(log, 12, zero, -1, "PCR 13", "a log of PCR 13 (held out)");
	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	char *ev = strstr(log, "event 12 hardinit:config");
	ev[7] = '4';   /* "event 14": one event of another PCR */
	check_log(log, 12, zero, -1, "event 3 is of PCR 14", "an event of another PCR");

	/* The start is the expected one, not the log's. */
	memset(other, 0x5a, sizeof other);
	make_log(log, sizeof log, 12, hi_hex_encode(hex, other, 32), all5, 5, 0);
	check_log(log, 12, zero, -1, "the log starts from 5a5a", "an initial value other than the reset value");
	snprintf(text, sizeof text, "%s", log);
	rc = hi_measure_log_check(text, 12, other, value, why, sizeof why);
	expected_value(other, all5, 5, want);
	tap_ok(rc == 0 && memcmp(value, want, 32) == 0, "  the same from the start the report recorded (%s)",
	       rc ? why : "ok");
	make_log(log, sizeof log, 12, "00ff", all5, 5, 0);
	check_log(log, 12, zero, -1, "not 64 hex digits", "a short initial value");

	/* Every digest is recomputed from its text. */
	for (size_t k = 1; k <= 5; k++) {
		char what[64];
		make_log(log, sizeof log, 12, zeros_hex, all5, 5, k);
		snprintf(what, sizeof what, "event %zu's text edited after it was hashed", k);
		check_log(log, 12, zero, -1, "does not hash to its digest", what);
	}
	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	char *sha = strstr(log, "hardinit:handoff");
	sha = strstr(sha, "sha256=");
	memcpy(sha, "sha257", 6);
	check_log(log, 12, zero, -1, "(handoff) has no sha256 digest", "an event without a sha256 digest");

	/* The whole sequence, in order, ending with handoff. */
	for (size_t n = 0; n < 5; n++) {
		char what[64];
		make_log(log, sizeof log, 12, zeros_hex, all5, n, 0);
		snprintf(what, sizeof what, "a log cut short after %zu events", n);
		check_log(log, 12, zero, -1, "cut short", what);
	}
	make_log(log, sizeof log, 12, zeros_hex, reordered, 5, 0);
	check_log(log, 12, zero, -1, "event 2 is 'hardinit:config:aa', expected verity-root-hash", "a reordered log");
	make_log(log, sizeof log, 12, zeros_hex, doubled, 6, 0);
	check_log(log, 12, zero, -1, "expected verity-root-hash", "an event twice");
	make_log(log, sizeof log, 12, zeros_hex, extra, 6, 0);
	check_log(log, 12, zero, -1, "after handoff", "an event after handoff");

	/* Lines: one initial line, first; nothing else. */
	check_log("event 12 hardinit:ima-policy:aa sha256=00\n", 12, zero, -1, "before the initial line",
		  "an event before any initial line");
	check_log("# nothing\n", 12, zero, -1, "no initial line", "no initial line");
	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	strcat(log, "initial 12 sha256 unknown\n");
	check_log(log, 12, zero, -1, "a second initial line", "a second initial line");
	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	strcat(log, "note: all fine\n");
	check_log(log, 12, zero, -1, "not an initial or event line", "a line of another kind");
}

static void test_replay_log(void)
{
	const char *root = fixture_tree("hardinit-measure");
	char path[512], why[200], hex[SHA256_HEX];
	uint8_t value[32], zero[32] = { 0 };
	static char log[8192];

	make_log(log, sizeof log, 12, zeros_hex, all5, 5, 0);
	fixture_put(root, "m", log);
	snprintf(path, sizeof path, "%s/m", root);
	int rc = hi_measure_log_replay(path, 12, zero, value, why, sizeof why);
	/* The same five texts and PCR 12 from zeros, in Python:
	 * v = bytes(32); for t in texts: v = hi_sha256(v + hi_sha256(t).digest()).digest() */
	tap_ok(rc == 0, "replay of a log file (%s)", rc ? why : "ok");
	tap_streq(hi_hex_encode(hex, value, 32), "411eaa1e85da8cce1694bb14c28f6260fe57b154fefadcf45c8f6f90f4c009d8",
		  "replay reaches the value Python's hashlib computes");
	snprintf(path, sizeof path, "%s/absent", root);
	tap_ok(hi_measure_log_replay(path, 12, zero, value, why, sizeof why) == -1, "a missing log does not replay");
	tap_contains(why, "cannot read", "  and says why");
}

static void test_stages(void)
{
	static struct boot b;
	const char *root = fixture_tree("hardinit-measure-stage");

	/* No TPM: skipped, or the failure action with require. */
	boot_at(&b, root, MODE_INITRAMFS);
	b.cfg.tpm_measure = true;
	fixture_mkdir(root, "dev", 0755);
	tap_ok(hi_stage_measure(&b) == 0, "measure: no TPM, boot goes on");
	const struct report_item *it = hi_report_find(&b.rep, "measure", "tpm");
	tap_ok(it && strcmp(it->status, "skipped") == 0, "measure: the report says skipped");
	b.cfg.tpm_require = true;
	tap_ok(hi_stage_measure(&b) == -1, "measure: no TPM with [tpm] require = yes fails");
	tap_contains(b.err, "require = yes", "measure: the error names the setting");

	/* IMA: no policy in the image: skipped; require makes it fatal. */
	boot_at(&b, root, MODE_INITRAMFS);
	snprintf(b.ima_policy, sizeof b.ima_policy, "%s/etc/hardinit/ima-policy", root);
	tap_ok(hi_stage_ima(&b) == 0 && !b.ima_policy_loaded, "ima: no policy in the image: skipped");
	b.cfg.ima_require = true;
	tap_ok(hi_stage_ima(&b) == -1, "ima: no policy with [ima] require = yes fails");
	tap_contains(b.err, "--ima-policy", "ima: the error says how to embed one");

	/* A policy and a securityfs stand-in: every rule written, one a write. */
	boot_at(&b, root, MODE_INITRAMFS);
	snprintf(b.ima_policy, sizeof b.ima_policy, "%s/etc/hardinit/ima-policy", root);
	fixture_put(root, "etc/hardinit/ima-policy", "# test\nmeasure func=CRITICAL_DATA label=selinux\nmeasure func=MODULE_CHECK\n");
	fixture_put(root, "sys/kernel/security/lsm", "selinux\n");
	fixture_put(root, "sys/kernel/security/ima/policy", "");
	tap_ok(hi_stage_ima(&b) == 0 && b.ima_policy_loaded, "ima: a policy is loaded");
	tap_streq(fixture_get(root, "sys/kernel/security/ima/policy"),
		  "measure func=CRITICAL_DATA label=selinux\nmeasure func=MODULE_CHECK\n", "ima: the rules as the kernel gets them");
	it = hi_report_find(&b.rep, "ima", "policy_lock");
	tap_ok(it && strcmp(it->status, "info") == 0, "ima: a policy file still there is not reported as locked");
}

int main(void)
{
	test_sha256();
	test_commands();
	test_responses();
	test_rc_text();
	test_replay();
	test_ima_rules();
	test_event_text();
	test_applied_events();
	test_log_check();
	test_replay_log();
	test_stages();
	return tap_done();
}
