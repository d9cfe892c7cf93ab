/* The measured events' texts (stages/measure_event.c): one home for what
 * the measuring thread extends (stages/measure_queue.c), the measure stage
 * logs (stages/measure.c) and hardinit predict computes (prog/predict.c). */
#ifndef HARDINIT_MEASURE_EVENT_H
#define HARDINIT_MEASURE_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "boot.h"
#include "tpm_dev.h"

/* config_format's text of the effective config, hashed for its event. */
#define MEASURE_CONFIG_TEXT_MAX (48 * 1024)

/* The events, in the one order the boot extends them and a verifier
 * expects them: the log of a complete boot has each once, ending with
 * "handoff". */
enum measure_event_id { EV_IMA, EV_VERITY, EV_CONFIG, EV_SELINUX, EV_HANDOFF, EV_COUNT };

extern const char *const hi_measure_event_names[EV_COUNT];

/* The event data hardinit extends: "hardinit:NAME:HEX(digest)". A verifier
 * recomputes each bank's digest as that bank's hash of this text. */
void hi_measure_event_text(char *out, size_t cap, const char *name, const uint8_t digest[32]);

/* The text of event id from what the boot b holds: the IMA policy the ima
 * stage loaded (its sha256, or "none"), the verity setup the verity stage
 * described ("none": / is not on verity), the effective config
 * (config_format's text, hashed), SELinux as the selinux stage left it (the
 * mode read back and the policy's sha256, or "disabled"), the hand-off (the
 * version, and the sha256 of b->handoff_init and init's words). The one home of what is measured: the measuring
 * thread (stages/measure_queue.c) extends it, hardinit predict
 * (prog/predict.c) computes the PCR from it. */
void hi_measure_event_for(const struct boot *b, enum measure_event_id id, char *out, size_t cap);

/* The PCR value after extending the events' texts (each hashed with
 * SHA-256) into a PCR that held start: what the TPM's SHA-256 bank holds
 * after TPM2_PCR_Event with each text. */
void hi_measure_replay_texts(const char *const *texts, size_t n, const uint8_t start[32], uint8_t value[32]);

/* One line for a failure the thread recorded: a TPM code decoded, or why. */
void hi_tpm_failure_text(long rc, const char *why, char *out, size_t cap);

/* A TPM answers PCR_Event in milliseconds; a stuck one must not hang PID 1:
 * the bound of each command, writing it and reading the answer, is the TPM
 * transport's own. */
#define MEASURE_TPM_TIMEOUT_MS TPM_DEV_TIMEOUT_MS

#endif
