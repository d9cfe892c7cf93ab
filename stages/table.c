/* The order of a boot, and the one place it is written down. The reasons
 * are in doc/design.md: the policy needs the real root, the mount tree must
 * not be shared before the switch, the locks close doors the earlier stages
 * still need. The runner times each stage into the report and stops at the
 * first that fails; what a failure means is decided by its caller (the
 * failure action in prog/main.c, the exit status of dry-run). */
#include <stdio.h>

#include "boot.h"
#include "caps.h"
#include "config_stage.h"
#include "early.h"
#include "firmware.h"
#include "handoff.h"
#include "ima.h"
#include "locks.h"
#include "log.h"
#include "luks.h"
#include "lvm.h"
#include "md.h"
#include "measure.h"
#include "measure_queue.h"
#include "memory.h"
#include "modules.h"
#include "mounts.h"
#include "pcrphase.h"
#include "prefetch.h"
#include "report_stage.h"
#include "root.h"
#include "selinux.h"
#include "switchroot.h"
#include "sysctl.h"
#include "sysctl_start.h"
#include "table.h"
#include "tty.h"
#include "usr.h"
#include "verity.h"

enum { M_INITRAMFS = 1, M_ON_ROOT = 2, M_DRY_RUN = 4, M_ALL = 7 };

struct stage_entry {
	const char *name;
	stage_fn run;
	unsigned modes;
};

static const struct stage_entry stage_table[] = {
	{ "early",      hi_stage_early,      M_ALL },
	{ "config",     hi_stage_config,     M_ALL },
	/* Before the slow parts of the boot, so the kernel's waits overlap. */
	{ "sysctl_start", hi_stage_sysctl_start, M_INITRAMFS | M_ON_ROOT },
	{ "modules",    hi_stage_modules,    M_INITRAMFS | M_DRY_RUN },
	/* How the kernel was started (UEFI, Secure Boot, UKI, lockdown), read
	 * once efivarfs, a module in a UKI's list, is loadable. */
	{ "firmware",   hi_stage_firmware,   M_ALL },
	/* The initrd's boot phase in PCR 11 (systemd-pcrphase-initrd), once
	 * the firmware stage read whether systemd-stub measured the UKI, and
	 * before anything is unsealed: a policy predicts PCR 11 with it. */
	{ "pcrphase_enter", hi_stage_pcrphase_enter, M_INITRAMFS | M_DRY_RUN },
	/* Before the verity table and the SELinux policy: IMA measures both
	 * as critical data only under a policy loaded before them. */
	{ "ima",        hi_stage_ima,        M_ALL },
	/* After modules (md-mod and the personalities), before luks, lvm and
	 * root: a LUKS volume, an LVM PV or the root itself may be the array. */
	{ "md",         hi_stage_md,         M_INITRAMFS | M_DRY_RUN },
	/* Before root (and verity): root, or what holds it, may be encrypted. */
	{ "luks",       hi_stage_luks,       M_INITRAMFS | M_DRY_RUN },
	/* After modules (the disk drivers), before root: the root stage
	 * mounts the logical volume it activates; before verity, where an LV
	 * will be able to carry verity's data and hash. */
	{ "lvm",        hi_stage_lvm,        M_INITRAMFS | M_DRY_RUN },
	/* Before root: the root stage mounts the verity device it set up. */
	{ "verity",     hi_stage_verity,     M_INITRAMFS | M_DRY_RUN },
	/* Measured on a thread from here on, while the boot goes on; the
	 * root stage waits (bounded) until the thread has extended the IMA
	 * policy and the root hash before it mounts the root they protect
	 * (not with read_root_config, which starts nothing before the root's
	 * config is read: see hardinit(8)). */
	{ "measure_root", hi_stage_measure_root, M_INITRAMFS | M_ON_ROOT },
	{ "root",       hi_stage_root,       M_INITRAMFS | M_DRY_RUN },
	/* A separate /usr, from the root's fstab: the real init lives on it
	 * (merged /usr); before prefetch, whose lookups cross into /usr. */
	{ "usr",        hi_stage_usr,        M_INITRAMFS | M_DRY_RUN },
	/* The later stages' reads from the root, looked up in parallel. */
	{ "prefetch",   hi_stage_prefetch,   M_INITRAMFS | M_ON_ROOT },
	/* Leaving the initrd closes PCR 11 to its unseals: before the switch. */
	{ "pcrphase_leave", hi_stage_pcrphase_leave, M_INITRAMFS | M_DRY_RUN },
	{ "switchroot", hi_stage_switchroot, M_INITRAMFS | M_DRY_RUN },
	{ "rootconfig", hi_stage_config,     M_INITRAMFS },
	{ "selinux",    hi_stage_selinux,    M_ALL },
	/* The config is final (the root's read) and the policy loaded. */
	{ "measure_policy", hi_stage_measure_policy, M_INITRAMFS | M_ON_ROOT },
	{ "memory",     hi_stage_memory,     M_ALL },
	{ "sysctl",     hi_stage_sysctl,     M_ALL },
	{ "mounts",     hi_stage_mounts,     M_ALL },
	/* One thread again before the seccomp filter and the capability drops. */
	{ "prefetch_join", hi_stage_prefetch_join, M_INITRAMFS | M_ON_ROOT },
	{ "tty",        hi_stage_tty,        M_ALL },
	{ "caps",       hi_stage_caps,       M_ALL },
	{ "locks",      hi_stage_locks,      M_ALL },
	/* Last before the report: "handoff" is the final event; the thread
	 * measuring since measure_root ends here. */
	{ "measure",    hi_stage_measure,    M_ALL },
	{ "report",     hi_stage_report,     M_ALL },
};

/* Each stage run has its time in the report: a stage past the report's
 * room would go missing from it and from the console's stage lines. */
_Static_assert(sizeof stage_table / sizeof stage_table[0] <= REPORT_MAX_STAGES,
	       "REPORT_MAX_STAGES (init/report.h) is below the number of stages");

static unsigned mode_bit(enum boot_mode m)
{
	return m == MODE_INITRAMFS ? M_INITRAMFS : m == MODE_ON_ROOT ? M_ON_ROOT : M_DRY_RUN;
}

static void record_stage(struct boot *b, const char *name, uint64_t start, uint64_t took, int rc)
{
	if (b->rep.n_stages >= REPORT_MAX_STAGES)
		return;
	struct report_stage *st = &b->rep.stages[b->rep.n_stages++];
	snprintf(st->name, sizeof st->name, "%s", name);
	st->start_ns = start;
	st->duration_ns = took;
	st->result = rc < 0 ? -1 : 0;
}

int hi_boot_run_stages(struct boot *b)
{
	unsigned bit = mode_bit(b->mode);
	char took_ms[CLOCK_MS_MAX];

	for (size_t i = 0; i < sizeof stage_table / sizeof stage_table[0]; i++) {
		const struct stage_entry *s = &stage_table[i];
		if (!(s->modes & bit))
			continue;
		uint64_t start = hi_boottime_ns();
		int rc = s->run(b);
		uint64_t took = hi_boottime_ns() - start;
		record_stage(b, s->name, start, took, rc);
		hi_clock_format_ms(took_ms, sizeof took_ms, took);
		if (rc < 0) {
			log_err("stage %s failed after %s ms", s->name, took_ms);
			b->failed_stage = s->name;
			hi_luks_warmup_drop(b);  /* nothing of it left in the TPM for a shell */
			return -1;
		}
		log_debug("stage %s done in %s ms", s->name, took_ms);
	}
	return 0;
}

int hi_boot_handoff(struct boot *b)
{
	return hi_handoff_exec(b);
}
