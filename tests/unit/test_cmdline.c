/* Unit tests: the kernel command-line parser and root= specifications,
 * including hostile input. */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "cmdline_lock.h"
#include "tap.h"

static struct cmdline c;
static char err[256];

static int parse(const char *text)
{
	err[0] = '\0';
	return hi_cmdline_parse(&c, text, strlen(text), err, sizeof err);
}

static void test_root_options(void)
{
	tap_ok(parse("BOOT_IMAGE=/vmlinuz root=UUID=ABCD-12 rootfstype=ext4 rootflags=noatime,data=ordered rw rootwait rootdelay=3 init=/sbin/myinit console=ttyS0") == 0,
	       "typical command line parses");
	tap_streq(c.root, "UUID=ABCD-12", "root= value");
	tap_streq(c.rootfstype, "ext4", "rootfstype=");
	tap_streq(c.rootflags, "noatime,data=ordered", "rootflags= keeps later '='");
	tap_ok(c.rw && c.rootwait && c.rootdelay == 3, "rw, rootwait, rootdelay=3");
	tap_streq(c.init, "/sbin/myinit", "init=");
	tap_ok(parse("root=/dev/vda rw ro") == 0 && !c.rw, "the last of ro/rw wins (ro)");
	tap_ok(parse("root=/dev/vda ro rw") == 0 && c.rw, "the last of ro/rw wins (rw)");
	tap_ok(parse("root=/dev/vda") == 0 && !c.rw, "read-only unless asked");
	tap_ok(parse("root=/dev/vda root=/dev/vdb") == 0 && strcmp(c.root, "/dev/vdb") == 0, "the last root= wins");
}

static void test_quotes(void)
{
	tap_ok(parse("hardinit.boot.init=\"/sbin/my init\" x") == 0, "quoted value parses");
	tap_ok(c.n_overrides == 1, "one override");
	tap_streq(c.overrides[0].key, "boot.init", "override key without prefix");
	tap_streq(c.overrides[0].value, "/sbin/my init", "quoted value keeps its space");
	tap_ok(parse("\"quoted word\" b") == 0 && c.n_words == 2, "a quoted whole word is one word");
	tap_streq(c.words[0].key, "quoted word", "quotes removed from a word");
	/* The kernel's next_arg() and systemd split a word at its first '='
	 * whether or not it is quoted: so does hardinit, or a quoted word the
	 * lock refuses would pass it and still act. */
	tap_ok(parse("\"selinux=0\" \"init=/bin/sh\"") == 0 && c.n_words == 2, "quoted key=value words parse");
	tap_ok(strcmp(c.words[0].key, "selinux") == 0 && c.words[0].value && strcmp(c.words[0].value, "0") == 0,
	       "a quoted \"selinux=0\" is the word selinux with value 0, as the kernel reads it");
	tap_streq(c.init, "/bin/sh", "a quoted \"init=/bin/sh\" is init=, not an argument for init");
	/* The kernel's isspace() separates words at \v, \f and 0xa0 as well. */
	tap_ok(parse("root=/dev/vda\vselinux=0\fenforcing=0\xa0lsm=x") == 0 && c.n_words == 4,
	       "\\v, \\f and 0xa0 separate words as the kernel splits them (got %zu)", c.n_words);
	tap_streq(c.root, "/dev/vda", "root= ends at the \\v");
	tap_ok(parse("a=\"unterminated b") < 0, "unterminated quote is an error");
	tap_contains(err, "unterminated", "message says unterminated");
}

static void test_init_words(void)
{
	tap_ok(parse("root=/dev/vda single 3 mod.param=1 FOO=bar -- a b=c") == 0, "init words parse");
	tap_ok(c.n_init_args == 4, "single, 3, and the words after -- (got %zu)", c.n_init_args);
	tap_streq(c.init_args[0], "single", "runlevel word single");
	tap_streq(c.init_args[1], "3", "runlevel word 3");
	tap_streq(c.init_args[2], "a", "first word after --");
	tap_streq(c.init_args[3], "b=c", "after --, key=value is an argument too");
	bool present;
	tap_ok(hi_cmdline_get(&c, "FOO", &present) && !present, "cmdline_get finds FOO=bar");
	hi_cmdline_get(&c, "single", &present);
	tap_ok(present, "cmdline_get sees the bare word single");
}

