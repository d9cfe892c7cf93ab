/* The luks stage (stages/luks.c). Its console prompt is
 * init/prompt.h's. The devices carrying a volume's UUID are block/luks_scan.h's,
 * which volumes to open block/luks_plan.h's, the dm-crypt table and its
 * keyring key block/luks2_dm.h's. */
#ifndef HARDINIT_LUKS_H
#define HARDINIT_LUKS_H

#include <stddef.h>

#include "boot.h"
#include "luks2.h"
#include "luks_plan.h"
#include "tpm2_unseal.h"

int hi_stage_luks(struct boot *b);       /* stages/luks.c: LUKS2 volumes opened with a passphrase */

/* The TPM warm-up of the luks stage's unseal (tpm/tpm2_warmup.h), on a
 * thread through the TPM itself (TPM_USE_WARMUP): started by the modules stage when this boot
 * has volumes to open (nothing else changes in a boot without), and
 * flushed by the luks stage's end (or by the runner, when a stage before
 * it failed). Neither fails the boot: the unseal takes its whole path. */
void hi_luks_warmup_start(struct boot *b);
void hi_luks_warmup_drop(struct boot *b);

#endif
