/* The memory stage: NX, address-space randomisation, and system-wide
 * memory-deny-write-execute (the ExecShield part of the hardening). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "hardening.h"
#include "log.h"
#include "report.h"
#include "stages.h"
#include "sysctl_apply.h"


/* The first CPU's flags line sits in the first few KiB; a machine with
 * hundreds of CPUs has a cpuinfo of hundreds of KiB we do not need. */
#define CPUINFO_PREFIX_BYTES (16 * 1024)

static const struct nx_weakener nx_weakeners[] = {
	{ "noexec32",   "off", "32-bit (compat) processes run without NX" },
	{ "noexec",     "off", "asks for NX off (ignored since Linux 5.19; remove it)" },
	{ "clearcpuid", NULL,  "hides CPU features; check it does not name nx" },
	{ "nokaslr",    NULL,  "kernel address-space randomisation is off" },
	{ "norandmaps", NULL,  "process address-space randomisation is off" },
};

size_t nx_weakeners_present(const struct cmdline *c, const struct nx_weakener **found, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof nx_weakeners / sizeof nx_weakeners[0] && n < max; i++) {
		const struct nx_weakener *w = &nx_weakeners[i];
		bool bare = false;
		const char *v = cmdline_get(c, w->key, &bare);
		bool hit = w->value ? (v && strcmp(v, w->value) == 0) : (bare || v);
		if (hit)
			found[n++] = w;
	}
	return n;
}

static bool word_in(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t l = strcspn(p, " \t\n");
		if (l == wl && strncmp(p, word, wl) == 0)
			return true;
		p += l;
		if (*p == '\n')
			break;
	}
	return false;
}