static void test_hostile(void)
{
	char *big = malloc(CMDLINE_MAX_BYTES + 10);
	memset(big, 'a', CMDLINE_MAX_BYTES + 9);
	big[CMDLINE_MAX_BYTES + 9] = '\0';
	tap_ok(parse(big) < 0, "overlong command line rejected");
	tap_contains(err, "too long", "message says too long");
	free(big);

	char many[CMDLINE_MAX_BYTES];
	size_t n = 0;
	for (int i = 0; i < CMDLINE_MAX_WORDS + 5 && n + 3 < sizeof many; i++) {
		many[n++] = 'w';
		many[n++] = ' ';
	}
	many[n] = '\0';
	tap_ok(parse(many) < 0, "too many words rejected");
	tap_contains(err, "too many words", "message says too many words");

	const char nul[] = "root=/dev/vda\0init=/bin/sh";
	tap_ok(hi_cmdline_parse(&c, nul, sizeof nul - 1, err, sizeof err) < 0, "NUL byte rejected");
	tap_contains(err, "NUL", "message names the NUL byte");
	tap_ok(parse("=value") < 0, "empty name rejected");
	tap_ok(parse("root=") < 0, "empty root= rejected");
	tap_ok(parse("init=relative/path") < 0, "relative init= rejected");
	tap_ok(parse("rootdelay=abc") < 0, "non-numeric rootdelay rejected");
	tap_ok(parse("rootdelay=99999") < 0, "rootdelay above the limit rejected");
	tap_ok(parse("") == 0 && c.n_words == 0, "empty command line is fine");
	tap_ok(parse("   \n\t ") == 0 && c.n_words == 0, "whitespace-only command line is fine");
	tap_ok(parse("root=/dev/vda\n") == 0 && strcmp(c.root, "/dev/vda") == 0, "trailing newline (as /proc/cmdline has) ignored");
}

static void test_root_spec(void)
{
	struct root_spec r;

	tap_ok(hi_root_spec_parse(&r, "/dev/vda1", err, sizeof err) == 0 && r.kind == ROOT_PATH, "/dev path");
	tap_streq(r.value, "/dev/vda1", "/dev path value");
	tap_ok(hi_root_spec_parse(&r, "UUID=0A1B-C2D3", err, sizeof err) == 0 && r.kind == ROOT_UUID, "UUID=");
	tap_streq(r.value, "0a1b-c2d3", "UUID lower-cased");
	tap_ok(hi_root_spec_parse(&r, "LABEL=Root Fs", err, sizeof err) == 0 && r.kind == ROOT_LABEL, "LABEL=");
	tap_streq(r.value, "Root Fs", "LABEL keeps case and spaces");
	tap_ok(hi_root_spec_parse(&r, "PARTUUID=1234abcd-02", err, sizeof err) == 0 && r.kind == ROOT_PARTUUID, "PARTUUID=");
	tap_ok(hi_root_spec_parse(&r, "PARTLABEL=root", err, sizeof err) == 0 && r.kind == ROOT_PARTLABEL, "PARTLABEL=");
	tap_ok(hi_root_spec_parse(&r, "254:1", err, sizeof err) == 0 && r.kind == ROOT_DEVNUM &&
	       r.major == 254 && r.minor == 1, "MAJ:MIN");
	tap_ok(hi_root_spec_parse(&r, "fe01", err, sizeof err) == 0 && r.kind == ROOT_DEVNUM &&
	       r.major == 254 && r.minor == 1, "old hex dev_t fe01 = 254:1");
	tap_ok(hi_root_spec_parse(&r, "vda2", err, sizeof err) == 0 && r.kind == ROOT_PATH &&
	       strcmp(r.value, "/dev/vda2") == 0, "bare name becomes /dev/NAME");
	tap_ok(hi_root_spec_parse(&r, "UUID=", err, sizeof err) < 0, "empty UUID rejected");
	tap_contains(err, "empty", "message says empty");
	tap_ok(hi_root_spec_parse(&r, "UUID=zz!", err, sizeof err) < 0, "non-hex UUID rejected");
	tap_ok(hi_root_spec_parse(&r, "PARTUUID=ab/PARTNROFF=1", err, sizeof err) < 0, "PARTNROFF rejected clearly");
	tap_ok(hi_root_spec_parse(&r, NULL, err, sizeof err) < 0, "missing root rejected");
	tap_contains(err, "root=", "message tells how to give root=");
	tap_ok(hi_root_spec_parse(&r, "/dev/", err, sizeof err) < 0, "/dev/ alone rejected");
	tap_ok(hi_root_spec_parse(&r, "/dev/../etc/passwd", err, sizeof err) < 0, "/dev/../ rejected");
	tap_ok(hi_root_spec_parse(&r, "FOO=bar", err, sizeof err) < 0, "unknown tag rejected");
	char longv[400];
	memset(longv, 'a', sizeof longv - 1);
	longv[sizeof longv - 1] = '\0';
	memcpy(longv, "LABEL=", 6);
	tap_ok(hi_root_spec_parse(&r, longv, err, sizeof err) < 0, "overlong label rejected");
}

