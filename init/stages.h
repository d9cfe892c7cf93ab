/* Every stage's entry point. The order of a boot lives in one table, in
 * init/main.c; each stage is one file in stages/. */
#ifndef HARDINIT_STAGES_H
#define HARDINIT_STAGES_H

#include "boot.h"

int stage_early(struct boot *b);      /* stages/early.c: API mounts, console, fds */
int stage_config(struct boot *b);     /* stages/config.c: config + cmdline overrides */
int stage_sysctl_start(struct boot *b); /* stages/sysctl_start.c: slow sysctl writes begun on a child */
int stage_modules(struct boot *b);    /* stages/modules.c: finit_module the builder's list */
int stage_root(struct boot *b);       /* stages/root.c: wait for and mount root= */
int stage_prefetch(struct boot *b);   /* stages/prefetch.c: the root's files, looked up in parallel */
int stage_prefetch_join(struct boot *b); /* stages/prefetch.c: wait for those lookups (bounded) */
int stage_switchroot(struct boot *b); /* stages/switchroot.c: move mounts, MS_MOVE, chroot, free initramfs */
int stage_selinux(struct boot *b);    /* stages/selinux.c: load policy, booleans, relabel */
int stage_memory(struct boot *b);     /* stages/memory.c: NX, ASLR, MDWE */
int stage_sysctl(struct boot *b);     /* stages/sysctl.c: profile sysctls, cmdline protections */
int stage_mounts(struct boot *b);     /* stages/mounts.c: shared /, hardened API mounts, polydirs */
int stage_tty(struct boot *b);        /* stages/tty.c: TIOCSTI policy, seccomp */
int stage_caps(struct boot *b);       /* stages/caps.c: usermodehelper, bounding, inheritable */
int stage_locks(struct boot *b);      /* stages/locks.c: modules, kexec, lockdown, ptrace */
int stage_report(struct boot *b);     /* stages/report.c: write /run/hardinit */

/* The hand-off never returns on success; on failure it returns -1 with
 * b->err set, and the runner takes the failure action. */
int handoff_exec(struct boot *b);     /* stages/handoff.c */

#endif
