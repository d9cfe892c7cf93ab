/* The measure stage: extend [tpm] pcr with what this boot was hardened
 * with, so a verifier can prove it remotely. Events, in order: the IMA
 * policy, the verity root hash (both before the root is mounted), the
 * effective config, the SELinux policy loaded, and "handoff", the last
 * thing measured before the real init runs (only the report is written
 * after it). A thread extends them as the stages before queue them
 * (stages/measure_queue.c); this stage queues "handoff", waits for the
 * thread and records what it did. Each event's data is the
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
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "measure.h"
#include "measure_queue.h"
#include "report.h"
#include "sha256.h"
#include "sink.h"
#include "stages.h"
#include "tpm.h"

#define STAGE "measure"
#define MEASURE_LOG_MAX (16 * 1024)

void measure_event_text(char *out, size_t cap, const char *name, const uint8_t digest[32])
{
	char hex[SHA256_HEX];

	snprintf(out, cap, "hardinit:%s:%s", name, hex_encode(hex, digest, 32));
}

/* ---- the logs ------------------------------------------------------------------ */

static void log_line(struct sink *s, unsigned pcr, const struct measure_event *e)
{
	const struct tpm_digests *d = &e->digests;
	char hex[2 * TPM_DIGEST_MAX + 1];

	sink_printf(s, "event %u %s", pcr, e->text);
	for (size_t i = 0; i < d->n; i++)
		sink_printf(s, " %s=%s", tpm_alg_name(d->d[i].alg), hex_encode(hex, d->d[i].bytes, d->d[i].size));
	sink_printf(s, "\n");
}

/* JSON-SEQ (RFC 7464): a record separator before each record. */
static void cel_record(struct sink *s, unsigned pcr, const struct measure_event *e)
{
	const struct tpm_digests *d = &e->digests;
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

/* A decoder's result as one line: a TPM code decoded, or the parse error. */
static void tpm_failure(long rc, const char *why, char *out, size_t cap)
{
	if (rc > 0)
		tpm_rc_text((uint32_t)rc, out, cap);
	else
		snprintf(out, cap, "%s", why);
}

/* The logs and the report from what the thread did; the problem, if any. */
static int record(struct boot *b, const struct measure_queue *q)
{
	static char own[MEASURE_LOG_MAX], cel[MEASURE_LOG_MAX];
	struct sink so, sc;
	char err[200];

	sink_init(&so, own, sizeof own);
	sink_init(&sc, cel, sizeof cel);
	sink_printf(&so, "# hardinit measurements (hardinit(8)): each event's text was extended into "
		    "PCR %u with TPM2_PCR_Event, hashed by the TPM in every bank\ninitial %u sha256 %s\n",
		    q->pcr, q->pcr, q->initial);
	for (size_t i = 0; i < q->n_done; i++) {
		const struct measure_event *e = &q->events[i];
		log_line(&so, q->pcr, e);
		cel_record(&sc, q->pcr, e);
		report_add(&b->rep, STAGE, e->name, "ok", "PCR %u, %zu banks", q->pcr, e->digests.n);
	}
	if (q->rc != 0) {
		tpm_failure(q->rc, q->why, err, sizeof err);
		write_logs(b, own, cel, sc.len);
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: %s failed: %s; the log keeps the "
				    "events before it", q->dev, q->failed_what, err);
	}
	if (so.full || sc.full || write_logs(b, own, cel, sc.len) < 0)
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM: the measurements were extended but the event log could not be "
				   "written under %s; a verifier cannot replay PCR %u this boot", b->run, q->pcr);
	report_add(&b->rep, STAGE, "banks", "info", "%zu active", q->banks.n);
	return 0;
}

int stage_measure(struct boot *b)
{
	char ms[REPORT_MS_MAX];

	if (!b->cfg.tpm_measure) {
		report_add(&b->rep, STAGE, "tpm", "skipped", "[tpm] measure = no");
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would extend PCR %d with the IMA policy, the verity root hash, the config, "
			 "the SELinux policy and the hand-off", b->cfg.tpm_pcr);
		return 0;
	}
	uint64_t start = boottime_ns();
	int rc = measure_queue_finish(b);
	const struct measure_queue *q = measure_queue_get();
	if (q->no_tpm) {
		if (!b->cfg.tpm_require) {
			report_add(&b->rep, STAGE, "tpm", "skipped", "no TPM (%s/tpmrm0, %s/tpm0)", b->dev, b->dev);
			log_info("no TPM: nothing measured");
			return 0;
		}
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "no TPM at %s/tpmrm0 or %s/tpm0, and [tpm] require = yes; boot with a "
				   "TPM or set require = no", b->dev, b->dev);
	}
	if (!q->started)
		return rc;   /* the thread did not start: said, and decided, already */
	if (rc < 0)
		return boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: no answer within %d ms to the events queued; "
				    "nothing is logged, and the hand-off waits for the kernel's TPM timeout",
				    q->dev, MEASURE_TPM_TIMEOUT_MS);
	rc = record(b, q);
	/* extend_ms: what the measurements cost the boot (the wait for the
	 * thread and the logs); tpm_ms: the thread's own time at the TPM. */
	report_add(&b->rep, STAGE, "extend_ms", "info", "%s", report_format_ms(ms, sizeof ms, boottime_ns() - start));
	report_add(&b->rep, STAGE, "tpm_ms", "info", "%s", report_format_ms(ms, sizeof ms, q->busy_ns));
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
