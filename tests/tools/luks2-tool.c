/* A host helper for tests/bats/luks.bats and tests/vm/luks.bats, built
 * from hardinit's LUKS2 code (block/): the header reader, the KDFs, the
 * AF merge and the digest check are hardinit's; only the keyslot area's
 * cipher is OpenSSL's, because the host may have no AF_ALG (PID 1 uses the
 * kernel's; the VM test proves that path). Test use only: it prints a
 * volume key.
 *   luks2-tool open IMAGE         passphrase on stdin (all of it, as
 *                                 cryptsetup --key-file -); prints
 *                                 "keyslot N", "digest ok", "volume key HEX"
 *   luks2-tool encrypt KEYHEX SECTOR_START   stdin to stdout, aes-xts-plain64
 *                                 in 512-byte sectors numbered from
 *                                 SECTOR_START: data as dm-crypt writes it
 *   luks2-tool tpm2-open-signed IMAGE SOCKET PIN|- SIGJSON   the same for a
 *                                 token with a signed PCR policy, its
 *                                 tpm2-pcr-signature.json given
 *   luks2-tool tpm2-open IMAGE SOCKET [PIN]   the systemd-tpm2 token
 *                                 unsealed by the TPM at SOCKET (swtpm's
 *                                 unix socket) through the luks stage's own
 *                                 code (luks_tpm2_open); prints "token N",
 *                                 "keyslot N", "volume key HEX"
 *   luks2-tool tpm2-unseal IMAGE SOCKET TRACE   token 0's secret unsealed
 *                                 by tpm/'s tpm2_unseal; prints "secret
 *                                 HEX" and writes every command and
 *                                 response to TRACE as a line of hex
 *                                 ("> " sent, "< " received): what a bus
 *                                 sniffer would see
 *   luks2-tool tpm2-seal-unseal SOCKET ecc|rsa   seals "hardinit-salt-test"
 *                                 under that primary (TPM2_Create, an
 *                                 empty policy) and unseals it with tpm/'s
 *                                 tpm2_unseal: the salted session with
 *                                 either primary (systemd 252 enrolls
 *                                 with ECC when the TPM has it, so RSA is
 *                                 not reached by systemd-cryptenroll);
 *                                 prints "secret TEXT"
 *   luks2-tool tpm2-warm-open IMAGE SOCKET, tpm2-warm-seal-unseal SOCKET
 *                                 ecc|rsa   the same two, after the luks
 *                                 stage's warm-up (tpm/tpm2_warmup.h: an ECC
 *                                 primary, the SRK's authorization, the
 *                                 session) on its thread; print "warm-up
 *                                 da yes|no session yes|no", "warm used yes|no"
 *                                 and, once the warm-up's primary is
 *                                 flushed, "transient N": the transient
 *                                 objects left in the TPM (GetCapability)
 *   luks2-tool pcr-extend SOCKET PCR   extends PCR (sha256 bank) with
 *                                 hi_sha256("hardinit-test")
 * Exit 0 opened, 1 wrong passphrase (tpm2-open: the TPM refused), 2 error. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <openssl/evp.h>

#include "boot.h"
#include "luks2.h"
#include "luks2_hdr.h"
#include "luks2_json.h"
#include "luks2_keyslot.h"
#include "luks_plan.h"
#include "luks_tpm2.h"
#include "sha256.h"
#include "tpm.h"
#include "tpm2_pcrsig.h"
#include "tpm2_unseal.h"
#include "tpm2_warmup.h"
#include "tpm_dev.h"

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int xts(int enc, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len, uint64_t first)
{
	const EVP_CIPHER *c = keylen == 64 ? EVP_aes_256_xts() : keylen == 32 ? EVP_aes_128_xts() : NULL;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int rc = 0;

	for (size_t off = 0; c && x && off < len && rc == 0; off += 512) {
		uint8_t iv[16] = { 0 };
		uint64_t n = first + off / 512;
		for (int i = 0; i < 8; i++)
			iv[i] = (uint8_t)(n >> (8 * i));
		int outl;
		if (!EVP_CipherInit_ex(x, c, NULL, key, iv, enc) || !EVP_CipherUpdate(x, buf + off, &outl, buf + off, 512))
			rc = -1;
	}
	EVP_CIPHER_CTX_free(x);
	return c && x ? rc : -1;
}

static int openssl_decrypt(const char *spec, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len,
			   char *err, size_t errlen)
{
	if (strcmp(spec, "aes-xts-plain64") != 0 || xts(0, key, keylen, buf, len, 0) < 0) {
		snprintf(err, errlen, "openssl: %s with a %zu-byte key not done here", spec, keylen);
		return -1;
	}
	return 0;
}

static int cmd_open(const char *image)
{
	uint8_t pass[LUKS2_PASS_MAX + 1], vk[LUKS2_KEY_MAX];
	char err[LUKS2_ERR_MAX], note[LUKS2_ERR_MAX];
	struct luks2_hdr h;
	size_t plen = 0, vklen = 0;
	ssize_t n;
	int slot = -1;

	while (plen < sizeof pass && (n = read(0, pass + plen, sizeof pass - plen)) > 0)
		plen += (size_t)n;
	if (plen > LUKS2_PASS_MAX) {
		fprintf(stderr, "luks2-tool: passphrase over %d bytes\n", LUKS2_PASS_MAX);
		return 2;
	}
	int fd = open(image, O_RDONLY);
	if (fd < 0) {
		perror(image);
		return 2;
	}
	if (hi_luks2_hdr_read(fd_read, &fd, &h, note, sizeof note, err, sizeof err) < 0) {
		fprintf(stderr, "luks2-tool: %s\n", err);
		return 2;
	}
	if (note[0])
		printf("note %s\n", note);
	int rc = hi_luks2_open_passphrase(&h, pass, plen, fd_read, &fd, openssl_decrypt, vk, &vklen, &slot, err, sizeof err);
	hi_luks2_hdr_free(&h);
	close(fd);
	if (rc < 0) {
		fprintf(stderr, "luks2-tool: %s\n", err);
		return 2;
	}
	if (rc > 0) {
		printf("no keyslot opened\n");
		return 1;
	}
	printf("keyslot %d\ndigest ok\nvolume key ", slot);
	for (size_t i = 0; i < vklen; i++)
		printf("%02x", vk[i]);
	printf("\n");
	return 0;
}

static int tpm_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		perror(path);
		return -1;
	}
	return fd;
}

/* The luks stage's warm-up over the socket, on its thread, joined. */
static struct tpm2_warm warm_state;

