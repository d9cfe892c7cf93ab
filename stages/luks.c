/* LUKS2: before root, open the encrypted volumes the command line
 * (rd.luks.uuid=, rd.luks.name=, rd.luks.options=) and the builder's
 * /etc/crypttab name, with a passphrase asked on /dev/console, as
 * systemd-cryptsetup does and with its names (/dev/mapper/NAME, luks-UUID
 * by default; the dm uuid CRYPT-LUKS2-<uuid>-NAME), so the real root's
 * fstab and units agree. The header, the KDFs, the keyslot and the
 * dm-crypt table are block/'s; the keyslot area is decrypted by the kernel (AF_ALG). The
 * volume key goes to the kernel as a "logon" key in this thread's keyring
 * (which no process can read back), the dm-crypt table names that key
 * (":64:logon:cryptsetup:UUID-d0", as cryptsetup 2.x does), and the key
 * is revoked and unlinked once the table is loaded: no key in a table a
 * later `dmsetup table` reads. A volume with systemd-cryptenroll's
 * systemd-tpm2 token is first unsealed by the TPM (TPM_USE_UNSEAL's node:
 * tpm/tpm_dev.c; stages/luks_tpm2.c; a PIN asked on the console when the
 * token has one); no TPM, a changed PCR, a wrong PIN or any TPM error is one warning
 * line and the passphrase prompt. After every unlock, token or
 * passphrase, PCR 15 is extended with the volume's identity when a TPM is
 * there (tpm2-measure-pcr=, as systemd-cryptsetup), so no unseal of a
 * token bound to PCR 15 succeeds after it in this boot. No key files. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/dm-ioctl.h>
#include <linux/keyctl.h>

#include "afalg.h"
#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "luks.h"
#include "luks2_dm.h"
#include "luks2_hdr.h"
#include "luks2_keyslot.h"
#include "luks_scan.h"
#include "luks_tpm2.h"
#include "pbkdf2.h"
#include "prompt.h"
#include "sha256.h"
#include "tpm2_pcrsig.h"
#include "tpm2_warmup.h"
#include "tpm_dev.h"
#include "tpm_extend.h"
#include "dev_wait.h"
#include "dm.h"
#include "dm_udev.h"

/* ---- the stage --------------------------------------------------------- */

struct dev_ctx {
	int fd;
};

static int dev_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct dev_ctx *d = ctx;
	return hi_fs_pread_all(d->fd, buf, len, off);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The block device whose LUKS header has the volume's UUID, once one is
 * there: an fd (read-only) with node and devnum filled; -1 after
 * boot_error when none came in time, or when two or more carry it.
 * Two are refused, every one named, before any passphrase is asked or
 * any TPM command sent: a disk plugged in with a header under the
 * volume's UUID (whose keyslots its writer knows) must not be opened
 * in the real one's place because readdir listed it first. The root
 * stage's root_duplicates = warn does not apply here: there a wrong
 * pick mounts the wrong files, here it hands a passphrase, or the TPM's
 * unsealed key, to a volume its planter can read and boots its root;
 * the safe way out is to remove the other disk, which warn would hide. */
