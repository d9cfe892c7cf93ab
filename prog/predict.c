/* hardinit predict: the PCR value and event log a boot will produce, from
 * what the builder embeds and the root it is given, for a verifier who
 * holds them before the machine ever boots (contrib/hardinit-quote).
 *
 * The texts are the boot's own (measure_event_for, stages/measure.c):
 * the effective config comes from the config stage run as a dry run over
 * the embedded file and the kernel command line (and the root's file
 * when the config reads it), the verity setup from the verity stage's
 * dry run over the devices' images, the IMA policy and SELinux policy
 * from the files the boot loads. Nothing here restates what is measured.
 * The output is JSON (contrib/hardinit-predict.schema.json). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot.h"
#include "config_stage.h"
#include "early.h"
#include "fsutil.h"
#include "handoff.h"
#include "ima.h"
#include "log.h"
#include "measure.h"
#include "measure_event.h"
#include "predict.h"
#include "selinux_config.h"
#include "selinux_types.h"
#include "sha256.h"
#include "sink.h"
#include "tpm.h"
#include "verity.h"

#define PREDICT_OUT_MAX (32 * 1024)

struct predict_opts {
	const char *config, *cmdline, *root, *ima_policy, *selinux_policy;
	const char *data_image, *hash_image, *initial, *output, *image_root;
};

static int usage_error(const char *what)
{
	fprintf(stderr, "hardinit: predict: %s; see hardinit --help\n", what);
	return 2;
}

static int parse(struct predict_opts *o, int argc, char **argv)
{
	static const struct { const char *name; size_t off; } opts[] = {
		{ "--config", offsetof(struct predict_opts, config) },
		{ "--cmdline", offsetof(struct predict_opts, cmdline) },
		{ "--root", offsetof(struct predict_opts, root) },
		{ "--ima-policy", offsetof(struct predict_opts, ima_policy) },
		{ "--selinux-policy", offsetof(struct predict_opts, selinux_policy) },
		{ "--verity-data-image", offsetof(struct predict_opts, data_image) },
		{ "--verity-hash-image", offsetof(struct predict_opts, hash_image) },
		{ "--initial", offsetof(struct predict_opts, initial) },
		{ "--output", offsetof(struct predict_opts, output) },
		{ "--image-root", offsetof(struct predict_opts, image_root) },
	};

	for (int i = 0; i < argc; i += 2) {
		size_t k = 0;
		while (k < sizeof opts / sizeof opts[0] && strcmp(argv[i], opts[k].name) != 0)
			k++;
		if (k == sizeof opts / sizeof opts[0]) {
			fprintf(stderr, "hardinit: predict: unknown option %s; see hardinit --help\n", argv[i]);
			return -1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "hardinit: predict: %s needs a value; see hardinit --help\n", argv[i]);
			return -1;
		}
		*(const char **)((char *)o + opts[k].off) = argv[i + 1];
	}
	if (!o->config) {
		usage_error("--config FILE (the config the image embeds) is required");
		return -1;
	}
	return 0;
}

/* sha256 of a whole file of at most max bytes, as the stage that loads it
 * hashes it. */
static int hash_file(const char *path, size_t max, uint8_t d[32], const char *what)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "hardinit: predict: the %s %s is not a readable file: %s\n", what, path,
			errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		fprintf(stderr, "hardinit: predict: the %s %s is larger than the boot takes (%zu bytes)\n", what, path, max);
		return -1;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t len = 0;
	if (!buf || hi_fs_read(path, buf, (size_t)st.st_size + 1, &len) < 0) {
		fprintf(stderr, "hardinit: predict: cannot read the %s %s: %s\n", what, path, strerror(errno));
		free(buf);
		return -1;
	}
	hi_sha256(buf, len, d);
	free(buf);
	return 0;
}

/* The IMA policy the ima stage loads: it must parse as the boot parses it. */
static int ima_policy(struct boot *b, const char *path)
{
	static char text[IMA_POLICY_MAX_BYTES + 1];
	static struct ima_rule rules[IMA_POLICY_MAX_RULES];
	char why[160];
	size_t len = 0;

	if (hi_fs_read(path, text, sizeof text, &len) < 0) {
		fprintf(stderr, "hardinit: predict: cannot read the IMA policy %s: %s\n", path,
			errno == E2BIG ? "larger than 64 KiB (IMA_POLICY_MAX_BYTES)" : strerror(errno));
		return -1;
	}
	if (hi_ima_policy_rules(text, len, rules, IMA_POLICY_MAX_RULES, why, sizeof why) < 0) {
		fprintf(stderr, "hardinit: predict: the IMA policy %s does not parse: %s; the boot would not load it\n",
			path, why);
		return -1;
	}
	hi_sha256(text, len, b->ima_policy_sha256);
	b->ima_policy_loaded = true;
	return 0;
}

