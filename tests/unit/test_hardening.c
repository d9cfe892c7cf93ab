/* Unit tests: the hardening stages (memory, sysctl, caps, locks) against a
 * temporary tree standing in for /proc and /sys, and against injected
 * sysctl readers/writers standing in for a kernel that refuses values.
 * Nothing here touches the host's /proc, /sys, capabilities or mounts:
 * the stages run in a mode and with a config that keep them away from
 * prctl/libcap-ng (those are tested in QEMU by tests/vm/hardening.bats). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aarch64.h"
#include "arch.h"
#include "boot.h"
#include "caps.h"
#include "fsutil.h"
#include "locks.h"
#include "log.h"
#include "memory.h"
#include "fixture.h"
#include "sysctl.h"
#include "tap.h"
#include "hardening.h"
#include "sysctl_apply.h"
#include "x86_64.h"

static char root[128];
static struct boot b;

/* ---- the temporary tree ---- */

static void put(const char *rel, const char *content)
{
	fixture_put(root, rel, content);
}

static const char *get(const char *rel)
{
	static char buf[4096];
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return NULL;
	return buf;
}

static void fresh_tree(void)
{
	fixture_rmtree(root);
	snprintf(root, sizeof root, "/tmp/hardinit-test-hardening.XXXXXX");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
}

/* A boot context on the temporary tree, defaults as shipped. */
static void fresh_boot(enum boot_mode mode, const char *cmdline)
{
	char err[256];

	fresh_tree();
	boot_at(&b, root, mode);
	if (hi_cmdline_parse(&b.cmd, cmdline, strlen(cmdline), err, sizeof err) < 0) {
		printf("# bad test command line: %s\n", err);
		exit(2);
	}
}

static const char *status_of(const char *stage, const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, stage, key);
	return it ? it->status : NULL;
}

static const char *value_of(const char *stage, const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, stage, key);
	return it ? it->value : NULL;
}

static void add_sysctl(const char *key, const char *value, bool required, bool ignore)
{
	struct sysctl_setting *s = &b.cfg.sysctls[b.cfg.n_sysctls++];
	snprintf(s->key, sizeof s->key, "%s", key);
	snprintf(s->value, sizeof s->value, "%s", value);
	s->required = required;
	s->ignore_failure = ignore;
}

/* ---- a fake kernel for one integer sysctl ---- */

struct fake_sysctl {
	long value;
	long max;        /* writes above: EINVAL, as proc_dointvec_minmax */
	int write_errno; /* nonzero: every write fails with it */
	bool clamp;      /* accept writes but keep the old value */
	bool absent;
	int writes;
};

static int fake_read(void *ctx, const char *key, char *buf, size_t cap)
{
	struct fake_sysctl *f = ctx;
	if (f->absent) {
		errno = ENOENT;
		return -1;
	}
	snprintf(buf, cap, "%ld", f->value);
	return 0;
}

static int fake_write(void *ctx, const char *key, const char *value)
{
	struct fake_sysctl *f = ctx;
	f->writes++;
	if (f->absent) {
		errno = ENOENT;
		return -1;
	}
	if (f->write_errno) {
		errno = f->write_errno;
		return -1;
	}
	long v = strtol(value, NULL, 10);
	if (v > f->max) {
		errno = EINVAL;
		return -1;
	}
	if (!f->clamp)
		f->value = v;
	return 0;
}

static struct sysctl_io fake_io(struct fake_sysctl *f)
{
	struct sysctl_io io = { .read = fake_read, .write = fake_write, .ctx = f };
	return io;
}

/* The kernel's side of a write and its read-back through one file, as
 * hi_sysctl_write_read gives them: counted apart from plain writes. */
static int write_reads;
static int fake_write_read(void *ctx, const char *key, const char *value, char *buf, size_t cap)
{
	write_reads++;
	if (fake_write(ctx, key, value) < 0)
		return SYSCTL_WR_WRITE;
	((struct fake_sysctl *)ctx)->writes--;   /* counted as a write_read only */
	return fake_read(ctx, key, buf, cap) < 0 ? SYSCTL_WR_READ : 0;
}

/* ---- tests ---- */

static void test_classification(void)
{
	struct sysctl_result r;

	fresh_boot(MODE_ON_ROOT, "");
	struct sysctl_io io = hi_sysctl_io_proc(b.proc);
	put("proc/sys/kernel/kptr_restrict", "0\n");
	put("proc/sys/kernel/dmesg_restrict", "1\n");
	put("proc/sys/kernel/printk", "4\t4\t1\t7\n");

	tap_ok(hi_sysctl_apply_one(&io, "kernel.kptr_restrict", "2", &r) == SYSCTL_APPLIED,
	       "a different value is written: applied");
	/* A regular file keeps its old tail: "0\n" overwritten with "2". */
	tap_streq(get("proc/sys/kernel/kptr_restrict"), "2\n", "the value reached the file");
	tap_streq(r.before, "0", "the value before is kept");
	tap_streq(r.after, "2", "the read-back is kept");
	tap_ok(hi_sysctl_apply_one(&io, "kernel.dmesg_restrict", "1", &r) == SYSCTL_ALREADY,
	       "an equal value: already");
	tap_ok(hi_sysctl_apply_one(&io, "kernel.printk", "4 4 1 7", &r) == SYSCTL_ALREADY,
	       "multi-value sysctls compare without regard to tabs");
	tap_ok(hi_sysctl_apply_one(&io, "kernel.io_uring_disabled", "2", &r) == SYSCTL_ABSENT &&
	       r.err == ENOENT, "a missing sysctl: absent");

	struct fake_sysctl f = { .value = 0, .max = 100, .write_errno = EPERM };
	struct sysctl_io fio = fake_io(&f);
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "1", &r) == SYSCTL_REFUSED && r.err == EPERM,
	       "EPERM on write: refused with the errno");
	f = (struct fake_sysctl){ .value = 0, .max = 1 };
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "2", &r) == SYSCTL_REFUSED && r.err == EINVAL,
	       "EINVAL on write (out of range): refused");
	f = (struct fake_sysctl){ .value = 0, .max = 100, .clamp = true };
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "2", &r) == SYSCTL_REFUSED && r.err == 0 &&
	       strcmp(r.after, "0") == 0, "write accepted but read-back differs: refused");
	f = (struct fake_sysctl){ .value = 1, .max = 1, .write_errno = EPERM };
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "1", &r) == SYSCTL_ALREADY && f.writes == 0,
	       "a locked one-way sysctl at its value is not rewritten");

	f = (struct fake_sysctl){ .value = 0, .max = 100 };
	tap_ok(hi_sysctl_check_one(&fio, "x.y", "5", &r) == SYSCTL_REFUSED && r.err == 0 && f.writes == 0,
	       "check_one (dry run) never writes");
}

