/* The config stage: read hardinit.conf, then the hardinit.* overrides of the
 * kernel command line. It runs twice in an initramfs boot (the stage table
 * in stages/table.c): before the switch for the initramfs's file, and after it
 * for the root's /etc/hardinit.conf when the first file set
 * read_root_config. The order is documented in hardinit.conf(5): initramfs
 * file, root file, command line; each later one changes what it names.
 *
 * A config error is fatal: a half-read config must not boot a system
 * weaker than its author wrote. A refused override (the config is locked
 * and the override weakens it) is a warning: the boot goes on with the
 * config as written, which is what the lock is for. It only reads, so a dry
 * run does exactly the same. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "config.h"
#include "log.h"
#include "report.h"
#include "stages.h"

#define ROOT_CONFIG "etc/hardinit.conf"

static int load_file(struct boot *b, const char *path, const char *root)
{
	char err[CONFIG_ERR_MAX];

	if (config_load(&b->cfg, path, root, err, sizeof err) < 0)
		return boot_error(b, "config: %s", err);
	log_info("config: read %s", path);
	report_add(&b->rep, "config", "file", "ok", "%s", path);
	return 0;
}

/* The initramfs's file (or, with init=, the root's): over the defaults.
 * No file is allowed: the defaults are the baseline profile. */
static int load_initramfs_config(struct boot *b)
{
	config_defaults(&b->cfg);
	if (access(b->config_path, F_OK) < 0 && errno == ENOENT) {
		log_info("config: %s not found; the baseline defaults apply", b->config_path);
		report_add(&b->rep, "config", "file", "absent", "%s (baseline defaults apply)", b->config_path);
		return 0;
	}
	return load_file(b, b->config_path, "");
}

/* The root's file, on top of what the initramfs's file said. Its
 * include = lines are read from the root. */
static int load_root_config(struct boot *b)
{
	char path[BOOT_PATH_MAX];

	if (!boot_path(path, sizeof path, b->newroot, ROOT_CONFIG))
		return boot_error(b, "config: root path %s is too long; shorten it", b->newroot);
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		log_info("config: read_root_config is set but %s does not exist; the initramfs's config stands", path);
		report_add(&b->rep, "config", "root_file", "absent", "%s", path);
		return 0;
	}
	return load_file(b, path, b->newroot);
}

/* In an initramfs boot with read_root_config, the stage runs again after
 * the switch and re-applies the overrides over the root's file: only that
 * run's outcome goes into the report (it has no way to replace an item). */
static bool last_run(const struct boot *b)
{
	return b->switched || b->mode != MODE_INITRAMFS || !b->cfg.read_root_config;
}

static int apply_overrides(struct boot *b)
{
	char err[CONFIG_ERR_MAX];

	for (size_t i = 0; i < b->cmd.n_overrides; i++) {
		const char *key = b->cmd.overrides[i].key;
		const char *value = b->cmd.overrides[i].value ? b->cmd.overrides[i].value : "";

		if (strcmp(key, "debug") == 0)
			continue;   /* the runner's switch, not a config key */
		int rc = config_override(&b->cfg, key, value, err, sizeof err);
		if (rc < 0)
			return boot_error(b, "config: %s", err);
		if (rc > 0) {
			log_warn("config: %s", err);
			if (last_run(b))
				report_add(&b->rep, "config", key, "refused", "%s", value);
			continue;
		}
		log_info("config: override hardinit.%s=%s applied", key, value);
		if (last_run(b))
			report_add(&b->rep, "config", key, "applied", "%s", value);
	}
	return 0;
}

/* What the report needs to say which config this boot ran with. */
static void report_facts(struct boot *b)
{
	const struct config *c = &b->cfg;

	report_add(&b->rep, "config", "lock_cmdline", "info", "%s", c->lock_cmdline ? "yes" : "no");
	report_add(&b->rep, "config", "failure_action", "info", "%s",
		   config_failure_action_name(c->failure_action));
	report_add(&b->rep, "config", "selinux_mode", "info", "%s", config_selinux_mode_name(c->selinux_mode));
	report_add(&b->rep, "config", "sysctls", "info", "%zu", c->n_sysctls);
	report_add(&b->rep, "config", "caps_dropped", "info", "%zu", c->n_cap_drop);
	report_add(&b->rep, "config", "kernel_checks", "info", "%zu", c->n_kernel_opts);
}

int stage_config(struct boot *b)
{
	int rc;

	if (!b->switched) {
		rc = load_initramfs_config(b);
	} else {
		if (!b->cfg.read_root_config)
			return 0;
		rc = load_root_config(b);
	}
	if (rc == 0)
		rc = apply_overrides(b);
	if (rc == 0 && last_run(b))
		report_facts(b);
	return rc;
}
