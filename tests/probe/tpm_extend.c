/* tpm_extend PCR: extend a PCR's sha256 bank with SHA-256("drift") through
 * /dev/tpmrm0, as anything with root could after boot, so the VM tests can
 * check that hardinit audit sees it. Independent of hardinit: its own
 * bytes (TPM 2.0 Library Part 3, TPM2_PCR_Extend with the password
 * session), its own constant digest. Prints tpm_extend.rc=0xN. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-256("drift"), computed with Python's hashlib. */
static const unsigned char drift[32] = {
	0x0b, 0x7a, 0x46, 0x1f, 0xef, 0xbb, 0x68, 0xe5, 0x18, 0xe5, 0x18, 0x84, 0x36, 0x9a, 0x4b, 0x88,
	0xba, 0xff, 0xdb, 0x40, 0xb7, 0xe5, 0x78, 0x92, 0x1f, 0x3f, 0x88, 0x64, 0x9e, 0xbc, 0x64, 0x94,
};

int main(int argc, char **argv)
{
	unsigned char cmd[80] = {
		0x80, 0x02, 0, 0, 0, 0, 0x00, 0x00, 0x01, 0x82,   /* TPM_ST_SESSIONS, size, TPM_CC_PCR_Extend */
		0, 0, 0, 0,                                        /* the PCR handle */
		0, 0, 0, 9, 0x40, 0, 0, 9, 0, 0, 0, 0, 0,          /* TPM_RS_PW, empty auth */
		0, 0, 0, 1, 0x00, 0x0b,                            /* one digest, TPM_ALG_SHA256 */
	};
	unsigned char resp[256];
	size_t len = 33;

	if (argc != 2)
		return 2;
	cmd[13] = (unsigned char)atoi(argv[1]);
	memcpy(cmd + len, drift, 32);
	len += 32;
	cmd[5] = (unsigned char)len;
	int fd = open("/dev/tpmrm0", O_RDWR);
	if (fd < 0 || write(fd, cmd, len) != (ssize_t)len || read(fd, resp, sizeof resp) < 10) {
		puts("tpm_extend.rc=io-error");
		return 1;
	}
	unsigned rc = (unsigned)resp[6] << 24 | resp[7] << 16 | resp[8] << 8 | resp[9];
	printf("tpm_extend.rc=0x%x\n", rc);
	return rc != 0;
}
