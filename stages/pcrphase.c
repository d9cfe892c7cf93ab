/* The pcrphase stages: the boot phases in PCR 11, exactly as systemd 252's
 * systemd-pcrphase-initrd.service does in an initrd (hardinit's initramfs
 * is the initrd): "enter-initrd" before anything is unsealed (before the
 * luks stage), "leave-initrd" before the switch to the real root. So PCR 11
 * holds what a policy signed by systemd-measure predicts, and the real
 * root's systemd-pcrphase-sysinit.service and systemd-pcrphase.service
 * then extend "sysinit" and "ready" on top as they would after systemd's
 * own initrd. As systemd: only when systemd-stub measured the UKI into
 * PCR 11 (its StubPcrKernelImage variable, read by the firmware stage)
 * and a TPM is there (--graceful); each word hashed in every bank systemd
 * picks (tpm/tpm_extend.h) and extended with one TPM2_PCR_Extend; a line
 * in the log like systemd's, and a record in systemd's userspace event log
 * (/run/log/systemd/tpm2-measure.log, CEL-JSON, as later systemd writes
 * it). A TPM that fails is [tpm] require's decision: a warning by default,
 * and then no policy that expects the phase unseals (fails closed). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "measure.h"
#include "measure_event.h"
#include "pcrphase.h"
#include "report.h"
#include "sha256.h"
#include "sink.h"
#include "tpm_dev.h"
#include "tpm_extend.h"

#define STAGE "pcrphase"

int hi_pcrphase_condition(const char *stub_pcr, char *why, size_t whylen)
{
	char *end;

	if (stub_pcr[0] == '\0') {
		snprintf(why, whylen, "systemd-stub did not measure the kernel image into PCR %d (no "
			 "StubPcrKernelImage): not a measured UKI boot", PCRPHASE_PCR);
		return 0;
	}
	errno = 0;
	unsigned long n = strtoul(stub_pcr, &end, 10);
	if (errno || end == stub_pcr || *end != '\0' || stub_pcr[0] < '0' || stub_pcr[0] > '9') {
		snprintf(why, whylen, "StubPcrKernelImage is '%.15s', not a PCR number", stub_pcr);
		return -1;
	}
	if (n != PCRPHASE_PCR) {
		snprintf(why, whylen, "systemd-stub measured the kernel image into PCR %lu, not %d", n, PCRPHASE_PCR);
		return -1;
	}
	return 1;
}

/* Appended as systemd-pcrextend appends (measure.h); the measure stage adds
 * its own records to the same file. */
static int cel_append(struct boot *b, const char *word, const struct tpm_digests *d, char *why, size_t whylen)
{
	char rec[1024], boot_id[MEASURE_BOOT_ID_MAX];
	struct sink s;

	hi_measure_boot_id(b, boot_id);
	hi_sink_init(&s, rec, sizeof rec);
	hi_measure_cel_record(&s, PCRPHASE_PCR, d, word, PCRPHASE_EVENT_TYPE, boot_id, hi_boottime_ns());
	if (s.full) {
		snprintf(why, whylen, "the record is over %zu bytes", sizeof rec);
		return -1;
	}
	return hi_measure_cel_append(b, rec, s.len, why, whylen);
}

static int extend_phase(struct boot *b, const char *word)
{
	char why[BOOT_PATH_MAX + 160], path[BOOT_PATH_MAX] = "", err[200] = "", banks[80];
	struct tpm_digests done;

	int c = hi_pcrphase_condition(b->stub_pcr_kernel, why, sizeof why);
	if (c == 0) {
		hi_report_add(&b->rep, STAGE, word, "skipped", "%s", why);
		log_debug("pcrphase: %s not extended: %s", word, why);
		return 0;
	}
	if (c < 0) {
		hi_report_add(&b->rep, STAGE, word, "warn", "not extended: %s", why);
		log_warn("pcrphase: %s not extended into PCR %d: %s; a policy over PCR %d will not unseal",
			 word, PCRPHASE_PCR, why, PCRPHASE_PCR);
		return 0;
	}
	if (b->mode == MODE_DRY_RUN) {
		log_info("would extend PCR %d with '%s' (systemd-pcrphase)", PCRPHASE_PCR, word);
		return 0;
	}
	long rc = hi_tpm_extend_at(b->dev, MEASURE_TPM_TIMEOUT_MS, PCRPHASE_PCR, NULL, 0, word, strlen(word), &done,
				   path, sizeof path, err, sizeof err);
	if (rc == TPM_EXTEND_NO_NODE) {
		/* systemd-pcrphase --graceful: no TPM, nothing to extend. */
		hi_report_add(&b->rep, STAGE, word, "skipped", "no TPM (%s)", err);
		return 0;
	}
	if (rc != 0)
		return hi_boot_problem(b, b->cfg.tpm_require, STAGE, word, "pcrphase: extending PCR %d with '%s' failed: "
				    "TPM %s: %s; a policy over PCR %d will not unseal this boot", PCRPHASE_PCR, word,
				    path, err, PCRPHASE_PCR);
	hi_tpm_digests_banks(&done, banks, sizeof banks);
	hi_report_add(&b->rep, STAGE, word, "extended", "PCR %d (banks %s)", PCRPHASE_PCR, banks);
	log_info("pcrphase: extended PCR index %d with '%s' (banks %s)", PCRPHASE_PCR, word, banks);
	if (cel_append(b, word, &done, why, sizeof why) < 0)
		log_warn("pcrphase: the record of '%s' was not added to systemd's event log: %s; PCR %d was "
			 "extended, so that log no longer replays to it", word, why, PCRPHASE_PCR);
	return 0;
}

int hi_stage_pcrphase_enter(struct boot *b)
{
	return extend_phase(b, PCRPHASE_ENTER);
}

int hi_stage_pcrphase_leave(struct boot *b)
{
	return extend_phase(b, PCRPHASE_LEAVE);
}
