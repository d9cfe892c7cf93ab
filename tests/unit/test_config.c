/* hardinit.conf: the shipped profiles, the round trip through
 * config_format, one test per error class (the message must name the file,
 * the line and a fix), command-line overrides with and without the lock,
 * and include of a sysctl.d file. Run from the repository root. */
#include <cap-ng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "cmdline.h"
#include "config.h"
#include "config_format.h"
#include "config_lock.h"
#include "config_stage.h"
#include "config_table.h"
#include "log.h"
#include "report.h"
#include "fixture.h"
#include "tap.h"

static const char *const profiles[] = { "baseline", "strict", "appliance", "xen" };

static char err[CONFIG_ERR_MAX];

static int parse(struct config *c, const char *text)
{
	hi_config_defaults(c);
	err[0] = '\0';
	return hi_config_parse(c, text, strlen(text), "t.conf", "", err, sizeof err);
}

static const struct sysctl_setting *sysctl_get(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (strcmp(c->sysctls[i].key, key) == 0)
			return &c->sysctls[i];
	return NULL;
}

static int sysctl_is(const struct config *c, const char *key, const char *value)
{
	const struct sysctl_setting *s = sysctl_get(c, key);
	return s && strcmp(s->value, value) == 0;
}

static int drops(const struct config *c, int cap)
{
	for (size_t i = 0; i < c->n_cap_drop; i++)
		if (c->cap_drop[i] == cap)
			return 1;
	return 0;
}

/* parse(format(c)) == c, and format is a fixed point. */
static void round_trip(const struct config *c, const char *what)
{
	static char text[128 * 1024], again[128 * 1024];
	static struct config back;
	int n = hi_config_format(c, text, sizeof text);

	tap_ok(n > 0, "%s: config_format writes text", what);
	hi_config_defaults(&back);
	int rc = hi_config_parse(&back, text, (size_t)(n > 0 ? n : 0), "formatted", "", err, sizeof err);
	if (!tap_ok(rc == 0, "%s: formatted text parses", what))
		printf("#   %s\n", err);
	tap_ok(memcmp(&back, c, sizeof back) == 0, "%s: parse(format(c)) == c", what);
	int m = hi_config_format(&back, again, sizeof again);
	tap_ok(m == n && memcmp(text, again, (size_t)(n > 0 ? n : 0)) == 0, "%s: format is a fixed point", what);
}

/* ---- the profiles -------------------------------------------------------- */

/* Every setting in a profile has a comment line right above it. */
static void profile_comments(const char *name)
{
	char path[64], line[600], prev[600] = "";
	unsigned lineno = 0, missing = 0;

	snprintf(path, sizeof path, "config/%s.conf", name);
	FILE *f = fopen(path, "r");
	if (!tap_ok(f != NULL, "%s: opens", path))
		return;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] != '#' && line[0] != '\n' && line[0] != '[' && prev[0] != '#') {
			printf("#   %s:%u has no comment above it\n", path, lineno);
			missing++;
		}
		snprintf(prev, sizeof prev, "%s", line);
	}
	fclose(f);
	tap_ok(missing == 0, "%s: every setting has a one-line reason above it", path);
}

static void test_profiles(void)
{
	static struct config c, d;

	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		char path[64];
		snprintf(path, sizeof path, "config/%s.conf", profiles[i]);
		hi_config_defaults(&c);
		int rc = hi_config_load(&c, path, "", err, sizeof err);
		if (!tap_ok(rc == 0, "%s parses", path))
			printf("#   %s\n", err);
		profile_comments(profiles[i]);
		round_trip(&c, path);
	}

	/* baseline.conf is the built-in defaults plus sysctls Debian has. */
	hi_config_defaults(&c);
	hi_config_load(&c, "config/baseline.conf", "", err, sizeof err);
	tap_ok(c.n_sysctls > 0 && sysctl_is(&c, "fs.protected_fifos", "1"), "baseline pins Debian's fs.protected_fifos=1");
	memset(c.sysctls, 0, sizeof c.sysctls);
	c.n_sysctls = 0;
	hi_config_defaults(&d);
	tap_ok(memcmp(&c, &d, sizeof c) == 0, "baseline.conf equals config_defaults() apart from [sysctl]");

	hi_config_defaults(&c);
	hi_config_load(&c, "config/strict.conf", "", err, sizeof err);
	static const char *const kspp[][2] = {
		{ "kernel.kptr_restrict", "2" }, { "kernel.dmesg_restrict", "1" },
		{ "kernel.perf_event_paranoid", "3" }, { "kernel.unprivileged_bpf_disabled", "1" },
		{ "net.core.bpf_jit_harden", "2" }, { "dev.tty.ldisc_autoload", "0" },
		{ "dev.tty.legacy_tiocsti", "0" }, { "vm.unprivileged_userfaultfd", "0" },
		{ "kernel.io_uring_disabled", "2" }, { "kernel.sysrq", "0" },
		{ "fs.protected_symlinks", "1" }, { "fs.protected_hardlinks", "1" },
		{ "fs.protected_fifos", "2" }, { "fs.protected_regular", "2" },
		{ "fs.suid_dumpable", "0" }, { "user.max_user_namespaces", "0" },
		{ "net.ipv4.conf.all.accept_redirects", "0" },
	};
	int all = 1;
	for (size_t i = 0; i < sizeof kspp / sizeof kspp[0]; i++)
		if (!sysctl_is(&c, kspp[i][0], kspp[i][1])) {
			printf("#   strict lacks %s = %s\n", kspp[i][0], kspp[i][1]);
			all = 0;
		}
	tap_ok(all, "strict.conf sets the issue-4 sysctls to their recommended values");
	tap_ok(c.lock_kexec && sysctl_get(&c, "kernel.oops_limit") && sysctl_get(&c, "kernel.warn_limit") &&
	       sysctl_get(&c, "kernel.yama.ptrace_scope"), "strict.conf: kexec lock, oops/warn limits, ptrace_scope");
	tap_ok(drops(&c, CAP_BPF) && drops(&c, CAP_PERFMON) && !drops(&c, CAP_SYS_ADMIN),
	       "strict.conf drops the split-out caps, not CAP_SYS_ADMIN");
	tap_ok(c.n_kernel_opts >= 8, "strict.conf has a [kernel] warn list");

	hi_config_defaults(&c);
	hi_config_load(&c, "config/appliance.conf", "", err, sizeof err);
	tap_ok(c.lock_modules && c.lock_kexec && c.mdwe && c.lock_cmdline && c.tiocsti == TIOCSTI_DENY_ALL &&
	       c.tiocsti_seccomp, "appliance.conf: modules, kexec, mdwe, lock_cmdline, deny-all with seccomp");
	tap_ok(drops(&c, CAP_SYS_MODULE) && !drops(&c, CAP_SYS_BOOT) && !drops(&c, CAP_SYSLOG),
	       "appliance.conf drops cap_sys_module but keeps cap_sys_boot and cap_syslog");
	tap_ok(c.failure_action == FAIL_REBOOT, "appliance.conf: failure_action = reboot");

	hi_config_defaults(&c);
	hi_config_load(&c, "config/xen.conf", "", err, sizeof err);
	int iommu = 0;
	for (size_t i = 0; i < c.n_kernel_opts; i++)
		iommu |= strncmp(c.kernel_opts[i].word, "iommu", 5) == 0;
	tap_ok(!iommu && !drops(&c, CAP_SYS_BOOT), "xen.conf: no iommu words, cap_sys_boot kept for xl shutdown");
}

