/* x86_64: the facts of arch/arch.h for a 64-bit x86 kernel. */
#include <elf.h>

#include <linux/audit.h>

#include "arch_types.h"
#include "x86_64.h"

/* ioctl as seccomp_data.nr shows it (arch/x86/entry/syscalls/syscall_64.tbl
 * and syscall_32.tbl). x32 calls carry __X32_SYSCALL_BIT and report
 * AUDIT_ARCH_X86_64: x32's ioctl is 514; 16 with the bit is "64-bit only"
 * and ENOSYS there, listed all the same in case a kernel ever routes it. */
#define X32_BIT 0x40000000u

static const struct arch_weakener weakeners[] = {
	{ "noexec32",   "off", "32-bit (compat) processes run without NX" },
	{ "noexec",     "off", "asks for NX off (ignored since Linux 5.19; remove it)" },
	{ "clearcpuid", NULL,  "hides CPU features; check it does not name nx" },
	{ "nosmep",     NULL,  "the kernel may execute user memory (SMEP off)" },
	{ "nosmap",     NULL,  "the kernel may read user memory freely (SMAP off)" },
};

/* Parsed under arch/x86 only (kernel-hardening-checker's X86_64 checks,
 * and the x86 CPU bug words of Documentation/admin-guide/kernel-parameters). */
static const char *const words[] = {
	"vsyscall", "vdso32", "ia32_emulation", "iommu", "intel_iommu", "amd_iommu",
	"pti", "nopti", "cfi", "tsx", "spectre_v2", "spectre_v2_user", "spectre_bhi",
	"spec_store_bypass_disable", "l1tf", "mds", "tsx_async_abort", "srbds",
	"mmio_stale_data", "retbleed", "spec_rstack_overflow", "gather_data_sampling",
	"reg_file_data_sampling", "tsa", "indirect_target_selection", "vmscape",
	"noexec32", "noexec", "clearcpuid", "nosmep", "nosmap",
};

const struct arch hi_arch_x86_64 = {
	.name = "x86_64",
	.deb = "amd64",
	.elf_machine = EM_X86_64,
	.native = { "x86_64", AUDIT_ARCH_X86_64, { 16u, X32_BIT | 514u, X32_BIT | 16u }, 3 },
	.compat = { "i386", AUDIT_ARCH_I386, { 54u }, 1 },
	.nx_cpuinfo_flag = "nx",
	/* arch/x86/Kconfig: 32 (47-bit user space), compat 16 */
	.mmap_rnd_bits_max = 32,
	.mmap_rnd_compat_bits_max = 16,
	.weakeners = weakeners,
	.n_weakeners = sizeof weakeners / sizeof weakeners[0],
	.words = words,
	.n_words = sizeof words / sizeof words[0],
};
