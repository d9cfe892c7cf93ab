/* The firmware stage's pure pieces (stages/firmware.c), for
 * tests/unit/test_firmware.c and hardinit audit. */
#ifndef HARDINIT_FIRMWARE_H
#define HARDINIT_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>

#define EFI_GLOBAL_GUID  "8be4df61-93ca-11d2-aa0d-00e098032b8c"
/* systemd's loader interface (systemd-boot and systemd-stub). */
#define EFI_LOADER_GUID  "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
#define EFIVAR_TEXT_MAX  128   /* LoaderInfo/StubInfo: "systemd-stub 252.39-1~deb12u2" */

struct firmware_facts {
	bool efi;                       /* SYS/firmware/efi exists: booted by UEFI */
	bool efivars;                   /* the variables were readable */
	int secure_boot;                /* 1 on, 0 off, -1 unknown */
	char stub[EFIVAR_TEXT_MAX];     /* StubInfo: set by systemd-stub, i.e. a UKI */
	char loader[EFIVAR_TEXT_MAX];   /* LoaderInfo: set by systemd-boot */
	int lockdown;                   /* 0 none, 1 integrity, 2 confidentiality, -1 unknown */
};

/* An efivarfs file's value (the 4-byte attribute header skipped) into
 * buf. Returns its length, or -1 with errno (EINVAL: shorter than the
 * header; E2BIG: larger than cap). */
long efivar_read(const char *efivars, const char *name, unsigned char *buf, size_t cap);

/* A UTF-16LE variable (LoaderInfo, StubInfo) as ASCII; other characters
 * become '?'; stops at a NUL; always NUL-terminated. */
void efivar_text(const unsigned char *data, size_t len, char *out, size_t cap);

/* Everything under sys (SYS/firmware/efi, SYS/kernel/security/lockdown);
 * reads only. */
void firmware_read(const char *sys, struct firmware_facts *f);

struct boot;
/* The facts as report items (stage "firmware") and one log line; a
 * warning for a UKI without Secure Boot. */
void firmware_report(struct boot *b, const struct firmware_facts *f);

#endif