static struct tpm2_warm *warm_begin(struct tpm_dev *d)
{
	struct tpm2_warm *w = &warm_state;
	if (hi_tpm2_warmup_start(w, TPM_ALG_ECC, hi_tpm_dev_xfer, d, NULL) < 0 ||
	    hi_tpm2_warmup_join(w, TPM2_WARMUP_JOIN_MS * 5) < 0 || w->rc < 0) {
		fprintf(stderr, "luks2-tool: warm-up: %s\n", w->why);
		return NULL;
	}
	printf("warm-up da %s session %s\n", w->da_marked ? "yes" : "no", w->session.handle ? "yes" : "no");
	return w;
}

/* The TPM's transient objects (GetCapability, TPM_CAP_HANDLES): their
 * count, or -1. Its own bytes: TPM 2.0 Library Part 3, 30.2. */
static int transient_count(struct tpm_dev *d)
{
	static const uint8_t cmd[] = { 0x80, 0x01, 0, 0, 0, 22, 0, 0, 0x01, 0x7a, 0, 0, 0, 1,
				       0x80, 0, 0, 0, 0, 0, 0, 64 };
	uint8_t resp[TPM_CMD_MAX];
	char err[160];
	size_t rlen;
	if (hi_tpm_dev_xfer(d, cmd, sizeof cmd, resp, sizeof resp, &rlen, err, sizeof err) < 0 || rlen < 19 ||
	    resp[6] | resp[7] | resp[8] | resp[9])
		return -1;
	return resp[15] << 24 | resp[16] << 16 | resp[17] << 8 | resp[18];
}

static void warm_end(struct tpm2_warm *w, struct tpm_dev *d)
{
	char why[200];
	printf("warm used %s\n", hi_luks_tpm2_unseal_warm() ? "yes" : "no");
	if (hi_tpm2_warmup_flush(w, hi_tpm_dev_xfer, d, why, sizeof why) < 0)
		fprintf(stderr, "luks2-tool: flush: %s\n", why);
	printf("transient %d\n", transient_count(d));
}

