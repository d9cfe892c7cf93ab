#include "cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "audit.h"
#include "boot.h"
#include "config.h"
#include "config_edit.h"
#include "config_stage.h"
#include "config_table.h"
#include "hardening.h"
#include "ima.h"
#include "cmdline.h"
#include "failure.h"
#include "fsutil.h"
#include "log.h"
#include "luks_plan.h"
#include "measure.h"
#include "memory.h"
#include "modules.h"
#include "polytmp.h"
#include "predict.h"
#include "selinux_types.h"
#include "table.h"
#include "verity_sb.h"

static const char usage[] =
"Usage: hardinit [COMMAND] [OPTIONS]\n"
"\n"
"As PID 1 (the kernel runs it as /init of an initramfs, or with\n"
"init=/path/to/hardinit) it mounts the API file systems, reads\n"
"/etc/hardinit.conf, finds and mounts root=, switches to it, hardens the\n"
"system (SELinux, memory, sysctls, mounts, TTY, capabilities, locks),\n"
"writes /run/hardinit/report.json and execs the real init.\n"
"\n"
"When it is not PID 1 it never changes the system:\n"
"  check-config FILE     validate a config; exit 0 if valid, 1 if not\n"
"  check-config --print-kernel-words FILE\n"
"                        validate it, then print the kernel command-line\n"
"                        words it asks for, one per line: every [kernel]\n"
"                        word this architecture's kernel reads (arch/), and\n"
"                        security=selinux when [selinux] needs\n"
"                        SELinux (for a unified kernel image's .cmdline)\n"
"  check-config --cmdline WORDS FILE\n"
"                        also exit 1 when one of WORDS contradicts one of\n"
"                        those (mitigations=off against mitigations=auto,\n"
"                        slab_merge against slab_nomerge)\n"
"  check-crypttab FILE   check a crypttab with the luks stage's own parser;\n"
"                        exit 0 if the boot takes it (options it ignores\n"
"                        named on stderr), 1 if it would refuse it\n"
"  check-ima-policy FILE check an IMA policy with the ima stage's own reader\n"
"                        (one rule a line, within its limits); exit 0 or 1\n"
"  config-set FILE SECTION.KEY=VALUE...\n"
"                        print FILE with these keys set (each in its\n"
"                        section, every other line as written), after\n"
"                        checking the result reads as asked; FILE is not\n"
"                        changed\n"
"  dry-run [--config FILE] [--cmdline TEXT] [--root DIR] [--root-subvol FILE]\n"
"        [--verity-data-image FILE] [--verity-hash-image FILE]\n"
"                        print what a boot would do with this config and\n"
"                        kernel command line (default: /proc/cmdline); with\n"
"                        an image's etc/hardinit/root-subvol, which btrfs\n"
"                        subvolume it mounts; with the verity devices'\n"
"                        images, also what it decides from their superblock\n"
"                        and sizes\n"
"  audit [--format text|json|prometheus] [--json] [--output FILE]\n"
"        [--config FILE] [--report FILE] [--profiles DIR]\n"
"                        compare the live system with the config it was\n"
"                        booted with (default /run/hardinit/config) and\n"
"                        the boot report (/run/hardinit/report.txt); exit 1\n"
"                        on drift, 2 when it cannot audit. --json is\n"
"                        --format json; prometheus writes node_exporter's\n"
"                        textfile format, atomically, to --output (default\n"
"                        /var/lib/prometheus/node-exporter/hardinit.prom)\n"
"  predict --config FILE [--cmdline TEXT] [--root DIR] [--ima-policy FILE]\n"
"        [--selinux-policy FILE] [--verity-data-image FILE]\n"
"        [--verity-hash-image FILE] [--initial HEX] [--image-root DIR]\n"
"        [--output FILE]\n"
"                        print, as JSON, the [tpm] pcr value and the event\n"
"                        log a boot with this embedded config, command\n"
"                        line, IMA policy, SELinux policy (the one the root\n"
"                        loads) and verity devices will produce; --initial\n"
"                        is the PCR before hardinit (default zeros);\n"
"                        --image-root holds the image's files an include\n"
"                        of the config names (no host path is read)\n"
"  private-tmp [--dir POLYDIR] USER COMMAND [ARGS...]\n"
"                        run COMMAND as USER with its own instance of /tmp\n"
"                        (as pam_namespace would), for systems without PAM\n"
"  limits                print, as NAME=VALUE lines, the paths and limits\n"
"                        the initramfs builder must respect, and the\n"
"                        default [tpm] pcr\n"
"  --help                this text\n"
"  --version             the version\n"
"\n"
"Kernel command line: root= rootfstype= rootflags= ro rw rootwait\n"
"rootdelay= init= and hardinit.SECTION.KEY=VALUE overrides of the config\n"
"(refused when they weaken a config with lock_cmdline = yes, as are the\n"
"kernel's own words that steer the hand-off or the LSMs: init=,\n"
"enforcing=0, selinux=0, lsm=, single, ...;\n"
"see hardinit(8), THE LOCK AND THE MEASUREMENT);\n"
"hardinit.debug shows debug lines.\n"
"\n"
"See hardinit(8) and hardinit.conf(5).\n";

