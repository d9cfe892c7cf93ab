/* The firmware stage's pure pieces (stages/firmware.c), for
 * tests/unit/test_firmware.c and hardinit audit. */
#ifndef HARDINIT_FIRMWARE_H
#define HARDINIT_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"

#define EFI_GLOBAL_GUID  "8be4df61-93ca-11d2-aa0d-00e098032b8c"
/* systemd's loader interface (systemd-boot and systemd-stub). */
#define EFI_LOADER_GUID  "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
/* shim's (EFI_SHIM_LOCK_GUID): MokSBStateRT, the volatile mirror of
 * MokSBState that the kernel's EFI stub reads (efi_get_secureboot()). */
#define EFI_SHIM_LOCK_GUID "605dab50-e046-4300-abb6-3dd810dd8b23"
#define EFI_VARIABLE_NON_VOLATILE 0x1u
#define EFIVAR_TEXT_MAX  128   /* LoaderInfo/StubInfo: "systemd-stub 252.39-1~deb12u2" */

struct firmware_facts {
	bool efi;                       /* SYS/firmware/efi exists: booted by UEFI */
	bool efivars;                   /* the variables were readable */
	int secure_boot;                /* as the kernel decides it: 1 on, 0 off, -1 unknown */
	bool setup_mode;                /* SecureBoot=1 but SetupMode=1: off */
	bool shim_insecure;             /* SecureBoot=1 but shim's validation disabled: off */
	char stub[EFIVAR_TEXT_MAX];     /* StubInfo: set by systemd-stub, i.e. a UKI */
	char loader[EFIVAR_TEXT_MAX];   /* LoaderInfo: set by systemd-boot */
	char stub_pcr[16];              /* StubPcrKernelImage: the PCR the stub measured the UKI into */
	int lockdown;                   /* 0 none, 1 integrity, 2 confidentiality, -1 unknown */
};

/* An efivarfs file's value (the 4-byte attribute header skipped) into
 * buf. Returns its length, or -1 with errno (EINVAL: shorter than the
 * header; E2BIG: larger than cap). */
long hi_efivar_read(const char *efivars, const char *name, unsigned char *buf, size_t cap);
/* The same, with the variable's attributes (EFI_VARIABLE_*) in *attr. */
long hi_efivar_read_attr(const char *efivars, const char *name, unsigned *attr, unsigned char *buf, size_t cap);

/* A UTF-16LE variable (LoaderInfo, StubInfo) as ASCII; other characters
 * become '?'; stops at a NUL; always NUL-terminated. */
void hi_efivar_text(const unsigned char *data, size_t len, char *out, size_t cap);

/* Everything under sys (SYS/firmware/efi, SYS/kernel/security/lockdown);
 * reads only. Secure Boot is what the kernel's EFI stub concludes: on only
 * with SecureBoot=1, SetupMode not 1, and no volatile MokSBStateRT=1
 * (shim told to stop validating: mokutil --disable-validation). */
void hi_firmware_read(const char *sys, struct firmware_facts *f);

struct boot;
/* The facts as report items (stage "firmware") and one log line; a
 * warning for a UKI without Secure Boot. */
void hi_firmware_report(struct boot *b, const struct firmware_facts *f);

/* "on", "off", "unknown" or "no-efi": the report's and audit's word. */
const char *hi_firmware_secure_boot_word(const struct firmware_facts *f);

int hi_stage_firmware(struct boot *b);   /* stages/firmware.c: UEFI, Secure Boot, UKI, lockdown */

#endif
