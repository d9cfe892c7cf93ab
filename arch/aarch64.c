/* aarch64: the facts of arch/arch.h for a 64-bit Arm kernel. */
#include <elf.h>

#include <linux/audit.h>

#include "aarch64.h"
#include "arch_types.h"

/* Words that switch off a protection arm64 has in hardware; the kernel
 * reads them (arch/arm64/kernel/idreg-override.c, cpufeature.c), and
 * kernel-hardening-checker wants none of them. */
static const struct arch_weakener weakeners[] = {
	{ "arm64.nobti",   NULL, "branch target identification is off for the kernel and user space" },
	{ "arm64.nopauth", NULL, "pointer authentication is off for the kernel and user space" },
	{ "arm64.nomte",   NULL, "memory tagging is off" },
	{ "kpti",          "0",  "kernel page-table isolation is off (Meltdown-class CPUs leak kernel memory)" },
	{ "kpti",          "off", "kernel page-table isolation is off (Meltdown-class CPUs leak kernel memory)" },
};

/* Parsed under arch/arm64 only. rodata= is common; its value "full" is
 * arm64's (arch/arm64/mm/mmu.c). */
static const char *const words[] = {
	"arm64.nobti", "arm64.nopauth", "arm64.nomte", "arm64.nosve", "arm64.nosme",
	"kpti", "ssbd", "rodata=full",
};

const struct arch hi_arch_aarch64 = {
	.name = "aarch64",
	.deb = "arm64",
	.elf_machine = EM_AARCH64,
	/* ioctl is 29 in the generic table (include/uapi/asm-generic/unistd.h);
	 * 32-bit EABI tasks under CONFIG_COMPAT report AUDIT_ARCH_ARM and arm's
	 * own numbers (arch/arm/tools/syscall.tbl: ioctl 54). */
	.native = { "aarch64", AUDIT_ARCH_AARCH64, { 29u }, 1 },
	.compat = { "arm", AUDIT_ARCH_ARM, { 54u }, 1 },
	/* execute-never (UXN/PXN) is part of the architecture: no cpuinfo flag */
	.nx_cpuinfo_flag = NULL,
	/* arch/arm64/Kconfig: 33 with 48-bit VA and 4K pages (Debian's), less
	 * for smaller VA spaces; compat 16 */
	.mmap_rnd_bits_max = 33,
	.mmap_rnd_compat_bits_max = 16,
	.weakeners = weakeners,
	.n_weakeners = sizeof weakeners / sizeof weakeners[0],
	.words = words,
	.n_words = sizeof words / sizeof words[0],
};