/* ---- defaults, values, lists --------------------------------------------- */

static void test_defaults(void)
{
	static struct config c;

	hi_config_defaults(&c);
	tap_ok(c.failure_action == FAIL_REBOOT && c.failure_delay == 10 && c.root_timeout == 10 &&
	       c.rootwait_timeout == 300, "defaults: reboot after 10 s, root timeouts 10/300");
	tap_ok(c.selinux_mode == SELINUX_FROM_CONFIG && !c.selinux_require && c.selinux_relabel &&
	       c.selinux_relabel_limit == 20000, "defaults: selinux follows the root's config, relabel 20000");
	tap_ok(c.nx == NX_WARN && c.aslr && !c.mdwe && c.sysctl_persist && c.n_cap_drop == 0,
	       "defaults: nx warn, aslr, no mdwe, persist, no caps dropped");
	tap_ok(!c.lock_modules && !c.lock_kexec && c.lockdown == LOCKDOWN_NONE && c.ptrace_scope == -1,
	       "defaults: locks off");
	tap_ok(c.mount_shared && c.proc_hidepid == HIDEPID_OFF && c.proc_gid == -1 && c.shm_noexec &&
	       c.tmp_size[0] == '\0' && c.polyinstantiate && c.n_polydirs == 2 &&
	       strcmp(c.polydirs[0], "/tmp") == 0 && strcmp(c.polydirs[1], "/var/tmp") == 0,
	       "defaults: shared, hidepid off, shm noexec, no tmpfs, polydirs /tmp /var/tmp");
	tap_ok(c.tiocsti == TIOCSTI_DENY_UNPRIVILEGED && !c.deny_tioclinux && !c.tiocsti_seccomp,
	       "defaults: tiocsti deny-unprivileged, tioclinux allow, no seccomp");
	tap_ok(parse(&c, "") == 0, "an empty file is valid");
	round_trip(&c, "defaults");

	tap_streq(hi_config_failure_action_name(FAIL_SHELL), "shell", "config_failure_action_name");
	tap_streq(hi_config_selinux_mode_name(SELINUX_PERMISSIVE), "permissive", "config_selinux_mode_name");
	tap_streq(hi_config_tiocsti_name(TIOCSTI_DENY_ALL), "deny-all", "config_tiocsti_name");
	tap_streq(hi_config_lockdown_name(LOCKDOWN_CONFIDENTIALITY), "confidentiality", "config_lockdown_name");
	tap_streq(hi_config_hidepid_name(HIDEPID_PTRACEABLE), "ptraceable", "config_hidepid_name");
}

static const char full_config[] =
	"# every kind of value\n"
	"[boot]\n"
	"failure_action = Poweroff\n"
	"failure_delay = 0\n"
	"init = /lib/systemd/systemd\n"
	"lock_cmdline = on\n"
	"read_root_config = 1\n"
	"lvm = no\n"
	"\n"
	"[selinux]\n"
	"mode = enforcing\n"
	"require = true\n"
	"type = default\n"
	"boolean = allow_execmem=off\n"
	"boolean = allow_execstack = 0\n"
	"relabel_limit = 5\n"
	"[memory]\n"
	"nx = require\n"
	"mdwe = yes\n"
	"[sysctl]\n"
	"  kernel.kptr_restrict   =   2  \n"
	"-kernel.io_uring_disabled = 2\n"
	"kernel/yama/ptrace_scope = 2\n"
	"net/ipv4/conf/eth0.100/rp_filter = 1\n"
	"net.ipv4.ping_group_range = 0 2147483647\n"
	"require = kernel.kptr_restrict kernel/yama/ptrace_scope\n"
	"persist = no\n"
	"[kernel]\n"
	"warn = init_on_alloc=1 slab_nomerge\n"
	"require = mitigations=auto,nosmt\n"
	"warn = mitigations=auto,nosmt\n"
	"[capabilities]\n"
	"drop = CAP_SYS_MODULE sys_rawio, cap_bpf\n"
	"drop = cap_bpf Cap_Perfmon\n"
	"keep = sys_rawio\n"
	"[locks]\n"
	"modules = yes\n"
	"lockdown = integrity\n"
	"ptrace_scope = 3\n"
	"[mounts]\n"
	"proc_hidepid = invisible\n"
	"proc_gid = 27\n"
	"tmp_size = 512M\n"
	"polydirs = /tmp/, /var/tmp /srv/tmp\n"
	"[tty]\n"
	"tiocsti = deny-all\n"
	"tioclinux = deny\n"
	"seccomp = yes\r\n";

