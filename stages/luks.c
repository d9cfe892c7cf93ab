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
 * later `dmsetup table` reads. Only the passphrase path: no token
 * (systemd-tpm2), no key files. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/dm-ioctl.h>
#include <linux/keyctl.h>

#include "afalg.h"
#include "fsutil.h"
#include "log.h"
#include "luks.h"
#include "stages.h"
#include "dm.h"

/* ---- options, crypttab, the command line (pure) ------------------------ */

static int opt_int(const char *v, int max, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 0 || n > max)
		return -1;
	*out = (int)n;
	return 0;
}

static void note_ignored(struct luks_opts *o, const char *word)
{
	size_t len = strlen(o->ignored);
	snprintf(o->ignored + len, sizeof o->ignored - len, "%s%s", len ? "," : "", word);
}

int luks_options_parse(const char *text, struct luks_opts *o, char *err, size_t errlen)
{
	/* What would open the volume otherwise than its LUKS2 header says,
	 * or needs a key source this stage does not have. */
	static const char *const refused[] = {
		"plain", "tcrypt", "bitlk", "header", "cipher", "hash", "size", "offset", "skip", "keyfile-offset",
		"keyfile-size", "tpm2-device", "fido2-device", "pkcs11-uri", "integrity", "veracrypt", "keyslot",
		"key-slot", "swap", "tmp",
	};
	char buf[512], *save = NULL;

	if (!text)
		return 0;
	if (strlen(text) >= sizeof buf) {
		snprintf(err, errlen, "options '%.40s...' longer than %zu bytes", text, sizeof buf - 1);
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", text);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *v = strchr(w, '=');
		if (v)
			*v++ = '\0';
		if (!strcmp(w, "luks") || !strcmp(w, "none") || !strcmp(w, "nofail") || !strcmp(w, "_netdev") ||
		    !strcmp(w, "x-initrd.attach") || !strcmp(w, "headless") || !strcmp(w, "verify"))
			continue;
		if (!strcmp(w, "discard"))
			o->dm.discard = true;
		else if (!strcmp(w, "readonly") || !strcmp(w, "read-only"))
			o->dm.readonly = true;
		else if (!strcmp(w, "same-cpu-crypt"))
			o->dm.same_cpu_crypt = true;
		else if (!strcmp(w, "submit-from-crypt-cpus"))
			o->dm.submit_from_crypt_cpus = true;
		else if (!strcmp(w, "no-read-workqueue"))
			o->dm.no_read_workqueue = true;
		else if (!strcmp(w, "no-write-workqueue"))
			o->dm.no_write_workqueue = true;
		else if (!strcmp(w, "noauto"))
			o->noauto = true;
		else if (!strcmp(w, "tries")) {
			if (!v || opt_int(v, LUKS_TRIES_MAX, &o->tries) < 0) {
				snprintf(err, errlen, "tries=%s: give 0 to %d", v ? v : "", LUKS_TRIES_MAX);
				return -1;
			}
		} else if (!strcmp(w, "timeout")) {
			if (!v || opt_int(v, 3600, &o->timeout_s) < 0) {
				snprintf(err, errlen, "timeout=%s: give seconds, 0 to 3600", v ? v : "");
				return -1;
			}
		} else {
			for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
				if (!strcmp(w, refused[i])) {
					snprintf(err, errlen, "option %s is not supported by hardinit's LUKS2 stage "
						 "(passphrase on the console, header on the device)", w);
					return -1;
				}
			note_ignored(o, w);     /* systemd-cryptsetup: "unknown option, ignoring" */
		}
	}
	return 0;
}

bool luks_uuid_parse(const char *text, char out[LUKS_UUID_MAX + 1])
{
	static const int dash[] = { 8, 13, 18, 23 };
	if (!text || strlen(text) != LUKS_UUID_MAX)
		return false;
	for (int i = 0; i < LUKS_UUID_MAX; i++) {
		bool want_dash = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];
		if (want_dash ? text[i] != '-' : !isxdigit((unsigned char)text[i]))
			return false;
		out[i] = (char)tolower((unsigned char)text[i]);
	}
	out[LUKS_UUID_MAX] = '\0';
	return true;
}