static int cmd_tpm2_open(const char *image, const char *sock, const char *pin, const char *sigfile, bool warm)
{
	static char sig[TPM2_PCRSIG_JSON_MAX + 1];
	size_t siglen = 0;
	uint32_t signed_pcrs = 0;
	if (sigfile) {
		FILE *f = fopen(sigfile, "r");
		siglen = f ? fread(sig, 1, sizeof sig - 1, f) : 0;
		if (f)
			fclose(f);
	}
	uint8_t vk[LUKS2_KEY_MAX];
	char err[LUKS2_ERR_MAX], note[LUKS2_ERR_MAX];
	static struct luks2_hdr h;
	size_t vklen = 0;
	int slot = -1, token = -1;
	uint32_t pcrs = 0;

	int fd = open(image, O_RDONLY);
	if (fd < 0 || hi_luks2_hdr_read(fd_read, &fd, &h, note, sizeof note, err, sizeof err) < 0) {
		fprintf(stderr, "luks2-tool: %s\n", fd < 0 ? image : err);
		return 2;
	}
	struct tpm_dev d = { .fd = tpm_connect(sock), .timeout_ms = TPM_DEV_TIMEOUT_MS };
	if (d.fd < 0)
		return 2;
	struct tpm2_warm *w = warm ? warm_begin(&d) : NULL;
	if (warm && !w)
		return 2;
	int rc = hi_luks_tpm2_open(&h, hi_tpm_dev_xfer, &d, w, pin, sigfile ? sig : NULL, siglen, fd_read, &fd, openssl_decrypt,
				vk, &vklen, &slot, &token, &pcrs, &signed_pcrs, err, sizeof err);
	if (w)
		warm_end(w, &d);
	hi_luks2_hdr_free(&h);
	close(fd);
	close(d.fd);
	if (rc != 0) {
		printf("refused %s\n", err);
		return rc == 2 ? 1 : 2;
	}
	printf("token %d\nkeyslot %d\npcrs 0x%x\nsigned pcrs 0x%x\nvolume key ", token, slot, pcrs, signed_pcrs);
	for (size_t i = 0; i < vklen; i++)
		printf("%02x", vk[i]);
	printf("\n");
	return 0;
}

struct trace {
	struct tpm_dev d;
	FILE *out;
};

