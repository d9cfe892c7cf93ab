/* The measure stage: extend [tpm] pcr with what this boot was hardened
 * with, so a verifier can prove it remotely. Events, in order: the
 * effective config, the SELinux policy loaded, the verity root hash, the
 * IMA policy, and "handoff", the last thing measured before the real init
 * runs (only the report is written after it). Each event's data is the
 * text "hardinit:NAME:HEX", extended with TPM2_PCR_Event: the TPM hashes
 * it for every active bank itself, so hardinit needs no hash but SHA-256.
 *
 * Each event goes to /run/hardinit/measurements (the initial PCR value and
 * one line per event, which hardinit audit replays) and, as a CEL-JSON
 * record, to /run/log/systemd/tpm2-measure.log where systemd-pcrlock and
 * attestation tools read userspace measurements. No TPM: a report line, or
 * the failure action with [tpm] require. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "measure.h"
#include "report.h"
#include "sha256.h"
#include "sink.h"
#include "stages.h"
#include "tpm.h"

#define STAGE "measure"
#define MEASURE_LOG_MAX (16 * 1024)
#define CONFIG_TEXT_MAX (48 * 1024)

void measure_event_text(char *out, size_t cap, const char *name, const uint8_t digest[32])
{
	char hex[SHA256_HEX];

	snprintf(out, cap, "hardinit:%s:%s", name, hex_encode(hex, digest, 32));
}

/* ---- the device ------------------------------------------------------------ */

static int tpm_open(const struct boot *b, char *path, size_t cap)
{
	static const char *const names[] = { "tpmrm0", "tpm0" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!boot_path(path, cap, b->dev, names[i]))
			continue;
		int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* One command, one response, bounded in time and size. */
static long tpm_transact(int fd, const uint8_t *cmd, long len, uint8_t *resp, char *why, size_t whylen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (write(fd, cmd, (size_t)len) != len) {
		snprintf(why, whylen, "writing the command failed: %s", strerror(errno));
		return -1;
	}
	int r = poll(&p, 1, MEASURE_TPM_TIMEOUT_MS);
	if (r == 0) {
		snprintf(why, whylen, "no answer within %d ms", MEASURE_TPM_TIMEOUT_MS);
		return -1;
	}
	if (r < 0) {
		snprintf(why, whylen, "poll failed: %s", strerror(errno));
		return -1;
	}
	ssize_t n = read(fd, resp, TPM_CMD_MAX);
	if (n < 0) {
		snprintf(why, whylen, "reading the answer failed: %s", strerror(errno));
		return -1;
	}
	return (long)n;
}

/* A decoder's result as one line: a TPM code decoded, or the parse error. */
static void tpm_failure(long rc, const char *why, char *out, size_t cap)
{
	if (rc > 0)
		tpm_rc_text((uint32_t)rc, out, cap);
	else
		snprintf(out, cap, "%s", why);
}

/* ---- the events -------------------------------------------------------------- */

struct event {
	const char *name;
	char text[TPM_EVENT_MAX];
};

static void event_digest(struct event *e, const char *name, const void *data, size_t len)
{
	uint8_t d[SHA256_BYTES];

	sha256(data, len, d);
	e->name = name;
	measure_event_text(e->text, sizeof e->text, name, d);
}

static void event_hash(struct event *e, const char *name, const uint8_t digest[32])
{
	e->name = name;
	measure_event_text(e->text, sizeof e->text, name, digest);
}

static void event_word(struct event *e, const char *name, const char *word)
{
	e->name = name;
	snprintf(e->text, sizeof e->text, "hardinit:%s:%s", name, word);
}

static size_t collect_events(struct boot *b, struct event *ev)
{
	static char config[CONFIG_TEXT_MAX];
	size_t n = 0;
	int len = config_format(&b->cfg, config, sizeof config);

	if (len < 0)
		event_word(&ev[n++], "config", "unformattable");
	else
		event_digest(&ev[n++], "config", config, (size_t)len);
	if (b->selinux_policy_hashed)
		event_hash(&ev[n++], "selinux-policy", b->selinux_policy_sha256);
	else
		event_word(&ev[n++], "selinux-policy", "none");
	event_word(&ev[n++], "verity-root-hash", b->root_hash[0] ? b->root_hash : "none");
	if (b->ima_policy_loaded)
		event_hash(&ev[n++], "ima-policy", b->ima_policy_sha256);
	else
		event_word(&ev[n++], "ima-policy", "none");
	event_word(&ev[n++], "handoff", HARDINIT_VERSION);
	return n;
}

/* ---- the logs ------------------------------------------------------------------ */

static void log_line(struct sink *s, unsigned pcr, const struct event *e, const struct tpm_digests *d)
{
	char hex[2 * TPM_DIGEST_MAX + 1];

	sink_printf(s, "event %u %s", pcr, e->text);
	for (size_t i = 0; i < d->n; i++)
		sink_printf(s, " %s=%s", tpm_alg_name(d->d[i].alg), hex_encode(hex, d->d[i].bytes, d->d[i].size));
	sink_printf(s, "\n");
}

/* JSON-SEQ (RFC 7464): a record separator before each record. */
static void cel_record(struct sink *s, unsigned pcr, const struct event *e, const struct tpm_digests *d)
{
	char hex[2 * TPM_DIGEST_MAX + 1];

	sink_printf(s, "\x1e{\"pcr\":%u,\"digests\":[", pcr);
	for (size_t i = 0; i < d->n; i++)
		sink_printf(s, "%s{\"hashAlg\":\"%s\",\"digest\":\"%s\"}", i ? "," : "",
			    tpm_alg_name(d->d[i].alg), hex_encode(hex, d->d[i].bytes, d->d[i].size));
	sink_printf(s, "],\"content_type\":\"systemd\",\"content\":{\"string\":");
	sink_json_string(s, e->text);
	sink_printf(s, "}}\n");
}

static int write_logs(struct boot *b, const char *own, const char *cel, size_t cel_len)
{
	char path[BOOT_PATH_MAX + 64];

	if (!boot_path(path, sizeof path, b->run, MEASURE_LOG) || fs_write_new(path, own) < 0)
		return -1;
	if (!boot_path(path, sizeof path, b->run, "log/systemd") || fs_mkdir_p(path, 0755) < 0 ||
	    !boot_path(path, sizeof path, b->run, MEASURE_SYSTEMD_LOG))
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, cel, cel_len);
	close(fd);
	return w == (ssize_t)cel_len ? 0 : -1;
}

