/* Which LUKS2 volumes a boot opens and how (block/luks_plan.c): the
 * limits, the volume list and the parsers of the command line's rd.luks.*
 * words, /etc/crypttab and the options. */
#ifndef HARDINIT_LUKS_PLAN_H
#define HARDINIT_LUKS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "luks2.h"
#include "sha256.h"

#define LUKS_VOLUMES_MAX      8
#define LUKS_NAME_MAX         64          /* a /dev/mapper name */
#define LUKS_UUID_MAX         36
#define LUKS_TRIES_DEFAULT    3           /* systemd-cryptsetup's tries= default */
#define LUKS_TRIES_MAX        10
#define LUKS_TIMEOUT_MAX_S    3600        /* timeout=: the longest prompt */
#define LUKS_PROMPT_TIMEOUT_S 300         /* one try's wait for a passphrase (timeout=) */
#define LUKS_DEVICE_WAIT_MS   30000       /* for the volume's device to appear */
#define LUKS_CRYPTTAB_MAX     16384
#define LUKS_CRYPTTAB         "crypttab"  /* beside the initramfs's hardinit.conf: /etc/crypttab */
#define LUKS_ERR_MAX          300
#define LUKS_MEASURE_PCR      15          /* systemd's tpm2-measure-pcr=yes: TPM2_PCR_SYSTEM_IDENTITY */
#define LUKS_MEASURE_PCR_MAX  23          /* the PCRs of a TPM2 bank: 0-23 */

/* tpm2-measure-pcr=: unset measures into LUKS_MEASURE_PCR when a TPM is
 * there; no never; yes or N always, a failure then failing the boot. */
enum luks_measure {
	LUKS_MEASURE_AUTO = 0,
	LUKS_MEASURE_OFF,
	LUKS_MEASURE_ON,
};

struct luks_opts {
	struct luks2_dm_opts dm;    /* discard, readonly, the dm-crypt flags */
	bool noauto;
	int tries;                  /* 0: LUKS_TRIES_DEFAULT */
	int timeout_s;              /* 0: LUKS_PROMPT_TIMEOUT_S */
	enum luks_measure measure;  /* tpm2-measure-pcr= */
	int measure_pcr;            /* its PCR, with LUKS_MEASURE_ON */
	bool fixate;                /* fixate-volume-key=: only the volume whose key has this id */
	uint8_t fixate_id[SHA256_BYTES];
	char ignored[128];          /* options skipped, as systemd does, for the log */
};

struct luks_volume {
	char uuid[LUKS_UUID_MAX + 1];         /* lower case */
	char name[LUKS_NAME_MAX];
	struct luks_opts o;
	bool from_crypttab;
	bool own_opts;                        /* rd.luks.options=UUID=... */
};

struct luks_plan {
	struct luks_volume v[LUKS_VOLUMES_MAX];
	size_t n;
};

/* Options words (comma-separated, crypttab's fourth field or
 * rd.luks.options=) into o. Unknown options are ignored as
 * systemd-cryptsetup does (named in o->ignored); options that would open
 * the volume differently from its header (plain, tcrypt, bitlk, header=,
 * cipher=, size=, offset=, skip=, keyfile-offset=, ...), need what this
 * stage does not do (tpm2-device=, fido2-device=, pkcs11-uri=) or narrow
 * what may open in a way it cannot honour (keyslot=,
 * tpm2-measure-keyslot-nvpcr=) are errors; the narrowing ones it honours
 * are tpm2-measure-pcr= and fixate-volume-key=.
 * Returns 0, or -1 with err. */
int hi_luks_options_parse(const char *text, struct luks_opts *o, char *err, size_t errlen);

/* One crypttab's text into plan (appended). Fields: name, device
 * (UUID=... or /dev/disk/by-uuid/...), key file (none or -), options.
 * Returns 0, or -1 with err naming the line. */
int hi_luks_crypttab_parse(const char *text, size_t len, struct luks_plan *plan, char *err, size_t errlen);

/* The initramfs's crypttab, LUKS_CRYPTTAB beside config_path (its
 * hardinit.conf), read and parsed into ct; none there is an empty ct.
 * Returns 0, or -1 with msg the luks stage's whole error line. */
#define LUKS_CRYPTTAB_PATH_MAX 512
int hi_luks_crypttab_read(const char *config_path, struct luks_plan *ct, char *msg, size_t msglen);

/* What follows an unlock, whatever opened the volume (passphrase, token):
 * the volume's identity measured into pcr when measure, a failure fatal
 * when required. */
struct luks_measure_plan {
	bool measure;
	bool required;
	int pcr;
};

/* The decision for options o on a machine with (tpm_present) or without a
 * TPM: unset measures into LUKS_MEASURE_PCR when a TPM is there, as a
 * warning when it fails; tpm2-measure-pcr=no never; yes or N always, and
 * without a TPM that is the failure. */
struct luks_measure_plan hi_luks_measure_decide(const struct luks_opts *o, bool tpm_present);

/* The volumes to open: rd.luks=no/luks=no opens none; rd.luks.crypttab=no
 * ignores the crypttab; rd.luks.uuid= and rd.luks.name=UUID=NAME add
 * volumes and, as in systemd, restrict the crypttab to those UUIDs;
 * rd.luks.options=[UUID=]OPTS. crypttab (may be NULL) is already parsed.
 * Returns 0, or -1 with err. */
int hi_luks_plan_resolve(const struct cmdline *cmd, const struct luks_plan *crypttab, struct luks_plan *plan,
		      char *err, size_t errlen);

/* Is text a UUID (8-4-4-4-12 hex)? Copies it lower-cased into out. */
bool hi_luks_uuid_parse(const char *text, char out[LUKS_UUID_MAX + 1]);

#endif
