/* report_stage.c's functions (one header per .c file). */
#ifndef HARDINIT_REPORT_STAGE_H
#define HARDINIT_REPORT_STAGE_H

#include "boot.h"

int hi_stage_report(struct boot *b);     /* stages/report_stage.c: write /run/hardinit */

#endif