static void test_values(void)
{
	static struct config c;

	int rc = parse(&c, full_config);
	if (!tap_ok(rc == 0, "a config using every kind of value parses"))
		printf("#   %s\n", err);
	tap_ok(c.failure_action == FAIL_POWEROFF && c.failure_delay == 0 && c.lock_cmdline && c.read_root_config && !c.root_lvm &&
	       strcmp(c.init, "/lib/systemd/systemd") == 0, "[boot] values (names case-insensitive)");
	tap_ok(c.selinux_mode == SELINUX_ENFORCING && c.selinux_require && strcmp(c.selinux_type, "default") == 0 &&
	       c.n_booleans == 2 && !c.booleans[0].value && strcmp(c.booleans[1].name, "allow_execstack") == 0,
	       "[selinux] values and booleans");
	tap_ok(sysctl_is(&c, "kernel.kptr_restrict", "2") && sysctl_get(&c, "kernel.kptr_restrict")->required,
	       "sysctl value trimmed, required by require =");
	tap_ok(sysctl_get(&c, "kernel.io_uring_disabled") && sysctl_get(&c, "kernel.io_uring_disabled")->ignore_failure,
	       "leading '-' means ignore failure");
	tap_ok(sysctl_is(&c, "kernel.yama.ptrace_scope", "2") && sysctl_get(&c, "kernel.yama.ptrace_scope")->required,
	       "slash form normalised to dots (and require = in slash form)");
	tap_ok(sysctl_is(&c, "net.ipv4.conf.eth0/100.rp_filter", "1"),
	       "sysctl.d(5) swap: net/ipv4/conf/eth0.100/rp_filter -> net.ipv4.conf.eth0/100.rp_filter");
	tap_ok(sysctl_is(&c, "net.ipv4.ping_group_range", "0 2147483647"), "multi-value sysctl kept");
	tap_ok(!c.sysctl_persist, "persist = no");
	tap_ok(c.n_kernel_opts == 3 && c.kernel_opts[2].required && !c.kernel_opts[0].required,
	       "[kernel] warn/require lists; require is not downgraded by a later warn");
	tap_ok(c.n_cap_drop == 3 && drops(&c, CAP_SYS_MODULE) && drops(&c, CAP_BPF) && drops(&c, CAP_PERFMON) &&
	       !drops(&c, CAP_SYS_RAWIO), "caps by capabilities(7) or libcap-ng names, deduplicated, keep removes");
	tap_ok(c.lock_modules && c.lockdown == LOCKDOWN_INTEGRITY && c.ptrace_scope == 3, "[locks] values");
	tap_ok(c.proc_hidepid == HIDEPID_INVISIBLE && c.proc_gid == 27 && strcmp(c.tmp_size, "512M") == 0 &&
	       c.n_polydirs == 3 && strcmp(c.polydirs[0], "/tmp") == 0, "[mounts] values, polydirs trailing / removed");
	tap_ok(c.tiocsti == TIOCSTI_DENY_ALL && c.deny_tioclinux && c.tiocsti_seccomp, "[tty] values, CRLF accepted");
	round_trip(&c, "full config");

	tap_ok(parse(&c, "[mounts]\ntmp_size = off\nproc_gid = none\n") == 0 && c.tmp_size[0] == '\0' &&
	       c.proc_gid == -1, "tmp_size = off and proc_gid = none");
	tap_ok(parse(&c, "[mounts]\npolydirs =\n") == 0 && c.n_polydirs == 0, "empty polydirs: none");
	tap_ok(parse(&c, "[mounts]\ntmp_size = 50%\n") == 0 && strcmp(c.tmp_size, "50%") == 0, "tmp_size = 50%");
}

/* ---- errors: one per class ------------------------------------------------- */

struct bad_case {
	const char *what;
	const char *text;
	const char *where;  /* "t.conf:N:" */
	const char *says;   /* part of the message */
	const char *fix;    /* part of the fix */
};

