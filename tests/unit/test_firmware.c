/* Unit tests: the firmware stage (stages/firmware.c) against a temporary
 * tree standing in for /sys: efivarfs files (4-byte attribute header, then
 * the value; LoaderInfo/StubInfo in UTF-16LE) and securityfs's lockdown.
 * The stage runs in a dry run, which never mounts efivarfs or securityfs:
 * the live mount is tested in QEMU by tests/vm/uki.bats. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "fixture.h"
#include "tap.h"
#include "firmware.h"

static char root[128];
static struct boot b;

#define EFIVARS "firmware/efi/efivars"
#define SB_FILE EFIVARS "/SecureBoot-" EFI_GLOBAL_GUID
#define STUB_FILE EFIVARS "/StubInfo-" EFI_LOADER_GUID
#define LOADER_FILE EFIVARS "/LoaderInfo-" EFI_LOADER_GUID
#define SETUP_FILE EFIVARS "/SetupMode-" EFI_GLOBAL_GUID
#define MOKRT_FILE EFIVARS "/MokSBStateRT-" EFI_SHIM_LOCK_GUID
#define MOK_FILE EFIVARS "/MokSBState-" EFI_SHIM_LOCK_GUID
/* EFI_VARIABLE_*: NON_VOLATILE 1, BOOTSERVICE_ACCESS 2, RUNTIME_ACCESS 4. */
#define ATTR_BS_RT 6
#define ATTR_NV_BS_RT 7

static void fresh_tree(void)
{
	fixture_rmtree(root);
	snprintf(root, sizeof root, "/tmp/hardinit-test-firmware.XXXXXX");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
}

