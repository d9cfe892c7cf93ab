/* caps.c's functions (one header per .c file). */
#ifndef HARDINIT_CAPS_H
#define HARDINIT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_types.h"
#include "boot.h"
#include "hardening.h"

/* /proc/sys/kernel/usermodehelper/{bset,inheritable}: two 32-bit words,
 * low first ("4294967295 511" once the read collapsed the tab). */
int hi_umh_parse(const char *text, uint32_t words[2]);

/* Clear the bits of drop (bit n = capability n) in the two words. */
void hi_umh_clear(uint32_t words[2], uint64_t drop);

/* The form the kernel's proc_cap_handler takes back: "LOW\tHIGH". */
void hi_umh_format(const uint32_t words[2], char *out, size_t cap);

/* Bit mask of b->cfg.cap_drop, or -1 with b->err set when one is above
 * last_cap (a config written for a newer kernel). */
int hi_caps_drop_mask(struct boot *b, int last_cap, uint64_t *mask);

/* Step 1 of the stage: clear drop in both usermodehelper sets under
 * b->proc, read back, report. Returns 0 or -1 with b->err set. */
int hi_caps_shrink_umh(struct boot *b, uint64_t drop);

int hi_stage_caps(struct boot *b);       /* stages/caps.c: usermodehelper, bounding, inheritable */

#endif