static void trace_line(FILE *out, const char *dir, const uint8_t *p, size_t n)
{
	fputs(dir, out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
	fputc('\n', out);
}

static int trace_xfer(void *ctx, const uint8_t *cmd, size_t len, uint8_t *resp, size_t cap, size_t *rlen, char *err,
		      size_t errlen)
{
	struct trace *t = ctx;
	trace_line(t->out, "> ", cmd, len);
	int rc = hi_tpm_dev_xfer(&t->d, cmd, len, resp, cap, rlen, err, errlen);
	if (rc == 0)
		trace_line(t->out, "< ", resp, *rlen);
	return rc;
}

static int cmd_tpm2_unseal(const char *image, const char *sock, const char *trace)
{
	static struct luks2_hdr h;
	static struct hi_luks2_tpm2_token tk;
	char err[LUKS2_ERR_MAX], note[LUKS2_ERR_MAX];
	uint8_t secret[TPM2_SECRET_MAX];
	size_t slen = 0;

	int fd = open(image, O_RDONLY);
	if (fd < 0 || hi_luks2_hdr_read(fd_read, &fd, &h, note, sizeof note, err, sizeof err) < 0 ||
	    hi_luks2_tpm2_token(&h, 0, &tk, err, sizeof err) < 0) {
		fprintf(stderr, "luks2-tool: %s\n", fd < 0 ? image : err);
		return 2;
	}
	struct trace t = { { .fd = tpm_connect(sock), .timeout_ms = TPM_DEV_TIMEOUT_MS }, fopen(trace, "w") };
	if (t.d.fd < 0 || !t.out)
		return 2;
	struct tpm2_unseal_req q = {
		.primary_alg = tk.primary_alg, .pcr_bank = tk.pcr_bank, .pcrs = tk.pcrs, .blob = tk.blob,
		.blob_len = tk.blob_len, .policy_hash = tk.policy_hash, .policy_hash_len = tk.policy_hash_len,
	};
	int rc = hi_tpm2_unseal(trace_xfer, &t, &q, secret, sizeof secret, &slen, err, sizeof err);
	fclose(t.out);
	close(t.d.fd);
	close(fd);
	hi_luks2_hdr_free(&h);
	if (rc != TPM2_UNSEALED) {
		printf("refused %s\n", err);
		return 1;
	}
	printf("secret ");
	for (size_t i = 0; i < slen; i++)
		printf("%02x", secret[i]);
	printf("\n");
	return 0;
}

static size_t put_be(uint8_t *p, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	return (size_t)bytes;
}

static int cmd_seal_unseal(const char *sock, const char *alg, bool warm)
{
	static const char text[] = "hardinit-salt-test";
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX], blob[2048], policy[32] = { 0 }, secret[TPM2_SECRET_MAX];
	char err[256];
	size_t rlen, n = 0, slen = 0;
	uint16_t a = !strcmp(alg, "rsa") ? TPM_ALG_RSA : TPM_ALG_ECC;
	struct tpm_dev d = { .fd = tpm_connect(sock), .timeout_ms = TPM_DEV_TIMEOUT_MS };
	struct tpm2_primary_pub pub;
	uint32_t primary;

	if (d.fd < 0)
		return 2;
	long len = hi_tpm2_cmd_create_primary(cmd, sizeof cmd, a);
	if (hi_tpm_dev_xfer(&d, cmd, (size_t)len, resp, sizeof resp, &rlen, err, sizeof err) < 0 ||
	    hi_tpm2_resp_create_primary(resp, rlen, &primary, &pub, err, sizeof err) != 0) {
		fprintf(stderr, "luks2-tool: CreatePrimary: %s\n", err);
		return 2;
	}
	/* TPM2_Create: a KEYEDHASH data object, fixedTPM|fixedParent, no
	 * userWithAuth (the policy only), authPolicy the empty policy's. */
	n += put_be(cmd + n, 0x8002, 2);
	n += put_be(cmd + n, 0, 4);
	n += put_be(cmd + n, 0x153, 4);
	n += put_be(cmd + n, primary, 4);
	n += put_be(cmd + n, 9, 4);
	n += put_be(cmd + n, 0x40000009, 4);
	n += put_be(cmd + n, 0, 2 + 1 + 2);
	n += put_be(cmd + n, 4 + sizeof text - 1, 2);
	n += put_be(cmd + n, 0, 2);
	n += put_be(cmd + n, sizeof text - 1, 2);
	memcpy(cmd + n, text, sizeof text - 1);
	n += sizeof text - 1;
	n += put_be(cmd + n, 2 + 2 + 4 + 2 + 32 + 2 + 2, 2);
	n += put_be(cmd + n, 0x0008, 2);
	n += put_be(cmd + n, TPM_ALG_SHA256, 2);
	n += put_be(cmd + n, 1u << 1 | 1u << 4, 4);
	n += put_be(cmd + n, 32, 2);
	memset(cmd + n, 0, 32);
	n += 32;
	n += put_be(cmd + n, 0x0010, 2);
	n += put_be(cmd + n, 0, 2);
	n += put_be(cmd + n, 0, 2 + 4);
	put_be(cmd + 2, (uint32_t)n, 4);
	int tries = 0;
	do                                   /* TPM_RC_RETRY: asked again, a few times */
		if (hi_tpm_dev_xfer(&d, cmd, n, resp, sizeof resp, &rlen, err, sizeof err) < 0)
			rlen = 0;
	while (rlen == 10 && resp[8] == 9 && resp[9] == 0x22 && ++tries < 5);
	if (rlen < 20 || resp[6] | resp[7] | resp[8] | resp[9]) {
		fprintf(stderr, "luks2-tool: Create failed (%zu bytes, code 0x%02x%02x)\n", rlen, resp[8], resp[9]);
		return 2;
	}
	size_t priv = (size_t)(resp[14] << 8 | resp[15]), publ = (size_t)(resp[16 + priv] << 8 | resp[17 + priv]);
	if (18 + priv + publ > rlen || 4 + priv + publ > sizeof blob)
		return 2;
	memcpy(blob, resp + 14, 4 + priv + publ);
	len = hi_tpm2_cmd_flush(cmd, sizeof cmd, primary);
	hi_tpm_dev_xfer(&d, cmd, (size_t)len, resp, sizeof resp, &rlen, err, sizeof err);
	struct tpm2_unseal_req q = { .primary_alg = a, .pcr_bank = TPM_ALG_SHA256, .blob = blob,
				     .blob_len = 4 + priv + publ, .policy_hash = policy, .policy_hash_len = 32 };
	struct tpm2_warm *w = warm ? warm_begin(&d) : NULL;
	if (warm && !w)
		return 2;
	if (w && w->alg == a) {          /* as stages/luks_tpm2.c: its primary when it is the token's */
		q.primary = w->primary;
		q.primary_pub = &w->pub;
		q.salt = w->salted ? &w->salt : NULL;
		q.session = w->session.handle ? &w->session : NULL;
	}
	int rc = hi_tpm2_unseal(hi_tpm_dev_xfer, &d, &q, secret, sizeof secret, &slen, err, sizeof err);
	if (w) {
		printf("warm used %s\n", q.primary ? "yes" : "no");
		char why[200];
		if (hi_tpm2_warmup_flush(w, hi_tpm_dev_xfer, &d, why, sizeof why) < 0)
			fprintf(stderr, "luks2-tool: flush: %s\n", why);
		printf("transient %d\n", transient_count(&d));
	}
	close(d.fd);
	if (rc != TPM2_UNSEALED) {
		printf("refused %s\n", err);
		return 1;
	}
	printf("secret %.*s\n", (int)slen, (const char *)secret);
	return 0;
}