static void put_bytes(const char *rel, const void *data, size_t len)
{
	char path[512], dir[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	FILE *f = hi_fs_mkdir_p(dir, 0755) == 0 ? fopen(path, "wb") : NULL;
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

static void put_mkdir(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (hi_fs_mkdir_p(path, 0755) < 0)
		exit(2);
}

/* An efivarfs file: attributes NV|BS|RT (7), then the value. */
static void put_var(const char *rel, const void *value, size_t len)
{
	unsigned char buf[512] = { 7, 0, 0, 0 };
	memcpy(buf + 4, value, len);
	put_bytes(rel, buf, len + 4);
}

/* With the attributes given: shim's MokSBStateRT is volatile (BS|RT). */
static void put_var_attr(const char *rel, unsigned attr, unsigned char value)
{
	unsigned char buf[5] = { (unsigned char)attr, 0, 0, 0, value };
	put_bytes(rel, buf, sizeof buf);
}

static void put_text_var(const char *rel, const char *ascii)
{
	unsigned char utf16[256];
	size_t n = 0;
	for (const char *p = ascii; *p; p++) {
		utf16[n++] = (unsigned char)*p;
		utf16[n++] = 0;
	}
	utf16[n++] = 0;
	utf16[n++] = 0;
	put_var(rel, utf16, n);
}

static void put_secure_boot(unsigned char on)
{
	put_var(SB_FILE, &on, 1);
}

static void put_lockdown(const char *text)
{
	put_bytes("kernel/security/lockdown", text, strlen(text));
}

static void test_efivar_read(void)
{
	char dir[256];
	unsigned char buf[16];

	fresh_tree();
	put_secure_boot(1);
	snprintf(dir, sizeof dir, "%s/%s", root, EFIVARS);
	long n = hi_efivar_read(dir, "SecureBoot-" EFI_GLOBAL_GUID, buf, sizeof buf);
	tap_ok(n == 1 && buf[0] == 1, "efivar_read skips the 4-byte attribute header (got %ld, %d)", n, n > 0 ? buf[0] : -1);

	put_bytes(EFIVARS "/Short-" EFI_GLOBAL_GUID, "\7\0", 2);
	errno = 0;
	n = hi_efivar_read(dir, "Short-" EFI_GLOBAL_GUID, buf, sizeof buf);
	tap_ok(n == -1 && errno == EINVAL, "a file shorter than the header is refused (EINVAL)");

	unsigned char big[40] = { 0 };
	put_var(EFIVARS "/Big-" EFI_GLOBAL_GUID, big, sizeof big);
	errno = 0;
	n = hi_efivar_read(dir, "Big-" EFI_GLOBAL_GUID, buf, sizeof buf);
	tap_ok(n == -1 && errno == E2BIG, "a value larger than the buffer is refused (E2BIG)");

	errno = 0;
	n = hi_efivar_read(dir, "Missing-" EFI_GLOBAL_GUID, buf, sizeof buf);
	tap_ok(n == -1 && errno == ENOENT, "a missing variable is ENOENT");
}

static void test_efivar_text(void)
{
	static const unsigned char s[] = { 's', 0, 'd', 0, 0xe9, 0, 0x00, 0x4e, '2', 0, 0, 0, 'X', 0 };
	char out[32];

	hi_efivar_text(s, sizeof s, out, sizeof out);
	tap_streq(out, "sd??2", "UTF-16LE to ASCII: non-ASCII is '?', stops at the NUL");
	hi_efivar_text(s, sizeof s, out, 3);
	tap_streq(out, "sd", "the output is bounded and NUL-terminated");
	hi_efivar_text(s, 3, out, sizeof out);
	tap_streq(out, "s", "an odd trailing byte is ignored");
}

static void test_read_facts(void)
{
	struct firmware_facts f;

	fresh_tree();
	put_lockdown("[none] integrity confidentiality\n");
	hi_firmware_read(root, &f);
	tap_ok(!f.efi && f.secure_boot == -1 && !f.stub[0] && f.lockdown == 0,
	       "no firmware/efi: not UEFI, Secure Boot unknown, lockdown none (efi=%d sb=%d lockdown=%d)",
	       f.efi, f.secure_boot, f.lockdown);

	put_mkdir(EFIVARS);
	hi_firmware_read(root, &f);
	tap_ok(f.efi && !f.efivars && f.secure_boot == -1,
	       "UEFI with efivarfs not mounted (empty efivars): Secure Boot unknown");

	put_secure_boot(1);
	put_text_var(STUB_FILE, "systemd-stub 252.39-1~deb12u2");
	put_lockdown("none [integrity] confidentiality\n");
	hi_firmware_read(root, &f);
	tap_ok(f.efi && f.efivars && f.secure_boot == 1 && f.lockdown == 1,
	       "SecureBoot=1 and lockdown integrity read (sb=%d lockdown=%d)", f.secure_boot, f.lockdown);
	tap_streq(f.stub, "systemd-stub 252.39-1~deb12u2", "StubInfo read as text: a UKI");
	tap_streq(f.loader, "", "no LoaderInfo: not started by systemd-boot");

	put_secure_boot(0);
	put_text_var(LOADER_FILE, "systemd-boot 252");
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 0, "SecureBoot=0 is off");
	tap_streq(f.loader, "systemd-boot 252", "LoaderInfo read");

	put_bytes(SB_FILE, "\7\0\0\0\1\1", 6);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == -1, "a SecureBoot value of two bytes is not trusted (unknown)");
}

static const char *item(const char *key)
{
	const struct report_item *it = hi_report_find(&b.rep, "firmware", key);
	static char buf[256];
	if (!it)
		return NULL;
	snprintf(buf, sizeof buf, "%s %s", it->status, it->value);
	return buf;
}

static void run_stage(void)
{
	boot_at(&b, "/nonexistent", MODE_DRY_RUN);
	snprintf(b.sys, sizeof b.sys, "%s", root);
	tap_ok(hi_stage_firmware(&b) == 0, "stage_firmware never fails the boot");
}

