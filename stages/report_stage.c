/* Report: write what was done to RUN/hardinit/ (report.json for programs,
 * report.txt for people, config for hardinit audit) and print the
 * per-stage times on the console. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot.h"
#include "config_format.h"
#include "fsutil.h"
#include "log.h"
#include "report_stage.h"

#define REPORT_CONFIG_MAX (48 * 1024)

static void log_stage_times(const struct boot *b)
{
	char ms[CLOCK_MS_MAX];
	uint64_t total = 0;

	for (size_t i = 0; i < b->rep.n_stages; i++) {
		const struct report_stage *st = &b->rep.stages[i];
		total += st->duration_ns;
		log_notice("stage %-10s %s %8s ms", st->name, st->result < 0 ? "failed" : "ok",
			   hi_clock_format_ms(ms, sizeof ms, st->duration_ns));
	}
	log_notice("hardening done in %s ms", hi_clock_format_ms(ms, sizeof ms, total));
}

static void print_items(const struct boot *b)
{
	for (size_t i = 0; i < b->rep.n_items; i++) {
		const struct report_item *it = &b->rep.items[i];
		printf("%-10s %-36s %-8s %s\n", it->stage, it->key, it->status, it->value);
	}
}

int hi_stage_report(struct boot *b)
{
	static char conf[REPORT_CONFIG_MAX];
	char dir[BOOT_PATH_MAX + 16], path[BOOT_PATH_MAX + 32];

	b->rep.exec_ns = hi_boottime_ns();
	log_stage_times(b);
	if (b->mode == MODE_DRY_RUN) {
		print_items(b);
		return 0;
	}
	snprintf(dir, sizeof dir, "%s/hardinit", b->run);
	/* A report that cannot be written loses information, not security:
	 * warn and boot. */
	if (hi_report_write(&b->rep, dir) < 0) {
		log_warn("cannot write the boot report to %s: %s", dir, strerror(errno));
		return 0;
	}
	if (hi_config_format(&b->cfg, conf, sizeof conf) < 0 ||
	    hi_fs_write_new(hi_boot_path(path, sizeof path, dir, "config"), conf) < 0)
		log_warn("cannot save the effective config to %s/config; hardinit audit will need --config", dir);
	log_info("report written to %s/report.json", dir);
	return 0;
}