static int wait_device(struct boot *b, const struct luks_volume *v, char *node, size_t cap, dev_t *devnum)
{
	struct dev_wait w;
	struct luks_scan s;
	struct stat st;

	hi_dev_wait_begin(&w, LUKS_DEVICE_WAIT_MS);
	for (;;) {
		hi_luks_scan(b->sys, b->dev, v->uuid, &s);
		if (s.n > 1) {
			char list[LUKS_SCAN_NAMES * (BOOT_PATH_MAX / 4)] = "";
			size_t shown = s.n < LUKS_SCAN_NAMES ? s.n : LUKS_SCAN_NAMES;
			qsort(s.name, shown, sizeof s.name[0], cmp_names);
			for (size_t i = 0; i < shown; i++) {
				size_t used = strlen(list);
				snprintf(list + used, sizeof list - used, "%s%s/%s", i ? ", " : "", b->dev, s.name[i]);
				hi_report_add(&b->rep, "luks", s.name[i], "duplicate", "carries LUKS UUID %s (%s)", v->uuid,
					      v->name);
			}
			return hi_boot_error(b, "luks: %s: %zu devices carry LUKS UUID %s: %s%s; refusing to choose (a disk "
					  "planted under the volume's UUID could get its passphrase or TPM key); remove the "
					  "disk that is not the volume and boot again",
					  v->name, s.n, v->uuid, list, s.n > shown ? " and more" : "");
		}
		/* Devices past the bound were never read: one of them could carry
		 * the UUID too, so the one match seen proves nothing. */
		if (s.more)
			return hi_boot_error(b, "luks: %s: more than %d block devices; hardinit cannot check that only one "
					  "carries LUKS UUID %s, so it opens none; remove the disks the machine does not "
					  "boot from", v->name, LUKS_SCAN_MAX, v->uuid);
		if (s.n == 1 && fstat(s.fd, &st) == 0 && S_ISBLK(st.st_mode) &&
		    hi_boot_path(node, cap, b->dev, s.name[0])) {
			*devnum = st.st_rdev;
			return s.fd;
		}
		if (s.fd >= 0)
			close(s.fd);
		if (hi_dev_wait_next(&w))
			continue;
		/* A member carries the header (1.0 and 0.90 keep their md
		 * superblock at the end): the volume is the array's. */
		if (s.n_md)
			return hi_boot_error(b, "luks: %s: only an md member carries LUKS UUID %s (%s/%s, %s) after %d s, "
					  "and a member is never opened alone (its mirror would miss the writes); if the "
					  "volume is on that array, put md in the image (hardinit-mkinitramfs --host-only "
					  "finds the array) or attach the array's missing members", v->name, v->uuid, b->dev,
					  s.md_name, s.md_what, LUKS_DEVICE_WAIT_MS / 1000);
		return hi_boot_error(b, "luks: %s: no device with LUKS UUID %s after %d s; check rd.luks.uuid= or the "
				  "crypttab, and that the disk's driver is in the initramfs", v->name, v->uuid,
				  LUKS_DEVICE_WAIT_MS / 1000);
	}
}

/* ---- the TPM warm-up (tpm/tpm2_warmup.h) --------------------------------
 * Started by the modules stage (hi_luks_warmup_start), whose ~400 ms of
 * module loading keep PID 1 in the kernel, so the warm-up's TPM waits
 * cost PID 1 nothing; joined, bounded, by the first unseal; what it left
 * in the TPM flushed at the luks stage's end, or by the runner when a
 * stage before it failed (hi_luks_warmup_drop). Through TPM_USE_WARMUP's
 * node (tpm/tpm_dev.c: the TPM itself, so the primary outlives the fd):
 * its thread holds it until it is done. pcrphase_enter, in between,
 * extends PCR 11 through TPM_USE_EXTEND's, which that one opener does not
 * exclude: the kernel runs the two fds' commands one at a time, and a
 * PCR_Extend needs none of the TPM's object slots, so the join waits for
 * the first unseal. */
struct luks_warmup {
	struct tpm2_warmup_tpm t;
	bool taken, usable;
};

static const struct luks_plan *plan_get(struct boot *b, char *msg, size_t msglen);

void hi_luks_warmup_start(struct boot *b)
{
	static struct luks_warmup u;     /* the thread's: never on a stack */
	const struct luks_plan *plan;
	char err[LUKS_ERR_MAX + 200];

	/* Only a boot that may unseal a token: one with volumes to open. */
	if (b->mode != MODE_INITRAMFS || b->luks_warmup || !(plan = plan_get(b, err, sizeof err)) || plan->n == 0)
		return;
	u.taken = u.usable = false;
	/* ECC: systemd-cryptenroll 252 makes an ECC P-256 primary when the
	 * TPM has it; an RSA token takes the whole path. */
	if (hi_tpm2_warmup_open(&u.t, b->dev, TPM_ALG_ECC, err, sizeof err) < 0) {
		hi_report_add(&b->rep, "luks", "warmup_ms", "skipped", "no TPM warm-up: %s", err);
		return;
	}
	b->luks_warmup = &u;
}

/* The warm-up joined (once, bounded) and reported; its results when it
 * loaded a primary, else NULL: the unseal takes the whole path. */
