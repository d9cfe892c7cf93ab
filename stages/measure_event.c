/* The measured events' texts: what each event of the measure stages
 * extends, from what the boot holds (stages/measure.c has the stage). */
#include "measure_event.h"

#include <stdio.h>
#include <string.h>

#include "config_format.h"
#include "config_types.h"
#include "sha256.h"
#include "sink.h"
#include "tpm.h"

const char *const hi_measure_event_names[EV_COUNT] = {
	[EV_IMA] = "ima-policy", [EV_VERITY] = "verity-root-hash", [EV_CONFIG] = "config",
	[EV_SELINUX] = "selinux-policy", [EV_HANDOFF] = "handoff",
};

void hi_measure_event_text(char *out, size_t cap, const char *name, const uint8_t digest[32])
{
	char hex[SHA256_HEX];

	snprintf(out, cap, "hardinit:%s:%s", name, hi_hex_encode(hex, digest, 32));
}

/* The effective config's digest: config_format's text, the file
 * /run/hardinit/config holds. */
static void config_event(const struct boot *b, char *out, size_t cap)
{
	static char config[MEASURE_CONFIG_TEXT_MAX];
	uint8_t d[SHA256_BYTES];
	int len = hi_config_format(&b->cfg, config, sizeof config);

	if (len < 0) {
		snprintf(out, cap, "hardinit:%s:unformattable", hi_measure_event_names[EV_CONFIG]);
		return;
	}
	hi_sha256(config, (size_t)len, d);
	hi_measure_event_text(out, cap, hi_measure_event_names[EV_CONFIG], d);
}

/* The hand-off: hardinit's version, then the digest of the path of the
 * program exec'd and the words of the command line that go to it (init's
 * argv: every bare word without a dot and every word after "--", a
 * superset of what the kernel passes on), each ended by a NUL. Any other
 * program or word gives another digest. */
static void handoff_event(const struct boot *b, char *out, size_t cap)
{
	struct sha256 ctx;
	uint8_t d[SHA256_BYTES];
	char hex[SHA256_HEX];
	const char *init = b->handoff_init[0] ? b->handoff_init : "";

	hi_sha256_init(&ctx);
	hi_sha256_update(&ctx, init, strlen(init) + 1);
	for (size_t i = 0; i < b->cmd.n_init_args; i++)
		hi_sha256_update(&ctx, b->cmd.init_args[i], strlen(b->cmd.init_args[i]) + 1);
	hi_sha256_final(&ctx, d);
	snprintf(out, cap, "hardinit:%s:%s:%s", hi_measure_event_names[EV_HANDOFF], HARDINIT_VERSION,
		 hi_hex_encode(hex, d, 32));
}

/* SELinux as applied: the mode the kernel holds and the policy hardinit
 * loaded, "disabled" when no policy is loaded. */
static void selinux_event(const struct boot *b, char *out, size_t cap)
{
	const char *name = hi_measure_event_names[EV_SELINUX];
	char hex[SHA256_HEX];

	if (!b->selinux_applied)
		snprintf(out, cap, "hardinit:%s:disabled", name);
	else if (b->selinux_policy_before || !b->selinux_policy_hashed)
		snprintf(out, cap, "hardinit:%s:%s:loaded-before-hardinit", name, b->selinux_applied);
	else
		snprintf(out, cap, "hardinit:%s:%s:%s", name, b->selinux_applied,
			 hi_hex_encode(hex, b->selinux_policy_sha256, 32));
}

void hi_measure_event_for(const struct boot *b, enum measure_event_id id, char *out, size_t cap)
{
	const char *name = hi_measure_event_names[id];

	switch (id) {
	case EV_IMA:
		if (b->ima_policy_loaded)
			hi_measure_event_text(out, cap, name, b->ima_policy_sha256);
		else
			snprintf(out, cap, "hardinit:%s:none", name);
		return;
	case EV_VERITY:
		/* The setup the verity stage described (root hash, devices,
		 * options, corruption mode), not the hash alone. */
		snprintf(out, cap, "hardinit:%s:%s", name, b->verity_setup[0] ? b->verity_setup : "none");
		return;
	case EV_CONFIG:
		config_event(b, out, cap);
		return;
	case EV_SELINUX:
		selinux_event(b, out, cap);
		return;
	case EV_HANDOFF:
	case EV_COUNT:
		break;
	}
	handoff_event(b, out, cap);
}

void hi_measure_replay_texts(const char *const *texts, size_t n, const uint8_t start[32], uint8_t value[32])
{
	uint8_t d[SHA256_BYTES];

	memcpy(value, start, 32);
	for (size_t i = 0; i < n; i++) {
		hi_sha256(texts[i], strlen(texts[i]), d);
		hi_tpm_replay_sha256(value, d);
	}
}

/* A decoder's result as one line: a TPM code decoded, or the parse error. */
void hi_tpm_failure_text(long rc, const char *why, char *out, size_t cap)
{
	if (rc > 0)
		hi_tpm_rc_text((uint32_t)rc, out, cap);
	else
		snprintf(out, cap, "%s", why);
}