static const struct bad_case bad_cases[] = {
	{ "unknown section", "# x\n[selinx]\n", "t.conf:2:", "unknown section [selinx]", "did you mean [selinux]" },
	{ "unknown section, no near name", "[frobnicate]\n", "t.conf:1:", "unknown section [frobnicate]", "the sections are boot" },
	{ "unknown key (the man page's example)", "[selinux]\nmode = enforcing\n\nenforce = 1\n", "t.conf:4:",
	  "unknown key 'enforce' in [selinux]", "did you mean 'mode'? see hardinit.conf(5)" },
	{ "unknown key, a typo", "[boot]\nfailure_actoin = halt\n", "t.conf:2:", "unknown key 'failure_actoin'", "did you mean 'failure_action'" },
	{ "key in the wrong section", "[boot]\nmode = enforcing\n", "t.conf:2:", "belongs in [selinux]", "move it there" },
	{ "unknown key in [sysctl]", "[sysctl]\nkptr_restrict = 2\n", "t.conf:2:", "unknown key 'kptr_restrict'", "sysctl names have a dot" },
	{ "malformed boolean", "[memory]\naslr = maybe\n", "t.conf:2:", "invalid value 'maybe' for aslr", "use yes or no" },
	{ "malformed named value", "[selinux]\nmode = strict\n", "t.conf:2:", "invalid value 'strict' for mode",
	  "use config, enforcing, permissive or disabled" },
	{ "inline comment", "[tty]\ntiocsti = deny-all # no injection\n", "t.conf:2:", "invalid value",
	  "comments must be on a line of their own" },
	{ "malformed number", "[boot]\nfailure_delay = 10s\n", "t.conf:2:", "invalid value '10s' for failure_delay",
	  "whole number from 0 to 3600" },
	{ "number out of range", "[locks]\nptrace_scope = 4\n", "t.conf:2:", "invalid value '4'", "from 0 to 3, or none" },
	{ "malformed path", "[boot]\ninit = sbin/init\n", "t.conf:2:", "must be an absolute path", "use an absolute path" },
	{ "malformed size", "[mounts]\ntmp_size = 150%\n", "t.conf:2:", "at most 100%", "use a tmpfs size" },
	{ "malformed boolean entry", "[selinux]\nboolean = allow_execmem\n", "t.conf:2:", "boolean needs NAME=on|off",
	  "boolean = allow_execmem=off" },
	{ "duplicate key", "[boot]\nfailure_delay = 5\n# again\nfailure_delay = 6\n", "t.conf:4:",
	  "duplicate key 'failure_delay' in [boot] (first on line 2)", "keep one" },
	{ "duplicate sysctl", "[sysctl]\nkernel.sysrq = 0\nkernel/sysrq = 1\n", "t.conf:3:",
	  "sysctl kernel.sysrq is set twice (first on line 2)", "keep one" },
	{ "duplicate boolean", "[selinux]\nboolean = a=on\nboolean = a=off\n", "t.conf:3:", "boolean a is set twice", "keep one" },
	{ "duplicate section", "[tty]\n[boot]\n[tty]\n", "t.conf:3:", "section [tty] appears twice (first on line 1)", "merge them" },
	{ "key before any section", "failure_action = halt\n", "t.conf:1:", "before any [section]", "put it under [boot]" },
	{ "no '='", "[boot]\nlock_cmdline\n", "t.conf:2:", "expected 'key = value'", "# comment" },
	{ "no key", "[boot]\n= yes\n", "t.conf:2:", "'=' without a key", "write key = value" },
	{ "text after a section", "[boot] x\n", "t.conf:1:", "text after the section header", "next line" },
	{ "control character", "[boot]\nfailure_delay = 1\x1b\n", "t.conf:2:", "control character 0x1b", "remove it" },
	{ "unknown capability", "[capabilities]\ndrop = cap_sys_modul\n", "t.conf:2:", "unknown capability 'cap_sys_modul'",
	  "did you mean 'cap_sys_module'" },
	{ "unknown capability, no near name", "[capabilities]\ndrop = cap_frobnicate\n", "t.conf:2:",
	  "unknown capability 'cap_frobnicate'", "capabilities(7)" },
	{ "sysctl without value", "[sysctl]\nkernel.sysrq =\n", "t.conf:2:", "sysctl kernel.sysrq has no value", "remove the line" },
	{ "sysctl glob", "[sysctl]\nnet.ipv4.conf.*.rp_filter = 1\n", "t.conf:2:", "glob pattern", "list each key" },
	{ "sysctl leaving /proc/sys", "[sysctl]\nkernel/../../etc = 1\n", "t.conf:2:", "'..' part", "as sysctl(8) prints it" },
	{ "required sysctl not set", "[sysctl]\nrequire = kernel.sysrq\n", "t.conf:2:",
	  "required sysctl kernel.sysrq is not set", "add 'kernel.sysrq = VALUE'" },
	{ "required but ignore-failure", "[sysctl]\n-kernel.sysrq = 0\nrequire = kernel.sysrq\n", "t.conf:3:",
	  "written '-kernel.sysrq'", "choose one" },
	{ "include of a missing file", "[sysctl]\ninclude = /nonexistent/hardinit-test.conf\n", "t.conf:2:",
	  "cannot read include", "fix the path" },
	{ "include with '..'", "[sysctl]\ninclude = /etc/../x.conf\n", "t.conf:2:", "'..' parts", "include = /etc/sysctl.d/" },
	{ "polydirs over the limit", "[mounts]\npolydirs = /a /b /c /d /e /f /g /h /i\n", "t.conf:2:",
	  "more than 8 polydirs (CONFIG_MAX_POLYDIRS)", "list the directories" },
	{ "relative polydir", "[mounts]\npolydirs = tmp\n", "t.conf:2:", "polydir 'tmp' must be an absolute path",
	  "polydirs = /tmp /var/tmp" },
};