/* The mode the selinux stage will set for the policy it loads: its own
 * decision, from the config, the kernel's enforcing= and the root's
 * /etc/selinux/config (with --root; none without). */
static int selinux_mode(struct boot *b, const struct predict_opts *o)
{
	struct selinux_file_config file;
	struct selinux_decision d;
	char err[CONFIG_ERR_MAX];

	memset(&file, 0, sizeof file);
	if (o->root && hi_selinux_config_read(b->newroot, &file, err, sizeof err) < 0) {
		fprintf(stderr, "hardinit: predict: %s\n", err);
		return -1;
	}
	hi_selinux_decide(&d, hi_cmdline_get(&b->cmd, "enforcing", NULL), &b->cfg, &file, true);
	if (d.action == SEACT_LOAD)
		b->selinux_applied = d.enforcing ? "enforcing" : "permissive";
	return 0;
}

/* The config stage as the boot runs it: the command line (the early
 * stage's parse), the embedded file with its overrides, and after the
 * switch the root's file when the config reads it. */
static int effective_config(struct boot *b, const struct predict_opts *o)
{
	if (hi_stage_early(b) < 0 || hi_stage_config(b) < 0)
		return -1;
	if (!b->cfg.read_root_config)
		return 0;
	if (!o->root) {
		fprintf(stderr, "hardinit: predict: %s sets read_root_config, so the boot reads the root's "
			"/etc/hardinit.conf: give --root DIR (the root's tree)\n", o->config);
		return -1;
	}
	b->switched = true;
	return hi_stage_config(b);
}

static void json_event(struct sink *s, const char *text, bool first)
{
	uint8_t d[32];
	char hex[SHA256_HEX];
	const char *name = text + strlen("hardinit:");

	hi_sha256(text, strlen(text), d);
	hi_sink_printf(s, "%s\n    {\"name\":\"%.*s\",\"text\":", first ? "" : ",", (int)strcspn(name, ":"), name);
	hi_sink_json_string(s, text);
	hi_sink_printf(s, ",\"digests\":{\"sha256\":\"%s\"}}", hi_hex_encode(hex, d, 32));
}

static int write_out(const char *path, const char *text, size_t len)
{
	FILE *f = path ? fopen(path, "we") : stdout;

	if (!f || fwrite(text, 1, len, f) != len || (path ? fclose(f) : fflush(f)) != 0) {
		fprintf(stderr, "hardinit: predict: cannot write %s: %s\n", path ? path : "stdout", strerror(errno));
		return 1;
	}
	return 0;
}

/* What the boot would measure, made as the boot makes it: the effective
 * config, the IMA policy, the verity stage run dry, the SELinux policy.
 * Returns 0, 1 after saying why not, or -1 when the boot itself would
 * fail (b->err). */
static int boot_inputs(struct boot *b, const struct predict_opts *o)
{
	if (effective_config(b, o) < 0)
		return -1;
	if (!b->cfg.tpm_measure) {
		fprintf(stderr, "hardinit: predict: %s has [tpm] measure = no: a boot measures nothing\n", o->config);
		return 1;
	}
	if (o->ima_policy && ima_policy(b, o->ima_policy) < 0)
		return 1;
	b->verity_data_image = o->data_image;
	b->verity_hash_image = o->hash_image;
	if (hi_stage_verity(b) < 0)
		return -1;
	if (b->root_hash[0] && !b->verity_setup[0]) {
		fprintf(stderr, "hardinit: predict: / is on verity (root hash %.16s...): give "
			"the verity devices' images (--verity-data-image FILE, --verity-hash-image FILE; the builder's "
			"--predict-verity-data-image, --predict-verity-hash-image) so the setup can be described\n",
			b->root_hash);
		return 1;
	}
	if (o->selinux_policy) {
		if (hash_file(o->selinux_policy, SELINUX_POLICY_MAX_BYTES, b->selinux_policy_sha256, "SELinux policy") < 0)
			return 1;
		b->selinux_policy_hashed = true;
		if (selinux_mode(b, o) < 0)
			return 1;
	}
	return 0;
}

