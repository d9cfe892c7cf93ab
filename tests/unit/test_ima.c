/* Unit tests: the ima stage's decisions (stages/ima.h). Which policies
 * appraise; what the kernel makes of ima_appraise= (the spellings its
 * parser takes: '-' for '_', the last word wins, a value by its prefix,
 * case-sensitive, nothing after "--"); and the stage's effect in a dry run
 * against a temporary policy: a disarming word is a warning, or the
 * failure under [ima] require or lock_cmdline. The keyring is kernel
 * state: tests/vm/measure.bats proves it in QEMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "fixture.h"
#include "ima.h"
#include "log.h"
#include "report.h"
#include "tap.h"

static struct cmdline cmd;

static enum ima_appraise_mode mode_of(const char *text, const char **word)
{
	char err[160];

	if (hi_cmdline_parse(&cmd, text, strlen(text), err, sizeof err) < 0) {
		printf("# cmdline_parse(%s): %s\n", text, err);
		exit(2);
	}
	return hi_ima_appraise_cmdline(&cmd, word);
}

static void test_appraise_rules(void)
{
	static struct ima_rule rules[8];
	char why[160];
	const char *policy = "dont_appraise fsmagic=0x9fa0\nmeasure func=BPRM_CHECK\n"
			     "appraise func=BPRM_CHECK appraise_type=imasig\n  appraise\tfunc=MODULE_CHECK\n"
			     "appraise_type=imasig\n";
	long n = hi_ima_policy_rules(policy, strlen(policy), rules, 8, why, sizeof why);

	tap_ok(n == 5, "the policy splits into 5 rules (%ld)", n);
	tap_ok(hi_ima_policy_appraise_rules(rules, n) == 2,
	       "two appraise rules: not dont_appraise, not a word that starts with appraise (%ld)",
	       hi_ima_policy_appraise_rules(rules, n));
	tap_ok(hi_ima_policy_appraise_rules(rules, 2) == 0, "a measure-only policy has none");
}

static void test_cmdline_modes(void)
{
	static const struct { const char *cmdline; enum ima_appraise_mode want; const char *word; } v[] = {
		{ "root=/dev/vda ro", IMA_APPRAISE_NOT_GIVEN, NULL },
		{ "ima_appraise=enforce", IMA_APPRAISE_ENFORCE, "enforce" },
		{ "ima_appraise=log", IMA_APPRAISE_LOG, "log" },
		{ "ima_appraise=off quiet", IMA_APPRAISE_OFF, "off" },
		{ "ima_appraise=fix", IMA_APPRAISE_FIX, "fix" },
		/* The kernel compares prefixes. */
		{ "ima_appraise=offline", IMA_APPRAISE_OFF, "offline" },
		{ "ima_appraise=logging", IMA_APPRAISE_LOG, "logging" },
		/* parameq(): a dash is an underscore. */
		{ "ima-appraise=log", IMA_APPRAISE_LOG, "log" },
		{ "ima_appraise-=log", IMA_APPRAISE_NOT_GIVEN, NULL },
		/* A core_param: the last word wins, whatever came before. */
		{ "ima_appraise=log ima_appraise=enforce", IMA_APPRAISE_ENFORCE, "enforce" },
		{ "ima_appraise=enforce ima_appraise=fix", IMA_APPRAISE_FIX, "fix" },
		{ "ima_appraise=enforce ima-appraise=off", IMA_APPRAISE_OFF, "off" },
		/* Rejected by the kernel (case-sensitive): it keeps enforce. */
		{ "ima_appraise=LOG", IMA_APPRAISE_INVALID, "LOG" },
		{ "ima_appraise=log ima_appraise=bogus", IMA_APPRAISE_INVALID, "bogus" },
		{ "ima_appraise=", IMA_APPRAISE_INVALID, "" },
		/* The quotes go, as the kernel's next_arg() takes them off. */
		{ "\"ima_appraise=log\"", IMA_APPRAISE_LOG, "log" },
		{ "ima_appraise=\"off\"", IMA_APPRAISE_OFF, "off" },
		/* A bare word sets nothing; after "--" the words are init's. */
		{ "ima_appraise", IMA_APPRAISE_NOT_GIVEN, NULL },
		{ "root=/dev/vda -- ima_appraise=log", IMA_APPRAISE_NOT_GIVEN, NULL },
		/* Other names are other parameters. */
		{ "ima_appraise_tcb ima_policy=appraise_tcb xima_appraise=log", IMA_APPRAISE_NOT_GIVEN, NULL },
	};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const char *word = NULL;
		enum ima_appraise_mode m = mode_of(v[i].cmdline, &word);
		tap_ok(m == v[i].want && (v[i].word ? word && strcmp(word, v[i].word) == 0 : !word),
		       "'%s': %s (got %s, word '%s')", v[i].cmdline, hi_ima_appraise_mode_name(v[i].want),
		       hi_ima_appraise_mode_name(m), word ? word : "(none)");
	}
	tap_ok(hi_ima_appraise_disarmed(IMA_APPRAISE_OFF) && hi_ima_appraise_disarmed(IMA_APPRAISE_LOG) &&
	       hi_ima_appraise_disarmed(IMA_APPRAISE_FIX), "off, log and fix disarm appraisal");
	tap_ok(!hi_ima_appraise_disarmed(IMA_APPRAISE_ENFORCE) && !hi_ima_appraise_disarmed(IMA_APPRAISE_NOT_GIVEN) &&
	       !hi_ima_appraise_disarmed(IMA_APPRAISE_INVALID), "enforce, no word and a rejected value do not");
}