/* "luks-UUID" or "UUID" (systemd accepts both in rd.luks.uuid=). */
static bool uuid_word(const char *text, char out[LUKS_UUID_MAX + 1])
{
	if (!strncmp(text, "luks-", 5) && strlen(text) == 5 + LUKS_UUID_MAX)
		text += 5;
	return luks_uuid_parse(text, out);
}

static bool name_ok(const char *n)
{
	size_t len = strlen(n);
	if (!len || len >= LUKS_NAME_MAX || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)n[i]) && !strchr("-_.+#", n[i]))
			return false;
	return true;
}

static struct luks_volume *plan_find(struct luks_plan *p, const char *uuid)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].uuid, uuid))
			return &p->v[i];
	return NULL;
}

static struct luks_volume *plan_add(struct luks_plan *p, const char *uuid, char *err, size_t errlen)
{
	struct luks_volume *v = plan_find(p, uuid);
	if (v)
		return v;
	if (p->n >= LUKS_VOLUMES_MAX) {
		snprintf(err, errlen, "more than %d encrypted volumes", LUKS_VOLUMES_MAX);
		return NULL;
	}
	v = &p->v[p->n++];
	memset(v, 0, sizeof *v);
	snprintf(v->uuid, sizeof v->uuid, "%s", uuid);
	snprintf(v->name, sizeof v->name, "luks-%s", uuid);
	return v;
}

int luks_crypttab_parse(const char *text, size_t len, struct luks_plan *plan, char *err, size_t errlen)
{
	char line[1024], why[LUKS_ERR_MAX];
	size_t pos = 0;

	for (int lineno = 1; pos < len; lineno++) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		if (end - pos >= sizeof line) {
			snprintf(err, errlen, "crypttab line %d: longer than %zu bytes", lineno, sizeof line - 1);
			return -1;
		}
		memcpy(line, text + pos, end - pos);
		line[end - pos] = '\0';
		pos = end + 1;
		char *f[5] = { 0 }, *save = NULL;
		int n = 0;
		for (char *w = strtok_r(line, " \t\r", &save); w && n < 5; w = strtok_r(NULL, " \t\r", &save))
			f[n++] = w;
		if (n == 0 || f[0][0] == '#')
			continue;
		if (n < 2 || n > 4) {
			snprintf(err, errlen, "crypttab line %d: %d fields; give NAME DEVICE [KEYFILE [OPTIONS]]", lineno, n);
			return -1;
		}
		if (!name_ok(f[0])) {
			snprintf(err, errlen, "crypttab line %d: bad name '%.64s' (letters, digits, -_.+#, under %d bytes)",
				 lineno, f[0], LUKS_NAME_MAX);
			return -1;
		}
		char uuid[LUKS_UUID_MAX + 1];
		const char *u = !strncmp(f[1], "UUID=", 5) ? f[1] + 5
			: !strncmp(f[1], "/dev/disk/by-uuid/", 18) ? f[1] + 18 : NULL;
		if (!u || !luks_uuid_parse(u, uuid)) {
			snprintf(err, errlen, "crypttab line %d: device '%.80s' is not UUID=... or /dev/disk/by-uuid/... "
				 "(the LUKS UUID cryptsetup luksUUID prints)", lineno, f[1]);
			return -1;
		}
		if (n >= 3 && strcmp(f[2], "none") && strcmp(f[2], "-")) {
			snprintf(err, errlen, "crypttab line %d: key file %.80s: key files are not supported; give none "
				 "(the passphrase is asked on the console)", lineno, f[2]);
			return -1;
		}
		if (plan_find(plan, uuid)) {
			snprintf(err, errlen, "crypttab line %d: UUID %s listed twice", lineno, uuid);
			return -1;
		}
		struct luks_volume *v = plan_add(plan, uuid, err, errlen);
		if (!v)
			return -1;
		snprintf(v->name, sizeof v->name, "%s", f[0]);
		v->from_crypttab = true;
		if (n == 4 && luks_options_parse(f[3], &v->o, why, sizeof why) < 0) {
			snprintf(err, errlen, "crypttab line %d: %s", lineno, why);
			return -1;
		}
	}
	return 0;
}