/* ---- the stage ------------------------------------------------------------------ */


/* The PCR before hardinit's first event, from sysfs (5.12+): the log's
 * starting point, so a replay needs nothing measured before. */
static void initial_value(const struct boot *b, unsigned pcr, char *hex, size_t cap)
{
	char rel[64], buf[80];

	snprintf(rel, sizeof rel, "class/tpm/tpm0/pcr-sha256/%u", pcr);
	snprintf(hex, cap, "unknown");
	char path[BOOT_PATH_MAX + 64];
	if (boot_path(path, sizeof path, b->sys, rel) && fs_read(path, buf, sizeof buf, NULL) == 0) {
		buf[strcspn(buf, "\n")] = '\0';
		for (char *c = buf; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
		if (strlen(buf) == 64)
			snprintf(hex, cap, "%s", buf);
	}
}

static int measure_all(struct boot *b, int fd, const char *dev)
{
	static uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX];
	static char own[MEASURE_LOG_MAX], cel[MEASURE_LOG_MAX];
	struct event ev[MEASURE_EVENTS_MAX];
	struct tpm_banks banks;
	struct sink so, sc;
	char why[160], err[200], initial[80];
	unsigned pcr = (unsigned)b->cfg.tpm_pcr;

	long n = tpm_transact(fd, cmd, tpm_cmd_get_pcr_banks(cmd, sizeof cmd), resp, why, sizeof why);
	long rc = n < 0 ? -1 : tpm_resp_pcr_banks(resp, (size_t)n, &banks, why, sizeof why);
	if (rc != 0) {
		tpm_failure(rc, why, err, sizeof err);
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: reading its PCR banks failed: %s", dev, err);
	}
	initial_value(b, pcr, initial, sizeof initial);
	sink_init(&so, own, sizeof own);
	sink_init(&sc, cel, sizeof cel);
	sink_printf(&so, "# hardinit measurements (hardinit(8)): each event's text was extended into "
		    "PCR %u with TPM2_PCR_Event, hashed by the TPM in every bank\ninitial %u sha256 %s\n",
		    pcr, pcr, initial);
	size_t n_ev = collect_events(b, ev);
	for (size_t i = 0; i < n_ev; i++) {
		struct tpm_digests d;
		long len = tpm_cmd_pcr_event(cmd, sizeof cmd, pcr, ev[i].text, strlen(ev[i].text));
		n = len < 0 ? -1 : tpm_transact(fd, cmd, len, resp, why, sizeof why);
		rc = n < 0 ? -1 : tpm_resp_pcr_event(resp, (size_t)n, &d, why, sizeof why);
		if (rc != 0) {
			tpm_failure(rc, why, err, sizeof err);
			write_logs(b, own, cel, sc.len);
			return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: extending PCR %u with %s failed: %s; the log keeps the "
					   "events before it", dev, pcr, ev[i].name, err);
		}
		log_line(&so, pcr, &ev[i], &d);
		cel_record(&sc, pcr, &ev[i], &d);
		report_add(&b->rep, STAGE, ev[i].name, "ok", "PCR %u, %zu banks", pcr, d.n);
	}
	if (so.full || sc.full || write_logs(b, own, cel, sc.len) < 0)
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM: the measurements were extended but the event log could not be "
				   "written under %s; a verifier cannot replay PCR %u this boot", b->run, pcr);
	report_add(&b->rep, STAGE, "banks", "info", "%zu active", banks.n);
	return 0;
}

