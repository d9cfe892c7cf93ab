/* The pure pieces of stages/tty.c: the decision table and the seccomp
 * program, exposed so tests/unit/test_tty.c can run the program in a
 * small BPF interpreter against synthetic syscalls. The stage entry point
 * is in stages/stages.h. */
#ifndef HARDINIT_TTY_H
#define HARDINIT_TTY_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/filter.h>

#include "arch_types.h"
#include "boot.h"
#include "config_types.h"

/* The ioctl requests the filter can deny (asm-generic/ioctls.h; the
 * same on x86_64, x32, i386, aarch64 and arm). The syscall numbers and
 * seccomp architectures are arch/'s. */
#define TTY_TIOCSTI   0x5412u
#define TTY_TIOCLINUX 0x541Cu

#define TTY_FILTER_MAX 24

struct tty_filter {
	struct sock_filter insns[TTY_FILTER_MAX];
	unsigned short len;
};

/* Build the program for architecture a: TIOCSTI => errno EIO (what the
 * kernel returns under dev.tty.legacy_tiocsti=0), TIOCLINUX => errno
 * EPERM, every other syscall allowed, a seccomp_data.arch other than a's
 * native and compat ABIs killed (a program built for the wrong
 * architecture fails closed). Returns 0, or -1 when neither request is to
 * be denied. */
int hi_tty_filter_build(struct tty_filter *f, const struct arch *a, bool deny_tiocsti, bool deny_tioclinux);

/* What the stage does for a config, given whether dev.tty.legacy_tiocsti
 * is 0 now. */
struct tty_plan {
	bool seccomp_tiocsti;
	bool seccomp_tioclinux;
	bool filter_required;   /* the filter is the only defence configured: fail closed */
};
void hi_tty_plan_make(const struct config *c, bool sysctl_active, struct tty_plan *p);

/* Install the filter in the calling process (PID 1 in a boot; a child in
 * the tests), without no_new_privs. *spec_allow says whether the kernel
 * took SECCOMP_FILTER_FLAG_SPEC_ALLOW (4.17). Returns 0 or -1 with errno. */
int hi_tty_filter_install(const struct tty_filter *f, bool *spec_allow);

int hi_stage_tty(struct boot *b);        /* stages/tty.c: TIOCSTI policy, seccomp */

#endif
