/* Per-architecture facts, one table per architecture (arch/x86_64.c,
 * arch/aarch64.c): the seccomp ABIs a kernel of that architecture reports
 * and their syscall numbers, the memory facts, and the kernel command-line
 * words only that architecture's kernel reads. The architecture hardinit
 * runs on is chosen when it is compiled (hi_arch_native(), arch/arch.c); every
 * table is compiled in everywhere so tests can build one architecture's
 * seccomp program and feed it another's syscalls. */
#ifndef HARDINIT_ARCH_TYPES_H
#define HARDINIT_ARCH_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARCH_MAX_IOCTL_NRS 4

/* One system-call ABI as seccomp_data shows it. */
struct arch_abi {
	const char *name;                     /* "x86_64", "i386", "aarch64", "arm" */
	uint32_t audit_arch;                  /* seccomp_data.arch (linux/audit.h) */
	uint32_t ioctl_nrs[ARCH_MAX_IOCTL_NRS];  /* every seccomp_data.nr that is ioctl */
	size_t n_ioctl_nrs;
};

/* A command-line word that weakens memory protection on this architecture. */
struct arch_weakener {
	const char *key;
	const char *value;   /* the weakening value; NULL: any or none */
	const char *why;
};

struct arch {
	const char *name;          /* uname -m: "x86_64", "aarch64" */
	const char *deb;           /* Debian's name: "amd64", "arm64" */
	uint16_t elf_machine;      /* e_machine: EM_X86_64, EM_AARCH64 */
	/* seccomp: the native ABI and the 32-bit compat one (name NULL: none) */
	struct arch_abi native, compat;
	/* memory: the /proc/cpuinfo flag that says data pages can be made
	 * non-executable; NULL where execute-never is architectural */
	const char *nx_cpuinfo_flag;
	/* the largest CONFIG_ARCH_MMAP_RND_{,COMPAT_}BITS_MAX any configuration
	 * of this architecture allows: where the walk up vm.mmap_rnd_bits starts */
	int mmap_rnd_bits_max, mmap_rnd_compat_bits_max;
	const struct arch_weakener *weakeners;
	size_t n_weakeners;
	/* command-line words only this architecture's kernel reads: a bare key
	 * ("vsyscall") stands for every value, "key=value" for that value only */
	const char *const *words;
	size_t n_words;
};

#endif
