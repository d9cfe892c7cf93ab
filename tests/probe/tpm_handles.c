/* tpm_handles: the TPM's transient objects, counted through /dev/tpm0 (the
 * TPM itself: tpmrm0's resource manager would show only this process's
 * own), so the VM tests can check that nothing hardinit loaded is left for
 * the real root. Independent of hardinit: its own bytes (TPM 2.0 Library
 * Part 3, TPM2_GetCapability, TPM_CAP_HANDLES from 0x80000000). Prints
 * transient=N (and each handle), or transient=io-error. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	static const unsigned char cmd[22] = {
		0x80, 0x01, 0, 0, 0, 22, 0, 0, 0x01, 0x7a,   /* TPM_ST_NO_SESSIONS, size, TPM_CC_GetCapability */
		0, 0, 0, 1,                                  /* TPM_CAP_HANDLES */
		0x80, 0, 0, 0,                               /* from the first transient handle */
		0, 0, 0, 64,                                 /* at most 64 */
	};
	unsigned char resp[1024];
	int fd = open("/dev/tpm0", O_RDWR);
	ssize_t n = -1;

	if (fd >= 0 && write(fd, cmd, sizeof cmd) == (ssize_t)sizeof cmd)
		n = read(fd, resp, sizeof resp);
	if (n < 19 || (resp[6] | resp[7] | resp[8] | resp[9])) {
		puts("transient=io-error");
		return 1;
	}
	unsigned count = (unsigned)resp[15] << 24 | resp[16] << 16 | resp[17] << 8 | resp[18];
	printf("transient=%u\n", count);
	for (unsigned i = 0; i < count && 19 + 4 * i + 4 <= (unsigned)n; i++) {
		const unsigned char *h = resp + 19 + 4 * i;
		printf("handle=0x%02x%02x%02x%02x\n", h[0], h[1], h[2], h[3]);
	}
	return 0;
}