bool cpuinfo_has_nx(const char *cpuinfo)
{
	for (const char *line = cpuinfo; line && *line;) {
		if (strncmp(line, "flags", 5) == 0) {
			const char *colon = strchr(line, ':');
			const char *nl = strchr(line, '\n');
			if (colon && (!nl || colon < nl))
				return word_in(colon + 1, "nx");
			return false;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

static int check_nx(struct boot *b)
{
	static char cpuinfo[CPUINFO_PREFIX_BYTES];
	char path[BOOT_PATH_MAX];
	const struct nx_weakener *found[8];
	size_t n = nx_weakeners_present(&b->cmd, found, 8);

	for (size_t i = 0; i < n; i++) {
		log_warn("memory: kernel command line has %s%s%s: %s", found[i]->key,
			 found[i]->value ? "=" : "", found[i]->value ? found[i]->value : "", found[i]->why);
		report_add(&b->rep, "memory", found[i]->key, "warn", "%s", found[i]->why);
	}

	if (!boot_path(path, sizeof path, b->proc, "cpuinfo") ||
	    fs_read_prefix(path, cpuinfo, sizeof cpuinfo, NULL) < 0) {
		log_warn("memory: cannot read %s/cpuinfo (%s); NX not verified", b->proc, strerror(errno));
		report_add(&b->rep, "memory", "nx", "warn", "not verified: cpuinfo unreadable");
		return b->cfg.nx == NX_REQUIRE ?
			boot_error(b, "memory: NX is required but %s/cpuinfo cannot be read; "
				   "check that proc is mounted or set [memory] nx = warn", b->proc) : 0;
	}
	if (cpuinfo_has_nx(cpuinfo)) {
		report_add(&b->rep, "memory", "nx", "ok", "cpu flag nx present");
		return 0;
	}
	report_add(&b->rep, "memory", "nx", b->cfg.nx == NX_REQUIRE ? "failed" : "warn", "cpu flag nx missing");
	if (b->cfg.nx == NX_REQUIRE)
		return boot_error(b, "memory: the CPU does not report NX (no nx flag in %s/cpuinfo), so "
				  "data pages are executable; enable NX/XD in the firmware or hypervisor, "
				  "or set [memory] nx = warn", b->proc);
	log_warn("memory: the CPU does not report NX (no nx flag in cpuinfo); data pages are executable");
	return 0;
}

static void report_sysctl(struct boot *b, const char *key, const struct sysctl_result *r)
{
	const char *status = sysctl_outcome_name(r->outcome);

	if (r->outcome == SYSCTL_REFUSED || r->outcome == SYSCTL_ABSENT)
		log_warn("memory: %s not set (%s%s%s; it reads %s)", key, status,
			 r->err ? ": " : "", r->err ? strerror(r->err) : "", r->after[0] ? r->after : "nothing");
	else
		log_debug("memory: %s = %s (%s)", key, r->after, status);
	report_add(&b->rep, "memory", key, status, "%s", r->after);
}

static const struct { const char *key, *value; } aslr_sysctls[] = {
	/* 2: randomise the brk heap too (1 leaves it next to the binary). */
	{ "kernel.randomize_va_space", "2" },
	/* 64 KiB, the value the kernel's own default and Debian use: keeps a
	 * NULL dereference with a large offset from landing on user memory. */
	{ "vm.mmap_min_addr", "65536" },
};

static const char *const rnd_bits_sysctls[] = { "vm.mmap_rnd_bits", "vm.mmap_rnd_compat_bits" };

static void apply_aslr(struct boot *b)
{
	struct sysctl_io io = sysctl_io_proc(b->proc);
	struct sysctl_result r;

	for (size_t i = 0; i < sizeof aslr_sysctls / sizeof aslr_sysctls[0]; i++) {
		if (b->mode == MODE_DRY_RUN) {
			sysctl_check_one(&io, aslr_sysctls[i].key, aslr_sysctls[i].value, &r);
			log_info("memory: would set %s = %s (now %s)", aslr_sysctls[i].key,
				 aslr_sysctls[i].value, r.before[0] ? r.before : "unreadable");
			continue;
		}
		sysctl_apply_one(&io, aslr_sysctls[i].key, aslr_sysctls[i].value, &r);
		report_sysctl(b, aslr_sysctls[i].key, &r);
	}
	for (size_t i = 0; i < sizeof rnd_bits_sysctls / sizeof rnd_bits_sysctls[0]; i++) {
		long best = 0;
		if (b->mode == MODE_DRY_RUN) {
			log_info("memory: would raise %s to the kernel's maximum", rnd_bits_sysctls[i]);
			continue;
		}
		sysctl_raise_to_max(&io, rnd_bits_sysctls[i], MEMORY_RND_BITS_TOP, &best, &r);
		/* No compat bits without CONFIG_COMPAT: nothing to randomise. */
		if (r.outcome == SYSCTL_ABSENT && i == 1) {
			report_add(&b->rep, "memory", rnd_bits_sysctls[i], "absent", "no 32-bit compat");
			continue;
		}
		report_sysctl(b, rnd_bits_sysctls[i], &r);
	}
}

/* PR_SET_MDWE (Linux 6.3): no mapping may become writable and executable,
 * or executable after being writable. Set in PID 1, the mm flag is copied
 * into every process forked from here on and kept across execve, and it
 * cannot be cleared. Kernel threads and usermode helpers are not covered. */
static int apply_mdwe(struct boot *b)
{
	if (b->mode == MODE_DRY_RUN) {
		log_info("memory: would set PR_SET_MDWE(PR_MDWE_REFUSE_EXEC_GAIN) for every process");
		return 0;
	}
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0L, 0L, 0L) < 0) {
		if (errno == EINVAL) {
			log_warn("memory: MDWE (W^X for all processes) not available on this kernel "
				 "(needs Linux 6.3); continuing without it");
			report_add(&b->rep, "memory", "mdwe", "absent", "needs Linux 6.3");
			return 0;
		}
		log_warn("memory: PR_SET_MDWE failed: %s; continuing without W^X", strerror(errno));
		report_add(&b->rep, "memory", "mdwe", "failed", "%s", strerror(errno));
		return 0;
	}
	int now = prctl(PR_GET_MDWE, 0L, 0L, 0L, 0L);
	if (now < 0 || !(now & PR_MDWE_REFUSE_EXEC_GAIN)) {
		report_add(&b->rep, "memory", "mdwe", "refused", "PR_GET_MDWE reads %d", now);
		log_warn("memory: PR_SET_MDWE succeeded but PR_GET_MDWE reads %d", now);
		return 0;
	}
	log_info("memory: MDWE on: no process may map memory writable and executable");
	report_add(&b->rep, "memory", "mdwe", "applied", "refuse-exec-gain");
	return 0;
}

int stage_memory(struct boot *b)
{
	if (check_nx(b) < 0)
		return -1;
	if (b->cfg.aslr)
		apply_aslr(b);
	else
		report_add(&b->rep, "memory", "aslr", "skipped", "[memory] aslr = no");
	if (b->cfg.mdwe)
		return apply_mdwe(b);
	report_add(&b->rep, "memory", "mdwe", "skipped", "[memory] mdwe = no");
	return 0;
}