/* The write and its read-back through one open file: the outcomes are
 * those of a write then a read, on the tree as through an injected io. */
static void test_write_read(void)
{
	struct sysctl_result r;
	char buf[64];

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/kptr_restrict", "0\n");
	put("proc/sys/net/ipv4/conf/all/rp_filter", "1\n");
	tap_ok(hi_sysctl_write_read(b.proc, "kernel.kptr_restrict", "2", buf, sizeof buf) == 0,
	       "write_read: written and read back");
	tap_streq(buf, "2", "  the read-back is the value written");
	tap_streq(get("proc/sys/kernel/kptr_restrict"), "2\n", "  and the file holds it");
	errno = 0;
	tap_ok(hi_sysctl_write_read(b.proc, "kernel.io_uring_disabled", "2", buf, sizeof buf) == SYSCTL_WR_WRITE &&
	       errno == ENOENT, "write_read of an absent sysctl: the write failed, ENOENT");
	tap_ok(hi_sysctl_write_read(b.proc, "net.ipv4.conf.all", "1", buf, sizeof buf) == SYSCTL_WR_WRITE,
	       "write_read of a directory: the write failed");
	tap_ok(hi_sysctl_write_read(b.proc, "kernel..x", "1", buf, sizeof buf) == SYSCTL_WR_WRITE && errno == EINVAL,
	       "write_read of a malformed key: EINVAL, nothing opened");

	struct sysctl_io io = hi_sysctl_io_proc(b.proc);
	tap_ok(io.write_read != NULL, "the proc io writes and reads back through one file");
	tap_ok(hi_sysctl_apply_one(&io, "net.ipv4.conf.all.rp_filter", "2", &r) == SYSCTL_APPLIED &&
	       strcmp(r.before, "1") == 0 && strcmp(r.after, "2") == 0, "apply_one through it: applied, before and after");
	tap_streq(get("proc/sys/net/ipv4/conf/all/rp_filter"), "2\n", "  the value reached the file");

	struct fake_sysctl f = { .value = 0, .max = 100 };
	struct sysctl_io fio = fake_io(&f);
	fio.write_read = fake_write_read;
	write_reads = 0;
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "5", &r) == SYSCTL_APPLIED && f.value == 5 &&
	       write_reads == 1 && f.writes == 0, "apply_one writes through write_read when the io has one");
	write_reads = 0;
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "5", &r) == SYSCTL_ALREADY && write_reads == 0,
	       "  and not at all when the value already holds");
	f = (struct fake_sysctl){ .value = 0, .max = 100, .clamp = true };
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "2", &r) == SYSCTL_REFUSED && r.err == 0 &&
	       strcmp(r.after, "0") == 0, "  a read-back that differs: refused");
	f = (struct fake_sysctl){ .value = 0, .max = 1 };
	tap_ok(hi_sysctl_apply_one(&fio, "x.y", "2", &r) == SYSCTL_REFUSED && r.err == EINVAL,
	       "  a write refused: refused with its errno");
	long best = -1;
	f = (struct fake_sysctl){ .value = 28, .max = 30 };
	write_reads = 0;
	tap_ok(hi_sysctl_raise_to_max(&fio, "vm.mmap_rnd_bits", 32, &best, &r) == SYSCTL_APPLIED && best == 30 &&
	       write_reads == 3, "  raise_to_max walks down through it too");
}

static void test_raise_to_max(void)
{
	struct sysctl_result r;
	long best = -1;
	struct fake_sysctl f = { .value = 28, .max = 30 };
	struct sysctl_io io = fake_io(&f);

	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_bits", 32, &best, &r) == SYSCTL_APPLIED && best == 30,
	       "walks down from 32 to the kernel's maximum 30");
	tap_ok(f.value == 30 && f.writes == 3, "tried 32, 31, 30 and stopped");
	tap_streq(r.after, "30", "reports the value in force");

	f = (struct fake_sysctl){ .value = 32, .max = 32 };
	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_bits", 32, &best, &r) == SYSCTL_ALREADY &&
	       best == 32 && f.writes == 0, "already at the top: nothing written");

	f = (struct fake_sysctl){ .value = 16, .max = 16 };
	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_compat_bits", 32, &best, &r) == SYSCTL_ALREADY &&
	       best == 16 && f.writes == 16, "current is the maximum: every higher value refused, already");

	f = (struct fake_sysctl){ .value = 8, .max = 16, .clamp = true };
	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_compat_bits", 32, &best, &r) == SYSCTL_ALREADY &&
	       best == 8, "writes that do not stick are not counted as applied");

	f = (struct fake_sysctl){ .value = 28, .max = 32, .write_errno = EPERM };
	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_bits", 32, &best, &r) == SYSCTL_REFUSED &&
	       r.err == EPERM, "EPERM on every write: refused, not already");

	f = (struct fake_sysctl){ .absent = true };
	tap_ok(hi_sysctl_raise_to_max(&io, "vm.mmap_rnd_compat_bits", 32, &best, &r) == SYSCTL_ABSENT,
	       "absent knob: absent");
}

