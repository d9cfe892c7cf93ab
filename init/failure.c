#include "failure.h"
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* An emergency shell is not granted this way: the config that would say
 * whether the command line may weaken it is unknown. */
static bool action_from_cmdline(const struct cmdline *cmd, enum failure_action *out)
{
	static const struct { const char *name; enum failure_action action; } names[] = {
		{ "reboot", FAIL_REBOOT }, { "poweroff", FAIL_POWEROFF }, { "halt", FAIL_HALT },
	};
	bool found = false;

	for (size_t i = 0; i < cmd->n_overrides; i++) {
		const struct cmdline_word *o = &cmd->overrides[i];
		if (!o->value || strcmp(o->key, "boot.failure_action") != 0)
			continue;
		for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
			if (strcmp(o->value, names[j].name) == 0) {
				*out = names[j].action;
				found = true;
			}
	}
	return found;
}

void hi_failure_decide(const struct boot *b, const char *failed_stage, struct failure_plan *p)
{
	static struct config c;
	char err[CONFIG_ERR_MAX];

	if (b->config_read) {
		p->action = b->config_action;
		p->delay = b->config_delay;
		p->source = b->config_action_cmdline ? "command line" : "config";
		return;
	}
	/* What the config stage would have read (config_load changes nothing
	 * when the file has an error: the defaults then). */
	hi_config_defaults(&c);
	bool present = access(b->config_path, F_OK) == 0 || errno != ENOENT;
	bool loaded = present && hi_config_load(&c, b->config_path, "", err, sizeof err) == 0;
	p->action = c.failure_action;
	p->delay = c.failure_delay;
	p->source = loaded ? "initramfs config" : present ? "defaults (the config has an error)" : "defaults";
	if (loaded || (failed_stage && strcmp(failed_stage, "early") == 0))
		return;
	if (action_from_cmdline(&b->cmd, &p->action))
		p->source = "command line";
}