static struct boot b;
static const char *root;

static const char *item(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "ima", key);
	static char buf[400];
	if (!it)
		return "(none)";
	snprintf(buf, sizeof buf, "%s %s", it->status, it->value);
	return buf;
}

/* The stage in a dry run: policy file under the tree, cmdline parsed. */
static int run_stage(const char *policy, const char *cmdline, bool require, bool lock)
{
	char err[160];

	boot_at(&b, root, MODE_DRY_RUN);
	fixture_put(root, "ima-policy", policy);
	fixture_path(b.ima_policy, sizeof b.ima_policy, root, "ima-policy");
	b.cfg.ima_require = require;
	b.cfg.lock_cmdline = lock;
	if (hi_cmdline_parse(&b.cmd, cmdline, strlen(cmdline), err, sizeof err) < 0)
		exit(2);
	return hi_stage_ima(&b);
}

static void test_stage(void)
{
	const char *appraise = "measure func=BPRM_CHECK\nappraise func=BPRM_CHECK appraise_type=imasig\n";
	const char *measure = "measure func=BPRM_CHECK\n";

	root = fixture_tree("hardinit-test-ima");
	tap_ok(run_stage(appraise, "root=/dev/vda", false, false) == 0, "no ima_appraise word: the stage goes on");
	tap_streq(item("appraise_mode"), "ok enforce (no ima_appraise= word), 1 appraise rules",
		  "report: appraisal enforced");
	tap_ok(run_stage(appraise, "ima_appraise=enforce", true, true) == 0, "ima_appraise=enforce is fine under require");

	tap_ok(run_stage(appraise, "root=/dev/vda ima_appraise=log", false, false) == 0,
	       "ima_appraise=log without require: a warning, the boot goes on");
	tap_contains(item("appraise_mode"), "warn IMA: the kernel command line says ima_appraise=log",
		     "report: the disarming word is a warning");
	tap_ok(run_stage(appraise, "ima_appraise=off", true, false) == -1, "ima_appraise=off under [ima] require fails the boot");
	tap_contains(b.err, "ima_appraise=off", "the error names the word");
	tap_contains(b.err, "remove the word from the boot loader's command line", "and says what to do");
	tap_contains(item("appraise_mode"), "failed ", "report: failed");
	tap_ok(run_stage(appraise, "ima-appraise=fix", false, true) == -1,
	       "ima-appraise=fix (dash spelling) under lock_cmdline fails the boot");
	tap_ok(run_stage(appraise, "ima_appraise=enforce ima_appraise=log", true, false) == -1,
	       "a later word wins: enforce then log fails");
	tap_ok(run_stage(appraise, "ima_appraise=log ima_appraise=enforce", true, false) == 0,
	       "log then enforce is enforce");
	tap_ok(run_stage(appraise, "ima_appraise=LOG", true, false) == 0, "upper case is rejected by the kernel: enforce");

	tap_ok(run_stage(measure, "ima_appraise=off", true, true) == 0, "without appraise rules the word changes nothing");
	tap_streq(item("appraise_mode"), "(none)", "and is not reported");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);

	test_appraise_rules();
	test_cmdline_modes();
	test_stage();
	return tap_done();
}