static bool word_is(const struct cmdline_word *w, const char *key)
{
	return w->key && !strcmp(w->key, key);
}

static bool off_word(const char *v)
{
	return v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off"));
}

int luks_plan_resolve(const struct cmdline *cmd, const struct luks_plan *crypttab, struct luks_plan *plan,
		      char *err, size_t errlen)
{
	char uuid[LUKS_UUID_MAX + 1], why[LUKS_ERR_MAX];
	struct luks_plan cmdv = { .n = 0 };
	const char *global_opts = NULL;
	bool use_crypttab = true;

	memset(plan, 0, sizeof *plan);
	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		if ((word_is(w, "rd.luks") || word_is(w, "luks")) && off_word(w->value))
			return 0;
		if ((word_is(w, "rd.luks.crypttab") || word_is(w, "luks.crypttab")) && off_word(w->value))
			use_crypttab = false;
	}
	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		const char *v = w->value;
		if (!v)
			continue;
		if (word_is(w, "rd.luks.uuid") || word_is(w, "luks.uuid")) {
			if (!uuid_word(v, uuid)) {
				snprintf(err, errlen, "%s=%.60s: not a UUID; give the LUKS UUID (cryptsetup luksUUID)", w->key, v);
				return -1;
			}
			if (!plan_add(&cmdv, uuid, err, errlen))
				return -1;
		} else if (word_is(w, "rd.luks.name") || word_is(w, "luks.name")) {
			const char *eq = strchr(v, '=');
			char u[LUKS_UUID_MAX + 8];
			if (!eq || (size_t)(eq - v) >= sizeof u) {
				snprintf(err, errlen, "%s=%.60s: give UUID=NAME", w->key, v);
				return -1;
			}
			memcpy(u, v, (size_t)(eq - v));
			u[eq - v] = '\0';
			if (!uuid_word(u, uuid) || !name_ok(eq + 1)) {
				snprintf(err, errlen, "%s=%.60s: give UUID=NAME (a LUKS UUID; a name of letters, digits, -_.+#)",
					 w->key, v);
				return -1;
			}
			struct luks_volume *vol = plan_add(&cmdv, uuid, err, errlen);
			if (!vol)
				return -1;
			snprintf(vol->name, sizeof vol->name, "%s", eq + 1);
		}
	}
	/* Options: UUID=OPTS for one volume, OPTS for every command-line one. */
	for (size_t i = 0; i < cmd->n_words; i++) {
		const struct cmdline_word *w = &cmd->words[i];
		if (!w->value || !(word_is(w, "rd.luks.options") || word_is(w, "luks.options")))
			continue;
		const char *eq = strchr(w->value, '=');
		char u[LUKS_UUID_MAX + 8];
		size_t ulen = eq ? (size_t)(eq - w->value) : 0;
		if (eq && ulen < sizeof u) {
			memcpy(u, w->value, ulen);
			u[ulen] = '\0';
		}
		if (eq && ulen < sizeof u && uuid_word(u, uuid)) {
			struct luks_volume *vol = plan_find(&cmdv, uuid);
			if (!vol)
				vol = plan_add(&cmdv, uuid, err, errlen);
			if (!vol)
				return -1;
			if (luks_options_parse(eq + 1, &vol->o, why, sizeof why) < 0) {
				snprintf(err, errlen, "%s=: %s", w->key, why);
				return -1;
			}
		} else {
			global_opts = w->value;
			continue;
		}
		plan_find(&cmdv, uuid)->own_opts = true;
	}
	if (global_opts) {
		struct luks_opts probe = { .tries = 0 };
		if (luks_options_parse(global_opts, &probe, why, sizeof why) < 0) {
			snprintf(err, errlen, "rd.luks.options=: %s", why);
			return -1;
		}
	}
	/* The crypttab first (its names win), limited to the command line's
	 * UUIDs when it gives any; then the command line's own volumes. */
	if (use_crypttab && crypttab)
		for (size_t i = 0; i < crypttab->n; i++) {
			const struct luks_volume *c = &crypttab->v[i];
			if (cmdv.n && !plan_find(&cmdv, c->uuid))
				continue;
			if (!cmdv.n && c->o.noauto)
				continue;
			struct luks_volume *v = plan_add(plan, c->uuid, err, errlen);
			if (!v)
				return -1;
			*v = *c;
		}
	for (size_t i = 0; i < cmdv.n; i++) {
		struct luks_volume *c = &cmdv.v[i], *v = plan_find(plan, c->uuid);
		if (!v) {
			v = plan_add(plan, c->uuid, err, errlen);
			if (!v)
				return -1;
			*v = *c;
			if (global_opts && !v->own_opts)
				luks_options_parse(global_opts, &v->o, why, sizeof why);
		}
	}
	return 0;
}

