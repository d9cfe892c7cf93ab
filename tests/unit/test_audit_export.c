/* prog/audit_export.c and crypto/sha256.c: the check kinds and
 * ComplianceAsCode ids, the Prometheus label escaping, the reader of
 * report.json's stage times (well-formed, truncated, hostile), the bound
 * of the output, and SHA-256 against FIPS 180-4's vectors (and the
 * block-boundary lengths, against sha256sum's answers). */
#include <stdio.h>
#include <string.h>

#include "audit_export.h"
#include "audit_types.h"
#include "config_types.h"
#include "report.h"
#include "sha256.h"
#include "tap.h"

/* SHA-256 as hex: the digest hardinit_info's config_digest carries. */
static void sha256_hex(const void *data, size_t len, char out[SHA256_HEX])
{
	uint8_t d[SHA256_BYTES];

	hi_sha256(data, len, d);
	hi_hex_encode(out, d, SHA256_BYTES);
}

static struct audit a;

static void test_sha256(void)
{
	char hex[SHA256_HEX];
	char buf[200];

	sha256_hex("", 0, hex);
	tap_streq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 of nothing");
	sha256_hex("abc", 3, hex);
	tap_streq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), hex);
	tap_streq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "sha256 of the two-block vector");
	/* 55, 56 and 64 bytes: the padding's three cases (printf 'a%.0s' {1..N} | sha256sum). */
	memset(buf, 'a', sizeof buf);
	sha256_hex(buf, 55, hex);
	tap_streq(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318", "sha256 of 55 bytes");
	sha256_hex(buf, 56, hex);
	tap_streq(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a", "sha256 of 56 bytes");
	sha256_hex(buf, 64, hex);
	tap_streq(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb", "sha256 of 64 bytes");
}

static void test_kinds(void)
{
	char name[96];

	tap_streq(hi_audit_item_kind("sysctl kernel.kptr_restrict", name, sizeof name), "sysctl", "sysctl kind");
	tap_streq(name, "kernel.kptr_restrict", "sysctl name");
	tap_streq(hi_audit_item_kind("PID 1 bounding set cap_sys_rawio", name, sizeof name), "capability", "cap kind");
	tap_streq(name, "cap_sys_rawio", "cap name");
	tap_streq(hi_audit_item_kind("selinux mode", name, sizeof name), "selinux", "selinux kind");
	tap_streq(name, "mode", "selinux name");
	tap_streq(hi_audit_item_kind("verity root hash", name, sizeof name), "verity", "verity kind");
	tap_streq(name, "root_hash", "verity root hash name");
	tap_streq(hi_audit_item_kind("tpm pcr 12 (sha256)", name, sizeof name), "tpm", "tpm kind");
	tap_streq(name, "12 (sha256)", "tpm name: the PCR");
	tap_streq(hi_audit_item_kind("secure boot", name, sizeof name), "firmware", "firmware kind");
	tap_streq(hi_audit_item_kind("something new", name, sizeof name), "other", "unknown kind");
	tap_streq(name, "something new", "unknown name is the description");
	tap_streq(hi_audit_rule_id("sysctl", "kernel.kptr_restrict"), "sysctl_kernel_kptr_restrict", "kptr rule");
	tap_streq(hi_audit_rule_id("selinux", "mode"), "selinux_state", "selinux rule");
	tap_ok(hi_audit_rule_id("sysctl", "dev.tty.ldisc_autoload") == NULL, "no rule where CaC has none");
}

static void test_prometheus_escaping(void)
{
	static char out[AUDIT_OUTPUT_MAX];
	struct sink s;

	memset(&a, 0, sizeof a);
	a.success = true;
	a.n = 1;
	snprintf(a.items[0].what, sizeof a.items[0].what, "instance parent /tmp/a\"b\\c");
	snprintf(a.items[0].expected, sizeof a.items[0].expected, "dir 0000 root");
	snprintf(a.items[0].actual, sizeof a.items[0].actual, "line\nbreak");
	a.items[0].drift = 1;
	snprintf(a.profile, sizeof a.profile, "custom");
	hi_sink_init(&s, out, sizeof out);
	hi_audit_format_prometheus(&a, &s);
	tap_ok(!s.full, "prometheus output fits");
	tap_contains(out, "name=\"/tmp/a\\\"b\\\\c\"", "quote and backslash escaped in a label");
	tap_contains(out, "actual=\"line\\nbreak\"} 0\n", "newline escaped, drift is 0");
	tap_contains(out, "config_digest=\"unknown\"", "no digest is unknown");

	/* The bound: a sink too small says so instead of writing half. */
	char small[64];
	hi_sink_init(&s, small, sizeof small);
	hi_audit_format_prometheus(&a, &s);
	tap_ok(s.full, "a full sink is flagged");
}

static void test_boot_json(void)
{
	const char *good =
		"{\n  \"version\": \"0.1.0\",\n  \"start_ns\": 100,\n  \"exec_ns\": 2100,\n  \"stages\": [\n"
		"    {\"name\": \"early\", \"result\": \"ok\", \"duration_us\": 12},\n"
		"    {\"name\": \"modules\", \"result\": \"skipped\", \"duration_us\": 0}\n  ],\n"
		"  \"items\": [\n    {\"stage\": \"x\", \"key\": \"version\", \"value\": \"}{\", \"status\": \"ok\"}\n  ],\n"
		"  \"dropped_items\": 0\n}\n";

	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, good) == 0, "report.json read");
	tap_ok(a.n_stages == 2, "two stages");
	tap_streq(a.stages[0].name, "early", "first stage name");
	tap_ok(a.stages[0].duration_us == 12, "first stage duration");
	tap_streq(a.stages[1].result, "skipped", "second stage result");
	tap_streq(a.boot_version, "0.1.0", "boot version");
	tap_ok(a.have_boot_json && a.boot_ns == 2000, "boot time from start_ns and exec_ns");

	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, "{\"stages\": [ {\"name\": \"early\", \"res") < 0, "truncated: refused");
	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, "{\"items\": []}") < 0, "no stages: refused");
	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, "{\"stages\": [{\"name\": \"a-very-long-stage-name-over-the-limit\", "
					    "\"result\": \"ok\", \"duration_us\": 1}]}") == 0 && a.n_stages == 0,
	       "an over-long name is skipped, not cut");
	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, "{\"stages\": [{\"name\": \"x\", \"result\": \"ok\", "
					    "\"duration_us\": 99999999999999999999999}]}") == 0 && a.n_stages == 0,
	       "an overflowing number is skipped");
	/* More stages than the limit: bounded. */
	static char many[8192];
	size_t len = (size_t)snprintf(many, sizeof many, "{\"stages\": [");
	for (int i = 0; i < AUDIT_MAX_STAGES + 10; i++)
		len += (size_t)snprintf(many + len, sizeof many - len, "%s{\"name\": \"s%d\", \"result\": \"ok\", \"duration_us\": %d}",
					i ? "," : "", i, i);
	snprintf(many + len, sizeof many - len, "]}");
	memset(&a, 0, sizeof a);
	tap_ok(hi_audit_read_boot_json(&a, many) == 0 && a.n_stages == AUDIT_MAX_STAGES, "stages bounded by AUDIT_MAX_STAGES");
}

int main(void)
{
	test_sha256();
	test_kinds();
	test_prometheus_escaping();
	test_boot_json();
	return tap_done();
}
