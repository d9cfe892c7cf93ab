/* AF_ALG skcipher: bind "xts(aes)", set the key on the transform socket,
 * accept an operation socket, then one sendmsg (operation, IV, data) and
 * one read per sector. The key lives only in the kernel's transform,
 * which is gone when the sockets close. */
#define _GNU_SOURCE        /* accept4 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_alg.h>

#include "afalg.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif
#define IV_BYTES 16

int hi_afalg_spec(const char *spec, char *kname, size_t cap, int *plain64)
{
	static const char *const ciphers[] = { "aes", "serpent", "twofish" };
	static const char *const modes[] = { "xts", "cbc" };
	char c[16], m[16], iv[16];

	if (!spec || strlen(spec) > 40 || sscanf(spec, "%15[a-z0-9]-%15[a-z0-9]-%15s", c, m, iv) != 3)
		return -1;
	int ok = 0;
	for (size_t i = 0; i < 3; i++)
		ok |= !strcmp(c, ciphers[i]);
	int okm = 0;
	for (size_t i = 0; i < 2; i++)
		okm |= !strcmp(m, modes[i]);
	if (!ok || !okm || (strcmp(iv, "plain64") && strcmp(iv, "plain")))
		return -1;
	*plain64 = !strcmp(iv, "plain64");
	return snprintf(kname, cap, "%s(%s)", m, c) < (int)cap ? 0 : -1;
}

static int one_sector(int op, uint8_t *sector, uint64_t n, int plain64)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct af_alg_iv) + IV_BYTES)];
	struct iovec iov = { .iov_base = sector, .iov_len = AFALG_SECTOR };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };

	memset(cbuf, 0, sizeof cbuf);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_OP;
	cm->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	uint32_t opv = ALG_OP_DECRYPT;
	memcpy(CMSG_DATA(cm), &opv, sizeof opv);
	cm = CMSG_NXTHDR(&msg, cm);
	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_IV;
	cm->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + IV_BYTES);
	struct af_alg_iv *iv = (struct af_alg_iv *)CMSG_DATA(cm);
	iv->ivlen = IV_BYTES;
	memset(iv->iv, 0, IV_BYTES);
	uint64_t v = plain64 ? n : (uint32_t)n;   /* little-endian sector number */
	for (int i = 0; i < 8; i++)
		iv->iv[i] = (uint8_t)(v >> (8 * i));
	if (sendmsg(op, &msg, 0) != AFALG_SECTOR)
		return -1;
	return read(op, sector, AFALG_SECTOR) == AFALG_SECTOR ? 0 : -1;
}

int hi_afalg_decrypt_sectors(const char *spec, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len,
			  char *err, size_t errlen)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int plain64, tfm = -1, op = -1, rc = -1;
	const char *step = "socket";

	if (hi_afalg_spec(spec, (char *)sa.salg_name, sizeof sa.salg_name, &plain64) < 0) {
		snprintf(err, errlen, "cipher %s: not supported (aes, serpent or twofish; xts or cbc; plain64 or plain)",
			 spec);
		return -1;
	}
	if (len % AFALG_SECTOR) {
		snprintf(err, errlen, "cipher %s: %zu bytes is not whole sectors", spec, len);
		return -1;
	}
	memcpy(sa.salg_type, "skcipher", 9);
	tfm = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (tfm < 0)
		goto out;
	step = "bind";
	if (bind(tfm, (struct sockaddr *)&sa, sizeof sa) < 0)
		goto out;
	step = "set key";
	if (setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, (socklen_t)keylen) < 0)
		goto out;
	step = "accept";
	op = accept4(tfm, NULL, NULL, SOCK_CLOEXEC);
	if (op < 0)
		goto out;
	step = "decrypt";
	for (size_t off = 0; off < len; off += AFALG_SECTOR)
		if (one_sector(op, buf + off, off / AFALG_SECTOR, plain64) < 0)
			goto out;
	rc = 0;
out:
	if (rc < 0)
		snprintf(err, errlen, "kernel crypto API (AF_ALG skcipher %s): %s: %s", sa.salg_name, step,
			 errno == EAFNOSUPPORT ? "no AF_ALG (algif_skcipher not loaded)" :
			 errno == ENOENT ? "cipher not available (module not loaded)" : strerror(errno));
	if (op >= 0)
		close(op);
	if (tfm >= 0)
		close(tfm);
	return rc;
}
