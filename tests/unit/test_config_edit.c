/* config_edit (hardinit config-set): the keys set in their section, every
 * other line kept, a missing section appended, and every refusal one line
 * naming the argument. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_edit.h"
#include "tap.h"

static char out[2 * CONFIG_MAX_FILE_BYTES], err[CONFIG_ERR_MAX];

static int edit(const char *text, const char *const *assign, size_t n)
{
	out[0] = err[0] = '\0';
	int rc = hi_config_edit(text, strlen(text), "t.conf", "", assign, n, out, sizeof out, err, sizeof err);
	if (rc >= 0)
		out[rc] = '\0';
	return rc;
}

static void replaces_in_its_section(void)
{
	const char *text = "# the profile\n[boot]\n# why halt\nfailure_action = halt\n\n"
			   "[verity]\n# a reason\nenabled = no\n  roothash =  aa \non_corruption = restart\n";
	const char *a[] = { "verity.enabled=yes", "verity.roothash= abcd ", "boot.failure_action=reboot" };
	tap_ok(edit(text, a, 3) > 0, "three keys set (%s)", err);
	tap_streq(out, "# the profile\n[boot]\nfailure_action = reboot\n# why halt\n\n"
		  "[verity]\nenabled = yes\nroothash = abcd\n# a reason\non_corruption = restart\n",
		  "each key once, after its header; comments and other keys kept");
}

static void appends_a_missing_section(void)
{
	const char *a[] = { "verity.enabled=yes", "verity.roothash=ab", "verity.data=/dev/vda", "tpm.pcr=13" };
	tap_ok(edit("[boot]\nfailure_action = halt", a, 4) > 0, "a file without [verity] or [tpm] (%s)", err);
	tap_streq(out, "[boot]\nfailure_action = halt\n\n[verity]\nenabled = yes\nroothash = ab\ndata = /dev/vda\n"
		  "\n[tpm]\npcr = 13\n", "the sections appended, the last line completed");
	tap_ok(edit("", a + 3, 1) > 0 && strcmp(out, "\n[tpm]\npcr = 13\n") == 0, "an empty file");
}

/* A key of the same name in another section is not touched. */
static void other_sections_untouched(void)
{
	const char *text = "[ima]\nrequire = no\n[tpm]\nrequire = no\n";
	const char *a[] = { "tpm.require=yes" };
	tap_ok(edit(text, a, 1) > 0, "tpm.require set");
	tap_streq(out, "[ima]\nrequire = no\n[tpm]\nrequire = yes\n", "[ima] require kept");
}

static void refusals(void)
{
	const char *bad_value[] = { "verity.enabled=maybe" };
	tap_ok(edit("", bad_value, 1) < 0, "a bad value refused");
	tap_contains(err, "verity.enabled=maybe: invalid value 'maybe'", "the reader's reason, with the argument");
	const char *unknown[] = { "verity.nosuch=1" };
	tap_ok(edit("", unknown, 1) < 0 && strstr(err, "unknown key 'nosuch' in [verity]"), "an unknown key: %s", err);
	const char *section[] = { "veritz.enabled=yes" };
	tap_ok(edit("", section, 1) < 0 && strstr(err, "did you mean 'verity'"), "an unknown section: %s", err);
	const char *list[] = { "kernel.require=nokaslr" };
	tap_ok(edit("", list, 1) < 0 && strstr(err, "not a key that takes one value"), "a list key: %s", err);
	const char *sysctl[] = { "sysctl.kernel.kptr_restrict=2" };
	tap_ok(edit("", sysctl, 1) < 0, "a sysctl (a list) refused: %s", err);
	const char *shape[] = { "verity" };
	tap_ok(edit("", shape, 1) < 0 && strstr(err, "not SECTION.KEY=VALUE"), "no '=': %s", err);
	const char *twice[] = { "tpm.pcr=13", "tpm.pcr=14" };
	tap_ok(edit("", twice, 2) < 0 && strstr(err, "given twice"), "a key twice: %s", err);
	const char *ctl[] = { "tpm.pcr=13\n[boot]" };
	tap_ok(edit("", ctl, 1) < 0, "a newline in the value cannot add a line: %s", err);
	tap_ok(edit("[boot]\nnosuch = 1\n", twice, 1) < 0 && strstr(err, "t.conf:2:"), "a broken file: %s", err);
	tap_ok(edit("", twice, 0) < 0, "nothing to set");
}

/* The lock is the command line's: a locked file is still the author's. */
static void no_lock(void)
{
	const char *a[] = { "verity.roothash=abcd" };
	tap_ok(edit("[boot]\nlock_cmdline = yes\n", a, 1) > 0, "a LOCK_FIXED key set in a locked file (%s)", err);
}

/* Every output reads back as what was asked. */
static void reads_back(void)
{
	struct config c;
	const char *a[] = { "verity.enabled=yes", "verity.roothash=abcd", "verity.data=/dev/vda", "verity.hash=off" };
	tap_ok(edit("[verity]\nenabled = no\n", a, 4) > 0, "edited");
	hi_config_defaults(&c);
	tap_ok(hi_config_parse(&c, out, strlen(out), "out", "", err, sizeof err) == 0 && c.verity_enabled &&
	       strcmp(c.verity_roothash, "abcd") == 0 && strcmp(c.verity_data, "/dev/vda") == 0 && !c.verity_hash[0],
	       "the text gives the values");
}

int main(void)
{
	replaces_in_its_section();
	appends_a_missing_section();
	other_sections_untouched();
	refusals();
	no_lock();
	reads_back();
	return tap_done();
}
