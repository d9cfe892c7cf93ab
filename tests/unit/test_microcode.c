/* Unit tests: whether the kernel applied an early microcode update, as its
 * log says it (stages/sysctl_microcode.c): each kernel generation's
 * wording, kmsg records and plain text, a long log, no log. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "sysctl_microcode.h"
#include "tap.h"

static void test_lines(void)
{
	char what[MICROCODE_WHAT_MAX];

	tap_ok(hi_microcode_early_line("6,312,0,-;microcode: updated early: 0xf0 -> 0xf4, date = 2023-02-22", what, sizeof what) == 1 &&
	       !strcmp(what, "updated early: 0xf0 -> 0xf4, date = 2023-02-22"), "Intel 6.1: a kmsg record, its text");
	tap_ok(hi_microcode_early_line("microcode: microcode updated early to revision 0xde, date = 2020-05-26", what, sizeof what) == 1,
	       "Intel, older kernels");
	tap_ok(hi_microcode_early_line("6,1,0,-;microcode: microcode updated early to new patch_level=0x0a201016", what, sizeof what) == 1 &&
	       !strcmp(what, "microcode updated early to new patch_level=0x0a201016"), "AMD to 6.6");
	tap_ok(hi_microcode_early_line("6,2,0,-;microcode: Updated early from: 0x0a201009", what, sizeof what) == 1, "6.7 on");
	tap_ok(hi_microcode_early_line("6,3,0,-;microcode: Current revision: 0x0a201016", what, sizeof what) == 0,
	       "the current revision alone says nothing about an update");
	tap_ok(hi_microcode_early_line("6,4,0,-;microcode: Microcode Update Driver: v2.2.", what, sizeof what) == 0, "the driver's banner");
	tap_ok(hi_microcode_early_line("6,5,0,-;usb 1-1: microcode: updated early: 0x1 -> 0x2", what, sizeof what) == 0,
	       "not the kernel's microcode line");
	tap_ok(hi_microcode_early_line("6,6,0,-;microcode: updated early: 0x1\x01 -> 0x2", what, sizeof what) == 1 &&
	       !strcmp(what, "updated early: 0x1? -> 0x2"), "control bytes are not copied");
	tap_ok(hi_microcode_early_line("microcode: updated early: 0x1 -> 0x2", what, 8) == 1 && !strcmp(what, "updated"),
	       "bounded by the buffer");
}

static void test_log(void)
{
	static struct boot b;
	static char big[300000];
	char what[MICROCODE_WHAT_MAX];
	const char *root = fixture_tree("microcode");

	boot_at(&b, root, MODE_ON_ROOT);
	tap_ok(hi_microcode_early_seen(&b, what, sizeof what) == -1, "no kernel log: -1");
	fixture_put(root, "dev/kmsg", "6,0,0,-;Linux version 6.1.0\n"
				      "6,1,10,-;microcode: microcode updated early to revision 0xf4, date = 2023-02-22\n"
				      " SUBSYSTEM=cpu\n");
	tap_ok(hi_microcode_early_seen(&b, what, sizeof what) == 1 &&
	       !strcmp(what, "microcode updated early to revision 0xf4, date = 2023-02-22"), "found in the log");
	fixture_put(root, "dev/kmsg", "6,0,0,-;Linux version 6.1.0\n6,1,10,-;microcode: Current revision: 0x000000f4\n");
	tap_ok(hi_microcode_early_seen(&b, what, sizeof what) == 0, "firmware's microcode only: 0");
	/* The line past several reads, split across two of them. */
	size_t n = 0;
	while (n < 100000)
		n += (size_t)snprintf(big + n, sizeof big - n, "6,%zu,0,-;some driver: a line of the boot\n", n);
	snprintf(big + n, sizeof big - n, "6,9,0,-;microcode: updated early: 0xf0 -> 0xf4\n");
	fixture_put(root, "dev/kmsg", big);
	tap_ok(hi_microcode_early_seen(&b, what, sizeof what) == 1 && !strcmp(what, "updated early: 0xf0 -> 0xf4"),
	       "found after 100 KB of log");
}

int main(void)
{
	test_lines();
	test_log();
	return tap_done();
}
