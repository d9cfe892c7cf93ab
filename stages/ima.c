/* The ima stage: write the IMA policy the builder embedded
 * (/etc/hardinit/ima-policy, --ima-policy) to securityfs before the verity
 * table and the SELinux policy are loaded, so that the kernel measures both
 * as critical data (the policy's func=CRITICAL_DATA rules).
 *
 * Debian's kernels have no CONFIG_IMA_WRITE_POLICY: the policy file takes
 * one policy and then disappears until reboot, a one-way lock like
 * modules_disabled. The rules are written one per write(), so the rule the
 * kernel rejects is the one that write names; a rejected rule makes the
 * kernel discard them all when the file is closed.
 *
 * Before the policy, the certificates go into "_ima", which is then locked
 * for good (lock_keyring); and a policy with appraise rules is checked
 * against the kernel's ima_appraise= word, which would disarm them. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/keyctl.h>

#include "boot.h"
#include "fsutil.h"
#include "hardening.h"
#include "ima.h"
#include "locks.h"
#include "log.h"
#include "measure.h"
#include "report.h"
#include "sha256.h"

#define STAGE "ima"

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

long hi_ima_policy_rules(const char *text, size_t len, struct ima_rule *rules, size_t max,
		      char *why, size_t whylen)
{
	size_t n = 0, pos = 0;
	unsigned line = 0;

	while (pos < len) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - start) : len - pos;
		pos += l + (nl ? 1 : 0);
		line++;
		for (size_t i = 0; i < l; i++)
			if (((unsigned char)start[i] < 0x20 && start[i] != '\t') || start[i] == 0x7f) {
				snprintf(why, whylen, "line %u has the control byte 0x%02x; is this a text file?",
					 line, (unsigned char)start[i]);
				return -1;
			}
		const char *hash = memchr(start, '#', l);
		if (hash)
			l = (size_t)(hash - start);
		while (l > 0 && is_space(*start)) {
			start++;
			l--;
		}
		while (l > 0 && is_space(start[l - 1]))
			l--;
		if (l == 0)
			continue;
		if (l >= IMA_RULE_MAX) {
			snprintf(why, whylen, "the rule on line %u is longer than %d bytes", line, IMA_RULE_MAX - 1);
			return -1;
		}
		if (n >= max) {
			snprintf(why, whylen, "more than %zu rules (IMA_POLICY_MAX_RULES)", max);
			return -1;
		}
		rules[n].line = line;
		memcpy(rules[n].text, start, l);
		rules[n].text[l] = '\0';
		n++;
	}
	return (long)n;
}

/* Missing policy, refused policy: fatal with [ima] require, else a warning. */

static int write_rules(struct boot *b, const char *path, const struct ima_rule *rules, long n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: cannot open %s: %s; a policy was loaded before hardinit, or "
				   "the kernel has no IMA", path, strerror(errno));
	for (long i = 0; i < n; i++) {
		char rule[IMA_RULE_MAX + 1];
		int len = snprintf(rule, sizeof rule, "%s\n", rules[i].text);
		if (write(fd, rule, (size_t)len) != len) {
			int e = errno;
			close(fd);   /* the kernel now discards every rule written */
			return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: the kernel rejected rule %ld (line %u: '%.80s'): %s; no "
					   "IMA policy was loaded: fix the rule (the kernel log says which "
					   "word) and rebuild the image", i + 1, rules[i].line, rules[i].text,
					   strerror(e));
		}
	}
	if (close(fd) < 0)
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: loading the policy failed at close: %s", strerror(errno));
	return 1;
}

long hi_ima_policy_appraise_rules(const struct ima_rule *rules, long n)
{
	long count = 0;

	for (long i = 0; i < n; i++)
		if (strncmp(rules[i].text, "appraise", 8) == 0 && (rules[i].text[8] == '\0' || is_space(rules[i].text[8])))
			count++;
	return count;
}

/* The kernel's parameter names match with '-' and '_' alike (parameq). */
static bool is_ima_appraise_key(const char *key, size_t len)
{
	static const char name[] = "ima_appraise";

	if (len != sizeof name - 1)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((key[i] == '-' ? '_' : key[i]) != name[i])
			return false;
	return true;
}

enum ima_appraise_mode hi_ima_appraise_cmdline(const struct cmdline *c, const char **word)
{
	const char *value = NULL;

	for (size_t i = 0; i < c->n_words; i++) {
		const struct cmdline_word *w = &c->words[i];
		const char *v = w->value;
		size_t klen = strlen(w->key);
		if (!v && strcmp(w->key, "--") == 0)
			break;   /* the rest is init's */
		/* The kernel's next_arg() splits at the first '=' even
		 * inside quotes ("ima_appraise=log" is the parameter);
		 * hardinit's parser keeps such a word whole. */
		if (!v && strchr(w->key, '=')) {
			v = strchr(w->key, '=') + 1;
			klen = (size_t)(v - 1 - w->key);
		}
		if (v && is_ima_appraise_key(w->key, klen))
			value = v;
	}
	if (word)
		*word = value;
	if (!value)
		return IMA_APPRAISE_NOT_GIVEN;
	/* ima_appraise_parse_cmdline(): prefixes, case-sensitive. */
	if (strncmp(value, "off", 3) == 0)
		return IMA_APPRAISE_OFF;
	if (strncmp(value, "log", 3) == 0)
		return IMA_APPRAISE_LOG;
	if (strncmp(value, "fix", 3) == 0)
		return IMA_APPRAISE_FIX;
	if (strncmp(value, "enforce", 7) == 0)
		return IMA_APPRAISE_ENFORCE;
	return IMA_APPRAISE_INVALID;
}

