/* Verity: before root is mounted, make it a read-only dm-verity device,
 * so the kernel refuses every block of the root image that was changed.
 * Raw device-mapper ioctls (block/dm.c), the veritysetup
 * superblock read here (block/verity_sb.c): no libcryptsetup, no
 * libdevmapper, no dm-mod.create= (it needs BLK_DEV_DM=y; Debian's
 * kernels have dm-mod as a module). The root stage then mounts this
 * device, never the data device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "root.h"
#include "dm.h"
#include "verity.h"
#include "verity_judge.h"
#include "verity_sb.h"

#define VERITY_DM_NAME   "root"     /* systemd's name: /dev/mapper/root */
#define VERITY_DEVNUM_MAX 24

struct verity_setup {
	char roothash[CONFIG_ROOT_HASH_MAX];
	char data[CONFIG_PATH_MAX];
	char hash[CONFIG_PATH_MAX];
	char data_node[BOOT_PATH_MAX];
	char hash_node[BOOT_PATH_MAX];
	char data_num[VERITY_DEVNUM_MAX];
	char hash_num[VERITY_DEVNUM_MAX];
	struct verity_params p;
	char table[VERITY_TABLE_MAX];
	uint64_t sectors;
	uint64_t check_ns;             /* the first block's read and verification */
	bool sig_required;             /* [verity] require_signature or the kernel's require_signatures */
	const char *sig_required_by;
	long sig_key;                  /* the user key holding the signature; 0: none loaded */
};

/* systemd's command-line names take the config's place unless the config
 * is locked and has its own: then they are refused and logged. Adding a
 * value the config leaves empty is never a weakening (the root hash still
 * decides what verifies). */
static int take_cmdline(struct boot *b, const char *word, char *dst, size_t cap, const char **from)
{
	const char *v = hi_cmdline_get(&b->cmd, word, NULL);

	if (!v || !*v)
		return 0;
	if (strlen(v) >= cap)
		return hi_boot_error(b, "%s= is longer than %zu bytes; check the kernel command line", word, cap - 1);
	if (dst[0] && strcmp(dst, v) == 0)
		return 0;   /* says what the config says */
	if (dst[0]) {
		if (b->cfg.lock_cmdline) {
			log_warn("refused %s=%s: the config is locked and embeds %s", word, v, dst);
			hi_report_add(&b->rep, "verity", word, "refused", "the locked config embeds %s", dst);
			return 0;
		}
		log_notice("%s=%s replaces the config's %s", word, v, dst);
	}
	snprintf(dst, cap, "%s", v);
	if (from)
		*from = "command line";
	return 0;
}

static bool turned_off_by_cmdline(struct boot *b)
{
	const char *v = hi_cmdline_get(&b->cmd, "systemd.verity", NULL);
	return v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off"));
}

static bool anchored(const struct boot *b)
{
	return b->verity_anchored && b->cfg.verity_roothash[0];
}

/* The options: the config's words, then the command line's. Under the
 * lock a command line cannot replace the config's words, cannot weaken
 * (ignore-corruption, ignore-zero-blocks, check-at-most-once) and cannot
 * change what corruption does. */
