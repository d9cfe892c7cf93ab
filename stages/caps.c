/* The capabilities stage: drop the configured capabilities everywhere a
 * later process could get them back, in the order klibc's run-init uses:
 *   1. kernel.usermodehelper.{inheritable,bset}: helpers the kernel spawns
 *      itself (modprobe, core-dump pipes) never see PID 1's bounding set,
 *      and writing these needs CAP_SETPCAP and CAP_SYS_MODULE, so first;
 *   2. the bounding set (PR_CAPBSET_DROP; needs CAP_SETPCAP effective),
 *      inherited by everything PID 1 starts, for good;
 *   3. the inheritable set: an inheritable capability can come back through
 *      a file's inheritable bits even when it is out of the bounding set. */
#include <cap-ng.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "caps.h"
#include "fsutil.h"
#include "hardening.h"
#include "log.h"
#include "report.h"

static const char *const umh_keys[] = {
	"kernel.usermodehelper.inheritable",
	"kernel.usermodehelper.bset",
};

int hi_umh_parse(const char *text, uint32_t words[2])
{
	char *end;
	const char *p = text;

	for (int i = 0; i < 2; i++) {
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (errno || end == p || v > UINT32_MAX || *p == '-')
			return -1;
		words[i] = (uint32_t)v;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return *p == '\0' || *p == '\n' ? 0 : -1;
}

void hi_umh_clear(uint32_t words[2], uint64_t drop)
{
	words[0] &= ~(uint32_t)(drop & 0xffffffffu);
	words[1] &= ~(uint32_t)(drop >> 32);
}

void hi_umh_format(const uint32_t words[2], char *out, size_t cap)
{
	snprintf(out, cap, "%" PRIu32 "\t%" PRIu32, words[0], words[1]);
}

static const char *cap_name(int cap)
{
	const char *n = capng_capability_to_name((unsigned)cap);
	return n ? n : "unknown";
}

int hi_caps_drop_mask(struct boot *b, int last_cap, uint64_t *mask)
{
	*mask = 0;
	for (size_t i = 0; i < b->cfg.n_cap_drop && i < CONFIG_MAX_CAPS; i++) {
		int cap = b->cfg.cap_drop[i];
		if (cap < 0 || cap > last_cap || cap > 63)
			return hi_boot_error(b, "caps: capability %d (%s) is above this kernel's cap_last_cap %d; "
					  "remove it from [capabilities] drop or boot a newer kernel",
					  cap, cap >= 0 ? cap_name(cap) : "negative", last_cap);
		*mask |= (uint64_t)1 << cap;
	}
	return 0;
}

static int read_last_cap(struct boot *b)
{
	char buf[32];
	char *end;

	if (hi_sysctl_read(b->proc, "kernel.cap_last_cap", buf, sizeof buf) < 0) {
		/* Only kernels before 3.2 lack the file; assume the headers'. */
		log_warn("caps: cannot read kernel.cap_last_cap (%s); assuming %d",
			 strerror(errno), CAP_LAST_CAP);
		return CAP_LAST_CAP;
	}
	long v = strtol(buf, &end, 10);
	if (end == buf || *end != '\0' || v < 0 || v > 63) {
		log_warn("caps: kernel.cap_last_cap reads '%s'; assuming %d", buf, CAP_LAST_CAP);
		return CAP_LAST_CAP;
	}
	return (int)v;
}

static int shrink_one_umh(struct boot *b, const char *key, uint64_t drop)
{
	char buf[64], value[64];
	uint32_t words[2], after[2];

	if (hi_sysctl_read(b->proc, key, buf, sizeof buf) < 0)
		return hi_boot_error(b, "caps: cannot read %s (%s); kernel-spawned helpers would keep "
				  "every capability; check that proc is mounted", key, strerror(errno));
	if (hi_umh_parse(buf, words) < 0)
		return hi_boot_error(b, "caps: %s reads '%s', not two 32-bit words; report this as a bug",
				  key, buf);
	hi_umh_clear(words, drop);
	hi_umh_format(words, value, sizeof value);
	if (hi_sysctl_write(b->proc, key, value) < 0)
		return hi_boot_error(b, "caps: cannot write %s (%s); it needs CAP_SETPCAP and "
				  "CAP_SYS_MODULE, so it must run before anything drops them",
				  key, strerror(errno));
	/* Writes can only clear bits; the read-back shows what the kernel
	 * kept. Every dropped bit must be clear. */
	if (hi_sysctl_read(b->proc, key, buf, sizeof buf) < 0 || hi_umh_parse(buf, after) < 0 ||
	    (after[0] & (uint32_t)drop) || (after[1] & (uint32_t)(drop >> 32)))
		return hi_boot_error(b, "caps: %s still grants dropped capabilities after the write "
				  "(reads '%s'); report this as a kernel or hardinit bug", key, buf);
	hi_report_add(&b->rep, "caps", key, "applied", "%s", buf);
	return 0;
}

int hi_caps_shrink_umh(struct boot *b, uint64_t drop)
{
	for (size_t i = 0; i < sizeof umh_keys / sizeof umh_keys[0]; i++)
		if (shrink_one_umh(b, umh_keys[i], drop) < 0)
			return -1;
	return 0;
}

/* The bounding set as the kernel shows it: CapBnd in PROC/self/status is
 * one file read where PR_CAPBSET_READ is one system call per capability
 * (41, twice a boot; in a Xen PV guest each is a trap through the
 * hypervisor, bench/xen). The prctl loop stays for a proc that cannot say. */
static uint64_t bounding_set_now(const struct boot *b, int last_cap)
{
	char path[BOOT_PATH_MAX], status[4096];
	uint64_t set = 0;

	if (hi_boot_path(path, sizeof path, b->proc, "/self/status") &&
	    hi_fs_read_prefix(path, status, sizeof status, NULL) == 0) {
		const char *line = strstr(status, "\nCapBnd:");
		unsigned long long v;
		if (line && sscanf(line + 8, " %llx", &v) == 1)
			return (uint64_t)v;
	}
	for (int c = 0; c <= last_cap && c < 64; c++)
		if (prctl(PR_CAPBSET_READ, (unsigned long)c, 0L, 0L, 0L) == 1)
			set |= (uint64_t)1 << c;
	return set;
}

/* This process's capability sets as the kernel holds them (capget and
 * capset, version 3: two 32-bit words per set). Straight system calls,
 * not libcap-ng's capng_get_caps_process and capng_apply, which read and
 * parse /proc/self/status besides (0.2 ms each under -icount). */
static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capget, &h, d);
}