/* The kernel's own words under the lock: each decided, with its reason. */
static void test_kernel_words(void)
{
	const struct kernel_word *k;

	k = hi_kernel_word_refused("init", "/bin/sh");
	tap_ok(k && k->action == KWORD_IGNORED, "init= is refused and ignored: hardinit alone reads it");
	k = hi_kernel_word_refused("bootdegraded", "true");
	tap_ok(k && k->action == KWORD_IGNORED && hi_kernel_word_refused("bootdegraded", NULL) &&
	       !hi_kernel_word_refused("bootdegraded", "false"),
	       "bootdegraded=true and the bare word are refused and ignored: an md array would run with a member left out");
	k = hi_kernel_word_refused("enforcing", "0");
	tap_ok(k && k->action == KWORD_FATAL, "enforcing=0 refuses the boot: the kernel applied it");
	tap_ok(!hi_kernel_word_refused("enforcing", "1"), "enforcing=1 is allowed");
	tap_ok(hi_kernel_word_refused("selinux", "0") && !hi_kernel_word_refused("selinux", "1"), "selinux=0 refused, 1 allowed");
	tap_ok(!hi_kernel_word_refused("security", "selinux"), "security=selinux (Debian's SELinux boot) is allowed");
	tap_ok(hi_kernel_word_refused("security", "apparmor") != NULL, "security= naming another LSM is refused");
	tap_ok(hi_kernel_word_refused("lsm", "selinux") != NULL, "lsm= is refused whatever it lists");
	tap_ok(hi_kernel_word_refused("apparmor", "0") != NULL, "apparmor=0 is refused");
	tap_ok(hi_kernel_word_refused("ima_appraise", "log") && !hi_kernel_word_refused("ima_appraise", "enforce"),
	       "ima_appraise=log refused, enforce allowed");
	tap_ok(hi_kernel_word_refused("single", NULL) && hi_kernel_word_refused("emergency", NULL) &&
	       hi_kernel_word_refused("1", NULL) && hi_kernel_word_refused("-b", NULL),
	       "the rescue and emergency words are refused");
	tap_ok(hi_kernel_word_refused("--", NULL) != NULL, "-- (init's argv follows) is refused");
	tap_ok(hi_kernel_word_refused("systemd.unit", "rescue.target") && hi_kernel_word_refused("systemd.debug_shell", NULL),
	       "systemd.unit= and systemd.debug_shell are refused");
	tap_ok(!hi_kernel_word_refused("rdinit", "/init") && !hi_kernel_word_refused("lockdown", "integrity") &&
	       !hi_kernel_word_refused("module.sig_enforce", "0"), "rdinit=, lockdown=, module.sig_enforce= are allowed");
	tap_ok(!hi_kernel_word_refused("quiet", NULL) && !hi_kernel_word_refused("root", "/dev/vda"),
	       "a word outside the table is not refused");
	tap_ok(!hi_kernel_word_refused("single", "1"), "a row matches its form only (bare or key=value)");
	/* The kernel (parameqn) and systemd read '-' and '_' in a name as one. */
	tap_ok(hi_kernel_word_refused("ima-appraise", "off") && hi_kernel_word_refused("systemd.debug-shell", NULL) &&
	       hi_kernel_word_refused("systemd.confirm-spawn", "1"),
	       "a row's name with '-' for '_' is the same word and refused");
	tap_ok(!hi_kernel_word_refused("module.sig-enforce", "0"), "an allowed row's '-' spelling is allowed too");
	/* systemd's words that hand root to whoever wrote them. */
	tap_ok(hi_kernel_word_refused("systemd.set_credential", "tmpfiles.extra:f /etc/x - - - - y") &&
	       hi_kernel_word_refused("systemd.set_credential_binary", "sysctl.extra:a2VybmVs") &&
	       hi_kernel_word_refused("systemd.setenv", "LD_PRELOAD=/tmp/x.so") &&
	       hi_kernel_word_refused("systemd.crash_shell", NULL) && hi_kernel_word_refused("systemd.crash-shell", "1") &&
	       hi_kernel_word_refused("systemd.early_core_pattern", "|/bin/sh"),
	       "systemd.set_credential(_binary)=, setenv=, crash_shell and early_core_pattern= are refused");
	tap_ok(!hi_kernel_word_refused("systemd.crash_shell", "0"), "systemd.crash_shell=0 is allowed");
	/* The luks stage reads these: off, the crypttab and its options go. */
	tap_ok(hi_kernel_word_refused("rd.luks.crypttab", "no") && hi_kernel_word_refused("luks.crypttab", "0") &&
	       hi_kernel_word_refused("rd.luks", "no") && hi_kernel_word_refused("luks", "off"),
	       "rd.luks=, rd.luks.crypttab= (and luks=, luks.crypttab=) are refused: they drop the crypttab");
	tap_ok(!hi_kernel_word_refused("rd.luks.uuid", "0b9f2d1c-6c1e-4a55-9c3e-1e2f3a4b5c6d"),
	       "rd.luks.uuid= is not: with the crypttab on, its options still win for its volumes");
	/* A bare word starting with '-' reaches the real init's argv as an
	 * option: systemd parses --crash-shell there as systemd.crash_shell. */
	tap_ok(hi_kernel_word_refused("--crash-shell", NULL) && hi_kernel_word_refused("--confirm-spawn", NULL) &&
	       hi_kernel_word_refused("--unit", NULL), "a bare word that is an option for init is refused");
	k = hi_kernel_word_refused("-b", NULL);
	tap_ok(k && strcmp(k->key, "-b") == 0, "a word with its own row is decided by that row");
	tap_ok(!hi_kernel_word_refused("quiet", NULL) && !hi_kernel_word_refused("x-y", NULL),
	       "a bare word with a '-' inside is not an option");
	bool reasons = true;
	for (size_t i = 0; i < hi_kernel_n_words; i++)
		reasons = reasons && hi_kernel_words[i].why && strlen(hi_kernel_words[i].why) > 10;
	tap_ok(reasons, "every row has its reason");
}

int main(void)
{
	test_root_options();
	test_quotes();
	test_init_words();
	test_hostile();
	test_root_spec();
	test_kernel_words();
	return tap_done();
}