static struct tpm2_warm *warmup_take(struct boot *b)
{
	struct luks_warmup *u = b->luks_warmup;
	char a[CLOCK_MS_MAX], c[CLOCK_MS_MAX], d[CLOCK_MS_MAX], e[CLOCK_MS_MAX], f[CLOCK_MS_MAX], g[CLOCK_MS_MAX];

	if (!u || u->taken)
		return u && u->usable ? &u->t.w : NULL;
	u->taken = true;
	uint64_t t0 = hi_boottime_ns();
	int j = hi_tpm2_warmup_join(&u->t.w, TPM2_WARMUP_JOIN_MS);
	uint64_t waited = hi_boottime_ns() - t0;
	if (j < 0 || u->t.w.rc < 0) {
		log_warn("luks: the TPM warm-up through %s %s: %s; the unseal takes its whole path", u->t.path,
			 j < 0 ? "was abandoned" : "failed", u->t.w.why);
		hi_report_add(&b->rep, "luks", "warmup_ms", "warn", "not used: %s", u->t.w.why);
		return NULL;
	}
	u->usable = true;
	hi_report_add(&b->rep, "luks", "warmup_ms", "info",
		   "%s (off PID 1's path, %s: ECC primary 0x%08x; CreatePrimary %s, SRK auth %s, salt %s, "
		   "session %s%s)",
		   hi_clock_format_ms(a, sizeof a, u->t.w.primary_ns + u->t.w.da_ns + u->t.w.salt_ns + u->t.w.session_ns), u->t.path,
		   u->t.w.primary,
		   hi_clock_format_ms(c, sizeof c, u->t.w.primary_ns), hi_clock_format_ms(d, sizeof d, u->t.w.da_ns),
		   hi_clock_format_ms(e, sizeof e, u->t.w.salt_ns), hi_clock_format_ms(g, sizeof g, u->t.w.session_ns),
		   u->t.w.session.handle ? "" : " (none)");
	/* On PID 1's path: what the join waited (nothing when the warm-up was
	 * done before the luks stage needed it). */
	hi_report_add(&b->rep, "luks", "warmup_wait_ms", "info", "%s (the luks stage's wait for the warm-up)",
		   hi_clock_format_ms(f, sizeof f, waited));
	return &u->t.w;
}

void hi_luks_warmup_drop(struct boot *b)
{
	struct luks_warmup *u = b->luks_warmup;
	char why[200], ms[CLOCK_MS_MAX];

	if (!u)
		return;
	b->luks_warmup = NULL;
	/* Abandoned: its thread flushes and lets go by itself. */
	if (hi_tpm2_warmup_join(&u->t.w, TPM2_WARMUP_JOIN_MS) < 0) {
		if (!u->taken)
			log_warn("luks: the TPM warm-up through %s was abandoned: %s; its thread flushes its primary", u->t.path,
				 u->t.w.why);
		return;
	}
	uint64_t t0 = hi_boottime_ns();
	uint32_t handle = u->t.w.primary;
	if (hi_tpm2_warmup_close(&u->t, b->dev, why, sizeof why) < 0) {
		log_warn("luks: flushing the TPM warm-up's primary 0x%08x failed: %s; it stays loaded until the TPM "
			 "resets, one transient object slot fewer for the real root", handle, why);
		hi_report_add(&b->rep, "luks", "warmup_flush_ms", "warn", "0x%08x not flushed: %s", handle, why);
		return;
	}
	if (handle)
		hi_report_add(&b->rep, "luks", "warmup_flush_ms", "info", "%s (primary 0x%08x flushed)",
			   hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - t0), handle);
}

/* The TPM2 PIN asked for on the console: its length, or -1 (no answer). */
static int ask_pin(struct boot *b, const struct luks_volume *v, char *pin, size_t cap)
{
	struct prompt con;
	char question[200];
	int len = -1;

	snprintf(question, sizeof question, "Please enter TPM2 PIN for disk %s (%s): ", v->name, v->uuid);
	if (hi_prompt_open(&con, b->dev) >= 0) {
		len = hi_prompt_ask(&con, question, pin, cap, LUKS_PROMPT_TIMEOUT_S * 1000);
		hi_prompt_close(&con);
	}
	return len;
}

