/* The boot context: everything a stage may read or change, and the only
 * way it reaches the system. Paths are held here, never spelled out in a
 * stage, so tests can point a stage at a temporary tree. */
#ifndef HARDINIT_BOOT_H
#define HARDINIT_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "config_types.h"
#include "report.h"

struct sysctl_early;
struct luks_warmup;
struct luks_plan;

enum boot_mode {
	MODE_INITRAMFS,   /* /init of an initramfs: find root, switch, harden, exec */
	MODE_ON_ROOT,     /* init=/.../hardinit on a kernel-mounted root: harden, exec */
	MODE_DRY_RUN,     /* not PID 1: print what would be done, touch nothing */
};

#define BOOT_PATH_MAX 256
/* Where the builder puts the config and the module load list. */
#define BOOT_CONFIG_PATH   "/etc/hardinit.conf"
#define BOOT_MODULES_LIST  "/etc/hardinit/modules"
#define BOOT_IMA_POLICY    "/etc/hardinit/ima-policy"
#define BOOT_IMA_CERTS     "/etc/hardinit/ima-certs"
/* Present when the builder put md RAID in the image: the md stage runs. */
#define BOOT_MD_MARKER     "/etc/hardinit/md"
/* The btrfs subvolume the builder found / on ("/@rootfs"): the root stage
 * mounts it when the command line names none (block/btrfs.h). */
#define BOOT_ROOT_SUBVOL   "/etc/hardinit/root-subvol"
#define BOOT_ERR_MAX  512

struct boot {
	enum boot_mode mode;

	/* Where the system is. Before the switch proc/sys/dev/run are the
	 * initramfs's mounts and newroot is where root gets mounted; after the
	 * switch they are the real root's and newroot is "/". */
	char proc[BOOT_PATH_MAX];
	char sys[BOOT_PATH_MAX];
	char dev[BOOT_PATH_MAX];
	char run[BOOT_PATH_MAX];
	char newroot[BOOT_PATH_MAX];
	char config_path[BOOT_PATH_MAX];   /* /etc/hardinit.conf of the initramfs */
	char modules_list[BOOT_PATH_MAX];  /* the builder's ordered module list */
	char md_marker[BOOT_PATH_MAX];     /* the builder's word that the image carries md */
	char root_subvol[BOOT_PATH_MAX];   /* the builder's btrfs subvolume of / */

	struct cmdline cmd;
	struct config cfg;
	struct report rep;

	/* What the kernel gave PID 1; the real init gets the same words and
	 * environment (the kernel already filtered its own options out). */
	int argc;
	char **argv;
	char **envp;
	const char *cmdline_text;  /* dry run: this instead of /proc/cmdline */
	/* Where the initramfs config's includes are read: NULL in a boot (the
	 * initramfs is /); for hardinit predict the image's own files, so a
	 * prediction never reads the build host's. */
	const char *image_root;

	/* The SELinux file contexts (struct selabel_handle *), opened once by
	 * the selinux stage and shared by the stages that create files. */
	void *selabel;

	/* The slow sysctl writes the sysctl_start stage began on a thread
	 * (stages/sysctl_early.h); the sysctl stage collects them. NULL: none. */
	struct sysctl_early *sysctl_early;

	/* The luks stage's TPM warm-up the modules stage started (stages/luks.h);
	 * the luks stage, or the runner on a failure before it, flushes it. NULL: none. */
	struct luks_warmup *luks_warmup;

	/* The volumes this boot opens (crypttab and command line), read once by
	 * whichever of the warm-up and the luks stage needs them first
	 * (stages/luks.c). NULL: not read yet. */
	const struct luks_plan *luks_plan;

	bool switched;           /* a switch happened: the new root is now "/" */

	/* StubPcrKernelImage as the firmware stage read it: the PCR
	 * systemd-stub measured the UKI into ("11"); empty when no stub did.
	 * The pcrphase stages extend the boot phases only then, as systemd. */
	char stub_pcr_kernel[16];

	/* The failure action of the last config stage that finished (the
	 * overrides applied, the lock obeyed); init/failure.c decides from it. */
	bool config_read;
	bool config_action_cmdline;   /* a hardinit.boot.failure_action= override set it */
	enum failure_action config_action;
	int config_delay;

	char root_hash[160];   /* hex root hash of the verity root, set by the verity stage; empty when / is not on verity */
	char root_device[BOOT_PATH_MAX];   /* set by the verity stage: the root stage mounts this, read-only */
	/* The initramfs's own config carries [verity] roothash (the builder's
	 * --verity-roothash): set by the config stage before any override, so
	 * the command line cannot change or weaken verity (stages/verity.c). */
	bool verity_anchored;
	/* What the verity stage set up, as its measurement describes it
	 * (verity_measure_text); empty when / is not on verity. */
	char verity_setup[960];
	/* hardinit dry-run and predict: image files of the verity data and
	 * hash devices, which the verity stage's dry run checks and describes
	 * as a boot does the devices (prog/cli.c, prog/predict.c); NULL
	 * otherwise. */
	const char *verity_data_image, *verity_hash_image;
	/* What the measure stage extends into the TPM (with root_hash), set
	 * by the stages that load it. */
	uint8_t selinux_policy_sha256[32];
	bool selinux_policy_hashed;        /* set by the selinux stage (with [tpm] measure) */
	/* SELinux as the kernel has it after the selinux stage, read back, not
	 * as the config asked: "enforcing", "permissive", or NULL when no
	 * policy is loaded (SELinux off in the kernel, skipped, failed). */
	const char *selinux_applied;
	bool selinux_policy_before;        /* a policy was loaded before hardinit: not the one it measured */
	/* The program the hand-off execs, as the measure stage extends it
	 * (stages/handoff.c, hi_handoff_program); empty: none found. */
	char handoff_init[BOOT_PATH_MAX];
	uint8_t ima_policy_sha256[32];
	bool ima_policy_loaded;            /* set by the ima stage */
	char ima_policy[BOOT_PATH_MAX];    /* the builder's IMA policy file */
	char ima_certs[BOOT_PATH_MAX];     /* its directory of DER certificates */

	/* What hi_boot_pace_start() changed, to put back (init/boot_pace.c). */
	bool nice_raised;
	int nice_before;
	char rcu_expedited_before[16];     /* empty: not changed */

	char err[BOOT_ERR_MAX];            /* the fatal error of the failing stage */
	const char *failed_stage;          /* its name, set by the runner */
};

/* Record the fatal error of a stage: what, why, what to do. Returns -1. */
int hi_boot_error(struct boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A problem a [section] require = setting decides: with required, the
 * fatal error (returns -1); else a warning (returns 0). Either way one
 * report line, stage/key, "failed" or "warn". */
int hi_boot_problem(struct boot *b, bool required, const char *stage, const char *key,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* How fast the boot runs, never what it does (init/boot_pace.c): for
 * the boot, PID 1 runs at nice BOOT_NICE and the kernel's RCU grace periods
 * are expedited, as the kernel itself runs them until it starts /init;
 * both are put back before the real init or an emergency shell runs, and
 * a failure either way is a warning: the boot is slower, not weaker. */
#define BOOT_NICE (-20)

/* Fill in the default paths and config for a mode. */
void hi_boot_init_paths(struct boot *b, enum boot_mode mode);

/* Read the block device NAME's sysfs attribute ATTR (b->sys/class/block/
 * NAME/ATTR, bounded by cap) into buf without its newline: 0, or -1 when
 * it cannot be read (the stages that ask treat that as "absent"). */
int hi_boot_sys_block_attr(struct boot *b, const char *name, const char *attr, char *buf, size_t cap);

#endif
