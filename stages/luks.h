/* The luks stage's console reader and device scan (stages/luks.c), for
 * tests/unit/test_luks2_stage.c: the passphrase line read from the
 * console, the devices carrying a volume's UUID. Which volumes to open is block/luks_plan.h's; the dm-crypt
 * table is block/luks2_dm.c's. */
#ifndef HARDINIT_LUKS_H
#define HARDINIT_LUKS_H

#include <stddef.h>

#include "boot.h"
#include "luks2.h"
#include "luks_plan.h"
#include "tpm2_unseal.h"

/* One passphrase line from fd (up to '\n' or '\r', at most cap-1 bytes,
 * waiting at most timeout_ms for each byte). Returns its length, or -1
 * (timeout, end of input, too long). The bytes read are wiped from every
 * other buffer. */
int hi_luks_read_line(int fd, char *out, size_t cap, int timeout_ms);

/* One pass over SYS/class/block for the devices whose LUKS2 header
 * carries uuid (hi_luks2_uuid_is): every entry read, up to
 * LUKS_SCAN_MAX, so a second match is seen. n counts the matches; name
 * holds the first LUKS_SCAN_NAMES of them; fd is the first match's node
 * DEV/NAME, open read-only, when n is 1 (the caller closes it), else -1.
 * Whether that node is a block device is the caller's check. more is set
 * when entries were left unread at LUKS_SCAN_MAX: the one match seen is
 * then no proof there is no second (fd is -1). */
#define LUKS_SCAN_MAX   4096     /* class/block entries read per pass */
#define LUKS_SCAN_NAMES 8        /* matching devices named in a refusal */
struct luks_scan {
	size_t n;
	char name[LUKS_SCAN_NAMES][64];
	int fd;
	bool more;
};
void hi_luks_scan(struct boot *b, const char *uuid, struct luks_scan *s);

int hi_stage_luks(struct boot *b);       /* stages/luks.c: LUKS2 volumes opened with a passphrase */

/* The TPM warm-up of the luks stage's unseal (tpm/tpm2_warmup.h), on a
 * thread through the TPM itself (TPM_USE_WARMUP): started by the modules stage when this boot
 * has volumes to open (nothing else changes in a boot without), and
 * flushed by the luks stage's end (or by the runner, when a stage before
 * it failed). Neither fails the boot: the unseal takes its whole path. */
void hi_luks_warmup_start(struct boot *b);
void hi_luks_warmup_drop(struct boot *b);

#endif