static int caps_set(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capset, &h, d);
}

static uint64_t inheritable_of(const struct __user_cap_data_struct d[2])
{
	return (uint64_t)d[0].inheritable | (uint64_t)d[1].inheritable << 32;
}

/* The bounding set by PR_CAPBSET_DROP, one capability at a time; then the
 * inheritable set (and so the ambient one, which the kernel keeps within
 * it) by capset. */
static int drop_sets(struct boot *b, uint64_t drop, uint64_t before, int last_cap)
{
	struct __user_cap_data_struct d[2];

	if (caps_get(d) < 0)
		return hi_boot_error(b, "caps: cannot read this process's capabilities (capget: %s)",
				  strerror(errno));
	if (!(d[CAP_SETPCAP / 32].effective & (1u << (CAP_SETPCAP % 32))))
		return hi_boot_error(b, "caps: CAP_SETPCAP is not effective, so the bounding set cannot "
				  "shrink; run hardinit as PID 1 with full capabilities");
	for (int c = 0; c <= last_cap && c < 64; c++) {
		if (!(drop & ((uint64_t)1 << c)))
			continue;
		d[c / 32].inheritable &= ~(1u << (c % 32));
		if ((before & ((uint64_t)1 << c)) && prctl(PR_CAPBSET_DROP, (unsigned long)c, 0L, 0L, 0L) < 0)
			return hi_boot_error(b, "caps: dropping %s from the bounding set failed (%s)",
					  cap_name(c), strerror(errno));
	}
	if (caps_set(d) < 0)
		return hi_boot_error(b, "caps: clearing the inheritable set failed (capset: %s)", strerror(errno));
	return 0;
}

static int drop_bounding_and_inheritable(struct boot *b, uint64_t drop, int last_cap)
{
	uint64_t before = bounding_set_now(b, last_cap);
	struct __user_cap_data_struct d[2];

	if (drop_sets(b, drop, before, last_cap) < 0)
		return -1;
	/* Check with the kernel itself, both sets. */
	uint64_t after = bounding_set_now(b, last_cap);
	errno = 0;
	if (after & drop)
		return hi_boot_error(b, "caps: the bounding set still holds %#" PRIx64 " after the drop; "
				  "report this as a bug", after & drop);
	if (caps_get(d) < 0 || (inheritable_of(d) & drop))
		return hi_boot_error(b, "caps: the inheritable set still holds dropped capabilities (%s); "
				  "report this as a bug", errno ? strerror(errno) : "capget");
	for (int c = 0; c <= last_cap && c < 64; c++) {
		uint64_t bit = (uint64_t)1 << c;
		if (!(drop & bit))
			continue;
		hi_report_add(&b->rep, "caps", cap_name(c), (before & bit) ? "applied" : "already",
			   "dropped (usermodehelper, bounding, inheritable)");
		log_debug("caps: dropped %s", cap_name(c));
	}
	/* The same hex form as CapBnd in /proc/PID/status. */
	hi_report_add(&b->rep, "caps", "bounding_set", "info", "%016" PRIx64, after);
	log_info("caps: bounding set now %016" PRIx64, after);
	return 0;
}

int hi_stage_caps(struct boot *b)
{
	int last_cap = read_last_cap(b);
	uint64_t drop;

	if (hi_caps_drop_mask(b, last_cap, &drop) < 0)
		return -1;
	if (drop == 0) {
		hi_report_add(&b->rep, "caps", "drop", "skipped", "nothing configured");
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		for (int c = 0; c <= last_cap && c < 64; c++)
			if (drop & ((uint64_t)1 << c))
				log_info("caps: would drop %s from usermodehelper, bounding and inheritable sets",
					 cap_name(c));
		return 0;
	}
	if (hi_caps_shrink_umh(b, drop) < 0)
		return -1;
	return drop_bounding_and_inheritable(b, drop, last_cap);
}
