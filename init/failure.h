/* The failure action a failed boot takes, decided in one place for the
 * boot (prog/main.c) and for the dry run that predicts it. */
#ifndef HARDINIT_FAILURE_H
#define HARDINIT_FAILURE_H

#include "boot.h"

struct failure_plan {
	enum failure_action action;
	int delay;               /* seconds before reboot or poweroff */
	const char *source;      /* "config", "initramfs config", "command line" (an override set it, or no config was read), "defaults..." */
};

/* What a boot that failed in stage failed_stage does:
 * - a config stage finished: the action it left (command-line overrides
 *   included, so under lock_cmdline the config's own);
 * - otherwise the initramfs config is read now for its action (a
 *   malformed command line must not cost the config its say); only when
 *   no config could be read may the command line choose, and then not an
 *   emergency shell, and not when the command line itself failed (the
 *   early stage: what it holds is not trusted). */
void hi_failure_decide(const struct boot *b, const char *failed_stage, struct failure_plan *p);

#endif
