/* The measure stage: extend [tpm] pcr with what this boot was hardened
 * with, so a verifier can prove it remotely. Events, in order: the IMA
 * policy, the verity root hash (the root stage waits for both before it
 * mounts the root: measure_queue_wait_root), the
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
 * the failure action with [tpm] require. measure_log_check is the other
 * side: what hardinit audit proves from the log. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "boot.h"
#include "config_types.h"
#include "fsutil.h"
#include "log.h"
#include "measure.h"
#include "measure_event.h"
#include "measure_queue.h"
#include "report.h"
#include "sha256.h"
#include "sink.h"
#include "tpm.h"
#include "tpm_dev.h"

#define STAGE "measure"

/* ---- the logs ------------------------------------------------------------------ */

static void log_line(struct sink *s, unsigned pcr, const struct measure_event *e)
{
	const struct tpm_digests *d = &e->digests;
	char hex[2 * TPM_DIGEST_MAX + 1];

	hi_sink_printf(s, "event %u %s", pcr, e->text);
	for (size_t i = 0; i < d->n; i++)
		hi_sink_printf(s, " %s=%s", hi_tpm_alg_name(d->d[i].alg), hi_hex_encode(hex, d->d[i].bytes, d->d[i].size));
	hi_sink_printf(s, "\n");
}

/* JSON-SEQ (RFC 7464): a record separator before each record. The fields
 * and their order are systemd's (measure.h). */
void hi_measure_cel_record(struct sink *s, unsigned pcr, const struct tpm_digests *d, const char *text,
			   const char *event_type, const char *boot_id, uint64_t boottime_ns)
{
	char hex[2 * TPM_DIGEST_MAX + 1];

	hi_sink_printf(s, "\x1e{\"pcr\":%u,\"digests\":[", pcr);
	for (size_t i = 0; i < d->n; i++)
		hi_sink_printf(s, "%s{\"hashAlg\":\"%s\",\"digest\":\"%s\"}", i ? "," : "",
			    hi_tpm_alg_name(d->d[i].alg), hi_hex_encode(hex, d->d[i].bytes, d->d[i].size));
	hi_sink_printf(s, "],\"content_type\":\"systemd\",\"content\":{\"string\":");
	hi_sink_json_string(s, text);
	if (boot_id[0])
		hi_sink_printf(s, ",\"bootId\":\"%s\"", boot_id);
	hi_sink_printf(s, ",\"timestamp\":%llu", (unsigned long long)(boottime_ns / 1000));
	if (event_type)
		hi_sink_printf(s, ",\"eventType\":\"%s\"", event_type);
	hi_sink_printf(s, "}}\n");
}

void hi_measure_boot_id(const struct boot *b, char out[MEASURE_BOOT_ID_MAX])
{
	char path[BOOT_PATH_MAX + 32], text[64];
	size_t n = 0, len = 0;

	out[0] = '\0';
	if (!hi_boot_path(path, sizeof path, b->proc, "sys/kernel/random/boot_id") ||
	    hi_fs_read(path, text, sizeof text, &len) < 0)
		return;
	for (size_t i = 0; i < len && n < MEASURE_BOOT_ID_MAX - 1; i++) {
		char c = text[i];
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
			out[n++] = c;
		else if (c != '-' && c != '\n')
			break;
	}
	out[n == MEASURE_BOOT_ID_MAX - 1 ? n : 0] = '\0';
}