static void test_stage_sysctl(void)
{
	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/kptr_restrict", "1\n");
	put("proc/sys/fs/protected_fifos", "1\n");
	put("proc/sys/kernel/sysrq", "0\n");
	add_sysctl("kernel.kptr_restrict", "2", false, false);
	add_sysctl("fs.protected_fifos", "2", false, false);
	add_sysctl("kernel.sysrq", "0", false, false);
	add_sysctl("dev.tty.legacy_tiocsti", "0", false, false);
	add_sysctl("kernel.io_uring_disabled", "2", false, true);
	b.cfg.sysctl_persist = false;

	tap_ok(hi_stage_sysctl(&b) == 0, "absent sysctls that are not required: the stage succeeds");
	tap_streq(status_of("sysctl", "kernel.kptr_restrict"), "applied", "kptr_restrict applied");
	tap_streq(value_of("sysctl", "kernel.kptr_restrict"), "2", "reported with the read-back");
	tap_streq(status_of("sysctl", "kernel.sysrq"), "already", "sysrq already");
	tap_streq(status_of("sysctl", "dev.tty.legacy_tiocsti"), "absent", "legacy_tiocsti absent (pre-6.2)");
	tap_streq(status_of("sysctl", "kernel.io_uring_disabled"), "absent", "ignored one reported absent too");
	tap_streq(status_of("sysctl", "persist"), "skipped", "persist = no: skipped");

	fresh_boot(MODE_ON_ROOT, "");
	add_sysctl("kernel.io_uring_disabled", "2", true, false);
	tap_ok(hi_stage_sysctl(&b) == -1, "a required absent sysctl is fatal");
	tap_contains(b.err, "kernel.io_uring_disabled", "the error names the key");
	tap_contains(b.err, "require", "the error says how to relax it");

	/* A directory where the sysctl file should be: the write fails with
	 * EISDIR, the way a kernel refuses (not ENOENT: it exists). */
	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/perf_event_paranoid/.keep", "");
	add_sysctl("kernel.perf_event_paranoid", "3", false, false);
	tap_ok(hi_stage_sysctl(&b) == 0, "a refused sysctl that is not required: warning only");
	tap_streq(status_of("sysctl", "kernel.perf_event_paranoid"), "refused", "reported refused");
	b.cfg.sysctls[0].required = true;
	tap_ok(hi_stage_sysctl(&b) == -1, "a required refused sysctl is fatal");
	tap_contains(b.err, "refused", "the error says refused");

	fresh_boot(MODE_DRY_RUN, "");
	put("proc/sys/kernel/kptr_restrict", "1\n");
	add_sysctl("kernel.kptr_restrict", "2", true, false);
	tap_ok(hi_stage_sysctl(&b) == 0, "dry run succeeds");
	tap_streq(get("proc/sys/kernel/kptr_restrict"), "1\n", "dry run writes nothing");
}

