/* Unit tests: the minimal reproducers of what the fuzz targets
 * (tests/fuzz/) found, one test each, so a finding stays fixed without
 * a fuzzer run. */
#define _GNU_SOURCE   /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "config_format.h"
#include "config_lock.h"
#include "log.h"
#include "modules.h"
#include "mounts.h"
#include "root_probe.h"
#include "selinux_config.h"
#include "selinux_types.h"
#include "tap.h"


/* fuzz_selinux: a SELINUXTYPE= longer than the field was cut to 127 bytes
 * (the cut could end in a blank, so the round trip failed) and the stage
 * then looked for a policy under a name the file does not hold. */
static void test_selinux_type_too_long(void)
{
	char text[256], err[CONFIG_ERR_MAX];
	struct selinux_file_config c;
	char type[200];

	memset(type, 'a', sizeof type - 1);
	type[sizeof type - 1] = '\0';
	snprintf(text, sizeof text, "SELINUX=enforcing\nSELINUXTYPE=%s\n", type);
	err[0] = '\0';
	tap_ok(hi_selinux_config_parse(text, strlen(text), &c, err, sizeof err) == -1,
	       "SELINUXTYPE of 199 bytes is refused, not cut");
	tap_contains(err, "SELINUXTYPE on line 2 is longer than 127 bytes", "the error names the line and the limit");

	type[CONFIG_NAME_MAX - 1] = '\0';
	snprintf(text, sizeof text, "SELINUXTYPE=%s  \n", type);
	tap_ok(hi_selinux_config_parse(text, strlen(text), &c, err, sizeof err) == 0 &&
	       strcmp(c.type, type) == 0, "SELINUXTYPE of 127 bytes (and trailing blanks) is kept whole");
}

/* fuzz_modules: a line of blanks was a module named "" (and the list did
 * not round-trip); a line with leading blanks kept them in the path. */
static void test_modules_blank_lines(void)
{
	char list[] = "  \n\t\n   /lib/modules/a.ko opt=1 x=2\n# c\n/lib/modules/b.ko\n";
	struct module_ref m[4];
	int n = hi_modules_list_parse(list, m, 4);

	tap_ok(n == 2, "blank lines are not modules (got %d)", n);
	tap_streq(n >= 1 ? m[0].path : NULL, "/lib/modules/a.ko", "leading blanks are not part of the path");
	tap_streq(n >= 1 ? m[0].params : NULL, "opt=1 x=2", "params are the rest of the line");
	tap_streq(n >= 2 ? m[1].params : NULL, "", "no params: empty");

	char three[] = "/a.ko\n/b.ko\n/c.ko\n";
	tap_ok(hi_modules_list_parse(three, m, 2) == -1, "more modules than the cap: -1");
}

/* fuzz_partition: partition 0 of an MBR disk was "SSSSSSSS-00"; sysfs
 * never numbers a partition 0, so that only came from a bad read. */
static void test_partition_zero(void)
{
	unsigned char mbr[512] = { 0 };
	struct part_info p;
	int fd = memfd_create("test_fuzz_findings", MFD_CLOEXEC);

	mbr[440] = 0xcd; mbr[441] = 0xab; mbr[442] = 0x34; mbr[443] = 0x12;
	mbr[510] = 0x55; mbr[511] = 0xaa;
	tap_ok(fd >= 0 && pwrite(fd, mbr, sizeof mbr, 0) == (ssize_t)sizeof mbr, "MBR image");
	tap_ok(hi_probe_partition(fd, 0, 512, &p) == -1, "partition 0 is refused");
	tap_ok(hi_probe_partition(fd, 2, 512, &p) == 0 && strcmp(p.partuuid, "1234abcd-02") == 0,
	       "partition 2 still has the kernel's MBR PARTUUID");
	if (fd >= 0)
		close(fd);
}

/* fuzz_partition: a GPT name holding DEL (0x7f) kept it in PARTLABEL,
 * where every other control character becomes '?'. */
