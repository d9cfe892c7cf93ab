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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot.h"
#include "config.h"
#include "cmdline_lock.h"
#include "config_lock.h"
#include "config_stage.h"
#include "config_table.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"

#define ROOT_CONFIG "etc/hardinit.conf"

/* One line for a config error; a byte-order mark it quotes is named. */
void hi_config_explain(char *err, size_t cap)
{
	if (hi_log_name_invisible(err, cap) > 0) {
		size_t n = strlen(err);
		snprintf(err + n, cap - n, "; save the file as UTF-8 without a byte-order mark");
	}
}

static int load_file(struct boot *b, const char *path, const char *root)
{
	char err[CONFIG_ERR_MAX + 128], why[BOOT_PATH_MAX + 64];

	/* A FIFO (or socket, device, link) where the config should be is
	 * refused before it is opened: the root must not stall PID 1. */
	if (hi_fs_check_regular(path, why, sizeof why) < 0)
		return hi_boot_error(b, "config: %s; hardinit does not read it (it could block the boot); "
				  "make it a regular file", why);
	if (hi_config_load(&b->cfg, path, root, err, CONFIG_ERR_MAX) < 0) {
		hi_config_explain(err, sizeof err);
		return hi_boot_error(b, "config: %s", err);
	}
	log_info("config: read %s", path);
	hi_report_add(&b->rep, "config", "file", "ok", "%s", path);
	return 0;
}

/* The initramfs's file (or, with init=, the root's): over the defaults.
 * No file is allowed: the defaults are the baseline profile. */
static int load_initramfs_config(struct boot *b)
{
	hi_config_defaults(&b->cfg);
	struct stat st;
	if (lstat(b->config_path, &st) < 0 && errno == ENOENT) {
		log_info("config: %s not found; the baseline defaults apply", b->config_path);
		hi_report_add(&b->rep, "config", "file", "absent", "%s (baseline defaults apply)", b->config_path);
		return 0;
	}
	return load_file(b, b->config_path, b->image_root ? b->image_root : "");
}

/* The root's file, on top of what the initramfs's file said. Its
 * include = lines are read from the root. */
