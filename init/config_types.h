/* hardinit configuration: the parsed form of /etc/hardinit.conf plus the
 * hardinit.* kernel command-line overrides. The format is described in
 * man/hardinit.conf.5; the files in config/ are the shipped profiles. */
#ifndef HARDINIT_CONFIG_TYPES_H
#define HARDINIT_CONFIG_TYPES_H

#include <stdbool.h>
#include <stddef.h>

/* Fixed limits: a config that exceeds one is an error naming the limit. */
#define CONFIG_MAX_FILE_BYTES   (64 * 1024)
#define CONFIG_MAX_LINE         512
#define CONFIG_MAX_INCLUDES     8
#define CONFIG_MAX_SYSCTLS      128
#define CONFIG_MAX_BOOLEANS     32
#define CONFIG_MAX_CAPS         64
#define CONFIG_MAX_POLYDIRS     8
#define CONFIG_MAX_KERNEL_OPTS  64   /* strict.conf has 39 */
#define CONFIG_MAX_REQUIRED     32
#define CONFIG_PATH_MAX         256
#define CONFIG_NAME_MAX         128
#define CONFIG_VALUE_MAX        128
#define CONFIG_ERR_MAX          320
/* [tpm] pcr: the OS's PCRs are 8-15 (TCG PC Client); 10 is IMA's, 11 the
 * UKI's and systemd's boot phases, 15 must stay as disk-unlock policies
 * expect it. 12 ("kernel-config" in the Linux TPM PCR Registry: the
 * command line, credentials, configuration) is where the configuration a
 * system booted with belongs. */
#define CONFIG_TPM_PCR_DEFAULT  12

enum failure_action {
	FAIL_REBOOT,    /* default for appliances: reboot after failure_delay */
	FAIL_POWEROFF,
	FAIL_HALT,      /* print, then sleep forever */
	FAIL_SHELL,     /* exec an emergency shell if one exists, else halt */
};

/* Two devices match root= (the same LABEL=, UUID=, PARTUUID=, PARTLABEL=). */
enum root_duplicates {
	ROOT_DUP_REFUSE,   /* the failure action, every matching device named */
	ROOT_DUP_WARN,     /* a warning, then the first by device name (vda before vdb) */
};

enum selinux_mode {
	SELINUX_FROM_CONFIG,    /* follow /etc/selinux/config of the new root */
	SELINUX_ENFORCING,
	SELINUX_PERMISSIVE,
	SELINUX_DISABLED,       /* do not load a policy at all */
};

enum nx_policy { NX_WARN, NX_REQUIRE };

enum hidepid { HIDEPID_OFF, HIDEPID_NOACCESS, HIDEPID_INVISIBLE, HIDEPID_PTRACEABLE };

enum tiocsti_mode {
	TIOCSTI_ALLOW,
	TIOCSTI_DENY_UNPRIVILEGED, /* the sysctl: dev.tty.legacy_tiocsti=0 */
	TIOCSTI_DENY_ALL,          /* the sysctl and a seccomp filter in PID 1 */
};

/* What a verity root does with a corrupted block: the kernel's default is
 * an I/O error; ignore only logs (a weakening). */
enum verity_corruption { VERITY_EIO, VERITY_RESTART, VERITY_PANIC, VERITY_IGNORE };
#define CONFIG_ROOT_HASH_MAX    160   /* hex; sha512 needs 128 */
#define CONFIG_ROOT_HASH_HEX_MAX 128  /* digits accepted: sha512 (hardinit limits prints it) */

enum lockdown_level { LOCKDOWN_NONE, LOCKDOWN_INTEGRITY, LOCKDOWN_CONFIDENTIALITY };

struct sysctl_setting {
	char key[CONFIG_NAME_MAX];     /* dotted form, as sysctl.d writes it */
	char value[CONFIG_VALUE_MAX];
	bool ignore_failure;           /* sysctl.d's leading '-' */
	bool required;                 /* listed in [sysctl] require = ... */
};

struct selinux_boolean {
	char name[CONFIG_NAME_MAX];
	bool value;
};