static int cmd_pcr_extend(const char *sock, const char *pcr)
{
	uint8_t cmd[TPM_CMD_MAX], resp[TPM_CMD_MAX], digest[32];
	char err[160];
	size_t rlen;

	hi_sha256("hardinit-test", 13, digest);
	struct tpm_dev d = { .fd = tpm_connect(sock), .timeout_ms = TPM_DEV_TIMEOUT_MS };
	long len = hi_tpm_cmd_pcr_extend_sha256(cmd, sizeof cmd, (unsigned)atoi(pcr), digest);
	if (d.fd < 0 || len < 0 || hi_tpm_dev_xfer(&d, cmd, (size_t)len, resp, sizeof resp, &rlen, err, sizeof err) < 0 ||
	    hi_tpm_resp_code(resp, rlen, err, sizeof err) != 0) {
		fprintf(stderr, "luks2-tool: PCR_Extend failed\n");
		return 2;
	}
	close(d.fd);
	return 0;
}

static int cmd_encrypt(const char *keyhex, const char *start)
{
	uint8_t key[64], buf[512];
	size_t keylen = strlen(keyhex) / 2;
	if (keylen != 32 && keylen != 64)
		return 2;
	for (size_t i = 0; i < keylen; i++) {
		unsigned v;
		if (sscanf(keyhex + 2 * i, "%2x", &v) != 1)
			return 2;
		key[i] = (uint8_t)v;
	}
	uint64_t sector = strtoull(start, NULL, 10);
	for (;;) {
		size_t got = 0;
		ssize_t n;
		while (got < sizeof buf && (n = read(0, buf + got, sizeof buf - got)) > 0)
			got += (size_t)n;
		if (got == 0)
			return 0;
		if (got != sizeof buf || xts(1, key, keylen, buf, sizeof buf, sector++) < 0 ||
		    fwrite(buf, 1, sizeof buf, stdout) != sizeof buf)
			return 2;
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "open"))
		return cmd_open(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "encrypt"))
		return cmd_encrypt(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "tpm2-open"))
		return cmd_tpm2_open(argv[2], argv[3], argc == 5 ? argv[4] : NULL, NULL, false);
	if (argc == 4 && !strcmp(argv[1], "tpm2-warm-open"))
		return cmd_tpm2_open(argv[2], argv[3], NULL, NULL, true);
	if (argc == 4 && !strcmp(argv[1], "tpm2-warm-seal-unseal"))
		return cmd_seal_unseal(argv[2], argv[3], true);
	/* The signed PCR policy: its tpm2-pcr-signature.json; PIN "-": none. */
	if (argc == 6 && !strcmp(argv[1], "tpm2-open-signed"))
		return cmd_tpm2_open(argv[2], argv[3], strcmp(argv[4], "-") ? argv[4] : NULL, argv[5], false);
	if (argc == 4 && !strcmp(argv[1], "tpm2-seal-unseal"))
		return cmd_seal_unseal(argv[2], argv[3], false);
	if (argc == 5 && !strcmp(argv[1], "tpm2-unseal"))
		return cmd_tpm2_unseal(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "pcr-extend"))
		return cmd_pcr_extend(argv[2], argv[3]);
	fprintf(stderr, "usage: luks2-tool open IMAGE < passphrase | encrypt KEYHEX SECTOR_START < in > out\n");
	return 2;
}
