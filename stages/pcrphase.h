/* The pcrphase stages' pure pieces (stages/pcrphase.c), for
 * tests/unit/test_pcrphase.c: the PCR and words systemd-pcrphase uses,
 * and whether a boot is one it measures. */
#ifndef HARDINIT_PCRPHASE_H
#define HARDINIT_PCRPHASE_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"
#include "tpm.h"

/* systemd's TPM_PCR_INDEX_KERNEL_IMAGE: where systemd-stub measures a
 * UKI's sections and systemd-pcrphase the boot phases. */
#define PCRPHASE_PCR    11
/* The words systemd-pcrphase-initrd.service extends (ExecStart, ExecStop). */
#define PCRPHASE_ENTER  "enter-initrd"
#define PCRPHASE_LEAVE  "leave-initrd"

/* systemd-pcrphase's condition, from StubPcrKernelImage's text (the
 * firmware stage's b->stub_pcr_kernel): 1 measure (the stub measured the
 * UKI into PCR 11); 0 skip (no stub measured: PCR 11 may mean something
 * else); -1 refuse (the stub named another PCR, or not a number: why says
 * so), as systemd-pcrphase refuses. */
int hi_pcrphase_condition(const char *stub_pcr, char *why, size_t whylen);

/* The eventType systemd's userspace event log gives a phase's record. */
#define PCRPHASE_EVENT_TYPE "phase"

int hi_stage_pcrphase_enter(struct boot *b); /* stages/pcrphase.c: "enter-initrd" into PCR 11, as systemd-pcrphase */

int hi_stage_pcrphase_leave(struct boot *b); /* stages/pcrphase.c: "leave-initrd" into PCR 11 */

#endif