struct kernel_opt {                    /* a command-line protection we can only see */
	char word[CONFIG_NAME_MAX];    /* "slab_nomerge" or "init_on_alloc=1" */
	bool required;                 /* fatal when absent, else a warning */
};

struct config {
	/* [boot] */
	enum failure_action failure_action;
	int failure_delay;             /* seconds before reboot/poweroff */
	int root_timeout;              /* seconds to wait for root= without rootwait */
	int rootwait_timeout;          /* seconds with rootwait; still bounded */
	char init[CONFIG_PATH_MAX];    /* real init; empty: the usual search */
	bool lock_cmdline;
	bool read_root_config;         /* also read /etc/hardinit.conf of the new root */
	enum root_duplicates root_duplicates;   /* default refuse (0) */
	bool root_lvm;                 /* activate the LVM logical volume root= names */

	/* [selinux] */
	enum selinux_mode selinux_mode;
	bool selinux_require;          /* fail closed when the load fails */
	char selinux_type[CONFIG_NAME_MAX];   /* SELINUXTYPE override; empty: the root's */
	bool selinux_relabel;
	int selinux_relabel_limit;     /* objects, bounded */
	struct selinux_boolean booleans[CONFIG_MAX_BOOLEANS];
	size_t n_booleans;

	/* [memory] */
	enum nx_policy nx;
	bool aslr;                     /* randomize_va_space, mmap_min_addr, rnd bits */
	bool mdwe;                     /* PR_SET_MDWE in PID 1, inherited by all */

	/* [sysctl] */
	struct sysctl_setting sysctls[CONFIG_MAX_SYSCTLS];
	size_t n_sysctls;
	bool sysctl_persist;           /* write a /run/sysctl.d drop-in for systemd */

	/* [kernel]: boot command-line protections (see, not set) */
	struct kernel_opt kernel_opts[CONFIG_MAX_KERNEL_OPTS];
	size_t n_kernel_opts;

	/* [capabilities] */
	int cap_drop[CONFIG_MAX_CAPS]; /* capability numbers, from libcap-ng's names */
	size_t n_cap_drop;

	/* [locks] */
	bool lock_modules;             /* kernel.modules_disabled=1 after boot modules */
	bool lock_kexec;               /* kernel.kexec_load_disabled=1 */
	enum lockdown_level lockdown;
	int ptrace_scope;              /* -1: leave alone; 0..3 */

	/* [mounts] */
	bool mount_shared;             /* / MS_SHARED|MS_REC after the switch */
	enum hidepid proc_hidepid;
	int proc_gid;                  /* -1: none */
	bool shm_noexec;
	char tmp_size[32];             /* tmpfs size= for /tmp, e.g. "50%"; empty: no tmpfs */
	bool tmp_noexec;
	bool polyinstantiate;
	char polydirs[CONFIG_MAX_POLYDIRS][CONFIG_PATH_MAX];
	size_t n_polydirs;

	/* [tty] */
	enum tiocsti_mode tiocsti;
	bool deny_tioclinux;
	bool tiocsti_seccomp;          /* force the seccomp filter even with the sysctl */

	/* [verity] */
	bool verity_enabled;           /* / must be on dm-verity (hash from here or roothash=) */
	char verity_roothash[CONFIG_ROOT_HASH_MAX];  /* hex; empty: from the command line */
	char verity_data[CONFIG_PATH_MAX];     /* data device, as root= names one */
	char verity_hash[CONFIG_PATH_MAX];     /* hash device; empty: the data device */
	char verity_options[CONFIG_PATH_MAX];  /* systemd.verity_root_options words */
	enum verity_corruption verity_on_corruption;
	bool verity_require_signature; /* refuse a root hash no signature goes with */
	/* [ima] */
	bool ima_require;              /* a missing or rejected IMA policy is fatal */

	/* [tpm] */
	bool tpm_measure;              /* extend tpm_pcr with hardinit's state */
	int tpm_pcr;
	bool tpm_require;              /* no TPM, or a TPM error, is fatal */
};

#endif