bool hi_ima_appraise_disarmed(enum ima_appraise_mode m)
{
	return m == IMA_APPRAISE_OFF || m == IMA_APPRAISE_LOG || m == IMA_APPRAISE_FIX;
}

const char *hi_ima_appraise_mode_name(enum ima_appraise_mode m)
{
	static const char *const names[] = { "enforce (no ima_appraise= word)", "enforce",
					      "enforce (the kernel rejects the value)", "off", "log", "fix" };
	return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "unknown";
}

/* Under [ima] require or a locked command line a weakened keyring or
 * appraisal fails the boot; else it is a warning. */
static bool ima_strict(const struct boot *b)
{
	return b->cfg.ima_require || b->cfg.lock_cmdline;
}

/* ima_appraise=off|log|fix on the command line (IMA_APPRAISE_BOOTPARAM,
 * Debian's kernels) turns every appraise rule into a log line: with
 * appraise rules in the policy that is a finding. Under Secure Boot the
 * kernel ignores such a word, but hardinit cannot tell what the kernel's
 * own check concluded, so the word is refused either way. */
static int check_appraise_mode(struct boot *b, long appraise_rules)
{
	const char *word = NULL;
	enum ima_appraise_mode m = hi_ima_appraise_cmdline(&b->cmd, &word);

	if (appraise_rules == 0)
		return 0;
	if (!hi_ima_appraise_disarmed(m)) {
		hi_report_add(&b->rep, STAGE, "appraise_mode", "ok", "%s, %ld appraise rules", hi_ima_appraise_mode_name(m),
			   appraise_rules);
		return 0;
	}
	return hi_boot_problem(b, ima_strict(b), STAGE, "appraise_mode",
			    "IMA: the kernel command line says ima_appraise=%.40s, so the kernel %s what the "
			    "policy's %ld appraise rules would refuse; remove the word from the boot loader's "
			    "command line", word, m == IMA_APPRAISE_OFF ? "allows without a look" : "only logs",
			    appraise_rules);
}

/* KEYCTL_DESCRIBE says "type;uid;gid;perm;description": the permissions
 * as the kernel holds them, so the lock is checked rather than assumed. */
static long key_perm(long key)
{
	char desc[160];
	long n = syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, desc, sizeof desc - 1);
	const char *p = desc;

	if (n < 0 || n >= (long)sizeof desc)
		return -1;
	desc[n] = '\0';
	for (int field = 0; field < 3 && p; field++)
		p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL;
	return p ? strtol(p, NULL, 16) : -1;
}