/* The systemd-tpm2 tokens through the TPM (TPM_USE_UNSEAL). 0 opened (how
 * says by which token and PCRs), 1 not (the warning said why: the
 * passphrase follows). */
static int unlock_tpm2(struct boot *b, const struct luks_volume *v, const struct luks2_hdr *h, struct dev_ctx *dc,
		       uint8_t *vk, size_t *vklen, int *slot, char *how, size_t howcap)
{
	char path[BOOT_PATH_MAX] = "", err[LUKS2_ERR_MAX], pin[TPM2_PIN_MAX + 1];
	int token = -1, len = -1;
	uint32_t pcrs = 0;
	bool has = false;

	for (int i = 0; i < LUKS2_TOKENS_MAX; i++)
		has |= h->token[i].used && !strcmp(h->token[i].type, "systemd-tpm2");
	if (!has)
		return 1;
	struct tpm2_warm *warm = warmup_take(b);     /* joined first: it holds the TPM until done */
	struct tpm_dev t;
	hi_tpm_dev_open(&t, b->dev, TPM_USE_UNSEAL, TPM_DEV_TIMEOUT_MS, path, sizeof path);
	/* Its primary is a handle of the TPM itself: usable only through the
	 * TPM itself (the resource manager knows only its own fd's handles). */
	if (!t.direct)
		warm = NULL;
	if (t.fd < 0) {
		log_warn("luks: %s: it has a TPM2 token but there is no TPM (%s: %s); asking for the passphrase",
			 v->name, path, strerror(errno));
		return 1;
	}
	/* The PIN's page never swapped out (as the passphrase's). */
	mlock(pin, sizeof pin);
	if (hi_luks_tpm2_wants_pin(h))
		len = ask_pin(b, v, pin, sizeof pin);
	static char sig[TPM2_PCRSIG_JSON_MAX + 1];
	char sigpath[BOOT_PATH_MAX] = "";
	long siglen = hi_luks_tpm2_pcrsig_read(b->config_path, b->run, sig, sizeof sig, sigpath, sizeof sigpath);
	uint32_t signed_pcrs = 0;
	int rc = hi_luks_tpm2_open(h, hi_tpm_dev_xfer, &t, warm, len >= 0 ? pin : NULL, siglen >= 0 ? sig : NULL,
				siglen >= 0 ? (size_t)siglen : 0, dev_read, dc, hi_afalg_decrypt_sectors, vk, vklen, slot,
				&token, &pcrs, &signed_pcrs, err, sizeof err);
	explicit_bzero(pin, sizeof pin);
	munlock(pin, sizeof pin);
	hi_tpm_dev_close(&t);
	if (rc != 0) {
		log_warn("luks: %s: the TPM did not unlock it: %s; asking for the passphrase", v->name, err);
		return 1;
	}
	char ms[CLOCK_MS_MAX];
	hi_report_add(&b->rep, "luks", "unseal_ms", "info", "%s (%s, through %s%s)",
		   hi_clock_format_ms(ms, sizeof ms, hi_luks_tpm2_unseal_ns()), v->name, path,
		   hi_luks_tpm2_unseal_warm() ? ", from the warm-up's primary" : "");
	hi_report_add(&b->rep, "luks", "unseal_tpm_ms", "info", "%s (%s, %u commands at the TPM)",
		   hi_clock_format_ms(ms, sizeof ms, t.busy_ns), v->name, t.cmds);
	hi_luks_tpm2_how(how, howcap, token, pcrs, signed_pcrs);
	if (signed_pcrs)
		log_info("luks: %s: the signed PCR policy's signature came from %s", v->name, sigpath);
	return 0;
}

/* PCR pcr extended with the HMAC of "cryptsetup:NAME:UUID" under the
 * volume key, in every bank systemd picks (each bank's own HMAC:
 * tpm/tpm_extend.h), as systemd-cryptsetup's tpm2-measure-pcr=yes: the
 * volume's identity without revealing its key. 0, 1 no TPM (no node of
 * TPM_USE_EXTEND), -1 failed, with err; banks the ones extended. */