int luks_read_line(int fd, char *out, size_t cap, int timeout_ms)
{
	size_t n = 0;
	bool too_long = false;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		char c;
		ssize_t got = read(fd, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (c == '\n' || c == '\r') {
			if (too_long)
				break;
			out[n] = '\0';
			return (int)n;
		}
		/* Too long: the rest of the line is read and dropped, so the
		 * next try starts at a new line. */
		if (n + 1 >= cap)
			too_long = true;
		else
			out[n++] = c;
	}
	explicit_bzero(out, cap);
	return -1;
}

/* ---- the stage --------------------------------------------------------- */

struct dev_ctx {
	int fd;
};

static int dev_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct dev_ctx *d = ctx;
	return fs_pread_all(d->fd, buf, len, off);
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The block device whose LUKS header has uuid: every SYS/class/block
 * entry's node DEV/NAME read for the magic and the header's uuid field.
 * Returns an fd (read-only) with node filled, or -1. */
static int find_by_uuid(struct boot *b, const char *uuid, char *node, size_t cap, dev_t *devnum)
{
	char dir[BOOT_PATH_MAX];
	DIR *d = opendir(boot_path(dir, sizeof dir, b->sys, "class/block") ? dir : "");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	for (int count = 0; (e = readdir(d)) && found < 0 && count < 4096; count++) {
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "dm-", 3) || !strncmp(e->d_name, "loop", 4) ||
		    !strncmp(e->d_name, "ram", 3))
			continue;
		if (!boot_path(node, cap, b->dev, e->d_name))
			continue;
		int fd = open(node, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		uint8_t hdr[LUKS2_BIN_SIZE];
		struct stat st;
		if (pread(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr && luks2_is_luks2(hdr, sizeof hdr) &&
		    hdr[0] == 'L' && !strncasecmp((const char *)hdr + 168, uuid, LUKS_UUID_MAX) &&
		    fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
			*devnum = st.st_rdev;
			found = fd;
		} else {
			close(fd);
		}
	}
	closedir(d);
	return found;
}

static int wait_device(struct boot *b, const struct luks_volume *v, char *node, size_t cap, dev_t *devnum)
{
	uint64_t end = now_ms() + LUKS_DEVICE_WAIT_MS;
	for (;;) {
		int fd = find_by_uuid(b, v->uuid, node, cap, devnum);
		if (fd >= 0 || now_ms() >= end)
			return fd;
		usleep(50 * 1000);
	}
}