static int set_key_perm(long key)
{
	if (syscall(SYS_keyctl, KEYCTL_SETPERM, key, IMA_KEY_PERM_VIEW_READ_SEARCH) < 0)
		return -1;
	if (key_perm(key) != (long)IMA_KEY_PERM_VIEW_READ_SEARCH) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Once the certificates are in, nobody adds another: the keyring refuses
 * every later link (KEYCTL_RESTRICT_KEYRING with no restriction: the
 * kernel's restrict_link_reject, for good), and its permissions take
 * write, link and setattr from everyone, root included (no capability
 * overrides a key's permissions), so neither add_key(2) nor keyctl
 * link/move/clear/unlink/setperm/restrict reaches it. */
static int lock_keyring(struct boot *b, long ring, int certs)
{
	if (syscall(SYS_keyctl, KEYCTL_RESTRICT_KEYRING, ring, NULL, NULL) < 0)
		return hi_boot_problem(b, ima_strict(b), STAGE, "keyring", "IMA: cannot restrict the %s keyring: %s; "
				    "a later root process could add its own key to it; the kernel needs "
				    "KEYCTL_RESTRICT_KEYRING (Linux 4.12)", IMA_KEYRING_NAME, strerror(errno));
	if (set_key_perm(ring) < 0)
		return hi_boot_problem(b, ima_strict(b), STAGE, "keyring", "IMA: cannot take write and setattr from the "
				    "%s keyring: %s; a later root process could change it", IMA_KEYRING_NAME,
				    strerror(errno));
	hi_report_add(&b->rep, STAGE, "keyring", "ok", "%s restricted, perm %08x, %d certificates: no later key, link "
		   "or permission change", IMA_KEYRING_NAME, IMA_KEY_PERM_VIEW_READ_SEARCH, certs);
	return 0;
}

/* The certificates of b->ima_certs into the "_ima" keyring, made in
 * root's user keyring (add_key(2), keyctl(2): no keyutils), which is then
 * locked. Returns the number added, or -1 after hi_boot_problem() under
 * [ima] require. */
static int load_certs(struct boot *b)
{
	static char der[IMA_CERT_MAX_BYTES + 1];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(b->ima_certs);

	if (!d)
		return 0;
	long user = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 1);
	long ring = user < 0 ? -1 : syscall(SYS_add_key, "keyring", IMA_KEYRING_NAME, NULL, 0, user);
	if (ring < 0) {
		closedir(d);
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "certs", "IMA: cannot make the %s keyring: %s",
				    IMA_KEYRING_NAME, strerror(errno)) < 0 ? -1 : 0;
	}
	while ((de = readdir(d)) && n < IMA_CERTS_MAX) {
		char path[BOOT_PATH_MAX];
		size_t len = 0;
		long key = -1;
		if (de->d_name[0] == '.' || !hi_boot_path(path, sizeof path, b->ima_certs, de->d_name))
			continue;
		if (hi_fs_read(path, der, sizeof der, &len) < 0 ||
		    (key = syscall(SYS_add_key, "asymmetric", NULL, der, len, ring)) < 0) {
			int e = errno;
			closedir(d);
			return hi_boot_problem(b, b->cfg.ima_require, STAGE, "certs", "IMA: certificate %s not added: %s; "
					    "it must be a DER X.509 certificate of at most 16 KiB", path,
					    e == E2BIG ? "too large" : strerror(e)) < 0 ? -1 : 0;
		}
		/* Without setattr and write nobody revokes or replaces it. */
		if (set_key_perm(key) < 0) {
			int e = errno;
			closedir(d);
			return hi_boot_problem(b, ima_strict(b), STAGE, "keyring", "IMA: cannot take write and setattr from "
					    "certificate %s: %s; a later root process could revoke it", path,
					    strerror(e)) < 0 ? -1 : 0;
		}
		hi_report_add(&b->rep, STAGE, "cert", "applied", "%s in %s", de->d_name, IMA_KEYRING_NAME);
		n++;
	}
	closedir(d);
	return lock_keyring(b, ring, n) < 0 ? -1 : n;
}

int hi_stage_ima(struct boot *b)
{
	static char text[IMA_POLICY_MAX_BYTES + 1];
	static struct ima_rule rules[IMA_POLICY_MAX_RULES];
	char path[BOOT_PATH_MAX], why[160];
	size_t len = 0;

	if (hi_fs_read(b->ima_policy, text, sizeof text, &len) < 0) {
		if (errno == ENOENT && !b->cfg.ima_require) {
			hi_report_add(&b->rep, STAGE, "policy", "skipped", "no IMA policy in the image");
			return 0;
		}
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: cannot read the policy %s: %s; build the image with "
				   "hardinit-mkinitramfs --ima-policy FILE", b->ima_policy,
				   errno == E2BIG ? "larger than 64 KiB (IMA_POLICY_MAX_BYTES)" : strerror(errno));
	}
	long n = hi_ima_policy_rules(text, len, rules, IMA_POLICY_MAX_RULES, why, sizeof why);
	if (n < 0)
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: the policy %s does not parse: %s", b->ima_policy, why);
	if (check_appraise_mode(b, hi_ima_policy_appraise_rules(rules, n)) < 0)
		return -1;
	if (b->mode == MODE_DRY_RUN) {
		log_info("would load the IMA policy %s (%ld rules) into securityfs", b->ima_policy, n);
		return 0;
	}
	/* Keys first: an appraise rule takes effect with the policy. */
	if (load_certs(b) < 0)
		return -1;
	if (hi_securityfs_ensure(b) < 0 || !hi_boot_path(path, sizeof path, b->sys, "kernel/security/ima/policy"))
		return hi_boot_problem(b, b->cfg.ima_require, STAGE, "policy", "IMA: securityfs is not available at %s/kernel/security", b->sys);
	uint64_t start = hi_boottime_ns();
	int rc = write_rules(b, path, rules, n);
	if (rc <= 0)
		return rc;
	char ms[CLOCK_MS_MAX], hex[SHA256_HEX];
	hi_sha256(text, len, b->ima_policy_sha256);
	b->ima_policy_loaded = true;
	hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - start);
	/* Without IMA_WRITE_POLICY the kernel removes the file once a policy
	 * is in: that is the lock, and it is checked rather than assumed. */
	bool one_way = access(path, F_OK) != 0;
	hi_report_add(&b->rep, STAGE, "policy", "applied", "%ld rules, sha256 %s", n,
		   hi_hex_encode(hex, b->ima_policy_sha256, SHA256_BYTES));
	hi_report_add(&b->rep, STAGE, "policy_lock", one_way ? "ok" : "info", "%s",
		   one_way ? "one-way: the kernel takes no other policy until reboot"
			   : "the kernel still takes policy writes (IMA_WRITE_POLICY)");
	hi_report_add(&b->rep, STAGE, "load_ms", "ok", "%s", ms);
	log_info("IMA: loaded %ld rules from %s in %s ms%s", n, b->ima_policy, ms, one_way ? " (one-way)" : "");
	return 0;
}