static int measure_volume(struct boot *b, const struct luks_volume *v, int pcr, const uint8_t *vk, size_t vklen,
			  char *banks, size_t bankscap, char *err, size_t errlen)
{
	char path[BOOT_PATH_MAX] = "", text[LUKS2_IDENTITY_MAX];
	struct tpm_digests done;

	memset(&done, 0, sizeof done);
	int tlen = hi_luks2_identity(v->name, v->uuid, text, sizeof text);
	long rc = hi_tpm_extend_at(b->dev, TPM_DEV_TIMEOUT_MS, (unsigned)pcr, vk, vklen, text, (size_t)tlen, &done, path,
				   sizeof path, err, errlen);
	bool absent = rc == TPM_EXTEND_NO_NODE && errno == ENOENT;
	hi_tpm_digests_banks(&done, banks, bankscap);
	explicit_bzero(&done, sizeof done);
	return rc == 0 ? 0 : absent ? 1 : -1;
}

/* After any unlock (the token or a passphrase, whoever knows it), the
 * volume's identity into its PCR: a planted volume with the real UUID
 * and a passphrase its writer knows then leaves PCR 15 other than the
 * real one left it, so no token bound to PCR 15 unseals afterwards in
 * this boot (systemd-cryptsetup measures whatever opened the volume).
 * The decision is block/'s (hi_luks_measure_decide); mech (passphrase,
 * tpm2) goes into the report with the outcome. Returns 0, or -1 after
 * boot_error when tpm2-measure-pcr= asked for it and it could not be. */
static int measure_unlock(struct boot *b, const struct luks_volume *v, const uint8_t *vk, size_t vklen, const char *how)
{
	char err[200] = "", banks[80] = "", mech[16], key[16], path[BOOT_PATH_MAX];
	bool present = hi_tpm_dev_path(b->dev, TPM_USE_EXTEND, path, sizeof path);
	struct luks_measure_plan m = hi_luks_measure_decide(&v->o, present);
	int rc = 1;

	snprintf(mech, sizeof mech, "%.*s", (int)strcspn(how, " "), how);
	if (m.measure)
		rc = measure_volume(b, v, m.pcr, vk, vklen, banks, sizeof banks, err, sizeof err);
	snprintf(key, sizeof key, "pcr%d", m.pcr);
	if (!m.measure) {
		hi_report_add(&b->rep, "luks", "unlock", "info", "%s by %s, PCR not measured (%s)", v->name, mech,
			   v->o.measure == LUKS_MEASURE_OFF ? "tpm2-measure-pcr=no" : "no TPM");
	} else if (rc == 0) {
		hi_report_add(&b->rep, "luks", key, "extended", "PCR %d with the identity of %s (UUID %s), banks %s",
			   m.pcr, v->name, v->uuid, banks);
		hi_report_add(&b->rep, "luks", "unlock", "info", "%s by %s, PCR %d", v->name, mech, m.pcr);
	} else if (m.required) {
		return hi_boot_error(b, "luks: %s: tpm2-measure-pcr= asks PCR %d extended with the volume's identity, and %s%s%s; "
				  "boot with the TPM, or drop tpm2-measure-pcr= from its options", v->name, m.pcr,
				  rc > 0 ? "there is no TPM" : "extending it failed", err[0] ? ": " : "", err);
	} else if (rc > 0) {
		hi_report_add(&b->rep, "luks", "unlock", "info", "%s by %s, PCR not measured (no TPM)", v->name, mech);
	} else {
		log_warn("luks: %s: extending PCR %d with the volume's identity failed: %s; a second unseal bound to PCR %d "
			 "is not prevented in this boot", v->name, m.pcr, err, m.pcr);
		hi_report_add(&b->rep, "luks", "unlock", "failed", "%s by %s, PCR %d not measured (%s)", v->name, mech, m.pcr, err);
	}
	return 0;
}

/* fixate-volume-key=: the key that opened the volume must be the one the
 * crypttab names by its id, whichever mechanism opened it; a volume
 * planted under the real UUID, with keyslots its writer knows, has
 * another key. Run after the measurement, so a refused volume has still
 * changed PCR 15 for whatever the failure action leaves running. Returns
 * 0, or -1 after boot_error. */