static void test_persist(void)
{
	char text[SYSCTL_DROPIN_MAX];

	tap_ok(strcmp(SYSCTL_DROPIN_NAME, "99-protect-links.conf") > 0 &&
	       strcmp(SYSCTL_DROPIN_NAME, "99-sysctl.conf") > 0 &&
	       strcmp(SYSCTL_DROPIN_NAME, "protect-links.conf") > 0 &&
	       strcmp(SYSCTL_DROPIN_NAME, "50-default.conf") > 0,
	       "the drop-in's name sorts after Debian's sysctl.d files");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/fs/protected_fifos", "1\n");
	put("proc/sys/kernel/kptr_restrict", "2\n");
	put("root/usr/lib/systemd/systemd", "");
	add_sysctl("fs.protected_fifos", "2", false, false);
	add_sysctl("kernel.kptr_restrict", "2", false, false);
	add_sysctl("kernel.io_uring_disabled", "2", false, false);
	b.cfg.ptrace_scope = 2;
	hi_report_add(&b.rep, "memory", "vm.mmap_rnd_bits", "applied", "32");
	hi_report_add(&b.rep, "memory", "nx", "ok", "cpu flag nx present");
	hi_report_add(&b.rep, "memory", "vm.mmap_rnd_compat_bits", "refused", "8");
	tap_ok(hi_stage_sysctl(&b) == 0, "stage with persistence succeeds");

	const char *conf = get("run/sysctl.d/" SYSCTL_DROPIN_NAME);
	tap_ok(conf != NULL, "the drop-in is written under run/sysctl.d");
	tap_contains(conf, "\nfs.protected_fifos = 2\n", "it carries an applied value");
	tap_contains(conf, "\nkernel.kptr_restrict = 2\n", "and an already-set one");
	tap_contains(conf, "\nvm.mmap_rnd_bits = 32\n", "and the memory stage's values");
	tap_contains(conf, "\nkernel.yama.ptrace_scope = 2\n", "and the ptrace scope the locks stage sets");
	tap_ok(conf && !strstr(conf, "io_uring_disabled"), "not an absent one");
	tap_ok(conf && !strstr(conf, "compat_bits"), "not a refused one");
	tap_ok(conf && !strstr(conf, "nx"), "not a non-sysctl fact");
	tap_streq(status_of("sysctl", "persist"), "applied", "the report says it was written");
	tap_contains(value_of("sysctl", "persist"), SYSCTL_DROPIN_NAME, "and where");

	/* sysvinit and busybox roots get it too: procps' sysctl --system (the
	 * sysvinit procps script) reads /run/sysctl.d as systemd-sysctl does. */
	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/fs/protected_fifos", "1\n");
	add_sysctl("fs.protected_fifos", "2", false, false);
	tap_ok(hi_stage_sysctl(&b) == 0 && get("run/sysctl.d/" SYSCTL_DROPIN_NAME) != NULL,
	       "no systemd in the new root: the drop-in is written all the same");
	tap_streq(status_of("sysctl", "persist"), "applied", "and reported applied");
	fresh_boot(MODE_ON_ROOT, "");
	b.cfg.sysctl_persist = false;
	add_sysctl("fs.protected_fifos", "2", false, false);
	put("proc/sys/fs/protected_fifos", "1\n");
	tap_ok(hi_stage_sysctl(&b) == 0 && get("run/sysctl.d/" SYSCTL_DROPIN_NAME) == NULL,
	       "persist = no: no drop-in");
	tap_contains(value_of("sysctl", "persist"), "persist = no", "the report says why");

	hi_report_add(&b.rep, "sysctl", "kernel.yama.ptrace_scope", "applied", "3");
	hi_sysctl_dropin_format(&b.rep, 2, text, sizeof text);
	tap_contains(text, "\nkernel.yama.ptrace_scope = 3\n", "[sysctl] scope 3 above [locks] 2: one line, 3");
	tap_ok(!strstr(text, "ptrace_scope = 2"), "no lower ptrace line that systemd-sysctl would fail on");

	hi_report_add(&b.rep, "sysctl", "evil.key", "applied", "1\nkernel.sysrq = 1");
	int n = hi_sysctl_dropin_format(&b.rep, -1, text, sizeof text);
	tap_ok(n > 0 && !strstr(text, "evil"), "a value with a newline cannot add lines");
	tap_ok(hi_sysctl_dropin_format(&b.rep, -1, text, 64) == -1, "too small a buffer: -1, not truncation");
}

static void test_weakeners(void)
{
	const struct arch_weakener *found[8];
	const struct arch *x86 = &hi_arch_x86_64, *arm = &hi_arch_aarch64;
	char err[256];
	static struct cmdline c;

	const char *line = "root=/dev/vda nokaslr noexec32=off clearcpuid=nx,smep noexec=on norandmaps";
	hi_cmdline_parse(&c, line, strlen(line), err, sizeof err);
	size_t n = hi_nx_weakeners_present(&c, x86, found, 8);
	tap_ok(n == 4, "four weakening words found (got %zu)", n);
	tap_ok(n == 4 && strcmp(found[0]->key, "noexec32") == 0 && strcmp(found[1]->key, "clearcpuid") == 0 &&
	       strcmp(found[2]->key, "nokaslr") == 0 && strcmp(found[3]->key, "norandmaps") == 0,
	       "noexec32=off, clearcpuid=, nokaslr, norandmaps; not noexec=on");

	line = "root=/dev/vda noexec32=on noexec=off quiet";
	hi_cmdline_parse(&c, line, strlen(line), err, sizeof err);
	n = hi_nx_weakeners_present(&c, x86, found, 8);
	tap_ok(n == 1 && strcmp(found[0]->key, "noexec") == 0, "noexec=off found, noexec32=on is not a weakening");
	tap_ok(hi_nx_weakeners_present(&c, arm, found, 8) == 0, "aarch64: noexec=off is an x86 word, not reported");

	line = "root=/dev/vda arm64.nobti arm64.nopauth kpti=0 noexec32=off nokaslr";
	hi_cmdline_parse(&c, line, strlen(line), err, sizeof err);
	n = hi_nx_weakeners_present(&c, arm, found, 8);
	tap_ok(n == 4 && strcmp(found[0]->key, "arm64.nobti") == 0 && strcmp(found[1]->key, "arm64.nopauth") == 0 &&
	       strcmp(found[2]->key, "kpti") == 0 && strcmp(found[3]->key, "nokaslr") == 0,
	       "aarch64: arm64.nobti, arm64.nopauth, kpti=0, nokaslr; not noexec32 (got %zu)", n);
	n = hi_nx_weakeners_present(&c, x86, found, 8);
	tap_ok(n == 2 && strcmp(found[0]->key, "noexec32") == 0, "x86_64: noexec32=off and nokaslr, no arm64 word");

	line = "root=/dev/vda ro kpti=1";
	hi_cmdline_parse(&c, line, strlen(line), err, sizeof err);
	tap_ok(hi_nx_weakeners_present(&c, x86, found, 8) == 0, "a clean command line has none");
	tap_ok(hi_nx_weakeners_present(&c, arm, found, 8) == 0, "kpti=1 is no weakening");

	const char *with_nx = "processor\t: 0\nvendor_id\t: GenuineIntel\n"
		"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
		"clflush mmx fxsr sse sse2 syscall nx lm rep_good nopl\nbugs\t\t: spectre_v1\n";
	const char *without = "processor\t: 0\nflags\t\t: fpu vme nxe lm\nbugs\t\t: nx\n";
	tap_ok(hi_cpuinfo_has_flag(with_nx, "nx"), "nx in the flags line");
	tap_ok(!hi_cpuinfo_has_flag(without, "nx"), "nxe is not nx, and nx on another line does not count");
	tap_ok(!hi_cpuinfo_has_flag("", "nx"), "empty cpuinfo: no nx");
}