/* Debian's kernels start AppArmor, not SELinux (DESIGN.md section 5):
 * a profile that needs SELinux loaded needs security=selinux, unless its
 * [kernel] words already choose the LSMs. */
static bool needs_security_word(const struct config *c)
{
	bool wants_selinux = c->selinux_mode == SELINUX_ENFORCING ||
			     c->selinux_mode == SELINUX_PERMISSIVE || c->selinux_require;

	if (!wants_selinux)
		return false;
	for (size_t i = 0; i < c->n_kernel_opts; i++)
		if (strncmp(c->kernel_opts[i].word, "security=", 9) == 0 ||
		    strncmp(c->kernel_opts[i].word, "lsm=", 4) == 0)
			return false;
	return true;
}

/* The words the config asks of the kernel's command line: every [kernel]
 * word this architecture's kernel reads, and security=selinux when
 * needed. Returns how many (at most max). */
static size_t kernel_words(const struct config *c, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_kernel_opts && n < max; i++)
		if (hi_arch_reads_word(hi_arch_native(), c->kernel_opts[i].word))
			out[n++] = c->kernel_opts[i].word;
	if (needs_security_word(c) && n < max)
		out[n++] = "security=selinux";
	return n;
}

/* Each word of cmdline against the config's: the first contradiction is
 * one line and status 1. */
static int check_words(const char *path, const char *cmdline, const char *const *want, size_t n)
{
	char buf[CMDLINE_MAX_BYTES];
	char *save = NULL;

	if (strlen(cmdline) >= sizeof buf) {
		fprintf(stderr, "hardinit: --cmdline is longer than %d bytes (CMDLINE_MAX_BYTES)\n", CMDLINE_MAX_BYTES - 1);
		return 1;
	}
	snprintf(buf, sizeof buf, "%s", cmdline);
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		for (size_t i = 0; i < n; i++)
			if (hi_kernel_word_contradicts(w, want[i])) {
				fprintf(stderr, "hardinit: word %s contradicts %s that %s asks for; drop the word or "
					"change the [kernel] section of %s\n", w, want[i], path, path);
				return 1;
			}
	return 0;
}

static int check_config(const char *path, bool print_words, const char *cmdline)
{
	static struct config cfg;
	char err[CONFIG_ERR_MAX + 128];
	const char *words[CONFIG_MAX_KERNEL_OPTS + 1];

	hi_config_defaults(&cfg);
	if (hi_config_load(&cfg, path, "", err, CONFIG_ERR_MAX) < 0) {
		hi_config_explain(err, sizeof err);
		fprintf(stderr, "hardinit: %s\n", err);
		return 1;
	}
	size_t n = kernel_words(&cfg, words, sizeof words / sizeof words[0]);
	if (cmdline && check_words(path, cmdline, words, n) != 0)
		return 1;
	if (print_words)
		for (size_t i = 0; i < n; i++)
			printf("%s\n", words[i]);
	else
		printf("hardinit: %s is valid\n", path);
	return 0;
}