static int load_root_config(struct boot *b)
{
	char path[BOOT_PATH_MAX];

	if (!hi_boot_path(path, sizeof path, b->newroot, ROOT_CONFIG))
		return hi_boot_error(b, "config: root path %s is too long; shorten it", b->newroot);
	struct stat st;
	if (lstat(path, &st) < 0 && errno == ENOENT) {
		log_info("config: read_root_config is set but %s does not exist; the initramfs's config stands", path);
		hi_report_add(&b->rep, "config", "root_file", "absent", "%s", path);
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

/* An override of [verity] when the initramfs embeds a root hash: judged
 * by the lock's rules whatever lock_cmdline says, and a refusal fails the
 * boot (the embedded root hash is the trust anchor: stages/verity.c). */
static int override_anchored(struct boot *b, const char *key, const char *value)
{
	char err[CONFIG_ERR_MAX];
	bool locked = b->cfg.lock_cmdline;

	b->cfg.lock_cmdline = true;
	int rc = hi_config_override(&b->cfg, key, value, err, sizeof err);
	b->cfg.lock_cmdline = locked;
	if (rc > 0) {
		/* Not the lock's own advice: lock_cmdline does not decide here. */
		char *advice = strstr(err, "; change the config file");
		if (advice)
			*advice = '\0';
		return hi_boot_error(b, "config: %s; the initramfs embeds a verity root hash, so the command line cannot change "
				  "or weaken [verity] whatever lock_cmdline says: remove the word, or rebuild the initramfs "
				  "(hardinit-mkinitramfs --verity-*)", err);
	}
	return rc < 0 ? hi_boot_error(b, "config: %s", err) : 0;
}

static int apply_overrides(struct boot *b)
{
	char err[CONFIG_ERR_MAX];

	if (!b->switched)
		b->verity_anchored = b->cfg.verity_roothash[0] != '\0';
	b->config_action_cmdline = false;
	for (size_t i = 0; i < b->cmd.n_overrides; i++) {
		const char *key = b->cmd.overrides[i].key;
		const char *value = b->cmd.overrides[i].value ? b->cmd.overrides[i].value : "";

		if (strcmp(key, "debug") == 0)
			continue;   /* the runner's switch, not a config key */
		int rc = 0;
		if (b->verity_anchored && strncmp(key, "verity.", 7) == 0) {
			if (override_anchored(b, key, value) < 0)
				return -1;
		} else {
			rc = hi_config_override(&b->cfg, key, value, err, sizeof err);
		}
		if (rc < 0)
			return hi_boot_error(b, "config: %s", err);
		if (rc > 0) {
			log_warn("config: %s", err);
			if (last_run(b))
				hi_report_add(&b->rep, "config", key, "refused", "%s", value);
			continue;
		}
		log_info("config: override hardinit.%s=%s applied", key, value);
		if (strcmp(key, "boot.failure_action") == 0)
			b->config_action_cmdline = true;
		if (last_run(b))
			hi_report_add(&b->rep, "config", key, "applied", "%s", value);
	}
	return 0;
}

/* The kernel's own words under the lock (init/cmdline_lock.c): one
 * hardinit alone reads is ignored as a weakening hardinit.* word is; one
 * the kernel or the real init acts on whatever hardinit does refuses the
 * boot. */
static int lock_kernel_words(struct boot *b)
{
	if (!b->cfg.lock_cmdline)
		return 0;
	for (size_t i = 0; i < b->cmd.n_words; i++) {
		const struct cmdline_word *w = &b->cmd.words[i];
		const struct kernel_word *k = hi_kernel_word_refused(w->key, w->value);
		char word[CONFIG_NAME_MAX + 64];

		if (!k)
			continue;
		snprintf(word, sizeof word, "%.*s%s%.64s", CONFIG_NAME_MAX, w->key, w->value ? "=" : "",
			 w->value ? w->value : "");
		if (k->action == KWORD_FATAL)
			return hi_boot_error(b, "config: the kernel's %s refused under the lock (lock_cmdline = yes): %s; "
					  "remove the word from the boot loader's command line or change the config",
					  word, k->why);
		/* KWORD_IGNORED: words hardinit alone reads; init= is taken
		 * out here, bootdegraded= the md stage judges by this table. */
		if (strcmp(k->key, "init") == 0)
			b->cmd.init = NULL;
		log_warn("config: the kernel's %s refused under the lock (lock_cmdline = yes): it %s; "
			 "ignored: change the config file or drop lock_cmdline", word, k->why);
		if (last_run(b))
			hi_report_add(&b->rep, "config", w->key, "refused", "%s", w->value ? w->value : "");
	}
	return 0;
}

/* What the report needs to say which config this boot ran with. */
static void report_facts(struct boot *b)
{
	const struct config *c = &b->cfg;

	hi_report_add(&b->rep, "config", "lock_cmdline", "info", "%s", c->lock_cmdline ? "yes" : "no");
	hi_report_add(&b->rep, "config", "failure_action", "info", "%s",
		   hi_config_failure_action_name(c->failure_action));
	hi_report_add(&b->rep, "config", "selinux_mode", "info", "%s", hi_config_selinux_mode_name(c->selinux_mode));
	hi_report_add(&b->rep, "config", "sysctls", "info", "%zu", c->n_sysctls);
	hi_report_add(&b->rep, "config", "caps_dropped", "info", "%zu", c->n_cap_drop);
	hi_report_add(&b->rep, "config", "kernel_checks", "info", "%zu", c->n_kernel_opts);
}

int hi_stage_config(struct boot *b)
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
	if (rc == 0)
		rc = lock_kernel_words(b);
	if (rc == 0 && last_run(b))
		report_facts(b);
	if (rc == 0) {
		b->config_read = true;
		b->config_action = b->cfg.failure_action;
		b->config_delay = b->cfg.failure_delay;
	}
	return rc;
}
