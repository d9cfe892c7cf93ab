/* TTY: stop TIOCSTI (pushing characters into a terminal's input, the
 * classic way for a program left on a tty to type commands into the
 * shell of whoever owns it) and the line-discipline autoload.
 *
 * Two mechanisms:
 * - dev.tty.legacy_tiocsti=0 (6.2): TIOCSTI fails with EIO unless the
 *   caller has CAP_SYS_ADMIN. Debian's 6.12 defaults to 0, upstream to 1,
 *   so it is written and read back either way. Debian 12's 6.1 lacks it.
 * - a seccomp filter installed in PID 1: inherited by every process the
 *   real init starts and kept across execve, it fails TIOCSTI for
 *   everyone, root included. Used where the sysctl is missing, and for
 *   deny-all or tiocsti_seccomp.
 *
 * PID 1 has CAP_SYS_ADMIN, so the filter needs no no_new_privs; setting
 * it would be inherited too and break every setuid program (su, sudo,
 * passwd) on the system, so it is never set. */
#include "tty.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "arch.h"
#include "boot.h"
#include "config_table.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "sysctl_apply.h"

#define STAGE "tty"

/* ---- the filter -------------------------------------------------------- */

/* A tiny assembler: classic BPF jumps are forward offsets of 8 bits, so
 * the program is written with labels and the offsets are filled in at
 * the end. */
enum label { L_NEXT = -1, L_COMPAT, L_ARGS, L_ALLOW, L_DENY_STI, L_DENY_LINUX, L_KILL, L_COUNT };

struct bpf_asm {
	struct tty_filter *f;
	int at[L_COUNT];
	int jt[TTY_FILTER_MAX], jf[TTY_FILTER_MAX];
	bool overflow;
};

static void emit(struct bpf_asm *a, unsigned short code, unsigned k, int jt, int jf)
{
	if (a->f->len >= TTY_FILTER_MAX) {
		a->overflow = true;
		return;
	}
	a->jt[a->f->len] = jt;
	a->jf[a->f->len] = jf;
	a->f->insns[a->f->len++] = (struct sock_filter)BPF_STMT(code, k);
}

static void place(struct bpf_asm *a, enum label l)
{
	a->at[l] = a->f->len;
}

static int resolve(struct bpf_asm *a)
{
	for (int i = 0; i < a->f->len; i++) {
		int t[2] = { a->jt[i], a->jf[i] };
		unsigned char off[2] = { 0, 0 };
		for (int j = 0; j < 2; j++) {
			if (t[j] == L_NEXT)
				continue;
			int d = a->at[t[j]] - (i + 1);
			if (a->at[t[j]] < 0 || d < 0 || d > 255)
				return -1;
			off[j] = (unsigned char)d;
		}
		a->f->insns[i].jt = off[0];
		a->f->insns[i].jf = off[1];
	}
	return a->overflow ? -1 : 0;
}

/* The kernel takes ioctl's request as unsigned int: only the low 32 bits
 * of args[1] count, and a filter comparing all 64 is bypassed by setting
 * a high bit. Every architecture in arch/ is little-endian (aarch64 Linux
 * as Debian builds it too), so the low word comes first. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the TIOCSTI filter reads args[1]'s low word at the little-endian offset"
#endif
#define ARG1_LOW (offsetof(struct seccomp_data, args) + sizeof(__u64))

/* arch == abi: load nr, to L_ARGS when it is one of abi's ioctl numbers,
 * else to L_ALLOW. */
static void emit_abi(struct bpf_asm *a, const struct arch_abi *abi)
{
	emit(a, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), L_NEXT, L_NEXT);
	for (size_t i = 0; i < abi->n_ioctl_nrs; i++)
		emit(a, BPF_JMP | BPF_JEQ | BPF_K, abi->ioctl_nrs[i], L_ARGS,
		     i + 1 < abi->n_ioctl_nrs ? L_NEXT : L_ALLOW);
}