static void test_stage_memory(void)
{
	const struct arch *a = hi_arch_native();
	char top[16];

	if (a->nx_cpuinfo_flag) {
		fresh_boot(MODE_ON_ROOT, "root=/dev/vda nokaslr");
		put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu pae lm\n");
		b.cfg.nx = NX_REQUIRE;
		b.cfg.aslr = false;
		tap_ok(hi_stage_memory(&b) == -1, "NX required and missing: fatal");
		tap_contains(b.err, "NX", "the error names NX");
		tap_streq(status_of("memory", "nokaslr"), "warn", "the weakening word is reported");

		fresh_boot(MODE_ON_ROOT, "root=/dev/vda");
		put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu pae lm\n");
		b.cfg.aslr = false;
		tap_ok(hi_stage_memory(&b) == 0, "NX missing with nx = warn: continues");
		tap_streq(status_of("memory", "nx"), "warn", "reported as a warning");
	} else {
		/* aarch64: execute-never needs no flag, and no cpuinfo is read. */
		fresh_boot(MODE_ON_ROOT, "root=/dev/vda nokaslr arm64.nobti");
		b.cfg.nx = NX_REQUIRE;
		b.cfg.aslr = false;
		tap_ok(hi_stage_memory(&b) == 0, "%s: NX required, no cpuinfo at all: ok", a->name);
		tap_streq(status_of("memory", "nx"), "ok", "nx ok");
		tap_contains(value_of("memory", "nx"), "architectural", "because execute-never is architectural");
		tap_streq(status_of("memory", "nokaslr"), "warn", "the weakening word is reported");
		tap_streq(status_of("memory", "arm64.nobti"), "warn", "and the architecture's own");
	}
	fresh_boot(MODE_ON_ROOT, "root=/dev/vda");
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu pae nx lm\n");
	put("proc/sys/kernel/randomize_va_space", "1\n");
	put("proc/sys/vm/mmap_min_addr", "4096\n");
	put("proc/sys/vm/mmap_rnd_bits", "28\n");
	b.cfg.nx = NX_REQUIRE;
	b.cfg.mdwe = false;
	tap_ok(hi_stage_memory(&b) == 0, "NX present, ASLR on a fake tree: succeeds");
	tap_streq(status_of("memory", "nx"), "ok", "nx ok");
	tap_streq(get("proc/sys/kernel/randomize_va_space"), "2\n", "randomize_va_space = 2 written");
	tap_streq(get("proc/sys/vm/mmap_min_addr"), "65536", "mmap_min_addr = 65536 written");
	snprintf(top, sizeof top, "%d", a->mmap_rnd_bits_max);
	tap_streq(value_of("memory", "vm.mmap_rnd_bits"), top, "a file accepts the architecture's top value");
	tap_streq(status_of("memory", "vm.mmap_rnd_compat_bits"), "absent", "no compat bits: absent");
	tap_streq(status_of("memory", "mdwe"), "skipped", "mdwe off: skipped");

	fresh_boot(MODE_DRY_RUN, "root=/dev/vda");
	put("proc/cpuinfo", "flags\t\t: nx\n");
	put("proc/sys/kernel/randomize_va_space", "1\n");
	b.cfg.mdwe = true;
	tap_ok(hi_stage_memory(&b) == 0, "dry run with MDWE configured succeeds");
	tap_streq(get("proc/sys/kernel/randomize_va_space"), "1\n", "dry run writes nothing");
}

static void test_umh(void)
{
	uint32_t w[2];
	char out[64];

	tap_ok(hi_umh_parse("4294967295 511", w) == 0 && w[0] == 0xffffffffu && w[1] == 511,
	       "parses the two words, low first");
	tap_ok(hi_umh_parse("4294967295\t511\n", w) == 0, "tab-separated with a newline parses");
	tap_ok(hi_umh_parse("1", w) < 0, "one word: error");
	tap_ok(hi_umh_parse("1 2 3", w) < 0, "three words: error");
	tap_ok(hi_umh_parse("4294967296 1", w) < 0, "above 32 bits: error");
	tap_ok(hi_umh_parse("-1 1", w) < 0, "negative: error");

	w[0] = 0xffffffffu;
	w[1] = 511;
	hi_umh_clear(w, (uint64_t)1 << 38);   /* CAP_PERFMON */
	tap_ok(w[0] == 0xffffffffu && w[1] == 511u - 64u, "cap 38 clears bit 6 of the high word only");
	hi_umh_clear(w, ((uint64_t)1 << 21) | ((uint64_t)1 << 16) | ((uint64_t)1 << 40));
	tap_ok(w[0] == (0xffffffffu & ~((1u << 21) | (1u << 16))) && w[1] == 511u - 64u - 256u,
	       "caps 16, 21 (low word) and 40 (high word) cleared");
	hi_umh_format(w, out, sizeof out);
	tap_streq(out, "4292804607\t191", "formatted LOW<tab>HIGH");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/usermodehelper/bset", "4294967295\t511\n");
	put("proc/sys/kernel/usermodehelper/inheritable", "4294967295\t511\n");
	tap_ok(hi_caps_shrink_umh(&b, ((uint64_t)1 << 16) | ((uint64_t)1 << 38)) == 0,
	       "shrinking both usermodehelper sets succeeds");
	tap_streq(get("proc/sys/kernel/usermodehelper/bset"), "4294901759\t447\n", "bset lost caps 16 and 38");
	tap_streq(get("proc/sys/kernel/usermodehelper/inheritable"), "4294901759\t447\n",
		  "inheritable lost them too");
	tap_streq(status_of("caps", "kernel.usermodehelper.bset"), "applied", "reported");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/usermodehelper/inheritable", "garbage\n");
	tap_ok(hi_caps_shrink_umh(&b, 1) == -1, "an unparsable set is fatal");
	tap_contains(b.err, "usermodehelper", "and names the file");
}

