/* Every stage's entry point. The order of a boot lives in one table, in
 * stages/table.c; each stage is one file in stages/. */
#ifndef HARDINIT_STAGES_H
#define HARDINIT_STAGES_H

#include "boot.h"

int hi_stage_early(struct boot *b);      /* stages/early.c: API mounts, console, fds */
int hi_stage_config(struct boot *b);     /* stages/config.c: config + cmdline overrides */
int hi_stage_firmware(struct boot *b);   /* stages/firmware.c: UEFI, Secure Boot, UKI, lockdown */
int hi_stage_sysctl_start(struct boot *b); /* stages/sysctl_start.c: slow sysctl writes begun on a thread */
int hi_stage_modules(struct boot *b);    /* stages/modules.c: finit_module the builder's list */
int hi_stage_lvm(struct boot *b);        /* stages/lvm.c: activate the LVM logical volume root= names */
/* /dev/VG/LV as lvm2's /dev/mapper/VG-LV (1), or 0 when SPEC is no such
 * name: what the root stage matches (stages/lvm.c, used by resume_check). */
int hi_lvm_spec_mapper(const char *spec, char *out, size_t cap);
int hi_stage_verity(struct boot *b);     /* stages/verity.c: dm-verity device for the root */
int hi_stage_luks(struct boot *b);       /* stages/luks.c: LUKS2 volumes opened with a passphrase */
int hi_stage_root(struct boot *b);       /* stages/root.c: wait for and mount root= */
int hi_resume_check(struct boot *b);     /* stages/root_resume.c: refuse to boot over a hibernated system (the root stage) */
int hi_stage_pcrphase_enter(struct boot *b); /* stages/pcrphase.c: "enter-initrd" into PCR 11, as systemd-pcrphase */
int hi_stage_pcrphase_leave(struct boot *b); /* stages/pcrphase.c: "leave-initrd" into PCR 11 */
int hi_stage_prefetch(struct boot *b);   /* stages/prefetch.c: the root's files, looked up in parallel */
int hi_stage_prefetch_join(struct boot *b); /* stages/prefetch.c: wait for those lookups (bounded) */
int hi_stage_switchroot(struct boot *b); /* stages/switchroot.c: move mounts, MS_MOVE, chroot, free initramfs */
int hi_stage_selinux(struct boot *b);    /* stages/selinux.c: load policy, booleans, relabel */
int hi_stage_memory(struct boot *b);     /* stages/memory.c: NX, ASLR, MDWE */
int hi_stage_sysctl(struct boot *b);     /* stages/sysctl.c: profile sysctls, cmdline protections */
int hi_stage_mounts(struct boot *b);     /* stages/mounts.c: shared /, hardened API mounts, polydirs */
int hi_stage_tty(struct boot *b);        /* stages/tty.c: TIOCSTI policy, seccomp */
int hi_stage_caps(struct boot *b);       /* stages/caps.c: usermodehelper, bounding, inheritable */
int hi_stage_locks(struct boot *b);      /* stages/locks.c: modules, kexec, lockdown, ptrace */
int hi_stage_ima(struct boot *b);        /* stages/ima.c: the IMA policy, before verity and SELinux */
int hi_stage_measure_root(struct boot *b);    /* stages/measure_queue.c: the IMA policy, the verity root hash */
int hi_stage_measure_policy(struct boot *b);  /* stages/measure_queue.c: the config, the SELinux policy */
int hi_stage_measure(struct boot *b);    /* stages/measure.c: hardinit's state into a TPM PCR */
int hi_stage_report(struct boot *b);     /* stages/report.c: write /run/hardinit */

/* fds 0-2 (all of them, or only_closed ones) on DEV/console, else
 * DEV/null for input and DEV/kmsg for output (never a pipe nobody reads);
 * what says which. Returns 0, or -1 when none opened (fds untouched).
 * stages/early.c, used by the hand-off too. */
int hi_console_std_fds(const char *dev, int only_closed, char *what, size_t whatlen);

/* Name what a config error quotes invisibly (a UTF-8 byte-order mark)
 * and say how to fix it; stages/config.c, also used by check-config. */
void hi_config_explain(char *err, size_t cap);

/* The hand-off never returns on success; on failure it returns -1 with
 * b->err set, and the runner takes the failure action. */
int hi_handoff_exec(struct boot *b);     /* stages/handoff.c */

#endif