static int resolve_options(struct boot *b, struct verity_setup *v)
{
	char err[VERITY_ERR_MAX];
	const char *cmd = hi_cmdline_get(&b->cmd, "systemd.verity_root_options", NULL);
	/* With an embedded root hash the judge has taken only what says the
	 * same or strengthens: the lock has nothing left to refuse. */
	bool locked = b->cfg.lock_cmdline && !anchored(b);

	hi_verity_params_defaults(&v->p);
	if (hi_verity_options_parse(b->cfg.verity_options, &v->p, err, sizeof err) < 0)
		return hi_boot_error(b, "[verity] options: %s", err);
	if (!v->p.corruption_set)
		v->p.on_corruption = b->cfg.verity_on_corruption;
	if (!cmd || !*cmd)
		return 0;
	struct verity_params with = v->p;
	with.corruption_set = false;
	if (hi_verity_options_parse(cmd, &with, err, sizeof err) < 0)
		return hi_boot_error(b, "systemd.verity_root_options=: %s", err);
	const char *refusal = NULL;
	if (locked && b->cfg.verity_options[0] && strcmp(cmd, b->cfg.verity_options) != 0)
		refusal = "the locked config has its own options";
	else if (locked && hi_verity_options_weaken(&with) && !hi_verity_options_weaken(&v->p))
		refusal = "it weakens verity under the locked config";
	if (refusal) {
		log_warn("refused systemd.verity_root_options=%s: %s", cmd, refusal);
		hi_report_add(&b->rep, "verity", "systemd.verity_root_options", "refused", "%s", refusal);
		return 0;
	}
	if (locked && with.corruption_set && with.on_corruption != v->p.on_corruption) {
		log_warn("refused %s-on-corruption from the command line: the locked config says %s",
			 hi_verity_corruption_name(with.on_corruption), hi_verity_corruption_name(v->p.on_corruption));
		with.on_corruption = v->p.on_corruption;
	}
	if (!with.corruption_set)
		with.on_corruption = v->p.on_corruption;
	v->p = with;
	return 0;
}

/* The root hash the initramfs embeds is the trust anchor of the root:
 * each command-line word the verity stage reads is judged against what the
 * initramfs embeds (hi_verity_word_judge: the table in block/verity_judge.c), and the
 * first that changes or weakens verity fails the boot whatever
 * lock_cmdline says; what is left only says the same, strengthens, or
 * fills what the embedded config leaves open. */
static int judge_cmdline(struct boot *b)
{
	const struct config *c = &b->cfg;
	struct verity_anchor a = { .roothash = c->verity_roothash, .data = c->verity_data, .hash = c->verity_hash };
	char err[VERITY_ERR_MAX], word[200];
	const char *why;

	hi_verity_params_defaults(&a.p);
	if (hi_verity_options_parse(c->verity_options, &a.p, err, sizeof err) < 0)
		return hi_boot_error(b, "[verity] options: %s", err);
	if (!a.p.corruption_set)
		a.p.on_corruption = c->verity_on_corruption;
	for (size_t i = 0; i < b->cmd.n_words; i++) {
		const struct cmdline_word *w = &b->cmd.words[i];
		enum verity_effect e = hi_verity_word_judge(&a, w->key, w->value, word, sizeof word, &why);
		bool options = !strcmp(w->key, "systemd.verity_root_options");
		if (verity_effect_refused(e))
			return hi_boot_error(b, "verity: refused %s%s%.200s%s%s%s on the kernel command line: it %s verity: %s; "
					  "the initramfs embeds the root hash %.16s..., which no command-line word may change "
					  "or weaken whatever lock_cmdline says: remove the word, or rebuild the initramfs "
					  "(hardinit-mkinitramfs --verity-*) to change verity",
					  w->key, w->value ? "=" : "", w->value ? w->value : "", options ? " (its word '" : "",
					  options ? word : "", options ? "')" : "", e == VW_WEAKENS ? "weakens" : "changes",
					  why, c->verity_roothash);
		if (e == VW_STRENGTHENS || e == VW_ADDS) {
			log_notice("verity: took %s=%s from the command line: %s", w->key, w->value, why);
			hi_report_add(&b->rep, "verity", w->key, "taken", "%s", why);
		} else if (e == VW_IGNORED) {
			log_info("verity: %s on the command line is ignored: %s", word, why);
		}
	}
	log_info("verity: the command line was judged against the embedded root hash");
	return 0;
}

/* ---- the root hash's signature ---------------------------------------------
 * The kernel checks a PKCS#7 signature over the hex root hash against its
 * trusted keys (builtin, secondary, and with Debian's kernels the
 * platform keyring: the firmware's db) when the table names a user key
 * holding it (root_hash_sig_key_desc). hardinit loads the signature into
 * its thread keyring for the table loads and drops it after: the kernel
 * keeps its own copy. */