static void test_errors(void)
{
	static struct config c;
	static char big[CONFIG_MAX_FILE_BYTES + 4096];

	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *t = &bad_cases[i];
		int rc = parse(&c, t->text);
		tap_ok(rc == -1, "error class '%s': rejected", t->what);
		char label[160];
		snprintf(label, sizeof label, "error class '%s': names file and line", t->what);
		tap_ok(strncmp(err, t->where, strlen(t->where)) == 0, "%s", label);
		if (strncmp(err, t->where, strlen(t->where)) != 0)
			printf("#   got: %s\n", err);
		snprintf(label, sizeof label, "error class '%s': says what and how to fix it", t->what);
		int ok = strstr(err, t->says) && strstr(err, t->fix) && strchr(err, ';');
		tap_ok(ok, "%s", label);
		if (!ok)
			printf("#   got: %s\n#   want: ...%s...; ...%s...\n", err, t->says, t->fix);
	}

	/* A line over CONFIG_MAX_LINE. */
	char longline[CONFIG_MAX_LINE + 64];
	snprintf(longline, sizeof longline, "[boot]\n\ninit = /%0*d\n", CONFIG_MAX_LINE, 0);
	parse(&c, longline);
	tap_contains(err, "t.conf:3: line longer than 511 bytes (CONFIG_MAX_LINE)", "overlong line: file, line, limit");
	tap_contains(err, "split a list over repeated keys", "overlong line: how to fix");

	/* A NUL byte: config_parse takes a length, so the NUL is seen. */
	static const char nul[] = "[boot]\nfailure_delay = 1\0\n";
	hi_config_defaults(&c);
	tap_ok(hi_config_parse(&c, nul, sizeof nul - 1, "t.conf", "", err, sizeof err) == -1, "NUL byte rejected");
	tap_contains(err, "t.conf:2: NUL byte", "NUL byte: file and line");

	/* A file over CONFIG_MAX_FILE_BYTES: the line where the limit falls. */
	size_t pos = 0;
	pos += (size_t)sprintf(big, "[boot]\n");
	while (pos < sizeof big - 100)
		pos += (size_t)sprintf(big + pos, "# %070d\n", 0);
	hi_config_defaults(&c);
	tap_ok(hi_config_parse(&c, big, pos, "t.conf", "", err, sizeof err) == -1, "file over 64 KiB rejected");
	char want[64];
	snprintf(want, sizeof want, "t.conf:%d: file is larger than", 1 + (CONFIG_MAX_FILE_BYTES - 7) / 73 + 1);
	tap_contains(err, want, "file over 64 KiB: file and the line at the limit");
	tap_contains(err, "split it", "file over 64 KiB: how to fix");

	/* More sysctls than CONFIG_MAX_SYSCTLS. */
	pos = (size_t)sprintf(big, "[sysctl]\n");
	for (int i = 0; i <= CONFIG_MAX_SYSCTLS; i++)
		pos += (size_t)sprintf(big + pos, "net.test.k%d = 1\n", i);
	parse(&c, big);
	snprintf(want, sizeof want, "t.conf:%d: more than %d sysctls", CONFIG_MAX_SYSCTLS + 2, CONFIG_MAX_SYSCTLS);
	tap_contains(err, want, "sysctl limit: file, line and the limit");

	/* A failed parse leaves the config as it was. */
	static struct config before;
	hi_config_defaults(&c);
	c.failure_delay = 77;
	before = c;
	static const char half[] = "[boot]\nfailure_delay = 3\nlock_cmdline = yes\n[selinux]\nmode = nonsense\n";
	hi_config_parse(&c, half, strlen(half), "t.conf", "", err, sizeof err);
	tap_ok(memcmp(&c, &before, sizeof c) == 0, "a failed parse changes nothing (no half-read config)");

	/* config_load: a missing file is an error naming it. */
	hi_config_defaults(&c);
	tap_ok(hi_config_load(&c, "/nonexistent/hardinit.conf", "", err, sizeof err) == -1, "missing file: error");
	tap_contains(err, "/nonexistent/hardinit.conf: cannot read", "missing file: names it");

	/* config_format with too little room. */
	char tiny[64];
	hi_config_defaults(&c);
	tap_ok(hi_config_format(&c, tiny, sizeof tiny) == -1, "config_format: -1 when the buffer is too small");
}

/* ---- include ---------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	fixture_put("/", path, text);
}

static void test_include(void)
{
	static struct config c;
	char root[] = "/tmp/hardinit-test-XXXXXX";
	char dir[128], file[160];

	if (!mkdtemp(root)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(dir, sizeof dir, "%s/etc", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof dir, "%s/etc/sysctl.d", root);
	mkdir(dir, 0755);
	snprintf(file, sizeof file, "%s/etc/sysctl.d/50-local.conf", root);
	write_file(file, "# sysctl.d(5) file\n; a semicolon comment\n\nkernel.sysrq=16\n"
			 "-net.ipv4.tcp_syncookies = 1\nkernel/kptr_restrict = 1\n");
	snprintf(file, sizeof file, "%s/etc/sysctl.d/60-bad.conf", root);
	write_file(file, "kernel.sysrq = 1\n\n[boot]\n");

	static const char text[] =
		"[sysctl]\n"
		"kernel.dmesg_restrict = 1\n"
		"include = /etc/sysctl.d/50-local.conf\n"
		"kernel.kptr_restrict = 2\n"
		"require = kernel.sysrq\n";
	hi_config_defaults(&c);
	int rc = hi_config_parse(&c, text, strlen(text), "t.conf", root, err, sizeof err);
	if (!tap_ok(rc == 0, "include of a sysctl.d file under root"))
		printf("#   %s\n", err);
	tap_ok(sysctl_is(&c, "kernel.sysrq", "16") && sysctl_get(&c, "kernel.sysrq")->required,
	       "included sysctl read, and require = can name it");
	tap_ok(sysctl_get(&c, "net.ipv4.tcp_syncookies") && sysctl_get(&c, "net.ipv4.tcp_syncookies")->ignore_failure,
	       "included '-key' ignores failure");
	tap_ok(sysctl_is(&c, "kernel.kptr_restrict", "2"), "a later line replaces an included value (sysctl.d order)");
	tap_ok(c.n_sysctls == 4, "four sysctls, no duplicates");
	round_trip(&c, "config with an include");

	static const char bad[] = "[sysctl]\n\ninclude = /etc/sysctl.d/60-bad.conf\n";
	hi_config_defaults(&c);
	rc = hi_config_parse(&c, bad, strlen(bad), "t.conf", root, err, sizeof err);
	tap_ok(rc == -1, "a section inside an included file is an error");
	tap_contains(err, "t.conf:3: in included /etc/sysctl.d/60-bad.conf:3: sections are not allowed",
		     "include error names both files and both lines");

	char many[1024];
	size_t pos = (size_t)sprintf(many, "[sysctl]\n");
	for (int i = 0; i <= CONFIG_MAX_INCLUDES; i++)
		pos += (size_t)sprintf(many + pos, "include = /etc/sysctl.d/50-local.conf\n");
	hi_config_defaults(&c);
	rc = hi_config_parse(&c, many, pos, "t.conf", root, err, sizeof err);
	char want[80];
	snprintf(want, sizeof want, "t.conf:%d: more than %d includes", CONFIG_MAX_INCLUDES + 2, CONFIG_MAX_INCLUDES);
	tap_ok(rc == -1, "more than CONFIG_MAX_INCLUDES includes rejected");
	tap_contains(err, want, "include limit: file and line");

	snprintf(file, sizeof file, "%s/etc/sysctl.d/50-local.conf", root);
	unlink(file);
	snprintf(file, sizeof file, "%s/etc/sysctl.d/60-bad.conf", root);
	unlink(file);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/etc", root);
	rmdir(dir);
	rmdir(root);
}

/* ---- overrides and the lock -------------------------------------------------- */