static void test_stage(void)
{
	fresh_tree();
	put_secure_boot(1);
	put_text_var(STUB_FILE, "systemd-stub 252");
	put_lockdown("none [integrity] confidentiality\n");
	run_stage();
	tap_streq(item("efi"), "info yes", "report: efi yes");
	tap_streq(item("secure_boot"), "info on", "report: secure_boot on");
	tap_streq(item("uki"), "info yes stub=systemd-stub 252", "report: started from a UKI");
	tap_streq(item("lockdown"), "info integrity", "report: the kernel's lockdown level");

	put_secure_boot(0);
	run_stage();
	tap_streq(item("uki"), "warn yes stub=systemd-stub 252", "a UKI without Secure Boot is a warning");
	tap_streq(item("secure_boot"), "info off", "report: secure_boot off");

	fresh_tree();
	run_stage();
	tap_streq(item("efi"), "info no", "no UEFI: efi no");
	tap_streq(item("secure_boot"), "info no-efi", "no UEFI: no Secure Boot to report");
	tap_streq(item("uki"), "info no", "no UEFI: not a UKI");
	tap_streq(item("lockdown"), "info unknown", "no securityfs: lockdown unknown");
}

/* The kernel's EFI stub turns SecureBoot=1 into off when shim's
 * validation is disabled (a volatile MokSBStateRT of 1) or the firmware
 * is in setup mode: so must hardinit, or it says "on" and keeps quiet
 * about a UKI whose command line anyone can replace. */
static void test_insecure_modes(void)
{
	struct firmware_facts f;

	fresh_tree();
	put_secure_boot(1);
	put_var_attr(SETUP_FILE, ATTR_BS_RT, 0);
	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 0);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 1 && !f.shim_insecure && !f.setup_mode, "SecureBoot=1, SetupMode=0, MokSBStateRT=0: on");

	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 1);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 0 && f.shim_insecure, "MokSBStateRT=1 (volatile): shim validation disabled, Secure Boot off (sb=%d)",
	       f.secure_boot);
	tap_streq(hi_firmware_secure_boot_word(&f), "off", "its word is off");

	put_var_attr(MOKRT_FILE, ATTR_NV_BS_RT, 1);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 1 && !f.shim_insecure,
	       "a non-volatile MokSBStateRT=1 is ignored, as the kernel ignores it (sb=%d)", f.secure_boot);

	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 0);
	put_var_attr(MOK_FILE, ATTR_NV_BS_RT, 1);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 1, "shim's MokSBState (not the RT mirror) is not what the kernel reads: on");

	put_var_attr(SETUP_FILE, ATTR_BS_RT, 1);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 0 && f.setup_mode && !f.shim_insecure, "SetupMode=1: Secure Boot off (sb=%d)", f.secure_boot);

	put_var_attr(SETUP_FILE, ATTR_BS_RT, 0);
	put_secure_boot(0);
	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 1);
	hi_firmware_read(root, &f);
	tap_ok(f.secure_boot == 0 && !f.shim_insecure, "SecureBoot=0: off, whatever shim says");
}

static void test_stage_insecure(void)
{
	fresh_tree();
	put_secure_boot(1);
	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 1);
	put_text_var(STUB_FILE, "systemd-stub 252");
	run_stage();
	tap_streq(item("secure_boot"), "warn off (SecureBoot=1, but shim validation disabled: MokSBStateRT=1)",
		  "report: shim's insecure mode is Secure Boot off, and says why");
	tap_streq(item("uki"), "warn yes stub=systemd-stub 252", "the UKI-without-Secure-Boot warning fires");

	put_var_attr(MOKRT_FILE, ATTR_BS_RT, 0);
	put_var_attr(SETUP_FILE, ATTR_BS_RT, 1);
	run_stage();
	tap_streq(item("secure_boot"), "warn off (SecureBoot=1, but the firmware is in setup mode: SetupMode=1)",
		  "report: setup mode is Secure Boot off");
	tap_streq(item("uki"), "warn yes stub=systemd-stub 252", "and the UKI warning fires");
}

int main(void)
{
	hi_log_set_kmsg_enabled(0);
	hi_log_set_console_fd(getenv("TEST_VERBOSE") ? 2 : -1);

	test_efivar_read();
	test_efivar_text();
	test_read_facts();
	test_stage();
	test_insecure_modes();
	test_stage_insecure();

	fixture_rmtree(root);
	return tap_done();
}