/* Echo off on a terminal; restored by prompt_end. */
static int prompt_begin(struct boot *b, struct termios *saved, bool *tty)
{
	char path[BOOT_PATH_MAX];
	int fd = open(boot_path(path, sizeof path, b->dev, "console") ? path : "", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*tty = tcgetattr(fd, saved) == 0;
	if (*tty) {
		struct termios t = *saved;
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		t.c_lflag |= ICANON;
		tcsetattr(fd, TCSAFLUSH, &t);
	}
	return fd;
}

static void prompt_end(int fd, const struct termios *saved, bool tty)
{
	if (tty)
		tcsetattr(fd, TCSAFLUSH, saved);
	close(fd);
}

static void say(int fd, const char *text)
{
	size_t len = strlen(text);
	while (len) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		text += n;
		len -= (size_t)n;
	}
}

/* The volume key into the kernel for dm-crypt to read and nobody else:
 * a "logon" key (its payload cannot be read from user space) in this
 * thread's keyring, found by dm-crypt while it loads the table. */
static long key_add(const char *desc, const uint8_t *vk, size_t len)
{
	return syscall(SYS_add_key, "logon", desc, vk, len, KEY_SPEC_THREAD_KEYRING);
}

static void key_drop(long serial)
{
	syscall(SYS_keyctl, KEYCTL_REVOKE, serial);
	syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_THREAD_KEYRING);
}

/* The passphrase tries; the volume key in vk. Returns 0, or -1 after
 * boot_error. */