static int override(struct config *c, const char *key, const char *value)
{
	err[0] = '\0';
	return hi_config_override(c, key, value, err, sizeof err);
}

static const char locked_text[] =
	"[boot]\nlock_cmdline = yes\n"
	"[selinux]\nmode = enforcing\nrequire = yes\nboolean = allow_execmem=off\n"
	"[memory]\nmdwe = yes\n"
	"[sysctl]\nkernel.kptr_restrict = 2\n"
	"[kernel]\nrequire = slab_nomerge\n"
	"[capabilities]\ndrop = cap_sys_module\n"
	"[locks]\nmodules = yes\nlockdown = integrity\nptrace_scope = 2\n"
	"[mounts]\nproc_hidepid = invisible\ntmp_size = 50%\n"
	"[tty]\ntiocsti = deny-all\n"
	"[verity]\nenabled = yes\nroothash = 4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c\ndata = /dev/vda\nhash = /dev/vdb\n"
	"options = hash-offset=0\non_corruption = restart\n";

static void test_overrides(void)
{
	static struct config c, before;

	/* Without the lock everything applies. */
	hi_config_defaults(&c);
	tap_ok(override(&c, "selinux.mode", "permissive") == 0 && c.selinux_mode == SELINUX_PERMISSIVE,
	       "unlocked: selinux.mode=permissive applied");
	tap_ok(override(&c, "sysctl.kernel.kptr_restrict", "1") == 0 && sysctl_is(&c, "kernel.kptr_restrict", "1"),
	       "unlocked: a sysctl added");
	tap_ok(override(&c, "sysctl.kernel.kptr_restrict", "0") == 0 && sysctl_is(&c, "kernel.kptr_restrict", "0"),
	       "unlocked: a sysctl changed");
	tap_ok(override(&c, "capabilities.drop", "cap_sys_module,cap_bpf") == 0 && c.n_cap_drop == 2,
	       "unlocked: capabilities.drop with a comma list");
	tap_ok(override(&c, "capabilities.keep", "cap_sys_module") == 0 && c.n_cap_drop == 1,
	       "unlocked: capabilities.keep removes a drop");
	tap_ok(override(&c, "boot.failure_action", "poweroff") == 0 && c.failure_action == FAIL_POWEROFF,
	       "unlocked: boot.failure_action=poweroff");
	tap_ok(override(&c, "selinux.boolean", "allow_execmem=off") == 0 && c.n_booleans == 1,
	       "unlocked: selinux.boolean=NAME=off");
	tap_ok(override(&c, "kernel.warn", "slab_nomerge") == 0 && c.n_kernel_opts == 1, "unlocked: kernel.warn");

	/* Malformed overrides. */
	tap_ok(override(&c, "selinux.mode", "bogus") == -1, "malformed value: -1");
	tap_contains(err, "hardinit.selinux.mode=bogus: invalid value 'bogus'", "malformed value: names the override");
	tap_ok(override(&c, "selinux.enforce", "1") == -1, "unknown key: -1");
	tap_contains(err, "did you mean 'mode'", "unknown key: suggests a key");
	tap_ok(override(&c, "selnux.mode", "enforcing") == -1, "unknown section: -1");
	tap_contains(err, "did you mean 'selinux'", "unknown section: suggests one");
	tap_ok(override(&c, "lock_cmdline", "no") == -1, "no section: -1");
	tap_contains(err, "SECTION.KEY", "no section: says the form");
	tap_ok(override(&c, "sysctl.include", "/etc/sysctl.conf") == -1, "sysctl.include is refused on the command line");
	tap_ok(override(&c, "capabilities.drop", "cap_nonsense") == -1, "unknown capability on the command line: -1");
	tap_ok(override(&c, "boot.init", "/bin/sh\n") == -1, "control character in a value: -1");

	/* Under the lock: weakening is refused, strengthening applies. */
	int rc = parse(&c, locked_text);
	if (!tap_ok(rc == 0, "locked config parses"))
		printf("#   %s\n", err);
	static const struct { const char *key, *value, *says; } refused[] = {
		{ "selinux.mode", "permissive", "selinux.mode enforcing -> permissive" },
		{ "selinux.mode", "config", "selinux.mode enforcing -> config" },
		{ "selinux.mode", "disabled", "selinux.mode enforcing -> disabled" },
		{ "selinux.require", "no", "selinux.require yes -> no" },
		{ "selinux.boolean", "allow_execmem=on", "selinux.boolean" },
		{ "selinux.boolean", "new_boolean=off", "selinux.boolean" },
		{ "boot.lock_cmdline", "no", "boot.lock_cmdline yes -> no" },
		{ "boot.failure_action", "shell", "boot.failure_action reboot -> shell" },
		{ "boot.init", "/bin/sh", "boot.init" },
		{ "memory.mdwe", "no", "memory.mdwe yes -> no" },
		{ "memory.aslr", "no", "memory.aslr yes -> no" },
		{ "sysctl.kernel.kptr_restrict", "0", "sysctl kernel.kptr_restrict = 2 is set by the config" },
		{ "sysctl.-kernel.kptr_restrict", "2", "sysctl kernel.kptr_restrict" },
		{ "sysctl.kernel.randomize_va_space", "0", "set by memory.aslr" },
		{ "sysctl.kernel.modules_disabled", "0", "set by locks.modules" },
		{ "capabilities.keep", "cap_sys_module", "cap_sys_module would no longer be dropped" },
		{ "locks.modules", "no", "locks.modules yes -> no" },
		{ "locks.lockdown", "none", "locks.lockdown integrity -> none" },
		{ "locks.ptrace_scope", "none", "locks.ptrace_scope 2 -> none" },
		{ "mounts.shared", "no", "mounts.shared yes -> no" },
		{ "mounts.proc_hidepid", "off", "mounts.proc_hidepid invisible -> off" },
		{ "mounts.proc_hidepid", "ptraceable", "mounts.proc_hidepid invisible -> ptraceable" },
		{ "mounts.proc_gid", "0", "mounts.proc_gid" },
		{ "mounts.tmp_size", "off", "mounts.tmp_size 50% -> off" },
		{ "mounts.polydirs", "/tmp", "polydir /var/tmp would no longer be prepared" },
		{ "mounts.polyinstantiate", "no", "mounts.polyinstantiate yes -> no" },
		{ "tty.tiocsti", "deny-unprivileged", "tty.tiocsti deny-all -> deny-unprivileged" },
		{ "verity.enabled", "no", "verity.enabled yes -> no" },
		{ "verity.roothash", "off", "verity.roothash 4c4c4c4c4c4c4c4c... -> off" },
		{ "verity.roothash", "abababababababababababababababababababababababababababababababab", "verity.roothash" },
		{ "verity.data", "/dev/vdc", "verity.data /dev/vda -> /dev/vdc (it cannot change" },
		{ "verity.hash", "off", "verity.hash /dev/vdb -> off" },
		{ "verity.options", "ignore-zero-blocks", "verity.options hash-offset=0 -> ignore-zero-blocks" },
		{ "verity.on_corruption", "ignore", "verity.on_corruption restart -> ignore" },
		{ "verity.on_corruption", "panic", "verity.on_corruption restart -> panic" },
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		before = c;
		rc = override(&c, refused[i].key, refused[i].value);
		char label[160];
		snprintf(label, sizeof label, "locked: %s=%s refused", refused[i].key, refused[i].value);
		tap_ok(rc == 1 && memcmp(&c, &before, sizeof c) == 0, "%s", label);
		snprintf(label, sizeof label, "locked: %s=%s refusal says what and why", refused[i].key, refused[i].value);
		int ok = strstr(err, refused[i].says) && strstr(err, "refused") && strstr(err, "lock_cmdline");
		tap_ok(ok, "%s", label);
		if (!ok)
			printf("#   got: %s\n#   want: %s\n", err, refused[i].says);
	}

	static const struct { const char *key, *value; } allowed[] = {
		{ "capabilities.drop", "cap_sys_rawio" },
		{ "sysctl.kernel.sysrq", "0" },
		{ "sysctl.kernel.kptr_restrict", "2" },      /* the same value */
		{ "locks.kexec", "yes" },
		{ "locks.lockdown", "confidentiality" },
		{ "locks.ptrace_scope", "3" },
		{ "memory.nx", "require" },
		{ "mounts.tmp_noexec", "yes" },
		{ "mounts.polydirs", "/tmp /var/tmp /srv/tmp" },
		{ "tty.tioclinux", "deny" },
		{ "tty.seccomp", "yes" },
		{ "kernel.require", "init_on_free=1" },
		{ "kernel.warn", "slab_nomerge" },          /* stays required */
		{ "boot.rootwait_timeout", "600" },
		{ "boot.lock_cmdline", "yes" },
		{ "selinux.mode", "enforcing" },
		{ "verity.enabled", "yes" },
		{ "verity.roothash", "4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c" },                /* the same value */
		{ "verity.data", "/dev/vda" },
		{ "verity.hash", "/dev/vdb" },
		{ "verity.options", "hash-offset=0" },
		{ "verity.on_corruption", "restart" },
	};
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
		rc = override(&c, allowed[i].key, allowed[i].value);
		tap_ok(rc == 0, "locked: strengthening %s=%s applied", allowed[i].key, allowed[i].value);
		if (rc != 0)
			printf("#   %s\n", err);
	}
	tap_ok(drops(&c, CAP_SYS_RAWIO) && c.lock_kexec && c.lockdown == LOCKDOWN_CONFIDENTIALITY &&
	       c.ptrace_scope == 3 && c.n_polydirs == 3 && c.rootwait_timeout == 600 &&
	       c.kernel_opts[0].required,
	       "locked: the strengthening overrides took effect");

	/* "config" counts as weaker than enforcing but can become it. */
	rc = parse(&c, "[boot]\nlock_cmdline = yes\n[selinux]\nmode = config\n");
	tap_ok(override(&c, "selinux.mode", "permissive") == 1, "locked: config -> permissive refused (config may be enforcing)");
	tap_ok(override(&c, "selinux.mode", "enforcing") == 0, "locked: config -> enforcing applied");
	rc = parse(&c, "[boot]\nlock_cmdline = yes\n[selinux]\nmode = disabled\n");
	tap_ok(override(&c, "selinux.mode", "permissive") == 0, "locked: disabled -> permissive applied");

	/* Verity can be turned on under the lock, and ignore raised to a reaction. */
	rc = parse(&c, "[boot]\nlock_cmdline = yes\n[verity]\non_corruption = ignore\n");
	tap_ok(override(&c, "verity.enabled", "yes") == 0 && c.verity_enabled, "locked: verity.enabled no -> yes applied");
	tap_ok(override(&c, "verity.on_corruption", "panic") == 0 && c.verity_on_corruption == VERITY_PANIC,
	       "locked: verity.on_corruption ignore -> panic applied");
	tap_ok(override(&c, "verity.roothash", "12345") == -1, "verity.roothash of odd length is malformed");
	tap_ok(override(&c, "verity.roothash", "zz") == -1, "verity.roothash not hex is malformed");
	round_trip(&c, "config with [verity]");

	/* The lock set by an override applies to the overrides after it. */
	hi_config_defaults(&c);
	tap_ok(override(&c, "boot.lock_cmdline", "yes") == 0, "lock_cmdline=yes from the command line applied");
	tap_ok(override(&c, "mounts.shared", "no") == 1, "then a weakening override is refused");
	round_trip(&c, "config after overrides");
}

