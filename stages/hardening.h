/* The pure pieces of the hardening stages (memory, sysctl, caps, locks),
 * exposed so tests/unit/test_hardening.c can check them without a kernel.
 * The stage entry points themselves are in stages/stages.h. */
#ifndef HARDINIT_HARDENING_H
#define HARDINIT_HARDENING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "boot.h"

/* ---- stages/memory.c ---- */

/* Linux 6.3 uapi; Debian 12's linux-libc-dev (6.1) lacks them. */
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_GET_MDWE
#define PR_GET_MDWE 66
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

/* The walk up vm.mmap_rnd_bits and vm.mmap_rnd_compat_bits starts at
 * the architecture's largest maximum (arch/: mmap_rnd_bits_max). */

/* Does the command-line word `word` contradict the [kernel] word `want`
 * (hardinit check-config --cmdline, for a UKI's baked command line)? The
 * same key with another value (mitigations=off against mitigations=auto;
 * '-' and '_' alike in the key), or a bare word that undoes one of
 * another name (slab_merge against slab_nomerge). */
bool hi_kernel_word_contradicts(const char *word, const char *want);

/* Does the first "flags" line of /proc/cpuinfo text name flag ("nx")? */
bool hi_cpuinfo_has_flag(const char *cpuinfo, const char *flag);

/* Fill found[] with the weakening words present on the command line: a's
 * own (arch/: noexec32 on x86_64, arm64.nobti on aarch64), then the common
 * ones (nokaslr, norandmaps). Returns how many (at most max). */
size_t hi_nx_weakeners_present(const struct cmdline *c, const struct arch *a,
			    const struct arch_weakener **found, size_t max);

/* ---- stages/caps.c ---- */

/* /proc/sys/kernel/usermodehelper/{bset,inheritable}: two 32-bit words,
 * low first ("4294967295 511" once the read collapsed the tab). */
int hi_umh_parse(const char *text, uint32_t words[2]);
/* Clear the bits of drop (bit n = capability n) in the two words. */
void hi_umh_clear(uint32_t words[2], uint64_t drop);
/* The form the kernel's proc_cap_handler takes back: "LOW\tHIGH". */
void hi_umh_format(const uint32_t words[2], char *out, size_t cap);
/* Bit mask of b->cfg.cap_drop, or -1 with b->err set when one is above
 * last_cap (a config written for a newer kernel). */
int hi_caps_drop_mask(struct boot *b, int last_cap, uint64_t *mask);
/* Step 1 of the stage: clear drop in both usermodehelper sets under
 * b->proc, read back, report. Returns 0 or -1 with b->err set. */
int hi_caps_shrink_umh(struct boot *b, uint64_t drop);

/* ---- stages/sysctl.c ---- */

/* The drop-in's name. systemd-sysctl applies every sysctl.d file sorted by
 * file name alone, whatever its directory, the last setting winning; the
 * directory only decides between files of the same name (sysctl.d(5)).
 * Debian 12 ships 99-protect-links.conf (procps: fs.protected_fifos=1) and
 * 99-sysctl.conf (systemd: /etc/sysctl.conf); "zz-" sorts after every
 * digit-prefixed name and after a vendor file without a number prefix. */
#define SYSCTL_DROPIN_NAME "zz-hardinit.conf"
#define SYSCTL_DROPIN_MAX  (16 * 1024)

/* The drop-in text: every applied or already-set sysctl of the report's
 * memory, sysctl and locks items, plus the ptrace scope the locks stage
 * will set (ptrace_scope < 0: none). Returns the length, -1 if too big. */
int hi_sysctl_dropin_format(const struct report *r, int ptrace_scope, char *out, size_t cap);

/* Is a [kernel] word ("slab_nomerge", "lockdown=integrity") in force?
 * Looks at the command line and, where the kernel shows it, the live
 * state under b->sys. why gets a short reason either way. */
bool hi_kernel_opt_in_force(const struct boot *b, const char *word, char *why, size_t whylen);

/* ---- stages/locks.c ---- */

/* The bracketed level of /sys/kernel/security/lockdown text
 * ("none [integrity] confidentiality"), or -1 when there is none. */
int hi_lockdown_parse_current(const char *text);

/* Mount securityfs on b->sys/kernel/security unless its lsm file is
 * already there (never in a dry run). 0 when the file is visible. */
int hi_securityfs_ensure(const struct boot *b);

#endif