static int unlock(struct boot *b, const struct luks_volume *v, const struct luks2_hdr *h, struct dev_ctx *dc,
		  uint8_t *vk, size_t *vklen, int *slot)
{
	int tries = v->o.tries ? v->o.tries : LUKS_TRIES_DEFAULT;
	int timeout = (v->o.timeout_s ? v->o.timeout_s : LUKS_PROMPT_TIMEOUT_S) * 1000;
	char prompt[200], err[LUKS2_ERR_MAX];
	struct termios saved;
	bool tty = false;
	char *pass = mmap(NULL, LUKS2_PASS_MAX + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (pass == MAP_FAILED)
		return boot_error(b, "luks: %s: no memory for the passphrase; add memory", v->name);
	mlock(pass, LUKS2_PASS_MAX + 1);
	madvise(pass, LUKS2_PASS_MAX + 1, MADV_DONTDUMP);
	int con = prompt_begin(b, &saved, &tty);
	if (con < 0) {
		munmap(pass, LUKS2_PASS_MAX + 1);
		return boot_error(b, "luks: %s: cannot open the console to ask its passphrase: %s; boot with a console",
				  v->name, strerror(errno));
	}
	int rc = 1;
	for (int t = 1; t <= tries && rc == 1; t++) {
		snprintf(prompt, sizeof prompt, "Please enter passphrase for disk %s (%s), try %d of %d: ", v->name,
			 v->uuid, t, tries);
		say(con, prompt);
		int len = luks_read_line(con, pass, LUKS2_PASS_MAX + 1, timeout);
		say(con, "\n");
		if (len < 0) {
			log_warn("luks: %s: no passphrase (timed out after %d s, or longer than %d bytes)", v->name,
				 timeout / 1000, LUKS2_PASS_MAX);
			continue;
		}
		rc = luks2_open_passphrase(h, (const uint8_t *)pass, (size_t)len, dev_read, dc, afalg_decrypt_sectors, vk,
					   vklen, slot, err, sizeof err);
		explicit_bzero(pass, LUKS2_PASS_MAX + 1);
		if (rc == 1)
			say(con, "No key available with this passphrase.\n");
	}
	prompt_end(con, &saved, tty);
	explicit_bzero(pass, LUKS2_PASS_MAX + 1);
	munlock(pass, LUKS2_PASS_MAX + 1);
	munmap(pass, LUKS2_PASS_MAX + 1);
	if (rc < 0)
		return boot_error(b, "luks: %s (UUID %s): %s; check the volume with cryptsetup luksDump", v->name, v->uuid, err);
	if (rc > 0)
		return boot_error(b, "luks: %s (UUID %s): no keyslot opened after %d tries; boot again and give the passphrase",
				  v->name, v->uuid, tries);
	return 0;
}

/* /dev/mapper/NAME: devtmpfs makes dm-N only; udev's link is made here. */
static void mapper_node(struct boot *b, const char *name, dev_t dev)
{
	char path[BOOT_PATH_MAX], rel[LUKS_NAME_MAX + 8];
	if (boot_path(path, sizeof path, b->dev, "mapper"))
		mkdir(path, 0755);
	snprintf(rel, sizeof rel, "mapper/%s", name);
	if (boot_path(path, sizeof path, b->dev, rel) && mknod(path, S_IFBLK | 0600, dev) < 0 && errno != EEXIST)
		log_warn("luks: cannot create %s: %s", path, strerror(errno));
}

static int open_volume(struct boot *b, int ctl, const struct luks_volume *v)
{
	char node[BOOT_PATH_MAX], note[LUKS2_ERR_MAX], err[LUKS_ERR_MAX], devnum[32], table[LUKS2_TABLE_MAX];
	char desc[80], dmuuid[DM_UUID_LEN];
	struct luks2_hdr h;
	struct dev_ctx dc;
	dev_t dev, mapped;
	uint64_t bytes, sectors;
	size_t vklen = 0;
	int slot = -1, rc = -1;
	const char *step;

	dc.fd = wait_device(b, v, node, sizeof node, &dev);
	if (dc.fd < 0)
		return boot_error(b, "luks: %s: no device with LUKS UUID %s after %d s; check rd.luks.uuid= or the "
				  "crypttab, and that the disk's driver is in the initramfs", v->name, v->uuid,
				  LUKS_DEVICE_WAIT_MS / 1000);
	if (luks2_hdr_read(dev_read, &dc, &h, note, sizeof note, err, sizeof err) < 0) {
		boot_error(b, "luks: %s on %s: %s; restore the header from a backup (cryptsetup luksHeaderRestore)",
			   v->name, node, err);
		goto out;
	}
	if (note[0])
		log_warn("luks: %s on %s: %s; repair it with cryptsetup repair", v->name, node, note);
	if (ioctl(dc.fd, BLKGETSIZE64, &bytes) < 0) {
		boot_error(b, "luks: %s: cannot read the size of %s: %s", v->name, node, strerror(errno));
		goto out;
	}
	const struct luks2_digest *d = luks2_segment_digest(&h, 0);
	luks2_key_desc(v->uuid, d ? (int)(d - h.digest) : 0, desc, sizeof desc);
	snprintf(devnum, sizeof devnum, "%u:%u", major(dev), minor(dev));
	if (luks2_dm_table(&h, &v->o.dm, devnum, bytes, desc, table, sizeof table, &sectors, err, sizeof err) < 0) {
		boot_error(b, "luks: %s on %s: %s", v->name, node, err);
		goto out;
	}
	uint8_t *vk = mmap(NULL, LUKS2_KEY_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vk == MAP_FAILED) {
		boot_error(b, "luks: %s: no memory for the key", v->name);
		goto out;
	}
	mlock(vk, LUKS2_KEY_MAX);
	madvise(vk, LUKS2_KEY_MAX, MADV_DONTDUMP);
	if (unlock(b, v, &h, &dc, vk, &vklen, &slot) == 0) {
		long key = key_add(desc, vk, vklen);
		explicit_bzero(vk, LUKS2_KEY_MAX);
		luks2_dm_uuid(v->uuid, v->name, dmuuid, sizeof dmuuid);
		if (key < 0) {
			boot_error(b, "luks: %s: the kernel keyring refused the volume key: %s; the kernel needs CONFIG_KEYS",
				   v->name, strerror(errno));
		} else {
			struct dm_target crypt = { 0, sectors, "crypt", table };
			int made = dm_create_table(ctl, v->name, dmuuid, &crypt, 1, v->o.dm.readonly, &mapped, &step);
			int saved = errno;
			key_drop(key);
			if (made < 0) {
				boot_error(b, "luks: %s: device-mapper %s: %s; is dm-crypt (and its cipher) in the initramfs?",
					   v->name, step, strerror(saved));
			} else {
				mapper_node(b, v->name, mapped);
				log_notice("luks: %s opened (keyslot %d, passphrase) as /dev/mapper/%s", v->name, slot, v->name);
				report_add(&b->rep, "luks", v->name, "opened", "UUID %s on %s, keyslot %d, passphrase, /dev/mapper/%s",
					   v->uuid, node, slot, v->name);
				rc = 0;
			}
		}
	}
	explicit_bzero(vk, LUKS2_KEY_MAX);
	munlock(vk, LUKS2_KEY_MAX);
	munmap(vk, LUKS2_KEY_MAX);
out:
	luks2_hdr_free(&h);
	close(dc.fd);
	return rc;
}

static int read_crypttab(struct boot *b, struct luks_plan *ct)
{
	char path[BOOT_PATH_MAX], err[LUKS_ERR_MAX];
	static char text[LUKS_CRYPTTAB_MAX];
	const char *slash = strrchr(b->config_path, '/');
	size_t len = 0;

	memset(ct, 0, sizeof *ct);
	if (!slash)
		return 0;
	snprintf(path, sizeof path, "%.*s/%s", (int)(slash - b->config_path), b->config_path, LUKS_CRYPTTAB);
	int r = fs_read(path, text, sizeof text, &len);
	if (r < 0 && errno == ENOENT)
		return 0;
	if (r < 0)
		return boot_error(b, "luks: cannot read %s: %s; rebuild the initramfs (--crypttab)", path, strerror(errno));
	if (luks_crypttab_parse(text, len, ct, err, sizeof err) < 0)
		return boot_error(b, "luks: %s: %s; fix it and rebuild the initramfs", path, err);
	return 0;
}

int stage_luks(struct boot *b)
{
	struct luks_plan ct, plan;
	char err[LUKS_ERR_MAX], why[200];

	if (b->mode == MODE_INITRAMFS && read_crypttab(b, &ct) < 0)
		return -1;
	if (b->mode != MODE_INITRAMFS)
		memset(&ct, 0, sizeof ct);
	if (luks_plan_resolve(&b->cmd, &ct, &plan, err, sizeof err) < 0)
		return boot_error(b, "luks: %s; fix the kernel command line", err);
	if (plan.n == 0)
		return 0;
	for (size_t i = 0; i < plan.n; i++)
		if (plan.v[i].o.ignored[0])
			log_warn("luks: %s: ignoring unknown options %s (as systemd-cryptsetup does)", plan.v[i].name,
				 plan.v[i].o.ignored);
	if (b->mode == MODE_DRY_RUN) {
		for (size_t i = 0; i < plan.n; i++)
			log_notice("luks: would open UUID %s as /dev/mapper/%s (passphrase on the console)", plan.v[i].uuid,
				   plan.v[i].name);
		return 0;
	}
	int ctl = dm_control_open(b->dev, b->sys, 1, why, sizeof why);
	if (ctl < 0)
		return boot_error(b, "luks: %s; the initramfs needs dm-mod and dm-crypt (hardinit-mkinitramfs --crypttab or --luks)",
				  why);
	int rc = 0;
	for (size_t i = 0; i < plan.n && rc == 0; i++)
		rc = open_volume(b, ctl, &plan.v[i]);
	close(ctl);
	return rc;
}
