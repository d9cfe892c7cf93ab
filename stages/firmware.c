/* The firmware stage: how this kernel was started. UEFI or not, Secure
 * Boot on or off as the kernel's EFI stub decides it (SecureBoot,
 * SetupMode, shim's MokSBStateRT), a unified kernel image or not
 * (systemd-stub sets StubInfo before it starts the kernel; systemd-boot
 * sets LoaderInfo), and the lockdown level the kernel chose by itself
 * (Debian's kernels enter integrity under Secure Boot:
 * CONFIG_LOCK_DOWN_IN_EFI_SECURE_BOOT). Facts only: nothing here fails a
 * boot, and the later stages are what harden it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "firmware.h"
#include "fsutil.h"
#include "hardening.h"
#include "locks.h"
#include "log.h"

#define EFIVAR_FILE_MAX  (4 + 2 * EFIVAR_TEXT_MAX)  /* attributes + UTF-16 text */
#define LOCKDOWN_TEXT_MAX 128

static const char *const lockdown_level_names[] = { "none", "integrity", "confidentiality" };

long hi_efivar_read(const char *efivars, const char *name, unsigned char *buf, size_t cap)
{
	return hi_efivar_read_attr(efivars, name, NULL, buf, cap);
}

long hi_efivar_read_attr(const char *efivars, const char *name, unsigned *attr, unsigned char *buf, size_t cap)
{
	char path[BOOT_PATH_MAX], raw[EFIVAR_FILE_MAX + 1];
	size_t len = 0;

	if (!hi_boot_path(path, sizeof path, efivars, name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (hi_fs_read(path, raw, sizeof raw, &len) < 0)
		return -1;
	if (len < 4) {
		errno = EINVAL;
		return -1;
	}
	if (len - 4 > cap) {
		errno = E2BIG;
		return -1;
	}
	if (attr)
		*attr = (unsigned char)raw[0] | (unsigned char)raw[1] << 8 | (unsigned char)raw[2] << 16 |
			(unsigned)(unsigned char)raw[3] << 24;
	memcpy(buf, raw + 4, len - 4);
	return (long)(len - 4);
}

void hi_efivar_text(const unsigned char *data, size_t len, char *out, size_t cap)
{
	size_t n = 0;

	if (cap == 0)
		return;
	for (size_t i = 0; i + 1 < len && n + 1 < cap; i += 2) {
		unsigned c = data[i] | (unsigned)data[i + 1] << 8;
		if (c == 0)
			break;
		out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[n] = '\0';
}

static void read_text_var(const char *efivars, const char *name, char *out, size_t cap)
{
	unsigned char data[2 * EFIVAR_TEXT_MAX];
	long n = hi_efivar_read(efivars, name, data, sizeof data);

	out[0] = '\0';
	if (n > 0)
		hi_efivar_text(data, (size_t)n, out, cap);
}

/* What makes the kernel's EFI stub (drivers/firmware/efi/libstub/
 * secureboot.c) treat SecureBoot=1 as off: the firmware in setup mode, or
 * shim's validation disabled, which shim says in the volatile
 * MokSBStateRT; the kernel ignores a non-volatile one (anyone who could
 * write NVRAM could set it). Unreadable variables leave it on, as there. */
static void secure_boot_downgrades(const char *efivars, struct firmware_facts *f)
{
	unsigned char v[8];
	unsigned attr = 0;

	if (hi_efivar_read(efivars, "SetupMode-" EFI_GLOBAL_GUID, v, sizeof v) == 1 && v[0] == 1)
		f->setup_mode = true;
	if (hi_efivar_read_attr(efivars, "MokSBStateRT-" EFI_SHIM_LOCK_GUID, &attr, v, sizeof v) >= 1 &&
	    v[0] == 1 && !(attr & EFI_VARIABLE_NON_VOLATILE))
		f->shim_insecure = true;
	if (f->setup_mode || f->shim_insecure)
		f->secure_boot = 0;
}

const char *hi_firmware_secure_boot_word(const struct firmware_facts *f)
{
	if (!f->efi)
		return "no-efi";
	return f->secure_boot == 1 ? "on" : f->secure_boot == 0 ? "off" : "unknown";
}

void hi_firmware_read(const char *sys, struct firmware_facts *f)
{
	char efi[BOOT_PATH_MAX], efivars[BOOT_PATH_MAX], path[BOOT_PATH_MAX];
	char text[LOCKDOWN_TEXT_MAX];
	unsigned char sb[8];
	struct stat st;

	memset(f, 0, sizeof *f);
	f->secure_boot = -1;
	f->lockdown = -1;
	if (hi_boot_path(path, sizeof path, sys, "kernel/security/lockdown") &&
	    hi_fs_read(path, text, sizeof text, NULL) == 0)
		f->lockdown = hi_lockdown_parse_current(text);
	if (!hi_boot_path(efi, sizeof efi, sys, "firmware/efi") || stat(efi, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	f->efi = true;
	if (!hi_boot_path(efivars, sizeof efivars, efi, "efivars"))
		return;
	long n = hi_efivar_read(efivars, "SecureBoot-" EFI_GLOBAL_GUID, sb, sizeof sb);
	if (n == 1) {
		f->efivars = true;
		f->secure_boot = sb[0] == 1;
	}
	if (f->secure_boot == 1)
		secure_boot_downgrades(efivars, f);
	read_text_var(efivars, "StubInfo-" EFI_LOADER_GUID, f->stub, sizeof f->stub);
	read_text_var(efivars, "LoaderInfo-" EFI_LOADER_GUID, f->loader, sizeof f->loader);
	read_text_var(efivars, "StubPcrKernelImage-" EFI_LOADER_GUID, f->stub_pcr, sizeof f->stub_pcr);
	if (f->stub[0] || f->loader[0])
		f->efivars = true;
}

static bool dir_is_empty(const char *path)
{
	char probe[BOOT_PATH_MAX];

	/* The efivars mount point of sysfs is an empty directory until
	 * efivarfs is mounted on it; SecureBoot exists on every UEFI. */
	return hi_boot_path(probe, sizeof probe, path, "SecureBoot-" EFI_GLOBAL_GUID) &&
	       access(probe, F_OK) < 0 && errno == ENOENT;
}

/* Read-only, and only for as long as the reading takes: writing a
 * variable is the one way this file system changes the machine (firmware
 * NVRAM), and unmounting leaves /sys as the kernel made it, so systemd
 * mounts efivarfs as it always does (bootctl and efibootmgr keep working).
 * Returns 1 when it mounted efivarfs, 0 when it did not. */
static int efivarfs_mount(const struct boot *b, char *dir, size_t cap)
{
	struct stat st;

	if (!hi_boot_path(dir, cap, b->sys, "firmware/efi/efivars") || stat(dir, &st) < 0 ||
	    !S_ISDIR(st.st_mode) || !dir_is_empty(dir))
		return 0;
	if (b->mode == MODE_DRY_RUN || getpid() != 1)
		return 0;
	if (mount("efivarfs", dir, "efivarfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		log_warn("firmware: cannot mount efivarfs read-only on %s: %s; Secure Boot state unknown",
			 dir, strerror(errno));
		return 0;
	}
	return 1;
}

static const char *lockdown_name(int level)
{
	return level >= 0 && level < 3 ? lockdown_level_names[level] : "unknown";
}

void hi_firmware_report(struct boot *b, const struct firmware_facts *f)
{
	const char *sb = hi_firmware_secure_boot_word(f);
	const char *why = f->shim_insecure ? " (SecureBoot=1, but shim validation disabled: MokSBStateRT=1)"
			  : f->setup_mode  ? " (SecureBoot=1, but the firmware is in setup mode: SetupMode=1)" : "";
	bool uki = f->stub[0] != '\0';

	hi_report_add(&b->rep, "firmware", "efi", "info", "%s", f->efi ? "yes" : "no");
	hi_report_add(&b->rep, "firmware", "secure_boot", why[0] ? "warn" : "info", "%s%s", sb, why);
	hi_report_add(&b->rep, "firmware", "uki", uki && f->secure_boot != 1 ? "warn" : "info", "%s%s%s",
		   uki ? "yes " : "no", uki ? "stub=" : "", uki ? f->stub : "");
	if (f->loader[0])
		hi_report_add(&b->rep, "firmware", "loader", "info", "%s", f->loader);
	hi_report_add(&b->rep, "firmware", "lockdown", "info", "%s", lockdown_name(f->lockdown));
	log_info("firmware: %s, Secure Boot %s%s, %s, kernel lockdown %s",
		 f->efi ? "UEFI" : "no UEFI", f->efi ? sb : "n/a", why,
		 uki ? "started from a unified kernel image" : "not a unified kernel image",
		 lockdown_name(f->lockdown));
	/* Without Secure Boot the stub takes a loader's command line over the
	 * baked one (systemd-stub 252), so nothing protects the words. */
	if (uki && f->secure_boot != 1)
		log_warn("firmware: a unified kernel image without Secure Boot%s: its baked command line "
			 "can be replaced by the boot loader; enroll the signing key and enable Secure Boot%s",
			 why, f->shim_insecure ? " (mokutil --enable-validation)" : "");
}

int hi_stage_firmware(struct boot *b)
{
	struct firmware_facts f;
	char dir[BOOT_PATH_MAX];

	(void)hi_securityfs_ensure(b);
	int mounted = efivarfs_mount(b, dir, sizeof dir);
	hi_firmware_read(b->sys, &f);
	if (mounted && umount(dir) < 0)
		log_warn("firmware: cannot unmount efivarfs from %s: %s; it stays read-only", dir, strerror(errno));
	hi_firmware_report(b, &f);
	snprintf(b->stub_pcr_kernel, sizeof b->stub_pcr_kernel, "%s", f.stub_pcr);
	return 0;
}