int stage_measure(struct boot *b)
{
	char dev[BOOT_PATH_MAX + 16];

	if (!b->cfg.tpm_measure) {
		report_add(&b->rep, STAGE, "tpm", "skipped", "[tpm] measure = no");
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would extend PCR %d with the config, the SELinux policy, the verity root hash, "
			 "the IMA policy and the hand-off", b->cfg.tpm_pcr);
		return 0;
	}
	int fd = tpm_open(b, dev, sizeof dev);
	if (fd < 0) {
		if (!b->cfg.tpm_require) {
			report_add(&b->rep, STAGE, "tpm", "skipped", "no TPM (%s/tpmrm0, %s/tpm0)", b->dev, b->dev);
			log_info("no TPM: nothing measured");
			return 0;
		}
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "no TPM at %s/tpmrm0 or %s/tpm0, and [tpm] require = yes; boot with a "
				   "TPM or set require = no", b->dev, b->dev);
	}
	uint64_t start = boottime_ns();
	int rc = measure_all(b, fd, dev);
	close(fd);
	char ms[REPORT_MS_MAX];
	report_add(&b->rep, STAGE, "extend_ms", "info", "%s", report_format_ms(ms, sizeof ms, boottime_ns() - start));
	return rc;
}

/* ---- the replay (hardinit audit) ---------------------------------------------- */

int measure_log_replay(const char *path, unsigned *pcr, uint8_t value[32], char *why, size_t whylen)
{
	static char text[MEASURE_LOG_MAX];
	bool have_initial = false;

	if (fs_read(path, text, sizeof text, NULL) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char hex[65];
		unsigned p;
		if (sscanf(line, "initial %u sha256 %64s", &p, hex) == 2) {
			if (hex_decode(value, 32, hex) < 0) {
				snprintf(why, whylen, "the initial sha256 value is '%.70s', not 64 hex digits", hex);
				return -1;
			}
			*pcr = p;
			have_initial = true;
			continue;
		}
		if (strncmp(line, "event ", 6) != 0)
			continue;
		const char *d = strstr(line, " sha256=");
		uint8_t digest[32];
		if (!have_initial || !d || sscanf(line, "event %u", &p) != 1 || p != *pcr ||
		    strlen(d + 8) < 64 || (d[8 + 64] && d[8 + 64] != ' ')) {
			snprintf(why, whylen, "the event line '%.60s' does not follow an initial line of PCR %u "
				 "with a sha256 digest", line, *pcr);
			return -1;
		}
		char dh[65];
		memcpy(dh, d + 8, 64);
		dh[64] = '\0';
		if (hex_decode(digest, 32, dh) < 0) {
			snprintf(why, whylen, "the sha256 digest of '%.60s' is not hex", line);
			return -1;
		}
		tpm_replay_sha256(value, digest);
	}
	if (!have_initial) {
		snprintf(why, whylen, "%s has no 'initial' line (was the initial PCR value unreadable?)", path);
		return -1;
	}
	return 0;
}
