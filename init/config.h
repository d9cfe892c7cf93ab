/* hardinit configuration: the parsed form of /etc/hardinit.conf plus the
 * hardinit.* kernel command-line overrides. The format is described in
 * man/hardinit.conf.5; the files in config/ are the shipped profiles. */
#ifndef HARDINIT_CONFIG_H
#define HARDINIT_CONFIG_H

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

/* Defaults: the baseline profile's values, so an empty file is valid. */
void hi_config_defaults(struct config *c);

/* Parse a config file's text. On error returns -1 and writes one line to
 * err: "FILE:LINE: what is wrong; how to fix it". name is used in messages.
 * include = lines are resolved relative to root (may be "" for the host). */
int hi_config_parse(struct config *c, const char *text, size_t len,
		 const char *name, const char *root, char *err, size_t errlen);

/* Read and parse a file (bounded by CONFIG_MAX_FILE_BYTES). */
int hi_config_load(struct config *c, const char *path, const char *root,
		char *err, size_t errlen);

/* Apply one hardinit.<section>.<key>=<value> override from the kernel
 * command line. Returns 0 applied, 1 refused because the config is locked
 * and the change weakens it (err says what), -1 malformed (err says why). */
int hi_config_override(struct config *c, const char *key, const char *value,
		    char *err, size_t errlen);

/* Apply SECTION.KEY=VALUE as a line of the file would set it, without the
 * lock (the file's author sets it, not the command line): 0, or -1 with
 * err "SECTION.KEY=VALUE: why". */
int hi_config_set_key(struct config *c, const char *key, const char *value,
		   char *err, size_t errlen);

/* FILE's text with each SECTION.KEY=VALUE of assign set (config-set):
 * every other line kept as written, the key's own lines in its section
 * replaced by one "key = value" line after the section's header, a
 * missing section appended. Only keys that take one value. The result is
 * parsed again and must give what assign asked, compared through
 * config_format. Returns the length written to out, or -1 with one line
 * in err. root: where include = paths are read, as config_load. */
int hi_config_edit(const char *text, size_t len, const char *name, const char *root,
		const char *const *assign, size_t n, char *out, size_t cap,
		char *err, size_t errlen);

/* Write the effective config as hardinit.conf text that config_parse
 * accepts and that gives back the same struct: saved by the report stage
 * as /run/hardinit/config for hardinit audit. Returns the length, or -1
 * when cap is too small. */
int hi_config_format(const struct config *c, char *out, size_t cap);

/* Names for reports and messages. */
const char *hi_config_failure_action_name(enum failure_action a);
const char *hi_config_selinux_mode_name(enum selinux_mode m);
const char *hi_config_tiocsti_name(enum tiocsti_mode m);
const char *hi_config_lockdown_name(enum lockdown_level l);
const char *hi_config_hidepid_name(enum hidepid h);
/* The failure action a name stands for, or -1: for a command line read
 * before any config. */
int hi_config_failure_action_from_name(const char *name);

/* Is s a [mounts] tmp_size the parser accepts (not "off")? The mounts
 * stage checks again with the same rule before it builds mount data. */
bool hi_config_tmp_size_valid(const char *s);

#endif