/* check-config [--print-kernel-words] [--cmdline WORDS] FILE */
static int cmd_check_config(int argc, char **argv)
{
	bool print_words = false;
	const char *cmdline = NULL;
	int i = 0;

	for (; i < argc - 1; i++) {
		if (strcmp(argv[i], "--print-kernel-words") == 0)
			print_words = true;
		else if (strcmp(argv[i], "--cmdline") == 0 && i + 2 < argc)
			cmdline = argv[++i];
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "hardinit: usage: hardinit check-config [--print-kernel-words] [--cmdline WORDS] FILE\n");
		return 2;
	}
	return check_config(argv[i], print_words, cmdline);
}

/* check-crypttab FILE: the luks stage's own parser (block/luks_plan.c)
 * over a crypttab the builder is about to embed, so an image never
 * carries a line its boot refuses. Options systemd-cryptsetup knows and
 * hardinit ignores (as systemd ignores unknown ones) are named on stderr;
 * they do not make the file invalid. 0 valid, 1 not, 2 usage. */
static int cmd_check_crypttab(int argc, char **argv)
{
	static char text[LUKS_CRYPTTAB_MAX];
	static struct luks_plan plan;
	char err[LUKS_ERR_MAX];
	size_t len = 0;

	if (argc != 1) {
		fprintf(stderr, "hardinit: usage: hardinit check-crypttab FILE\n");
		return 2;
	}
	if (hi_fs_read(argv[0], text, sizeof text, &len) < 0) {
		fprintf(stderr, "hardinit: cannot read %s: %s%s\n", argv[0], strerror(errno),
			errno == EFBIG || errno == E2BIG ? " (more than LUKS_CRYPTTAB_MAX bytes)" : "");
		return 1;
	}
	memset(&plan, 0, sizeof plan);
	if (hi_luks_crypttab_parse(text, len, &plan, err, sizeof err) < 0) {
		fprintf(stderr, "hardinit: %s: %s; the boot would refuse it\n", argv[0], err);
		return 1;
	}
	for (size_t i = 0; i < plan.n; i++)
		if (plan.v[i].o.ignored[0])
			fprintf(stderr, "hardinit: %s: %s: options hardinit ignores at boot (as systemd-cryptsetup ignores "
				"unknown ones): %s\n", argv[0], plan.v[i].name, plan.v[i].o.ignored);
	printf("hardinit: %s is valid (%zu volume%s)\n", argv[0], plan.n, plan.n == 1 ? "" : "s");
	return 0;
}

/* check-ima-policy FILE: the ima stage's own reader (stages/ima.c): the
 * rules it would write, one a line, within its limits. The kernel judges
 * each rule at boot; this is what hardinit refuses before it. */
