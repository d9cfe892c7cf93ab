/* The TCG Algorithm Registry's ids of the hashes and key types hardinit
 * names (TPM_ALG_ID). They are the registry's numbers, not a TPM
 * command's: block/'s systemd-tpm2 token reader records a token's
 * "tpm2-pcr-bank" and "tpm2-primary-alg" as them and tpm/ puts them on the
 * wire. Kept here, below both, so the two families share the numbers
 * without either including the other. */
#ifndef HARDINIT_TCG_ALG_H
#define HARDINIT_TCG_ALG_H

#define TPM_ALG_SHA1       0x0004
#define TPM_ALG_SHA256     0x000B
#define TPM_ALG_SHA384     0x000C
#define TPM_ALG_SHA512     0x000D
#define TPM_ALG_SM3_256    0x0012
#define TPM_ALG_RSA        0x0001
#define TPM_ALG_ECC        0x0023

#endif