int hi_measure_cel_append(const struct boot *b, const char *recs, size_t len, char *why, size_t whylen)
{
	char path[BOOT_PATH_MAX + 64];
	struct stat st;

	if (!hi_boot_path(path, sizeof path, b->run, "log/systemd") || hi_fs_mkdir_p(path, 0755) < 0 ||
	    !hi_boot_path(path, sizeof path, b->run, MEASURE_SYSTEMD_LOG)) {
		snprintf(why, whylen, "%s/log/systemd: %s", b->run, strerror(errno));
		return -1;
	}
	/* 0600 as systemd: whoever can open the file can take its lock. */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Bounded: nobody holds it this early, and a holder that never lets
	 * go costs the log, not the boot. */
	int locked = -1;
	for (int i = 0; i < MEASURE_LOCK_TRIES && (locked = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EWOULDBLOCK; i++)
		hi_sleep_ms(MEASURE_LOCK_WAIT_MS);
	int rc = -1;
	if (locked < 0)
		snprintf(why, whylen, "%s: another writer holds its lock", path);
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		snprintf(why, whylen, "%s: not a regular file", path);
	else if (st.st_mode & S_ISVTX)
		/* systemd's mark of a writer that died mid-record: systemd
		 * stops appending, and so does hardinit. */
		snprintf(why, whylen, "%s has the sticky bit: an earlier writer did not finish; not appended", path);
	else if (fchmod(fd, 0600 | S_ISVTX) < 0)
		snprintf(why, whylen, "%s: chmod: %s", path, strerror(errno));
	else if (write(fd, recs, len) != (ssize_t)len || fsync(fd) < 0)
		snprintf(why, whylen, "%s: write: %s", path, strerror(errno));
	else if (fchmod(fd, 0600) < 0 || fsync(fd) < 0)
		snprintf(why, whylen, "%s: chmod: %s", path, strerror(errno));
	else
		rc = 0;
	close(fd);   /* drops the lock */
	return rc;
}

static int write_logs(struct boot *b, const char *own, const char *cel, size_t cel_len)
{
	char path[BOOT_PATH_MAX + 64], why[BOOT_PATH_MAX + 160];

	if (!hi_boot_path(path, sizeof path, b->run, MEASURE_LOG) || hi_fs_write_new(path, own) < 0)
		return -1;
	if (hi_measure_cel_append(b, cel, cel_len, why, sizeof why) < 0) {
		log_warn("measure: %s", why);
		return -1;
	}
	return 0;
}

/* The digests of the banks the event was extended in. TPM2_PCR_Event
 * answers with a digest for every hash the TPM implements, allocated or
 * not (swtpm with sha1 and sha256 allocated answers sha384 and sha512
 * too); systemd's log holds the extended banks only, and a reader replays
 * every bank a record names. */
static void extended_banks(const struct tpm_digests *all, const struct tpm_banks *banks, unsigned pcr,
			   struct tpm_digests *out)
{
	out->n = 0;
	for (size_t i = 0; i < all->n; i++)
		for (size_t j = 0; j < banks->n; j++)
			if (banks->alg[j] == all->d[i].alg && pcr < 32 && (banks->pcrs[j] & (1u << pcr))) {
				out->d[out->n++] = all->d[i];
				break;
			}
}

/* ---- the stage ------------------------------------------------------------------ */

/* The logs and the report from what the thread did; the problem, if any. */
static int record(struct boot *b, const struct measure_queue *q)
{
	static char own[MEASURE_LOG_MAX], cel[MEASURE_LOG_MAX];
	struct sink so, sc;
	char err[200], boot_id[MEASURE_BOOT_ID_MAX];

	hi_sink_init(&so, own, sizeof own);
	hi_sink_init(&sc, cel, sizeof cel);
	const char *initial = q->initial[0] ? q->initial : "unknown";
	hi_sink_printf(&so, "# hardinit measurements (hardinit(8)): each event's text was extended into "
		    "PCR %u with TPM2_PCR_Event, hashed by the TPM in every bank\ninitial %u sha256 %s\n",
		    q->pcr, q->pcr, initial);
	/* The PCR's value before the first event, for hardinit audit: the
	 * reset value unless something (a UKI's stub) extended it before. */
	hi_report_add(&b->rep, STAGE, "initial", "info", "%s", initial);
	hi_measure_boot_id(b, boot_id);
	for (size_t i = 0; i < q->n_done; i++) {
		const struct measure_event *e = &q->events[i];
		log_line(&so, q->pcr, e);
		struct tpm_digests ext;
		extended_banks(&e->digests, &q->banks, q->pcr, &ext);
		hi_measure_cel_record(&sc, q->pcr, &ext, e->text, NULL, boot_id, e->done_ns);
		hi_report_add(&b->rep, STAGE, e->name, "ok", "PCR %u, %zu banks", q->pcr, e->digests.n);
	}
	if (q->rc != 0) {
		hi_tpm_failure_text(q->rc, q->why, err, sizeof err);
		write_logs(b, own, cel, sc.len);
		return hi_boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: %s failed: %s; the log keeps the "
				    "events before it%s", q->dev, q->failed_what, err, q->tpm.stuck ? "; the hand-off "
				    "waits for the kernel's own timeout of that command" : "");
	}
	if (so.full || sc.full || write_logs(b, own, cel, sc.len) < 0)
		return hi_boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM: the measurements were extended but the event log could not be "
				   "written under %s; a verifier cannot replay PCR %u this boot", b->run, q->pcr);
	hi_report_add(&b->rep, STAGE, "banks", "info", "%zu active", q->banks.n);
	return 0;
}