int hi_tty_filter_build(struct tty_filter *f, const struct arch *arch, bool deny_tiocsti, bool deny_tioclinux)
{
	struct bpf_asm a;
	bool compat = arch->compat.name != NULL;

	memset(f, 0, sizeof *f);
	memset(&a, 0, sizeof a);
	for (int i = 0; i < L_COUNT; i++)
		a.at[i] = -1;
	a.f = f;
	if (!deny_tiocsti && !deny_tioclinux)
		return -1;

	/* A kernel reports only its native and compat ABIs; any other arch
	 * is an ABI this program was not built for, so it fails closed: a
	 * program of one architecture installed on another kills every
	 * syscall rather than checking the wrong numbers. */
	emit(&a, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), L_NEXT, L_NEXT);
	emit(&a, BPF_JMP | BPF_JEQ | BPF_K, arch->native.audit_arch, L_NEXT, compat ? L_COMPAT : L_KILL);
	emit_abi(&a, &arch->native);
	if (compat) {
		place(&a, L_COMPAT);
		emit(&a, BPF_JMP | BPF_JEQ | BPF_K, arch->compat.audit_arch, L_NEXT, L_KILL);
		emit_abi(&a, &arch->compat);
	}
	place(&a, L_ARGS);
	emit(&a, BPF_LD | BPF_W | BPF_ABS, ARG1_LOW, L_NEXT, L_NEXT);
	if (deny_tiocsti)
		emit(&a, BPF_JMP | BPF_JEQ | BPF_K, TTY_TIOCSTI, L_DENY_STI, L_NEXT);
	if (deny_tioclinux)
		emit(&a, BPF_JMP | BPF_JEQ | BPF_K, TTY_TIOCLINUX, L_DENY_LINUX, L_NEXT);
	place(&a, L_ALLOW);
	emit(&a, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, L_NEXT, L_NEXT);
	if (deny_tiocsti) {
		place(&a, L_DENY_STI);
		emit(&a, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EIO & SECCOMP_RET_DATA), L_NEXT, L_NEXT);
	}
	if (deny_tioclinux) {
		place(&a, L_DENY_LINUX);
		emit(&a, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA), L_NEXT, L_NEXT);
	}
	place(&a, L_KILL);
	emit(&a, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, L_NEXT, L_NEXT);
	return resolve(&a);
}

int hi_tty_filter_install(const struct tty_filter *f, bool *spec_allow)
{
	struct sock_fprog prog = { .len = f->len, .filter = (struct sock_filter *)f->insns };

	/* Without SPEC_ALLOW, a seccomp filter turns on the Speculative Store
	 * Bypass mitigation (spec_store_bypass_disable=seccomp, the default
	 * where the CPU needs it) for the whole system below PID 1: a cost
	 * the TIOCSTI filter is not worth. The flag is 4.17. */
	*spec_allow = true;
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog);
	if (r < 0 && errno == EINVAL) {
		*spec_allow = false;
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	}
	return r < 0 ? -1 : 0;
}

/* ---- the decision ------------------------------------------------------ */

void hi_tty_plan_make(const struct config *c, bool sysctl_active, struct tty_plan *p)
{
	memset(p, 0, sizeof *p);
	/* deny-unprivileged without the sysctl: the filter is the only way
	 * left, and it denies root too. */
	if (c->tiocsti == TIOCSTI_DENY_ALL)
		p->seccomp_tiocsti = true;
	else if (c->tiocsti == TIOCSTI_DENY_UNPRIVILEGED)
		p->seccomp_tiocsti = !sysctl_active || c->tiocsti_seccomp;
	p->seccomp_tioclinux = c->deny_tioclinux;
	p->filter_required = c->tiocsti == TIOCSTI_DENY_ALL ||
			     (c->tiocsti == TIOCSTI_DENY_UNPRIVILEGED && !sysctl_active);
}

/* ---- the stage --------------------------------------------------------- */

/* Write a sysctl and read it back (stages/sysctl_apply.c classifies).
 * Returns 1 when it holds value now, 0 when the kernel has no such
 * sysctl, -1 when it would not take it. */
static int tty_sysctl(struct boot *b, const char *key, const char *value, const char *since)
{
	struct sysctl_io io = hi_sysctl_io_proc(b->proc);
	struct sysctl_result r;
	enum sysctl_outcome o = b->mode == MODE_DRY_RUN ? hi_sysctl_check_one(&io, key, value, &r)
							 : hi_sysctl_apply_one(&io, key, value, &r);

	if (o == SYSCTL_ABSENT) {
		hi_report_add(&b->rep, STAGE, key, "absent", "not in this kernel (%s+)", since);
		return 0;
	}
	if (o == SYSCTL_REFUSED && b->mode == MODE_DRY_RUN && r.err == 0) {
		log_info("would set %s=%s (now %s)", key, value, r.before);
		return 1;
	}
	if (o == SYSCTL_REFUSED) {
		log_warn("%s=%s did not hold (%s)", key, value, r.err ? strerror(r.err) : r.after);
		hi_report_add(&b->rep, STAGE, key, "failed", "%s", r.after);
		return -1;
	}
	hi_report_add(&b->rep, STAGE, key, hi_sysctl_outcome_name(o), "%s", value);
	return 1;
}