static void test_stage_caps(void)
{
	uint64_t mask;

	fresh_boot(MODE_ON_ROOT, "");
	b.cfg.cap_drop[0] = 21;
	b.cfg.cap_drop[1] = 41;
	b.cfg.n_cap_drop = 2;
	tap_ok(hi_caps_drop_mask(&b, 40, &mask) == -1, "a capability above cap_last_cap is a config error");
	tap_contains(b.err, "cap_last_cap 40", "the error names the kernel's limit");
	b.cfg.n_cap_drop = 1;
	tap_ok(hi_caps_drop_mask(&b, 40, &mask) == 0 && mask == (uint64_t)1 << 21, "cap 21 alone: its bit");

	/* The stage reads cap_last_cap from b->proc, not the host's. */
	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/cap_last_cap", "37\n");
	b.cfg.cap_drop[0] = 38;   /* CAP_PERFMON: 5.8 */
	b.cfg.n_cap_drop = 1;
	tap_ok(hi_stage_caps(&b) == -1, "cap 38 on a kernel whose cap_last_cap is 37: fatal");
	tap_contains(b.err, "perfmon", "the error names the capability");

	fresh_boot(MODE_DRY_RUN, "");
	put("proc/sys/kernel/cap_last_cap", "40\n");
	put("proc/sys/kernel/usermodehelper/bset", "4294967295\t511\n");
	b.cfg.cap_drop[0] = 21;
	b.cfg.cap_drop[1] = 38;
	b.cfg.n_cap_drop = 2;
	tap_ok(hi_stage_caps(&b) == 0, "dry run succeeds");
	tap_streq(get("proc/sys/kernel/usermodehelper/bset"), "4294967295\t511\n", "and writes nothing");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/cap_last_cap", "40\n");
	tap_ok(hi_stage_caps(&b) == 0 && strcmp(status_of("caps", "drop"), "skipped") == 0,
	       "nothing to drop: skipped, no capability calls");
}

