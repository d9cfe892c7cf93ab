/* The memory stage: NX, address-space randomisation, and system-wide
 * memory-deny-write-execute (the ExecShield part of the hardening). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "arch.h"
#include "boot.h"
#include "fsutil.h"
#include "hardening.h"
#include "log.h"
#include "memory.h"
#include "report.h"
#include "sysctl_apply.h"


/* The first CPU's flags line sits in the first few KiB; a machine with
 * hundreds of CPUs has a cpuinfo of hundreds of KiB we do not need. */
#define CPUINFO_PREFIX_BYTES (16 * 1024)

/* Words that weaken address randomisation on every architecture; the
 * architecture's own (NX, BTI, PAC...) are in its arch/ table. */
static const struct arch_weakener common_weakeners[] = {
	{ "nokaslr",    NULL,  "kernel address-space randomisation is off" },
	{ "norandmaps", NULL,  "process address-space randomisation is off" },
};

/* Bare words that undo a [kernel] word of another name: the word, and the
 * key it undoes whatever that key's value. */
static const struct { const char *word, *undoes; } undoing_words[] = {
	{ "slab_merge",                  "slab_nomerge" },
	{ "nopti",                       "pti" },
	{ "nospectre_v1",                "spectre_v1" },
	{ "nospectre_v2",                "spectre_v2" },
	{ "nospec_store_bypass_disable", "spec_store_bypass_disable" },
	{ "nokaslr",                     "kaslr" },
};

/* The key of a word ("init_on_free=1" -> "init_on_free"), '-' as '_' as
 * the kernel's parameter parser takes them. */
static void word_key(const char *word, char *out, size_t cap)
{
	size_t i = 0;
	for (; word[i] && word[i] != '=' && i + 1 < cap; i++)
		out[i] = word[i] == '-' ? '_' : word[i];
	out[i] = '\0';
}

bool hi_kernel_word_contradicts(const char *word, const char *want)
{
	char k[128], w[128];

	if (strcmp(word, want) == 0)
		return false;
	word_key(word, k, sizeof k);
	word_key(want, w, sizeof w);
	if (strcmp(k, w) == 0)
		return true;
	for (size_t i = 0; i < sizeof undoing_words / sizeof undoing_words[0]; i++)
		if (strcmp(word, undoing_words[i].word) == 0 && strcmp(w, undoing_words[i].undoes) == 0)
			return true;
	return false;
}

static bool weakener_hit(const struct cmdline *c, const struct arch_weakener *w)
{
	bool bare = false;
	const char *v = hi_cmdline_get(c, w->key, &bare);
	return w->value ? (v && strcmp(v, w->value) == 0) : (bare || v);
}

size_t hi_nx_weakeners_present(const struct cmdline *c, const struct arch *a,
			    const struct arch_weakener **found, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_weakeners && n < max; i++)
		if (weakener_hit(c, &a->weakeners[i]))
			found[n++] = &a->weakeners[i];
	for (size_t i = 0; i < sizeof common_weakeners / sizeof common_weakeners[0] && n < max; i++)
		if (weakener_hit(c, &common_weakeners[i]))
			found[n++] = &common_weakeners[i];
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