/* Seccomp: 2 in PID 1's own status is the kernel's word that the filter
 * is in place (Seccomp_filters counts them, 5.9+). */
static bool seccomp_in_force(struct boot *b, char *count, size_t cap)
{
	char path[BOOT_PATH_MAX + 16], status[4096];

	snprintf(count, cap, "?");
	if (!hi_boot_path(path, sizeof path, b->proc, "self/status") ||
	    hi_fs_read(path, status, sizeof status, NULL) < 0)
		return false;
	const char *f = strstr(status, "Seccomp_filters:");
	if (f) {
		f += strlen("Seccomp_filters:");
		f += strspn(f, " \t");
		snprintf(count, cap, "%.*s", (int)strcspn(f, "\n"), f);
	}
	const char *s = strstr(status, "\nSeccomp:");
	return s && strtol(s + 9, NULL, 10) == SECCOMP_MODE_FILTER;
}

static int tty_seccomp(struct boot *b, const struct tty_plan *p, bool *active)
{
	struct tty_filter f;
	bool spec_allow;
	char count[16];

	*active = false;
	if (!p->seccomp_tiocsti && !p->seccomp_tioclinux)
		return 0;
	if (hi_tty_filter_build(&f, hi_arch_native(), p->seccomp_tiocsti, p->seccomp_tioclinux) < 0)
		return hi_boot_error(b, "building the TIOCSTI seccomp filter failed (a bug); "
				  "set [tty] tiocsti = allow to boot");
	const char *what = p->seccomp_tiocsti && p->seccomp_tioclinux ? "TIOCSTI,TIOCLINUX" :
			   p->seccomp_tiocsti ? "TIOCSTI" : "TIOCLINUX";
	if (b->mode == MODE_DRY_RUN) {
		log_info("would install a seccomp filter denying %s (%u instructions)", what, f.len);
		*active = true;
		return 0;
	}
	int r = hi_tty_filter_install(&f, &spec_allow);
	if (r < 0) {
		int e = errno;
		if (p->filter_required && p->seccomp_tiocsti)
			return hi_boot_error(b, "installing the seccomp filter against %s failed: %s; the "
					  "kernel needs CONFIG_SECCOMP_FILTER, or set [tty] tiocsti = "
					  "allow", what, strerror(e));
		log_warn("installing the seccomp filter against %s failed: %s", what, strerror(e));
		hi_report_add(&b->rep, STAGE, "seccomp", "failed", "%s: %s", what, strerror(e));
		return 0;
	}
	*active = seccomp_in_force(b, count, sizeof count);
	hi_report_add(&b->rep, STAGE, "seccomp", *active ? "applied" : "failed",
		   "%s errno, %u insns, spec_allow=%s, Seccomp_filters=%s", what, f.len,
		   spec_allow ? "yes" : "no", count);
	return 0;
}

int hi_stage_tty(struct boot *b)
{
	const struct config *c = &b->cfg;
	struct tty_plan p;
	int sysctl = 0;
	bool filter = false;
	char now[32];

	if (c->tiocsti != TIOCSTI_ALLOW) {
		sysctl = tty_sysctl(b, "dev.tty.legacy_tiocsti", "0", "6.2");
		tty_sysctl(b, "dev.tty.ldisc_autoload", "0", "5.1");
	} else {
		if (c->tiocsti_seccomp)
			log_warn("[tty] tiocsti_seccomp is ignored with tiocsti = allow");
		if (hi_sysctl_read(b->proc, "dev.tty.legacy_tiocsti", now, sizeof now) == 0)
			hi_report_add(&b->rep, STAGE, "dev.tty.legacy_tiocsti", "info", "%s (left alone)", now);
	}
	hi_tty_plan_make(c, sysctl == 1, &p);
	if (tty_seccomp(b, &p, &filter) < 0)
		return -1;
	bool by_filter = filter && p.seccomp_tiocsti;
	const char *mech = sysctl == 1 && by_filter ? "both" : sysctl == 1 ? "sysctl" :
			   by_filter ? "seccomp" : "none";
	hi_report_add(&b->rep, STAGE, "tiocsti", c->tiocsti == TIOCSTI_ALLOW ? "skipped" : "ok",
		   "mode=%s mechanism=%s tioclinux=%s", hi_config_tiocsti_name(c->tiocsti), mech,
		   filter && p.seccomp_tioclinux ? "denied" : "allowed");
	if (c->tiocsti != TIOCSTI_ALLOW && strcmp(mech, "none") == 0)
		log_warn("TIOCSTI is not denied: this kernel has no dev.tty.legacy_tiocsti and the "
			 "seccomp filter is not in place");
	return 0;
}