/* dm_verity.require_signatures=1: a table without a signature is refused
 * by the kernel itself. The module reads the word when it loads (the
 * modules stage passes it); /sys says what it took. */
static bool kernel_requires_signatures(struct boot *b, const char **by)
{
	char path[BOOT_PATH_MAX + 64], val[8];
	bool on = false;

	snprintf(path, sizeof path, "%s/module/dm_verity/parameters/require_signatures", b->sys);
	if (hi_fs_read(path, val, sizeof val, NULL) == 0 && (val[0] == 'Y' || val[0] == '1')) {
		*by = "the kernel (dm_verity require_signatures=Y)";
		return true;
	}
	const char *w = hi_cmdline_get(&b->cmd, "dm_verity.require_signatures", NULL);
	if (!w)
		w = hi_cmdline_get(&b->cmd, "dm-verity.require_signatures", NULL);
	if (w && (!strcmp(w, "1") || !strcmp(w, "Y") || !strcmp(w, "y"))) {
		*by = "dm_verity.require_signatures=1 on the command line";
		on = true;
	}
	return on;
}

static int check_signature_policy(struct boot *b, struct verity_setup *v)
{
	const char *by = NULL;

	if (v->p.sig_source[0] && strcmp(v->p.sig_key_desc, VERITY_SIG_KEY_DESC) != 0)
		return hi_boot_error(b, "verity: both root-hash-signature= and root-hash-signature-key=%s are given; keep one", v->p.sig_key_desc);
	if (b->cfg.verity_require_signature) {
		v->sig_required = true;
		v->sig_required_by = "[verity] require_signature = yes";
	}
	if (kernel_requires_signatures(b, &by)) {
		hi_report_add(&b->rep, "verity", "kernel_require_signatures", "ok", "%s", by);
		if (!v->sig_required) {
			v->sig_required = true;
			v->sig_required_by = by;
		}
	}
	if (v->sig_required && !v->p.sig_key_desc[0])
		return hi_boot_error(b, "verity: the root hash %.16s... has no signature, and %s refuses an unsigned root; "
				  "build the initramfs with hardinit-mkinitramfs --verity-roothash-sig FILE (openssl smime -sign "
				  "-nocerts -noattr -binary -outform der over the hex root hash), or give "
				  "systemd.verity_root_options=root-hash-signature=base64:...",
				  v->roothash, v->sig_required_by);
	return 0;
}

static int read_signature(struct boot *b, const char *source, unsigned char *der, size_t cap, size_t *len)
{
	static char file[VERITY_SIG_MAX + 1];
	int n;

	if (strncmp(source, "base64:", 7) == 0) {
		n = hi_verity_sig_base64(source + 7, der, cap);
		if (n < 0)
			return hi_boot_error(b, "verity: root-hash-signature=base64:... is not base64 of at most %zu bytes; copy it again (base64 -w0 of the .p7s)", cap);
		*len = (size_t)n;
		return 0;
	}
	if (hi_fs_read(source, file, sizeof file, len) < 0)
		return hi_boot_error(b, "verity: cannot read the root hash signature %s: %s; rebuild the initramfs with --verity-roothash-sig FILE",
				  source, errno == E2BIG ? "larger than 4 KiB" : hi_fs_read_why(errno));
	if (*len == 0)
		return hi_boot_error(b, "verity: the root hash signature %s is empty; rebuild the initramfs with --verity-roothash-sig FILE", source);
	memcpy(der, file, *len);
	return 0;
}