int hi_stage_measure(struct boot *b)
{
	char ms[CLOCK_MS_MAX];

	if (!b->cfg.tpm_measure) {
		hi_report_add(&b->rep, STAGE, "tpm", "skipped", "[tpm] measure = no");
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would extend PCR %d with the IMA policy, the verity root hash, the config, "
			 "the SELinux policy and the hand-off", b->cfg.tpm_pcr);
		return 0;
	}
	uint64_t start = hi_boottime_ns();
	int rc = hi_measure_queue_finish(b);
	const struct measure_queue *q = hi_measure_queue_get();
	if (q->no_tpm) {
		char nodes[2 * BOOT_PATH_MAX + 32];
		if (!b->cfg.tpm_require) {
			hi_tpm_dev_order_text(b->dev, TPM_USE_MEASURE, ", ", nodes, sizeof nodes);
			hi_report_add(&b->rep, STAGE, "tpm", "skipped", "no TPM (%s)", nodes);
			log_info("no TPM: nothing measured");
			return 0;
		}
		hi_tpm_dev_order_text(b->dev, TPM_USE_MEASURE, " or ", nodes, sizeof nodes);
		return hi_boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "no TPM at %s, and [tpm] require = yes; boot with a "
				   "TPM or set require = no", nodes);
	}
	if (!q->worker.started)
		return rc;   /* the thread did not start: said, and decided, already */
	if (rc < 0)
		return hi_boot_problem(b, b->cfg.tpm_require, STAGE, "tpm", "TPM %s: the measuring thread did not end within "
				    "%d ms of the last event queued; nothing is logged, and the hand-off may wait for "
				    "the kernel's TPM timeout", q->dev, MEASURE_TPM_TIMEOUT_MS + 1000);
	rc = record(b, q);
	/* extend_ms: what the measurements cost the boot (the wait for the
	 * thread and the logs); tpm_ms: the thread's own time at the TPM. */
	hi_report_add(&b->rep, STAGE, "extend_ms", "info", "%s", hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start));
	hi_report_add(&b->rep, STAGE, "tpm_ms", "info", "%s", hi_clock_format_ms(ms, sizeof ms, q->busy_ns));
	return rc;
}

/* ---- the replay (hardinit audit) ---------------------------------------------- */

/* "initial PCR sha256 HEX|unknown": the PCR must be the config's, and a
 * known value the start the verifier expects (the log does not choose it). */
static int check_initial(const char *line, unsigned pcr, const uint8_t start[32], char *why, size_t whylen)
{
	char hex[80], want[SHA256_HEX];
	uint8_t v[32];
	unsigned p;
	int n = 0;

	if (sscanf(line, "initial %u sha256 %79s%n", &p, hex, &n) != 2 || line[n]) {
		snprintf(why, whylen, "the initial line '%.50s' is not 'initial PCR sha256 HEX'", line);
		return -1;
	}
	if (p != pcr) {
		snprintf(why, whylen, "the log is of PCR %u, the config's is %u", p, pcr);
		return -1;
	}
	if (strcmp(hex, "unknown") == 0)
		return 0;
	if (hi_hex_decode(v, 32, hex) < 0) {
		snprintf(why, whylen, "the initial value '%.20s' is not 64 hex digits", hex);
		return -1;
	}
	if (memcmp(v, start, 32) != 0) {
		snprintf(why, whylen, "the log starts from %.12s..., not %.12s...", hex, hi_hex_encode(want, start, 32));
		return -1;
	}
	return 0;
}

