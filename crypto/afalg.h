/* The kernel's crypto API through AF_ALG sockets (linux/if_alg.h): the
 * keyslot area's cipher, so PID 1 carries no cipher of its own. Needs
 * algif_skcipher and the cipher's modules (xts) loaded before use. */
#ifndef HARDINIT_AFALG_H
#define HARDINIT_AFALG_H

#include <stddef.h>
#include <stdint.h>

#define AFALG_SECTOR 512

/* Decrypt len bytes (whole 512-byte sectors) in place with the dm-crypt
 * cipher spec (cipher-mode-iv: aes-xts-plain64, aes-cbc-plain64,
 * ...-plain), the IV of each sector its number from 0. Returns 0, or -1
 * with err ("what: why"). */
int hi_afalg_decrypt_sectors(const char *spec, const uint8_t *key, size_t keylen, uint8_t *buf, size_t len,
			  char *err, size_t errlen);

/* The kernel's name for a dm-crypt cipher spec ("xts(aes)") and its IV
 * kind (1 plain64, 0 plain). Returns 0, or -1 when not supported. Pure. */
int hi_afalg_spec(const char *spec, char *kname, size_t cap, int *plain64);

#endif