static void test_kernel_opts(void)
{
	char why[160];

	fresh_boot(MODE_ON_ROOT, "root=/dev/vda slab_nomerge init_on_free=1 mitigations=auto,nosmt");
	put("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	put("sys/kernel/security/lsm", "lockdown,capability,landlock,yama,apparmor,bpf");
	put("sys/module/page_alloc/parameters/shuffle", "Y\n");
	put("sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
	put("sys/devices/system/cpu/vulnerabilities/mds", "Vulnerable: Clear CPU buffers attempted, no microcode\n");
	put("sys/devices/system/cpu/cpu0/microcode/version", "0xf4\n");
	put("dev/kmsg", "6,1,0,-;microcode: updated early: 0xf0 -> 0xf4, date = 2023-02-22\n");

	tap_ok(hi_kernel_opt_in_force(&b, "slab_nomerge", why, sizeof why), "bare word on the command line");
	tap_ok(hi_kernel_opt_in_force(&b, "init_on_free=1", why, sizeof why), "key=value on the command line");
	tap_ok(!hi_kernel_opt_in_force(&b, "init_on_alloc=1", why, sizeof why), "missing word: not in force");
	tap_contains(why, "not on the command line", "and says so");
	tap_ok(!hi_kernel_opt_in_force(&b, "init_on_free=0", why, sizeof why), "other value: not in force");
	tap_ok(hi_kernel_opt_in_force(&b, "lockdown=integrity", why, sizeof why), "lockdown seen live at integrity");
	tap_ok(hi_kernel_opt_in_force(&b, "lockdown=none", why, sizeof why), "a lower lockdown is satisfied");
	tap_ok(!hi_kernel_opt_in_force(&b, "lockdown=confidentiality", why, sizeof why),
	       "a higher lockdown is not");
	tap_ok(hi_kernel_opt_in_force(&b, "lsm=yama,apparmor", why, sizeof why), "active LSMs seen live");
	tap_ok(!hi_kernel_opt_in_force(&b, "security=selinux", why, sizeof why), "an inactive LSM is not");
	tap_contains(why, "selinux is not active", "and is named");
	tap_ok(hi_kernel_opt_in_force(&b, "page_alloc.shuffle=1", why, sizeof why), "module parameter Y = 1");
	tap_ok(!hi_kernel_opt_in_force(&b, "page_alloc.shuffle=0", why, sizeof why), "Y is not 0");
	tap_ok(hi_kernel_opt_in_force(&b, "mitigations=auto,nosmt", why, sizeof why), "mitigations word");

	b.cfg.sysctl_persist = false;
	snprintf(b.cfg.kernel_opts[0].word, CONFIG_NAME_MAX, "slab_nomerge");
	snprintf(b.cfg.kernel_opts[1].word, CONFIG_NAME_MAX, "init_on_alloc=1");
	snprintf(b.cfg.kernel_opts[2].word, CONFIG_NAME_MAX, "mitigations=auto,nosmt");
	b.cfg.n_kernel_opts = 3;
	tap_ok(hi_stage_sysctl(&b) == 0, "missing warn-only options: the stage succeeds");
	tap_streq(status_of("kernel", "slab_nomerge"), "ok", "present option reported ok");
	tap_streq(status_of("kernel", "init_on_alloc=1"), "warn", "missing option reported warn");
	tap_streq(status_of("kernel", "mds"), "warn", "a Vulnerable cpu bug is a warning");
	tap_streq(status_of("kernel", "microcode"), "info", "the CPU's microcode revision is reported");
	tap_streq(value_of("kernel", "microcode"), "cpu0 runs microcode revision 0xf4", "with its revision");
	tap_streq(status_of("kernel", "microcode_early"), "ok", "the early update is reported");
	tap_streq(value_of("kernel", "microcode_early"),
		  "the kernel loaded an early update (updated early: 0xf0 -> 0xf4, date = 2023-02-22)", "with the kernel's words");
	tap_streq(status_of("kernel", "meltdown"), "info", "a mitigated one a fact");

	b.cfg.kernel_opts[1].required = true;
	tap_ok(hi_stage_sysctl(&b) == -1, "a required missing option is fatal");
	tap_contains(b.err, "init_on_alloc=1", "the error names it");

	/* A word of the other architecture's kernel is not checked, even
	 * required: this kernel never reads it (arch/). */
	const char *foreign = hi_arch_native() == &hi_arch_x86_64 ? "kpti=1" : "vsyscall=none";
	const char *own = hi_arch_native() == &hi_arch_x86_64 ? "vsyscall=none" : "kpti=1";
	fresh_boot(MODE_ON_ROOT, "root=/dev/vda");
	b.cfg.sysctl_persist = false;
	snprintf(b.cfg.kernel_opts[0].word, CONFIG_NAME_MAX, "%s", foreign);
	b.cfg.kernel_opts[0].required = true;
	snprintf(b.cfg.kernel_opts[1].word, CONFIG_NAME_MAX, "%s", own);
	b.cfg.n_kernel_opts = 2;
	tap_ok(hi_stage_sysctl(&b) == 0, "%s: a required word of the other architecture is not fatal", hi_arch_native()->name);
	tap_streq(status_of("kernel", foreign), "skipped", "  it is reported skipped");
	tap_streq(status_of("kernel", own), "warn", "  while this architecture's own missing word warns");
}

/* The stage's console lines, run with the console on a temporary file. */
static const char *stage_console(void)
{
	static char out[8192];
	char path[160];

	snprintf(path, sizeof path, "%s/console", root);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	hi_log_set_console_fd(fd);
	(void)hi_stage_sysctl(&b);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);
	if (fd >= 0)
		close(fd);
	return hi_fs_read(path, out, sizeof out, NULL) == 0 ? out : "";
}

static int count_of(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Words not in force for the same reason share a console line (each one
 * still has its own report item); a reason of its own, a line of its
 * own; a line never outgrows LOG_LINE_MAX, so many words take several. */
static void test_kernel_opts_lines(void)
{
	static const char *const words[] = { "init_on_alloc=1", "init_on_free=1", "slab_nomerge", "page_alloc.shuffle=1" };

	fresh_boot(MODE_ON_ROOT, "root=/dev/vda");
	put("sys/module/page_alloc/parameters/shuffle", "N\n");
	b.cfg.sysctl_persist = false;
	for (size_t i = 0; i < 4; i++)
		snprintf(b.cfg.kernel_opts[i].word, CONFIG_NAME_MAX, "%s", words[i]);
	b.cfg.n_kernel_opts = 4;
	const char *out = stage_console();
	tap_ok(count_of(out, "boot option") == 2, "two reasons, two warning lines for four words");
	tap_contains(out, "boot options init_on_alloc=1, init_on_free=1, slab_nomerge are not in force (each: "
		     "not on the command line", "  the words of one reason on one line, with it");
	tap_contains(out, "boot option page_alloc.shuffle=1 is not in force (module/page_alloc/parameters/shuffle reads N)",
		     "  a word with a reason of its own alone");
	tap_streq(status_of("kernel", "init_on_free=1"), "warn", "  each word still its own report item");

	fresh_boot(MODE_ON_ROOT, "root=/dev/vda");
	b.cfg.sysctl_persist = false;
	for (size_t i = 0; i < 40; i++)
		snprintf(b.cfg.kernel_opts[i].word, CONFIG_NAME_MAX, "a_rather_long_boot_word_%02zu=1", i);
	b.cfg.n_kernel_opts = 40;
	out = stage_console();
	int lines = count_of(out, "boot options"), each = 0;
	for (size_t i = 0; i < 40; i++) {
		char w[64];
		snprintf(w, sizeof w, "word_%02zu=1", i);
		each += count_of(out, w) == 1;
	}
	tap_ok(lines >= 4 && lines <= 6 && each == 40, "40 words of one reason: %d lines, each word once (%d)", lines, each);
	bool short_lines = true;
	for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0'))
		short_lines &= strcspn(p, "\n") < LOG_LINE_MAX - 16;
	tap_ok(short_lines, "  no line near LOG_LINE_MAX, where it would be cut");
}

/* A Xen PV guest (/sys/hypervisor): its CPU-vulnerability lines are the
 * hypervisor's, neither warnings nor facts of this kernel; the balloon's
 * scrub_pages is xen_scrub_pages='s live state. */
static void test_kernel_opts_xen_pv(void)
{
	char why[160];

	fresh_boot(MODE_ON_ROOT, "root=/dev/xvda mitigations=auto,nosmt");
	put("sys/hypervisor/type", "xen\n");
	put("sys/hypervisor/guest_type", "PV\n");
	put("sys/devices/system/cpu/vulnerabilities/meltdown",
	    "Unknown (XEN PV detected, hypervisor mitigation required)\n");
	put("sys/devices/system/cpu/vulnerabilities/mds", "Vulnerable: Clear CPU buffers attempted, no microcode\n");
	put("sys/devices/system/xen_memory/xen_memory0/scrub_pages", "1\n");
	tap_ok(hi_kernel_opt_in_force(&b, "xen_scrub_pages=1", why, sizeof why), "xen_scrub_pages=1: the balloon scrubs");
	tap_contains(why, "xen_memory0/scrub_pages reads 1", "  seen live in sysfs");
	put("sys/devices/system/xen_memory/xen_memory0/scrub_pages", "0\n");
	tap_ok(!hi_kernel_opt_in_force(&b, "xen_scrub_pages=1", why, sizeof why), "scrub_pages 0: not in force");

	b.cfg.sysctl_persist = false;
	snprintf(b.cfg.kernel_opts[0].word, CONFIG_NAME_MAX, "mitigations=auto,nosmt");
	b.cfg.n_kernel_opts = 1;
	tap_ok(hi_stage_sysctl(&b) == 0, "Xen PV: the stage succeeds");
	tap_streq(status_of("kernel", "meltdown"), "hypervisor", "Xen PV: meltdown's Unknown is the hypervisor's");
	tap_streq(value_of("kernel", "meltdown"), "Unknown (XEN PV detected, hypervisor mitigation required)",
		  "  with the kernel's words");
	tap_streq(status_of("kernel", "mds"), "hypervisor", "Xen PV: a Vulnerable line is not a warning");

	/* A PVH (or HVM) guest runs on the CPU's own protections. */
	put("sys/hypervisor/guest_type", "PVH\n");
	memset(&b.rep, 0, sizeof b.rep);
	tap_ok(hi_stage_sysctl(&b) == 0, "Xen PVH: the stage succeeds");
	tap_streq(status_of("kernel", "mds"), "warn", "Xen PVH: a Vulnerable line is a warning again");
}

static void test_locks(void)
{
	tap_ok(hi_lockdown_parse_current("none [integrity] confidentiality\n") == 1, "integrity in brackets");
	tap_ok(hi_lockdown_parse_current("[none] integrity confidentiality") == 0, "none in brackets");
	tap_ok(hi_lockdown_parse_current("none integrity [confidentiality]") == 2, "confidentiality");
	tap_ok(hi_lockdown_parse_current("none integrity") == -1, "no brackets: -1");
	tap_ok(hi_lockdown_parse_current("[bogus]") == -1, "unknown level: -1");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/modules_disabled", "0\n");
	put("proc/sys/kernel/yama/ptrace_scope", "1\n");
	put("sys/kernel/security/lsm", "lockdown,yama");
	put("sys/kernel/security/lockdown", "none integrity [confidentiality]\n");
	b.cfg.lock_modules = true;
	b.cfg.lock_kexec = true;
	b.cfg.ptrace_scope = 2;
	b.cfg.lockdown = LOCKDOWN_INTEGRITY;
	tap_ok(hi_stage_locks(&b) == 0, "locks on a fake tree succeed");
	tap_streq(get("proc/sys/kernel/modules_disabled"), "1\n", "modules_disabled = 1");
	tap_streq(status_of("locks", "kernel.modules_disabled"), "applied", "reported applied");
	tap_streq(status_of("locks", "kernel.kexec_load_disabled"), "absent", "no kexec: absent, not fatal");
	tap_streq(get("proc/sys/kernel/yama/ptrace_scope"), "2\n", "ptrace_scope = 2");
	tap_streq(status_of("locks", "lockdown"), "already", "lockdown above the wanted level: already");
	tap_streq(get("sys/kernel/security/lockdown"), "none integrity [confidentiality]\n",
		  "lockdown never written downwards");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/yama/ptrace_scope", "3\n");
	b.cfg.ptrace_scope = 2;
	tap_ok(hi_stage_locks(&b) == 0 && strcmp(status_of("locks", "kernel.yama.ptrace_scope"), "already") == 0,
	       "ptrace_scope 3 (one-way) satisfies 2");
	tap_streq(get("proc/sys/kernel/yama/ptrace_scope"), "3\n", "and is left at 3");

	fresh_boot(MODE_ON_ROOT, "");
	b.cfg.ptrace_scope = 1;
	tap_ok(hi_stage_locks(&b) == -1, "ptrace_scope configured without Yama: fatal");
	tap_contains(b.err, "Yama", "the error names Yama");

	fresh_boot(MODE_ON_ROOT, "");
	b.cfg.lockdown = LOCKDOWN_INTEGRITY;
	tap_ok(hi_stage_locks(&b) == -1, "lockdown configured, no securityfs file: fatal (no mount in a test)");
	tap_contains(b.err, "lockdown", "the error names lockdown");

	fresh_boot(MODE_ON_ROOT, "");
	put("proc/sys/kernel/modules_disabled/.keep", "");
	b.cfg.lock_modules = true;
	tap_ok(hi_stage_locks(&b) == -1, "a refused module lock is fatal");
	tap_contains(b.err, "module loading stays open", "and says what stays open");

	fresh_boot(MODE_DRY_RUN, "");
	put("proc/sys/kernel/modules_disabled", "0\n");
	b.cfg.lock_modules = true;
	b.cfg.lockdown = LOCKDOWN_CONFIDENTIALITY;
	tap_ok(hi_stage_locks(&b) == 0, "dry run succeeds");
	tap_streq(get("proc/sys/kernel/modules_disabled"), "0\n", "and writes nothing");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);

	test_classification();
	test_write_read();
	test_raise_to_max();
	test_stage_sysctl();
	test_persist();
	test_weakeners();
	test_stage_memory();
	test_umh();
	test_stage_caps();
	test_kernel_opts();
	test_kernel_opts_lines();
	test_kernel_opts_xen_pv();
	test_locks();

	fixture_rmtree(root);
	return tap_done();
}