/* The prediction as JSON: the PCR, its value before and after, the
 * events' texts in the order the boot extends them. */
static int write_prediction(const struct boot *b, const struct predict_opts *o, char texts[EV_COUNT][TPM_EVENT_MAX],
			    const uint8_t start[32], const uint8_t value[32])
{
	static char out[PREDICT_OUT_MAX];
	char hex[SHA256_HEX];
	struct sink s;

	hi_sink_init(&s, out, sizeof out);
	hi_sink_printf(&s, "{\n  \"format\":\"hardinit-predict\",\n  \"version\":\"%s\",\n  \"pcr\":%d,\n"
		    "  \"bank\":\"sha256\",\n", HARDINIT_VERSION, b->cfg.tpm_pcr);
	hi_sink_printf(&s, "  \"initial\":\"%s\",\n", hi_hex_encode(hex, start, 32));
	hi_sink_printf(&s, "  \"value\":\"%s\",\n  \"cmdline\":", hi_hex_encode(hex, value, 32));
	hi_sink_json_string(&s, o->cmdline ? o->cmdline : "");
	hi_sink_printf(&s, ",\n  \"events\":[");
	for (int i = 0; i < EV_COUNT; i++)
		json_event(&s, texts[i], i == 0);
	hi_sink_printf(&s, "\n  ]\n}\n");
	if (s.full) {
		fprintf(stderr, "hardinit: predict: the prediction is larger than %d bytes\n", PREDICT_OUT_MAX);
		return 1;
	}
	return write_out(o->output, out, s.len);
}

static int predict(struct boot *b, const struct predict_opts *o)
{
	char texts[EV_COUNT][TPM_EVENT_MAX];
	const char *ptr[EV_COUNT];
	uint8_t start[32] = { 0 }, value[32];

	if (o->initial && (strlen(o->initial) != 64 || hi_hex_decode(start, 32, o->initial) < 0))
		return usage_error("--initial must be 64 hex digits (the PCR's SHA-256 value before hardinit)"), 1;
	int rc = boot_inputs(b, o);
	if (rc < 0) {
		fprintf(stderr, "hardinit: predict: %s%s\n", b->err[0] ? b->err : "the boot would fail",
			strstr(b->err, "include") && !o->image_root ?
			"; the boot reads an include of the embedded config from the image: give --image-root DIR "
			"(the image's files at their paths; hardinit-mkinitramfs --predict passes its --add files)" : "");
		return 1;
	}
	if (rc > 0)
		return 1;
	/* The default hand-off: with --root, the program the boot finds there;
	 * else the one it names first (a root that has it). */
	const char *init = o->root ? hi_handoff_program(b) : NULL;
	snprintf(b->handoff_init, sizeof b->handoff_init, "%s", init ? init : hi_handoff_named(b));
	for (int i = 0; i < EV_COUNT; i++) {
		hi_measure_event_for(b, (enum measure_event_id)i, texts[i], sizeof texts[i]);
		ptr[i] = texts[i];
	}
	hi_measure_replay_texts(ptr, EV_COUNT, start, value);
	return write_prediction(b, o, texts, start, value);
}

int hi_predict_main(int argc, char **argv)
{
	static struct boot b;
	static char *no_args[] = { "/sbin/init", NULL };
	struct predict_opts o = { 0 };

	if (parse(&o, argc, argv) < 0)
		return 2;
	hi_boot_init_paths(&b, MODE_DRY_RUN);
	snprintf(b.newroot, sizeof b.newroot, "%s", o.root ? o.root : "/nonexistent");
	snprintf(b.config_path, sizeof b.config_path, "%s", o.config);
	b.cmdline_text = o.cmdline ? o.cmdline : "";
	/* The embedded config's includes are the image's files: read from
	 * --image-root, never from the build host's paths. */
	b.image_root = o.image_root ? o.image_root : "/nonexistent";
	b.argc = 1;
	b.argv = no_args;
	/* The stages' dry-run lines are dry-run's; predict says only what
	 * fails (b.err, one line). */
	hi_log_set_console_fd(-1);
	return predict(&b, &o);
}