static int cmd_check_ima_policy(int argc, char **argv)
{
	static char text[IMA_POLICY_MAX_BYTES];
	static struct ima_rule rules[IMA_POLICY_MAX_RULES];
	char why[200];
	size_t len = 0;

	if (argc != 1) {
		fprintf(stderr, "hardinit: usage: hardinit check-ima-policy FILE\n");
		return 2;
	}
	if (hi_fs_read(argv[0], text, sizeof text, &len) < 0) {
		fprintf(stderr, "hardinit: cannot read %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	long n = hi_ima_policy_rules(text, len, rules, IMA_POLICY_MAX_RULES, why, sizeof why);
	if (n < 0) {
		fprintf(stderr, "hardinit: %s: %s; the boot would refuse it\n", argv[0], why);
		return 1;
	}
	printf("hardinit: %s is valid (%ld rule%s)\n", argv[0], n, n == 1 ? "" : "s");
	return 0;
}

/* config-set: FILE's text with the values set, on stdout; FILE itself is
 * not changed (the builder's profiles are read-only). */
static int config_set(int argc, char **argv)
{
	static char text[CONFIG_MAX_FILE_BYTES + 1], out[2 * CONFIG_MAX_FILE_BYTES];
	char err[CONFIG_ERR_MAX + 128];
	size_t len = 0;

	if (argc < 2) {
		fprintf(stderr, "hardinit: usage: hardinit config-set FILE SECTION.KEY=VALUE...\n");
		return 2;
	}
	if (hi_fs_read(argv[0], text, sizeof text, &len) < 0) {
		fprintf(stderr, "hardinit: config-set: cannot read %s: %s; give a regular file of at most %d bytes\n",
			argv[0], errno == E2BIG ? "too large" : strerror(errno), CONFIG_MAX_FILE_BYTES);
		return 1;
	}
	int n = hi_config_edit(text, len, argv[0], "", (const char *const *)argv + 1, (size_t)argc - 1,
			    out, sizeof out, err, CONFIG_ERR_MAX);
	if (n < 0) {
		hi_config_explain(err, sizeof err);
		fprintf(stderr, "hardinit: config-set: %s\n", err);
		return 1;
	}
	fwrite(out, 1, (size_t)n, stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int parse_dry_run(struct boot *b, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!val) {
			fprintf(stderr, "hardinit: %s needs a value; see hardinit --help\n", opt);
			return -1;
		}
		if (strcmp(opt, "--config") == 0)
			snprintf(b->config_path, sizeof b->config_path, "%s", val);
		else if (strcmp(opt, "--cmdline") == 0)
			b->cmdline_text = val;
		else if (strcmp(opt, "--root") == 0)
			snprintf(b->newroot, sizeof b->newroot, "%s", val);
		else if (strcmp(opt, "--root-subvol") == 0)
			snprintf(b->root_subvol, sizeof b->root_subvol, "%s", val);
		else if (strcmp(opt, "--verity-data-image") == 0)
			b->verity_data_image = val;
		else if (strcmp(opt, "--verity-hash-image") == 0)
			b->verity_hash_image = val;
		else {
			fprintf(stderr, "hardinit: unknown option %s for dry-run; see hardinit --help\n", opt);
			return -1;
		}
		i++;
	}
	return 0;
}

/* The boot's stages in MODE_DRY_RUN: each says what it would do. The exit
 * status is 1 where the boot would take the failure action. */
static int dry_run(struct boot *b)
{
	int rc = hi_boot_run_stages(b);
	if (rc == 0 && (rc = hi_boot_handoff(b)) < 0)
		b->failed_stage = "handoff";
	if (rc < 0) {
		struct failure_plan plan;
		hi_failure_decide(b, b->failed_stage, &plan);
		log_err("%s", b->err);
		log_err("at boot this would take the failure action: %s (from the %s)",
			hi_config_failure_action_name(plan.action), plan.source);
		return 1;
	}
	return 0;
}

static int cmd_dry_run(int argc, char **argv)
{
	static struct boot b;
	static char *no_args[] = { "/sbin/init", NULL };

	hi_boot_init_paths(&b, MODE_DRY_RUN);
	snprintf(b.newroot, sizeof b.newroot, "/");
	b.argc = 1;
	b.argv = no_args;
	hi_log_set_kmsg_enabled(0);
	if (parse_dry_run(&b, argc, argv) < 0)
		return 2;
	return dry_run(&b);
}

/* The builder (hardinit-mkinitramfs) reads these instead of copying the
 * numbers: one home for each. */
static int cmd_limits(void)
{
	printf("CONFIG_PATH=%s\n", BOOT_CONFIG_PATH);
	printf("MAX_CONFIG_BYTES=%d\n", CONFIG_MAX_FILE_BYTES);
	printf("MODULES_LIST=%s\n", BOOT_MODULES_LIST);
	printf("MD_MARKER=%s\n", BOOT_MD_MARKER);
	printf("ROOT_SUBVOL=%s\n", BOOT_ROOT_SUBVOL);
	printf("MAX_MODULES=%d\n", MODULES_MAX);
	printf("MAX_LIST_BYTES=%d\n", MODULES_LIST_MAX);
	printf("MODULES_DEVICES=%s%s\n", BOOT_MODULES_LIST, MODULES_DEVICES_SUFFIX);
	printf("MAX_DEVICES_BYTES=%d\n", MODULES_DEVICES_MAX);
	printf("MAX_DEVICE_ALIASES=%d\n", MODULES_ALIASES_MAX);
	printf("POLICY_DIR=%s\n", SELINUX_EMBED_DIR);
	printf("MAX_POLICY_BYTES=%u\n", SELINUX_POLICY_MAX_BYTES);
	printf("IMA_POLICY_PATH=%s\n", BOOT_IMA_POLICY);
	printf("MAX_IMA_POLICY_BYTES=%d\n", IMA_POLICY_MAX_BYTES);
	printf("IMA_CERT_DIR=%s\n", BOOT_IMA_CERTS);
	printf("VERITY_SIG_PATH=%s\n", VERITY_SIG_EMBED_PATH);
	printf("MAX_VERITY_SIG_BYTES=%d\n", VERITY_SIG_MAX);
	printf("MAX_IMA_CERTS=%d\n", IMA_CERTS_MAX);
	printf("MAX_IMA_CERT_BYTES=%d\n", IMA_CERT_MAX_BYTES);
	printf("SELINUX_POLICY_MAGIC=0x%08x\n", SELINUX_POLICYDB_MAGIC);
	printf("MAX_POLICY_TYPE_LEN=%d\n", SELINUX_TYPE_MAX_LEN);
	printf("MAX_ROOT_HASH_HEX=%d\n", CONFIG_ROOT_HASH_HEX_MAX);
	/* [tpm] pcr when the config does not set it: tests and docs name the
	 * measurement PCR after this line. */
	printf("TPM_PCR_DEFAULT=%d\n", CONFIG_TPM_PCR_DEFAULT);
	/* The Makefile's PREFIX, compiled in: the package's binary must say
	 * /usr, the one make install put under /usr/local says that. */
	printf("PROFILE_DIR=%s\n", HARDINIT_PROFILE_DIR);
	return 0;
}

/* COMMAND --help: that command's lines of the usage: its own (a line may
 * show it again with other options) and the indented ones under them. */
static int command_help(const char *cmd)
{
	char head[48];
	size_t n = strlen(cmd);

	snprintf(head, sizeof head, "\n  %s", cmd);
	const char *at = strstr(usage, head);
	if (!at || (at[3 + n] != ' ' && at[3 + n] != '\n'))
		return 2;
	const char *end = ++at;
	while (strncmp(end, "  ", 2) == 0 && (end[2] == ' ' || (strncmp(end + 2, cmd, n) == 0 && end[2 + n] == ' ')))
		end = strchr(end, '\n') + 1;
	printf("Usage: hardinit COMMAND ...\n%.*s\nSee hardinit(8).\n", (int)(end - at), at);
	return 0;
}

int hi_cli_main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	hi_log_set_kmsg_enabled(0);
	if (!cmd || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) && command_help(cmd) == 0)
		return 0;
	if (strcmp(cmd, "limits") == 0)
		return cmd_limits();
	if (strcmp(cmd, "--version") == 0) {
		printf("hardinit %s\n", HARDINIT_VERSION);
		return 0;
	}
	if (strcmp(cmd, "check-config") == 0 || strcmp(cmd, "--check-config") == 0)
		return cmd_check_config(argc - 2, argv + 2);
	if (strcmp(cmd, "check-crypttab") == 0)
		return cmd_check_crypttab(argc - 2, argv + 2);
	if (strcmp(cmd, "check-ima-policy") == 0)
		return cmd_check_ima_policy(argc - 2, argv + 2);
	if (strcmp(cmd, "config-set") == 0)
		return config_set(argc - 2, argv + 2);
	if (strcmp(cmd, "dry-run") == 0 || strcmp(cmd, "--dry-run") == 0)
		return cmd_dry_run(argc - 2, argv + 2);
	if (strcmp(cmd, "private-tmp") == 0)
		return hi_polytmp_main(argc - 1, argv + 1);
	if (strcmp(cmd, "audit") == 0)
		return hi_audit_main(argc - 1, argv + 1);
	if (strcmp(cmd, "predict") == 0)
		return hi_predict_main(argc - 2, argv + 2);
	fprintf(stderr, "hardinit: unknown command '%s'; see hardinit --help\n", cmd);
	return 2;
}