/* ---- the stage ----------------------------------------------------------------- */

static struct boot b;

static void boot_reset(const char *config_path, const char *cmdline)
{
	boot_at(&b, "/nonexistent", MODE_DRY_RUN);
	snprintf(b.config_path, sizeof b.config_path, "%s", config_path);
	hi_cmdline_parse(&b.cmd, cmdline, strlen(cmdline), err, sizeof err);
}

static const char *report_status(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "config", key);
	return it ? it->status : "(none)";
}

static void test_stage(void)
{
	char root[] = "/tmp/hardinit-stage-XXXXXX";
	char path[160], etc[160], rootfile[160];

	if (!mkdtemp(root)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/initramfs.conf", root);

	boot_reset("/nonexistent/hardinit.conf", "quiet hardinit.tty.tiocsti=deny-all");
	tap_ok(hi_stage_config(&b) == 0 && b.cfg.tiocsti == TIOCSTI_DENY_ALL && b.cfg.aslr,
	       "stage: no file -> baseline defaults, override applied");
	tap_streq(report_status("file"), "absent", "stage: missing file reported absent");
	tap_streq(report_status("tty.tiocsti"), "applied", "stage: applied override reported");

	write_file(path, "[boot]\nlock_cmdline = yes\n[selinux]\nmode = enforcing\n");
	boot_reset(path, "hardinit.debug hardinit.selinux.mode=permissive hardinit.locks.kexec=yes");
	tap_ok(hi_stage_config(&b) == 0, "stage: locked file with a weakening override still boots");
	tap_ok(b.cfg.selinux_mode == SELINUX_ENFORCING && b.cfg.lock_kexec, "stage: weakening refused, strengthening applied");
	tap_streq(report_status("selinux.mode"), "refused", "stage: refusal reported");
	tap_streq(report_status("locks.kexec"), "applied", "stage: strengthening reported");
	tap_streq(report_status("debug"), "(none)", "stage: hardinit.debug is left to the runner");
	tap_streq(report_status("file"), "ok", "stage: file reported");

	/* The kernel's own words under the lock (init/cmdline_lock.c). */
	boot_reset(path, "root=/dev/vda init=/bin/sh");
	tap_ok(hi_stage_config(&b) == 0 && b.cmd.init == NULL, "stage: locked, the kernel's init= is ignored");
	tap_streq(report_status("init"), "refused", "stage: the kernel's init= reported refused");
	boot_reset(path, "root=/dev/vda security=selinux enforcing=0");
	tap_ok(hi_stage_config(&b) == -1, "stage: locked, the kernel's enforcing=0 refuses the boot");
	tap_contains(b.err, "enforcing=0 refused under the lock", "stage: the error names the word and the lock");
	boot_reset(path, "root=/dev/vda single");
	tap_ok(hi_stage_config(&b) == -1, "stage: locked, single (a rescue shell) refuses the boot");
	char unlocked[200];
	snprintf(unlocked, sizeof unlocked, "%s/unlocked.conf", root);
	write_file(unlocked, "[selinux]\nmode = enforcing\n");
	boot_reset(unlocked, "root=/dev/vda init=/bin/sh enforcing=0 single");
	tap_ok(hi_stage_config(&b) == 0 && b.cmd.init && strcmp(b.cmd.init, "/bin/sh") == 0,
	       "stage: unlocked, the kernel's words stand");
	unlink(unlocked);

	write_file(path, "[boot]\nfailure_action = poweroff\n\n[selinux]\nmode = enforcin\n");
	boot_reset(path, "");
	tap_ok(hi_stage_config(&b) == -1, "stage: a config error is fatal");
	char want[200];
	snprintf(want, sizeof want, "%s:5: invalid value 'enforcin' for mode", path);
	tap_contains(b.err, want, "stage: the error names the file and the line");

	write_file(path, "[boot]\nread_root_config = yes\n");
	boot_reset(path, "hardinit.selinux.mode=bogus");
	tap_ok(hi_stage_config(&b) == -1, "stage: a malformed override is fatal");
	tap_contains(b.err, "hardinit.selinux.mode=bogus", "stage: the error names the override");

	/* After the switch: the root's file on top, then the overrides again. */
	snprintf(etc, sizeof etc, "%s/etc", root);
	mkdir(etc, 0755);
	snprintf(rootfile, sizeof rootfile, "%s/etc/hardinit.conf", root);
	write_file(rootfile, "[memory]\nmdwe = yes\n[mounts]\nshared = no\n");
	boot_reset(path, "hardinit.mounts.shared=yes");
	b.mode = MODE_INITRAMFS;
	tap_ok(hi_stage_config(&b) == 0 && b.cfg.read_root_config, "stage: initramfs pass");
	tap_streq(report_status("mounts.shared"), "(none)", "stage: first of two passes leaves the report to the second");
	b.switched = true;
	snprintf(b.newroot, sizeof b.newroot, "%s", root);
	tap_ok(hi_stage_config(&b) == 0 && b.cfg.mdwe && b.cfg.mount_shared,
	       "stage: root's file read after the switch, command line still last");
	tap_streq(report_status("mounts.shared"), "applied", "stage: second pass reports the override");

	write_file(path, "[boot]\n");
	boot_reset(path, "");
	b.switched = true;
	snprintf(b.newroot, sizeof b.newroot, "%s", root);
	tap_ok(hi_stage_config(&b) == 0 && !b.cfg.mdwe, "stage: without read_root_config the root's file is ignored");

	unlink(rootfile);
	rmdir(etc);
	unlink(path);
	rmdir(root);
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);
	test_defaults();
	test_values();
	test_profiles();
	test_errors();
	test_include();
	test_overrides();
	test_stage();
	return tap_done();
}
