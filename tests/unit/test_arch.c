/* arch/: the per-architecture tables and their lookups. The numbers are
 * written out here from the kernel's own tables, so a wrong entry in
 * arch/ fails a test rather than a boot. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/audit.h>

#include "aarch64.h"
#include "arch.h"
#include "tap.h"
#include "x86_64.h"

static bool has_nr(const struct arch_abi *abi, uint32_t nr)
{
	for (size_t i = 0; i < abi->n_ioctl_nrs; i++)
		if (abi->ioctl_nrs[i] == nr)
			return true;
	return false;
}

static void test_tables(void)
{
	const struct arch *x = &hi_arch_x86_64, *a = &hi_arch_aarch64;

	tap_ok(x->native.audit_arch == AUDIT_ARCH_X86_64 && x->compat.audit_arch == AUDIT_ARCH_I386,
	       "x86_64: seccomp arches x86_64 and i386");
	tap_ok(x->native.n_ioctl_nrs == 3 && has_nr(&x->native, 16) && has_nr(&x->native, 0x40000000u | 514) &&
	       has_nr(&x->native, 0x40000000u | 16), "x86_64: ioctl is 16, x32's 514|bit and 16|bit");
	tap_ok(x->compat.n_ioctl_nrs == 1 && has_nr(&x->compat, 54), "i386: ioctl is 54");
	tap_ok(a->native.audit_arch == AUDIT_ARCH_AARCH64 && a->compat.audit_arch == AUDIT_ARCH_ARM,
	       "aarch64: seccomp arches aarch64 and arm (compat)");
	tap_ok(a->native.n_ioctl_nrs == 1 && has_nr(&a->native, 29), "aarch64: ioctl is 29 (asm-generic)");
	tap_ok(a->compat.n_ioctl_nrs == 1 && has_nr(&a->compat, 54), "arm (EABI): ioctl is 54");
	tap_ok(x->elf_machine == EM_X86_64 && a->elf_machine == EM_AARCH64, "ELF machines");
	tap_streq(x->nx_cpuinfo_flag ? x->nx_cpuinfo_flag : "(none)", "nx", "x86_64: NX is the cpuinfo flag nx");
	tap_ok(a->nx_cpuinfo_flag == NULL, "aarch64: execute-never is architectural, no flag");
	tap_ok(x->mmap_rnd_bits_max == 32 && x->mmap_rnd_compat_bits_max == 16, "x86_64: mmap_rnd_bits up to 32, compat 16");
	tap_ok(a->mmap_rnd_bits_max == 33 && a->mmap_rnd_compat_bits_max == 16, "aarch64: mmap_rnd_bits up to 33, compat 16");
}

static void test_names(void)
{
	tap_ok(hi_arch_by_name("x86_64") == &hi_arch_x86_64 && hi_arch_by_name("amd64") == &hi_arch_x86_64, "x86_64 = amd64");
	tap_ok(hi_arch_by_name("aarch64") == &hi_arch_aarch64 && hi_arch_by_name("arm64") == &hi_arch_aarch64, "aarch64 = arm64");
	tap_ok(hi_arch_by_name("riscv64") == NULL && hi_arch_by_name("") == NULL, "an unknown name: NULL");
}

static void test_words(void)
{
	const struct arch *x = &hi_arch_x86_64, *a = &hi_arch_aarch64;

	tap_ok(hi_arch_of_word("vsyscall=none") == x && hi_arch_of_word("ia32_emulation=0") == x &&
	       hi_arch_of_word("tsx=off") == x && hi_arch_of_word("spectre_v2=on") == x && hi_arch_of_word("nopti") == x,
	       "vsyscall=, ia32_emulation=, tsx=, spectre_v2=, nopti: x86_64");
	tap_ok(hi_arch_of_word("arm64.nobti") == a && hi_arch_of_word("kpti=1") == a && hi_arch_of_word("ssbd=force-on") == a &&
	       hi_arch_of_word("rodata=full") == a, "arm64.nobti, kpti=, ssbd=, rodata=full: aarch64");
	tap_ok(hi_arch_of_word("rodata=on") == NULL, "rodata=on is every architecture's");
	tap_ok(hi_arch_of_word("iommu.strict=1") == NULL && hi_arch_of_word("iommu=force") == x,
	       "iommu.strict= is common, iommu= is x86's (a key is matched whole)");
	tap_ok(hi_arch_of_word("mitigations=auto,nosmt") == NULL && hi_arch_of_word("slab_nomerge") == NULL &&
	       hi_arch_of_word("init_on_alloc=1") == NULL, "common words belong to no architecture");
	tap_ok(hi_arch_of_word("vsyscallx=1") == NULL && hi_arch_of_word("kptix") == NULL, "a longer key is another word");
	tap_ok(hi_arch_reads_word(x, "vsyscall=none") && !hi_arch_reads_word(a, "vsyscall=none"), "only x86_64 reads vsyscall=");
	tap_ok(hi_arch_reads_word(a, "kpti=1") && !hi_arch_reads_word(x, "kpti=1"), "only aarch64 reads kpti=");
	tap_ok(hi_arch_reads_word(a, "slab_nomerge") && hi_arch_reads_word(x, "slab_nomerge"), "both read slab_nomerge");
}

/* The table compiled in is the one of the binary's own ELF header. */
static void test_native(void)
{
	Elf64_Ehdr h;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, &h, sizeof h) == (ssize_t)sizeof h;
	if (fd >= 0)
		close(fd);
	tap_ok(ok && h.e_machine == hi_arch_native()->elf_machine, "arch_native() (%s) is this binary's e_machine (%u)",
	       hi_arch_native()->name, ok ? h.e_machine : 0);
}

int main(void)
{
	test_tables();
	test_names();
	test_words();
	test_native();
	return tap_done();
}