static int load_signature(struct boot *b, struct verity_setup *v)
{
	unsigned char der[VERITY_SIG_MAX];
	size_t len = 0;

	if (!v->p.sig_source[0])
		return 0;
	if (read_signature(b, v->p.sig_source, der, sizeof der, &len) < 0)
		return -1;
	long key = syscall(SYS_add_key, "user", VERITY_SIG_KEY_DESC, der, len, KEY_SPEC_THREAD_KEYRING);
	if (key < 0)
		return hi_boot_error(b, "verity: cannot put the root hash signature into the kernel keyring: %s; the kernel needs CONFIG_KEYS",
				  strerror(errno));
	v->sig_key = key;
	return 0;
}

static void drop_signature(struct verity_setup *v)
{
	if (v->sig_key <= 0)
		return;
	syscall(SYS_keyctl, KEYCTL_INVALIDATE, v->sig_key);
	syscall(SYS_keyctl, KEYCTL_UNLINK, v->sig_key, KEY_SPEC_THREAD_KEYRING);
	v->sig_key = 0;
}

/* Returns 1 when / is to be on verity, 0 when not, -1 after boot_error. */
static int resolve(struct boot *b, struct verity_setup *v)
{
	const struct config *c = &b->cfg;
	const char *from = "config";
	char err[VERITY_ERR_MAX];

	if (anchored(b) && judge_cmdline(b) < 0)
		return -1;

	snprintf(v->roothash, sizeof v->roothash, "%s", c->verity_roothash);
	snprintf(v->data, sizeof v->data, "%s", c->verity_data);
	snprintf(v->hash, sizeof v->hash, "%s", c->verity_hash);
	bool configured = c->verity_enabled || c->verity_roothash[0];
	if (turned_off_by_cmdline(b)) {
		if (configured && c->lock_cmdline) {
			log_warn("refused systemd.verity=no: the config is locked and puts / on verity");
			hi_report_add(&b->rep, "verity", "systemd.verity", "refused", "the locked config puts / on verity");
		} else {
			log_notice("verity turned off by systemd.verity=no");
			hi_report_add(&b->rep, "verity", "root", "off", "systemd.verity=no");
			return 0;
		}
	}
	if (take_cmdline(b, "roothash", v->roothash, sizeof v->roothash, &from) < 0 ||
	    take_cmdline(b, "systemd.verity_root_data", v->data, sizeof v->data, NULL) < 0 ||
	    take_cmdline(b, "systemd.verity_root_hash", v->hash, sizeof v->hash, NULL) < 0)
		return -1;
	if (!v->roothash[0] && !c->verity_enabled)
		return 0;
	if (!v->roothash[0])
		return hi_boot_error(b, "[verity] enabled = yes but there is no root hash; set [verity] roothash (hardinit-mkinitramfs --verity-roothash) or roothash=");
	if (hi_verity_check_root_hash(v->roothash, "", err, sizeof err) < 0)
		return hi_boot_error(b, "%s (from the %s)", err, from);
	if (!v->data[0])
		return hi_boot_error(b, "verity data device not given; set [verity] data or systemd.verity_root_data=");
	if (resolve_options(b, v) < 0 || check_signature_policy(b, v) < 0)
		return -1;
	if (!v->hash[0]) {
		if (v->p.hash_offset == 0)
			return hi_boot_error(b, "verity hash device not given; set [verity] hash or systemd.verity_root_hash=, or hash-offset= when the tree is on the data device");
		snprintf(v->hash, sizeof v->hash, "%s", v->data);
	}
	log_info("verity: root hash from the %s", from);
	hi_report_add(&b->rep, "verity", "root_hash_source", "ok", "%s", from);
	return 1;
}