static int fixate_check(struct boot *b, const struct luks_volume *v, const uint8_t *vk, size_t vklen)
{
	uint8_t id[SHA256_BYTES];
	char hex[SHA256_HEX];

	if (!v->o.fixate)
		return 0;
	hi_luks2_volume_key_id(v->name, v->uuid, vk, vklen, id);
	bool same = hi_ct_equal(id, v->o.fixate_id, sizeof id);
	hi_hex_encode(hex, id, sizeof id);
	explicit_bzero(id, sizeof id);
	if (!same)
		return hi_boot_error(b, "luks: %s (UUID %s): its volume key's id is %s, not the crypttab's fixate-volume-key=; "
				  "this is not the volume the crypttab names (one planted under its UUID?): check the disks",
				  v->name, v->uuid, hex);
	hi_report_add(&b->rep, "luks", "fixate", "ok", "%s: the volume key's id is fixate-volume-key=", v->name);
	return 0;
}

/* The TPM2 token, then the passphrase tries; the volume key in vk, how
 * it opened in how. Returns 0, or -1 after boot_error. */
static int unlock(struct boot *b, const struct luks_volume *v, const struct luks2_hdr *h, struct dev_ctx *dc,
		  uint8_t *vk, size_t *vklen, int *slot, char *how, size_t howcap)
{
	if (unlock_tpm2(b, v, h, dc, vk, vklen, slot, how, howcap) == 0)
		return 0;
	snprintf(how, howcap, "passphrase");
	int tries = v->o.tries ? v->o.tries : LUKS_TRIES_DEFAULT;
	int timeout = (v->o.timeout_s ? v->o.timeout_s : LUKS_PROMPT_TIMEOUT_S) * 1000;
	char question[200], err[LUKS2_ERR_MAX];
	struct prompt con;
	char *pass = mmap(NULL, LUKS2_PASS_MAX + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (pass == MAP_FAILED)
		return hi_boot_error(b, "luks: %s: no memory for the passphrase; add memory", v->name);
	mlock(pass, LUKS2_PASS_MAX + 1);
	madvise(pass, LUKS2_PASS_MAX + 1, MADV_DONTDUMP);
	if (hi_prompt_open(&con, b->dev) < 0) {
		munmap(pass, LUKS2_PASS_MAX + 1);
		return hi_boot_error(b, "luks: %s: cannot open the console to ask its passphrase: %s; boot with a console",
				  v->name, strerror(errno));
	}
	int rc = 1;
	for (int t = 1; t <= tries && rc == 1; t++) {
		snprintf(question, sizeof question, "Please enter passphrase for disk %s (%s), try %d of %d: ", v->name,
			 v->uuid, t, tries);
		int len = hi_prompt_ask(&con, question, pass, LUKS2_PASS_MAX + 1, timeout);
		if (len < 0) {
			log_warn("luks: %s: no passphrase (timed out after %d s, or longer than %d bytes)", v->name,
				 timeout / 1000, LUKS2_PASS_MAX);
			continue;
		}
		rc = hi_luks2_open_passphrase(h, (const uint8_t *)pass, (size_t)len, dev_read, dc, hi_afalg_decrypt_sectors, vk,
					   vklen, slot, err, sizeof err);
		explicit_bzero(pass, LUKS2_PASS_MAX + 1);
		if (rc == 1)
			hi_prompt_say(&con, "No key available with this passphrase.\n");
	}
	hi_prompt_close(&con);
	explicit_bzero(pass, LUKS2_PASS_MAX + 1);
	munlock(pass, LUKS2_PASS_MAX + 1);
	munmap(pass, LUKS2_PASS_MAX + 1);
	if (rc < 0)
		return hi_boot_error(b, "luks: %s (UUID %s): %s; check the volume with cryptsetup luksDump", v->name, v->uuid, err);
	if (rc > 0)
		return hi_boot_error(b, "luks: %s (UUID %s): no keyslot opened after %d tries; boot again and give the passphrase",
				  v->name, v->uuid, tries);
	return 0;
}

/* /dev/mapper/NAME: devtmpfs makes dm-N only; udev's link is made here,
 * and the udev database entry libdevmapper's rules would leave, so the
 * real root's udev and systemd take the device as cryptsetup's. */
static void mapper_node(struct boot *b, const char *name, dev_t dev)
{
	char path[BOOT_PATH_MAX], why[BOOT_PATH_MAX + 64];

	if (hi_dm_mapper_node(b->dev, name, dev, path, sizeof path, why, sizeof why) < 0)
		log_warn("luks: %s", why);
	if (hi_dm_udev_db_write(b->run, major(dev), minor(dev), why, sizeof why) < 0)
		log_warn("luks: %s; the real root's udev will not link /dev/disk/* to %s, and systemd units naming it wait for it",
			 why, name);
}

/* What an unlocked volume is mapped with, and what its report says. */
struct luks_map {
	const char *key_desc, *table;
	uint64_t sectors;
	const char *node;
	int slot;
	const char *how;
};

/* The volume key into the keyring (and out of vk, wiped here), the
 * dm-crypt device made with the table naming it, the key dropped, the
 * node made and the volume reported. 0, or -1 after hi_boot_error. */
static int map_volume(struct boot *b, int ctl, const struct luks_volume *v, const struct luks_map *m, uint8_t *vk,
		      size_t vklen)
{
	char dmuuid[DM_UUID_LEN], ms[CLOCK_MS_MAX];
	uint64_t dm_start = hi_boottime_ns();
	long key = hi_luks2_key_add(m->key_desc, vk, vklen);
	const char *step;
	dev_t mapped;

	explicit_bzero(vk, LUKS2_KEY_MAX);
	hi_luks2_dm_uuid(v->uuid, v->name, dmuuid, sizeof dmuuid);
	if (key < 0)
		return hi_boot_error(b, "luks: %s: the kernel keyring refused the volume key: %s; the kernel needs CONFIG_KEYS",
				  v->name, strerror(errno));
	struct dm_target crypt = { 0, m->sectors, "crypt", m->table };
	int made = hi_dm_create_table(ctl, v->name, dmuuid, &crypt, 1, v->o.dm.readonly, &mapped, &step);
	int saved = errno;
	hi_luks2_key_drop(key);
	if (made < 0)
		return hi_boot_error(b, "luks: %s: device-mapper %s: %s; is dm-crypt (and its cipher) in the initramfs?",
				  v->name, step, strerror(saved));
	mapper_node(b, v->name, mapped);
	/* The key into the keyring, the table loaded, the device resumed and
	 * its node: what the volume costs past the KDF. */
	hi_report_add(&b->rep, "luks", "dm_ms", "info", "%s (%s)",
		   hi_clock_format_ms(ms, sizeof ms, hi_boottime_ns() - dm_start), v->name);
	log_notice("luks: %s opened (keyslot %d, %s) as /dev/mapper/%s", v->name, m->slot, m->how, v->name);
	hi_report_add(&b->rep, "luks", v->name, "opened", "UUID %s on %s, keyslot %d, %s, /dev/mapper/%s", v->uuid,
		   m->node, m->slot, m->how, v->name);
	return 0;
}

static int open_volume(struct boot *b, int ctl, const struct luks_volume *v)
{
	char node[BOOT_PATH_MAX], note[LUKS2_ERR_MAX], err[LUKS_ERR_MAX], devnum[32], table[LUKS2_TABLE_MAX];
	char desc[80], how[160];
	struct luks2_hdr h;
	struct dev_ctx dc;
	dev_t dev;
	uint64_t bytes, sectors;
	size_t vklen = 0;
	int slot = -1, rc = -1;

	dc.fd = wait_device(b, v, node, sizeof node, &dev);
	if (dc.fd < 0)
		return -1;
	if (hi_luks2_hdr_read(dev_read, &dc, &h, note, sizeof note, err, sizeof err) < 0) {
		hi_boot_error(b, "luks: %s on %s: %s; restore the header from a backup (cryptsetup luksHeaderRestore)",
			   v->name, node, err);
		goto out;
	}
	if (note[0])
		log_warn("luks: %s on %s: %s; repair it with cryptsetup repair", v->name, node, note);
	if (ioctl(dc.fd, BLKGETSIZE64, &bytes) < 0) {
		hi_boot_error(b, "luks: %s: cannot read the size of %s: %s", v->name, node, strerror(errno));
		goto out;
	}
	const struct luks2_digest *d = hi_luks2_segment_digest(&h, 0);
	hi_luks2_key_desc(v->uuid, d ? (int)(d - h.digest) : 0, desc, sizeof desc);
	snprintf(devnum, sizeof devnum, "%u:%u", major(dev), minor(dev));
	if (hi_luks2_dm_table(&h, &v->o.dm, devnum, bytes, desc, table, sizeof table, &sectors, err, sizeof err) < 0) {
		hi_boot_error(b, "luks: %s on %s: %s", v->name, node, err);
		goto out;
	}
	uint8_t *vk = mmap(NULL, LUKS2_KEY_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vk == MAP_FAILED) {
		hi_boot_error(b, "luks: %s: no memory for the key", v->name);
		goto out;
	}
	mlock(vk, LUKS2_KEY_MAX);
	madvise(vk, LUKS2_KEY_MAX, MADV_DONTDUMP);
	if (unlock(b, v, &h, &dc, vk, &vklen, &slot, how, sizeof how) == 0) {
		if (measure_unlock(b, v, vk, vklen, how) < 0 || fixate_check(b, v, vk, vklen) < 0)
			goto wipe;
		rc = map_volume(b, ctl, v, &(struct luks_map){ desc, table, sectors, node, slot, how }, vk, vklen);
	}
wipe:
	explicit_bzero(vk, LUKS2_KEY_MAX);
	munlock(vk, LUKS2_KEY_MAX);
	munmap(vk, LUKS2_KEY_MAX);
out:
	hi_luks2_hdr_free(&h);
	close(dc.fd);
	return rc;
}

/* The volumes this boot opens: the crypttab's and the command line's,
 * read once per boot (b->luks_plan): the warm-up (modules stage) and the
 * luks stage both need them. NULL with msg (the luks stage's fatal error). */
static const struct luks_plan *plan_get(struct boot *b, char *msg, size_t msglen)
{
	static struct luks_plan ct, plan;
	char err[LUKS_ERR_MAX];

	if (b->luks_plan)
		return b->luks_plan;

	if (b->mode == MODE_INITRAMFS && hi_luks_crypttab_read(b->config_path, &ct, msg, msglen) < 0)
		return NULL;
	if (b->mode != MODE_INITRAMFS)
		memset(&ct, 0, sizeof ct);
	if (hi_luks_plan_resolve(&b->cmd, &ct, &plan, err, sizeof err) < 0) {
		snprintf(msg, msglen, "luks: %s; fix the kernel command line", err);
		return NULL;
	}
	b->luks_plan = &plan;
	return &plan;
}

static int open_all(struct boot *b)
{
	char err[LUKS_ERR_MAX + 200], why[200];
	const struct luks_plan *plan = plan_get(b, err, sizeof err);

	if (!plan)
		return hi_boot_error(b, "%s", err);
	if (plan->n == 0)
		return 0;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].o.ignored[0])
			log_warn("luks: %s: ignoring unknown options %s (as systemd-cryptsetup does)", plan->v[i].name,
				 plan->v[i].o.ignored);
	if (b->mode == MODE_DRY_RUN) {
		for (size_t i = 0; i < plan->n; i++)
			log_notice("luks: would open UUID %s as /dev/mapper/%s (passphrase on the console)", plan->v[i].uuid,
				   plan->v[i].name);
		return 0;
	}
	int ctl = hi_dm_control_open(b->dev, b->sys, 1, why, sizeof why);
	if (ctl < 0)
		return hi_boot_error(b, "luks: %s; the initramfs needs dm-mod and dm-crypt (hardinit-mkinitramfs --crypttab or --luks)",
				  why);
	int rc = 0;
	for (size_t i = 0; i < plan->n && rc == 0; i++)
		rc = open_volume(b, ctl, &plan->v[i]);
	close(ctl);
	return rc;
}

int hi_stage_luks(struct boot *b)
{
	int rc = open_all(b);
	hi_luks_warmup_drop(b);          /* used or not, opened or failed */
	return rc;
}