/* A digest word at the end of an event line: "ALG=HEX", ALG a bank's name. */
static bool digest_word(const char *w, size_t len)
{
	const char *eq = memchr(w, '=', len);

	if (!eq || eq == w || eq + 1 == w + len)
		return false;
	for (const char *c = w; c < eq; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	for (const char *c = eq + 1; c < w + len; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return false;
	return true;
}

/* "event PCR TEXT ALG=HEX ...": the k-th event of the sequence, its
 * sha256 digest the hash of its text; the replay takes that hash. */
static int check_event(char *line, size_t k, unsigned pcr, uint8_t value[32], char *why, size_t whylen)
{
	char prefix[48], hex[SHA256_HEX];
	uint8_t digest[32], logged[32];
	unsigned p;
	int n = 0;

	if (sscanf(line, "event %u %n", &p, &n) != 1 || n == 0) {
		snprintf(why, whylen, "the event line '%.50s' has no PCR", line);
		return -1;
	}
	if (p != pcr) {
		snprintf(why, whylen, "event %zu is of PCR %u, the config's is %u", k + 1, p, pcr);
		return -1;
	}
	/* The digest words are the end of the line; the text is before them. */
	char *text = line + n, *end = text + strlen(text);
	const char *sha = NULL;
	while (end > text) {
		char *sp = end;
		while (sp > text && sp[-1] != ' ')
			sp--;
		if (sp == text || !digest_word(sp, (size_t)(end - sp)))
			break;
		if (strncmp(sp, "sha256=", 7) == 0)
			sha = sp + 7;
		end = sp - 1;
		*end = '\0';
	}
	if (k >= EV_COUNT) {
		snprintf(why, whylen, "an event after handoff: '%.40s'", text);
		return -1;
	}
	snprintf(prefix, sizeof prefix, "hardinit:%s:", hi_measure_event_names[k]);
	if (strncmp(text, prefix, strlen(prefix)) != 0) {
		snprintf(why, whylen, "event %zu is '%.30s', expected %s", k + 1, text, hi_measure_event_names[k]);
		return -1;
	}
	if (!sha || strlen(sha) != 64 || hi_hex_decode(logged, 32, sha) < 0) {
		snprintf(why, whylen, "event %zu (%s) has no sha256 digest", k + 1, hi_measure_event_names[k]);
		return -1;
	}
	hi_sha256(text, strlen(text), digest);
	if (memcmp(digest, logged, 32) != 0) {
		snprintf(why, whylen, "event %zu (%s): its text does not hash to its digest %.12s...", k + 1,
			 hi_measure_event_names[k], hi_hex_encode(hex, logged, 32));
		return -1;
	}
	hi_tpm_replay_sha256(value, digest);
	return 0;
}

int hi_measure_log_check(char *text, unsigned pcr, const uint8_t start[32], uint8_t value[32], char *why, size_t whylen)
{
	bool have_initial = false;
	size_t k = 0;
	char *save = NULL;

	memcpy(value, start, 32);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (strncmp(line, "initial ", 8) == 0) {
			if (have_initial || k > 0) {
				snprintf(why, whylen, "a second initial line, or one after an event");
				return -1;
			}
			if (check_initial(line, pcr, start, why, whylen) < 0)
				return -1;
			have_initial = true;
		} else if (strncmp(line, "event ", 6) == 0) {
			if (!have_initial) {
				snprintf(why, whylen, "an event before the initial line");
				return -1;
			}
			if (check_event(line, k, pcr, value, why, whylen) < 0)
				return -1;
			k++;
		} else {
			snprintf(why, whylen, "the line '%.40s' is not an initial or event line", line);
			return -1;
		}
	}
	if (!have_initial) {
		snprintf(why, whylen, "no initial line");
		return -1;
	}
	if (k < EV_COUNT) {
		snprintf(why, whylen, "cut short: %zu of %d events, no %s", k, EV_COUNT, hi_measure_event_names[k]);
		return -1;
	}
	return 0;
}

int hi_measure_log_replay(const char *path, unsigned pcr, const uint8_t start[32], uint8_t value[32], char *why,
		       size_t whylen)
{
	static char text[MEASURE_LOG_MAX];

	if (hi_fs_read(path, text, sizeof text, NULL) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return hi_measure_log_check(text, pcr, start, value, why, whylen);
}