bool hi_cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	for (const char *line = cpuinfo; line && *line;) {
		if (strncmp(line, "flags", 5) == 0) {
			const char *colon = strchr(line, ':');
			const char *nl = strchr(line, '\n');
			if (colon && (!nl || colon < nl))
				return word_in(colon + 1, flag);
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
	const struct arch *a = hi_arch_native();
	char path[BOOT_PATH_MAX];
	const struct arch_weakener *found[8];
	size_t n = hi_nx_weakeners_present(&b->cmd, a, found, 8);

	for (size_t i = 0; i < n; i++) {
		log_warn("memory: kernel command line has %s%s%s: %s", found[i]->key,
			 found[i]->value ? "=" : "", found[i]->value ? found[i]->value : "", found[i]->why);
		hi_report_add(&b->rep, "memory", found[i]->key, "warn", "%s", found[i]->why);
	}

	if (!a->nx_cpuinfo_flag) {
		hi_report_add(&b->rep, "memory", "nx", "ok", "execute-never is architectural on %s", a->name);
		return 0;
	}
	if (!hi_boot_path(path, sizeof path, b->proc, "cpuinfo") ||
	    hi_fs_read_prefix(path, cpuinfo, sizeof cpuinfo, NULL) < 0) {
		log_warn("memory: cannot read %s/cpuinfo (%s); NX not verified", b->proc, strerror(errno));
		hi_report_add(&b->rep, "memory", "nx", "warn", "not verified: cpuinfo unreadable");
		return b->cfg.nx == NX_REQUIRE ?
			hi_boot_error(b, "memory: NX is required but %s/cpuinfo cannot be read; "
				   "check that proc is mounted or set [memory] nx = warn", b->proc) : 0;
	}
	if (hi_cpuinfo_has_flag(cpuinfo, a->nx_cpuinfo_flag)) {
		hi_report_add(&b->rep, "memory", "nx", "ok", "cpu flag %s present", a->nx_cpuinfo_flag);
		return 0;
	}
	hi_report_add(&b->rep, "memory", "nx", b->cfg.nx == NX_REQUIRE ? "failed" : "warn",
		   "cpu flag %s missing", a->nx_cpuinfo_flag);
	if (b->cfg.nx == NX_REQUIRE)
		return hi_boot_error(b, "memory: the CPU does not report NX (no %s flag in %s/cpuinfo), so "
				  "data pages are executable; enable NX/XD in the firmware or hypervisor, "
				  "or set [memory] nx = warn", a->nx_cpuinfo_flag, b->proc);
	log_warn("memory: the CPU does not report NX (no %s flag in cpuinfo); data pages are executable",
		 a->nx_cpuinfo_flag);
	return 0;
}

static void report_sysctl(struct boot *b, const char *key, const struct sysctl_result *r)
{
	const char *status = hi_sysctl_outcome_name(r->outcome);

	if (r->outcome == SYSCTL_REFUSED || r->outcome == SYSCTL_ABSENT)
		log_warn("memory: %s not set (%s%s%s; it reads %s)", key, status,
			 r->err ? ": " : "", r->err ? strerror(r->err) : "", r->after[0] ? r->after : "nothing");
	else
		log_debug("memory: %s = %s (%s)", key, r->after, status);
	hi_report_add(&b->rep, "memory", key, status, "%s", r->after);
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
	struct sysctl_io io = hi_sysctl_io_proc(b->proc);
	struct sysctl_result r;

	for (size_t i = 0; i < sizeof aslr_sysctls / sizeof aslr_sysctls[0]; i++) {
		if (b->mode == MODE_DRY_RUN) {
			hi_sysctl_check_one(&io, aslr_sysctls[i].key, aslr_sysctls[i].value, &r);
			log_info("memory: would set %s = %s (now %s)", aslr_sysctls[i].key,
				 aslr_sysctls[i].value, r.before[0] ? r.before : "unreadable");
			continue;
		}
		hi_sysctl_apply_one(&io, aslr_sysctls[i].key, aslr_sysctls[i].value, &r);
		report_sysctl(b, aslr_sysctls[i].key, &r);
	}
	for (size_t i = 0; i < sizeof rnd_bits_sysctls / sizeof rnd_bits_sysctls[0]; i++) {
		long best = 0;
		if (b->mode == MODE_DRY_RUN) {
			log_info("memory: would raise %s to the kernel's maximum", rnd_bits_sysctls[i]);
			continue;
		}
		const struct arch *a = hi_arch_native();
		hi_sysctl_raise_to_max(&io, rnd_bits_sysctls[i],
				    i == 0 ? a->mmap_rnd_bits_max : a->mmap_rnd_compat_bits_max, &best, &r);
		/* No compat bits without CONFIG_COMPAT: nothing to randomise. */
		if (r.outcome == SYSCTL_ABSENT && i == 1) {
			hi_report_add(&b->rep, "memory", rnd_bits_sysctls[i], "absent", "no 32-bit compat");
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
			hi_report_add(&b->rep, "memory", "mdwe", "absent", "needs Linux 6.3");
			return 0;
		}
		log_warn("memory: PR_SET_MDWE failed: %s; continuing without W^X", strerror(errno));
		hi_report_add(&b->rep, "memory", "mdwe", "failed", "%s", strerror(errno));
		return 0;
	}
	int now = prctl(PR_GET_MDWE, 0L, 0L, 0L, 0L);
	if (now < 0 || !(now & PR_MDWE_REFUSE_EXEC_GAIN)) {
		hi_report_add(&b->rep, "memory", "mdwe", "refused", "PR_GET_MDWE reads %d", now);
		log_warn("memory: PR_SET_MDWE succeeded but PR_GET_MDWE reads %d", now);
		return 0;
	}
	log_info("memory: MDWE on: no process may map memory writable and executable");
	hi_report_add(&b->rep, "memory", "mdwe", "applied", "refuse-exec-gain");
	return 0;
}

int hi_stage_memory(struct boot *b)
{
	if (check_nx(b) < 0)
		return -1;
	if (b->cfg.aslr)
		apply_aslr(b);
	else
		hi_report_add(&b->rep, "memory", "aslr", "skipped", "[memory] aslr = no");
	if (b->cfg.mdwe)
		return apply_mdwe(b);
	hi_report_add(&b->rep, "memory", "mdwe", "skipped", "[memory] mdwe = no");
	return 0;
}