static void test_partlabel_del(void)
{
	unsigned char hdr[92] = "EFI PART", entry[128] = { 0 };
	const char name[] = "a\x7f" "b";
	struct part_info p;
	int fd = memfd_create("test_fuzz_findings", MFD_CLOEXEC);

	hdr[72] = 2;                    /* entries at LBA 2 */
	hdr[80] = 1;                    /* one entry */
	hdr[84] = 128;                  /* of 128 bytes */
	for (size_t i = 0; i < 3; i++)
		entry[56 + 2 * i] = (unsigned char)name[i];
	tap_ok(fd >= 0 && pwrite(fd, hdr, sizeof hdr, 512) == (ssize_t)sizeof hdr &&
	       pwrite(fd, entry, sizeof entry, 1024) == (ssize_t)sizeof entry, "GPT image");
	tap_ok(hi_probe_partition(fd, 1, 512, &p) == 0, "GPT partition 1 found");
	tap_streq(p.partlabel, "a?b", "DEL in a GPT name becomes '?'");
	if (fd >= 0)
		close(fd);
}

/* fuzz_mountinfo (stages/mounts.c, branch hostile): the length limit is
 * checked before unescaping, so a mount point under 256 bytes whose
 * escaped form ("\040" per blank) is longer is never found. Fix: in
 * mountinfo_parse_line, copy field 4 to a line-sized buffer, unescape_octal
 * it there, then copy_str it into m->point. */
static void test_mountinfo_escaped_point(void)
{
	char point[128], escaped[512], text[1024];
	struct mountinfo_entry m;
	size_t n = 0;

	/* "/mnt/x x x ...": 125 bytes, 60 of them blanks. */
	memcpy(point, "/mnt/", 5);
	for (size_t i = 0; i < 60; i++)
		memcpy(point + 5 + 2 * i, "x ", 2);
	point[125] = '\0';
	for (const char *p = point; *p; p++)
		n += (size_t)snprintf(escaped + n, sizeof escaped - n, *p == ' ' ? "\\040" : "%c", *p);
	snprintf(text, sizeof text, "50 28 8:17 / %s rw,nosuid - vfat /dev/sdb1 rw\n", escaped);
	tap_ok(strlen(escaped) >= sizeof m.point && hi_mountinfo_find_text(text, point, &m) == 1,
		 "a 125-byte mount point with 60 blanks (305 bytes escaped) is found");
}

/* fuzz_nsconf (stages/mounts_polyinst.c, branch hostile): a line whose polydir is
 * an empty quoted field passes as valid when instance_prefix has $HOME or
 * $USER, because the absolute-path check is skipped for per-user lines.
 * Fix: in nsconf_parse_line, refuse an empty polydir (or instance_prefix)
 * before the per-user checks: "polydir is empty". */
static void test_nsconf_empty_polydir(void)
{
	char err[512];
	struct ns_entry e;

	tap_ok(hi_nsconf_parse_line("\"\" $HOME/inst/ user", &e, err, sizeof err) == -1,
		 "an empty polydir is refused");
}

/* fuzz_config (init/config.c): the override
 * hardinit.sysctl.#unx.iodapa=rines is accepted and the effective config
 * written from it reads back with that line as a comment. Fix: refuse a
 * sysctl name that is not a name (sysctl_path's rules, and no '#', '=' or
 * blank), in config_override and config_parse alike. Passes when refused
 * or when the round trip holds. */
static void test_config_sysctl_name(void)
{
	static struct config c, again;
	static char text[128 * 1024];
	char err[CONFIG_ERR_MAX];

	hi_config_defaults(&c);
	int rc = hi_config_override(&c, "sysctl.#unx.iodapa", "rines", err, sizeof err);
	int ok = rc == -1;
	if (rc == 0) {
		int n = hi_config_format(&c, text, sizeof text);
		hi_config_defaults(&again);
		ok = n >= 0 && hi_config_parse(&again, text, (size_t)n, "formatted", "/nonexistent", err, sizeof err) == 0 &&
		     memcmp(&again, &c, sizeof c) == 0;
	}
	tap_ok(ok, "sysctl.#unx.iodapa=rines is refused or round-trips");
}

int main(void)
{
	hi_log_set_console_fd(-1);
	hi_log_set_kmsg_enabled(0);
	test_selinux_type_too_long();
	test_modules_blank_lines();
	test_partition_zero();
	test_partlabel_del();
	test_mountinfo_escaped_point();
	test_nsconf_empty_polydir();
	test_config_sysctl_name();
	return tap_done();
}
