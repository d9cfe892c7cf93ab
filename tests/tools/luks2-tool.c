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
 * Exit 0 opened, 1 wrong passphrase, 2 error. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "luks2.h"

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
	if (luks2_hdr_read(fd_read, &fd, &h, note, sizeof note, err, sizeof err) < 0) {
		fprintf(stderr, "luks2-tool: %s\n", err);
		return 2;
	}
	if (note[0])
		printf("note %s\n", note);
	int rc = luks2_open_passphrase(&h, pass, plen, fd_read, &fd, openssl_decrypt, vk, &vklen, &slot, err, sizeof err);
	luks2_hdr_free(&h);
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
	fprintf(stderr, "usage: luks2-tool open IMAGE < passphrase | encrypt KEYHEX SECTOR_START < in > out\n");
	return 2;
}