static int wait_device(struct boot *b, const char *what, const char *spec, char *node, size_t cap,
		       char *num, size_t numcap)
{
	char saved[BOOT_ERR_MAX];
	struct stat st;

	if (hi_root_device_wait(b, spec, node, cap) < 0) {
		snprintf(saved, sizeof saved, "%s", b->err);
		return hi_boot_error(b, "verity %s device: %s", what, saved);
	}
	if (stat(node, &st) < 0 || !S_ISBLK(st.st_mode))
		return hi_boot_error(b, "verity %s device %s is not a block device", what, node);
	snprintf(num, numcap, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

static int device_bytes(const char *node, uint64_t *bytes)
{
	struct stat st;
	int fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* A regular file: hardinit predict's image of the device. */
	int rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (*bytes = (uint64_t)st.st_size, 0)
							   : ioctl(fd, BLKGETSIZE64, bytes);
	close(fd);
	return rc;
}

static int read_superblock(struct boot *b, struct verity_setup *v)
{
	unsigned char sb[VERITY_SB_SIZE];
	char err[VERITY_ERR_MAX];

	int fd = open(v->hash_node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hi_boot_error(b, "cannot open the verity hash device %s: %s", v->hash_node, strerror(errno));
	ssize_t n = pread(fd, sb, sizeof sb, (off_t)v->p.hash_offset);
	int saved = errno;
	close(fd);
	if (n < 0)
		return hi_boot_error(b, "cannot read the verity superblock on %s: %s", v->hash_node, strerror(saved));
	if (hi_verity_sb_parse(sb, (size_t)n, &v->p, err, sizeof err) < 0)
		return hi_boot_error(b, "%s: %s", v->hash_node, err);
	return 0;
}

/* A hash image cut short passes the superblock but fails on the first
 * read of a block whose tree is missing: say so before creating anything. */
static int check_sizes(struct boot *b, struct verity_setup *v)
{
	uint64_t have, need;

	if (device_bytes(v->data_node, &have) == 0 &&
	    have < v->p.data_blocks * v->p.data_block_size)
		return hi_boot_error(b, "verity data device %s holds %llu bytes, the hash tree covers %llu; wrong data device, or the image is truncated",
				  v->data_node, (unsigned long long)have,
				  (unsigned long long)(v->p.data_blocks * v->p.data_block_size));
	if (hi_verity_hash_end(&v->p, &need) == 0 && device_bytes(v->hash_node, &have) == 0 && have < need)
		return hi_boot_error(b, "verity hash device %s holds %llu bytes, its tree needs %llu; the hash image is truncated: copy it again",
				  v->hash_node, (unsigned long long)have, (unsigned long long)need);
	return 0;
}

/* The verity device's logical block size is the data block size: ext4
 * refuses a file system with smaller blocks on it ("bad block size", Linux
 * 6.12), and the root mount would fail with a bare EINVAL. */
static int check_fs_block_size(struct boot *b, const struct verity_setup *v)
{
	unsigned char sb[64];

	int fd = open(v->data_node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, sb, sizeof sb, 1024);
	close(fd);
	if (n != (ssize_t)sizeof sb || sb[56] != 0x53 || sb[57] != 0xef)
		return 0;
	unsigned log = sb[24] | sb[25] << 8 | sb[26] << 16 | (unsigned)sb[27] << 24;
	if (log > 6 || (1024u << log) >= v->p.data_block_size)
		return 0;
	return hi_boot_error(b, "the ext4 on %s has %u-byte blocks, smaller than the verity data block size %u, so the kernel cannot mount it; make the hash with veritysetup format --data-block-size=%u, or the file system with mke2fs -b %u",
			  v->data_node, 1024u << log, v->p.data_block_size, 1024u << log, v->p.data_block_size);
}

/* What the measurement describes (the measure_root stage extends it):
 * the setup, not the hash alone, so a boot that ignores corruption or
 * reads another device cannot give the PCR of one that does not. */
static int describe(struct boot *b, const struct verity_setup *v)
{
	uint64_t data_bytes = 0, hash_bytes = 0;

	device_bytes(v->data_node, &data_bytes);
	device_bytes(v->hash_node, &hash_bytes);
	if (hi_verity_measure_text(b->verity_setup, sizeof b->verity_setup, v->roothash, &v->p, v->data, data_bytes,
				v->hash, hash_bytes) < 0)
		return hi_boot_error(b, "verity: the setup (data %.40s, hash %.40s) does not fit the %zu bytes of its measurement; "
				  "name the devices shorter (UUID=, PARTUUID=, LABEL=)", v->data, v->hash,
				  sizeof b->verity_setup - 1);
	return 0;
}

/* What the boot decides from the devices' bytes alone, before it asks the
 * kernel for anything: the superblock, the table (the root hash's length
 * for the superblock's algorithm), the sizes, the file system's block
 * size, and the setup's description. The boot runs it on the devices;
 * dry-run and predict on their images, so they fail where the boot would. */
static int check_devices(struct boot *b, struct verity_setup *v)
{
	char err[VERITY_ERR_MAX];

	if (v->p.superblock && read_superblock(b, v) < 0)
		return -1;
	if (hi_verity_table(&v->p, v->data_num, v->hash_num, v->roothash, v->table, sizeof v->table, &v->sectors,
			    err, sizeof err) < 0)
		return hi_boot_error(b, "%s", err);
	if (check_sizes(b, v) < 0 || check_fs_block_size(b, v) < 0)
		return -1;
	return describe(b, v);
}

/* dry-run and predict: the devices' images in the devices' place (their
 * numbers stay empty: no table is loaded). */
static int check_images(struct boot *b, struct verity_setup *v)
{
	if (!b->verity_data_image)
		return 0;
	snprintf(v->data_node, sizeof v->data_node, "%s", b->verity_data_image);
	snprintf(v->hash_node, sizeof v->hash_node, "%s",
		 b->verity_hash_image ? b->verity_hash_image : b->verity_data_image);
	return check_devices(b, v);
}

static int table_for(struct boot *b, const struct verity_setup *v, const struct verity_params *p,
		     char *out, size_t cap)
{
	char err[VERITY_ERR_MAX];
	uint64_t sectors;

	if (hi_verity_table(p, v->data_num, v->hash_num, v->roothash, out, cap, &sectors, err, sizeof err) < 0)
		return hi_boot_error(b, "%s", err);
	return 0;
}

static int load_error(struct boot *b, const struct verity_setup *v, const char *step, int err)
{
	char path[BOOT_PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/module/dm_verity", b->sys);
	if (err == EINVAL && access(path, F_OK) != 0)
		return hi_boot_error(b, "the kernel has no verity target (dm-verity is not loaded); build the initramfs with hardinit-mkinitramfs --verity-roothash, which adds dm-verity");
	if (v->p.sig_key_desc[0] && (err == EKEYREJECTED || err == ENOKEY || err == EBADMSG ||
				     err == EKEYEXPIRED || err == ENOPKG || err == EINVAL))
		return hi_boot_error(b, "verity: the kernel refused the root hash %.16s...: its signature (key %s) does not verify "
				  "against a trusted key (%s); sign the hex root hash with a key in the firmware's db or the kernel's "
				  "trusted keys, and check the kernel log (device-mapper: verity)",
				  v->roothash, v->p.sig_key_desc, strerror(err));
	if (err == EPERM)
		return hi_boot_error(b, "verity: the kernel refused a root hash without a signature (dm_verity require_signatures); "
				  "build the initramfs with --verity-roothash-sig FILE");
	if (err == EEXIST || err == EBUSY)
		return hi_boot_error(b, "%s: a device-mapper device named %s already exists; boot again", step, VERITY_DM_NAME);
	return hi_boot_error(b, "the kernel rejected the verity table (%s: %s); the kernel log (device-mapper: verity) says why",
			  step, strerror(err));
}

/* The device node: devtmpfs makes dm-N; without it, make mapper/NAME. */
static int device_node(struct boot *b, dev_t dev, char *out, size_t cap)
{
	struct stat st;

	snprintf(out, cap, "%s/dm-%u", b->dev, minor(dev));
	if (stat(out, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev)
		return 0;
	char why[BOOT_PATH_MAX + 64];
	if (hi_dm_mapper_node(b->dev, VERITY_DM_NAME, dev, out, cap, why, sizeof why) < 0)
		return hi_boot_error(b, "%s", why);
	return 0;
}

/* dm-verity checks the root hash only when a block is read: read the
 * first one now, with I/O errors as the only reaction, so a wrong root
 * hash is a clear message instead of a restart or panic at mount time. */
static int check_root_hash(struct boot *b, const char *node, unsigned block_size)
{
	static char block[4096];
	size_t n = block_size < sizeof block ? block_size : sizeof block;

	int fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hi_boot_error(b, "cannot open the verity device %s: %s", node, strerror(errno));
	ssize_t got = pread(fd, block, n, 0);
	int saved = errno;
	close(fd);
	if (got == (ssize_t)n)
		return 0;
	if (got < 0 && saved == EIO)
		return hi_boot_error(b, "verity: the first block of the root does not verify: the root hash does not match the hash tree (wrong roothash, hash device or hash-offset), or the image was changed");
	return hi_boot_error(b, "cannot read the verity device %s: %s", node, got < 0 ? strerror(saved) : "short read");
}

static int activate(struct boot *b, struct verity_setup *v, char *node, size_t cap)
{
	char why[256], version[32], status[32], check_table[VERITY_TABLE_MAX];
	const char *step;
	dev_t dev;

	struct verity_params check = v->p;
	check.on_corruption = VERITY_EIO;
	if (table_for(b, v, &check, check_table, sizeof check_table) < 0)
		return -1;
	int fd = hi_dm_control_open(b->dev, b->sys, 1, why, sizeof why);
	if (fd < 0)
		return hi_boot_error(b, "%s; build the initramfs with hardinit-mkinitramfs --verity-roothash, which adds dm-mod", why);
	if (hi_dm_version(fd, version, sizeof version) < 0) {
		close(fd);
		return hi_boot_error(b, "device-mapper DM_VERSION failed: %s", strerror(errno));
	}
	if (hi_dm_create_readonly(fd, VERITY_DM_NAME, "verity", v->sectors, check_table, &dev, &step) < 0) {
		int saved = errno;
		close(fd);
		return load_error(b, v, step, saved);
	}
	int rc = device_node(b, dev, node, cap);
	uint64_t check_start = hi_boottime_ns();
	if (rc == 0)
		rc = check_root_hash(b, node, v->p.data_block_size);
	v->check_ns = hi_boottime_ns() - check_start;
	if (rc == 0 && strcmp(check_table, v->table) != 0 &&
	    hi_dm_reload_readonly(fd, VERITY_DM_NAME, "verity", v->sectors, v->table, &step) < 0)
		rc = load_error(b, v, step, errno);
	if (rc == 0 && hi_dm_target_text(fd, VERITY_DM_NAME, 0, status, sizeof status, NULL, 0) < 0)
		rc = hi_boot_error(b, "device-mapper DM_TABLE_STATUS of %s failed: %s", VERITY_DM_NAME, strerror(errno));
	if (rc < 0) {
		/* Nothing may mount a device whose root hash did not verify. */
		hi_dm_remove(fd, VERITY_DM_NAME);
		close(fd);
		return -1;
	}
	close(fd);
	log_info("verity: device-mapper %s, %s is %s, status %s", version, VERITY_DM_NAME, node, status);
	hi_report_add(&b->rep, "verity", "status", status[0] == 'V' ? "ok" : "failed", "%s", status);
	return 0;
}

static void report_setup(struct boot *b, const struct verity_setup *v, const char *node)
{
	hi_report_add(&b->rep, "verity", "root_hash", "ok", "%s", v->roothash);
	hi_report_add(&b->rep, "verity", "data", "ok", "%s (%s)", v->data, v->data_num);
	hi_report_add(&b->rep, "verity", "hash", "ok", "%s (%s) offset %llu", v->hash, v->hash_num,
		   (unsigned long long)v->p.hash_offset);
	hi_report_add(&b->rep, "verity", "algorithm", "ok", "%s, blocks %u/%u, %llu data blocks", v->p.algorithm,
		   v->p.data_block_size, v->p.hash_block_size, (unsigned long long)v->p.data_blocks);
	hi_report_add(&b->rep, "verity", "on_corruption", v->p.on_corruption == VERITY_IGNORE ? "warn" : "ok",
		   "%s", hi_verity_corruption_name(v->p.on_corruption));
	char words[VERITY_TABLE_MAX];
	hi_verity_options_words(&v->p, words, sizeof words);
	hi_report_add(&b->rep, "verity", "options", hi_verity_options_weaken(&v->p) ? "warn" : "ok", "%s", words);
	hi_report_add(&b->rep, "verity", "device", "ok", "%s", node);
	if (v->p.sig_key_desc[0])
		hi_report_add(&b->rep, "verity", "signature", "ok", "checked by the kernel (%s%s)",
			   v->p.sig_source[0] ? "key " : "the caller's key ", v->p.sig_key_desc);
	else
		hi_report_add(&b->rep, "verity", "signature", v->sig_required ? "failed" : "info", "none");
}

/* For make bench: the device wait, the setup itself (superblock read and
 * ioctls) and the first block's check (a read the kernel verifies) apart. */
static void report_ms(struct boot *b, const char *key, uint64_t ns)
{
	hi_report_add(&b->rep, "verity", key, "info", "%llu.%03llu", (unsigned long long)(ns / 1000000),
		   (unsigned long long)(ns / 1000 % 1000));
}

int hi_stage_verity(struct boot *b)
{
	static struct verity_setup v;
	char node[BOOT_PATH_MAX];

	memset(&v, 0, sizeof v);
	b->root_hash[0] = '\0';
	b->verity_setup[0] = '\0';
	b->root_device[0] = '\0';
	int on = resolve(b, &v);
	if (on <= 0)
		return on;
	if (b->mode == MODE_DRY_RUN) {
		log_info("dry run: would set up verity on data %s, hash %s (offset %llu), root hash %s, on corruption %s, signature %s",
			 v.data, v.hash, (unsigned long long)v.p.hash_offset, v.roothash,
			 hi_verity_corruption_name(v.p.on_corruption), v.p.sig_key_desc[0] ? v.p.sig_key_desc : "none");
		snprintf(b->root_device, sizeof b->root_device, "%s/mapper/%s", b->dev, VERITY_DM_NAME);
		snprintf(b->root_hash, sizeof b->root_hash, "%s", v.roothash);
		return check_images(b, &v);
	}
	uint64_t start = hi_boottime_ns();
	if (wait_device(b, "data", v.data, v.data_node, sizeof v.data_node, v.data_num, sizeof v.data_num) < 0 ||
	    wait_device(b, "hash", v.hash, v.hash_node, sizeof v.hash_node, v.hash_num, sizeof v.hash_num) < 0)
		return -1;
	uint64_t found = hi_boottime_ns();
	if (check_devices(b, &v) < 0 || load_signature(b, &v) < 0)
		return -1;
	int rc = activate(b, &v, node, sizeof node);
	drop_signature(&v);
	if (rc < 0)
		return -1;
	snprintf(b->root_device, sizeof b->root_device, "%s", node);
	snprintf(b->root_hash, sizeof b->root_hash, "%s", v.roothash);
	log_notice("verity: / is %s, data %s, hash %s, root hash %s", node, v.data_node, v.hash_node, v.roothash);
	report_setup(b, &v, node);
	report_ms(b, "wait_ms", found - start);
	report_ms(b, "setup_ms", hi_boottime_ns() - found - v.check_ns);
	report_ms(b, "check_ms", v.check_ns);
	return 0;
}
