/* The ima stage's pure pieces (stages/ima.c) that hardinit audit shares:
 * whether a policy appraises, and what the kernel made of ima_appraise=
 * on its command line. Tested by tests/unit/test_ima.c. */
#ifndef HARDINIT_IMA_H
#define HARDINIT_IMA_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"
#include "cmdline.h"
#include "measure.h"

/* The permissions of the _ima keyring and of its certificates once they
 * are in (keyctl(2) KEYCTL_SETPERM): possessor and user may view, read and
 * search (IMA's request_key() and keyring_search() need search), nobody
 * may write (add, link, move, clear, unlink), link or setattr (setperm,
 * chown, restrict, revoke). The values of keyutils' KEY_POS_* and
 * KEY_USR_*, which the kernel's uapi headers do not carry. */
#define IMA_KEY_PERM_VIEW_READ_SEARCH 0x0b0b0000u
#define IMA_KEY_PERM_POS_WRITE        0x04000000u
#define IMA_KEY_PERM_POS_SETATTR      0x20000000u

/* Does any rule of the policy appraise ("appraise ...", not
 * "dont_appraise")? Returns their count. */
long hi_ima_policy_appraise_rules(const struct ima_rule *rules, long n);

/* The kernel's appraisal mode after its command line. With
 * IMA_APPRAISE_BOOTPARAM (Debian) ima_appraise is a core_param: names
 * match with '-' and '_' the same, the last word with a value wins, and
 * the value is taken by its prefix: "off", "log", "fix", "enforce";
 * anything else (upper case too) is rejected by the kernel, which keeps
 * enforce. Words after "--" are init's. */
enum ima_appraise_mode {
	IMA_APPRAISE_NOT_GIVEN,   /* no ima_appraise= word: enforce */
	IMA_APPRAISE_ENFORCE,
	IMA_APPRAISE_INVALID,     /* the kernel rejects the value: enforce */
	IMA_APPRAISE_OFF,
	IMA_APPRAISE_LOG,
	IMA_APPRAISE_FIX,
};

/* The mode the words leave; *word (may be NULL) gets the deciding word's
 * value, NULL when none. */
enum ima_appraise_mode hi_ima_appraise_cmdline(const struct cmdline *c, const char **word);

/* True for off, log and fix: appraisal reports but refuses nothing. */
bool hi_ima_appraise_disarmed(enum ima_appraise_mode m);

const char *hi_ima_appraise_mode_name(enum ima_appraise_mode m);

/* Split an IMA policy into its rules: one a line, white space trimmed, '#'
 * comments and blank lines dropped. Returns the count, or -1 (why says what
 * is wrong: a control byte, a rule too long, more than max rules). */
long hi_ima_policy_rules(const char *text, size_t len, struct ima_rule *rules, size_t max,
		      char *why, size_t whylen);

int hi_stage_ima(struct boot *b);        /* stages/ima.c: the IMA policy, before verity and SELinux */

#endif
