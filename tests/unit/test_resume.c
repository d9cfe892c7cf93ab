/* Unit tests: the swap signature check behind resume= (stages/root_resume.c
 * refuses to boot over a hibernated system): the pure signature reader,
 * and probe_fs on swap areas made byte-exact here and by util-linux's
 * mkswap. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root_probe.h"
#include "tap.h"

static char dir[] = "/tmp/hardinit-resume-XXXXXX";

static void test_signatures(void)
{
	tap_ok(hi_swap_signature((const unsigned char *)"SWAPSPACE2") &&
	       strcmp(hi_swap_signature((const unsigned char *)"SWAPSPACE2"), "swap") == 0, "SWAPSPACE2 is a swap area");
	tap_ok(strcmp(hi_swap_signature((const unsigned char *)"S1SUSPEND\0"), "swsuspend") == 0,
	       "S1SUSPEND (the kernel's HIBERNATE_SIG) is a hibernated system");
	tap_ok(strcmp(hi_swap_signature((const unsigned char *)"ULSUSPEND\0"), "swsuspend") == 0,
	       "ULSUSPEND (uswsusp) is a hibernated system");
	tap_ok(hi_swap_signature((const unsigned char *)"SWAPSPACE1") == NULL, "SWAPSPACE1 is nothing");
	tap_ok(hi_swap_signature((const unsigned char *)"S1SUSPENX\0") == NULL, "a near miss is nothing");
	static const unsigned char zero[SWAP_SIG_BYTES];
	tap_ok(hi_swap_signature(zero) == NULL, "zeros are nothing");
}

/* A swap area of one page of PAGE bytes (and a second), signature SIG. */
static int fake_swap(const char *name, unsigned page, const char *sig)
{
	char path[256];
	unsigned char *buf = calloc(2, page);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!buf || fd < 0) {
		free(buf);
		return -1;
	}
	buf[1024] = 1;                                   /* version */
	for (int i = 0; i < 16; i++)
		buf[1024 + 12 + i] = (unsigned char)(0x10 + i); /* UUID */
	memcpy(buf + 1024 + 28, "swaplabel", 9);
	memcpy(buf + page - SWAP_SIG_BYTES, sig, strlen(sig));
	if (write(fd, buf, 2 * (size_t)page) != 2 * (ssize_t)page) {
		close(fd);
		fd = -1;
	}
	free(buf);
	return fd;
}

static void test_probe(void)
{
	struct fs_info fi;
	int fd = fake_swap("swap", 4096, "SWAPSPACE2");
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "swap") == 0 &&
	       strcmp(fi.uuid, "10111213-1415-1617-1819-1a1b1c1d1e1f") == 0 && strcmp(fi.label, "swaplabel") == 0,
	       "a 4 KiB-page swap area: type swap, its UUID and label (found by resume=UUID=)");
	close(fd);
	fd = fake_swap("hib", 4096, "S1SUSPEND");
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "swsuspend") == 0 &&
	       strcmp(fi.uuid, "10111213-1415-1617-1819-1a1b1c1d1e1f") == 0,
	       "a hibernated swap area: type swsuspend, still found by its UUID");
	close(fd);
	fd = fake_swap("hib64k", 65536, "S1SUSPEND");
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "swsuspend") == 0,
	       "a hibernated swap area of a 64 KiB-page kernel (arm64)");
	close(fd);
	fd = fake_swap("none", 4096, "NOTASWAP!!");
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == -1 && fi.type[0] == '\0', "no signature: nothing");
	close(fd);
}

/* mkswap's own header; then the kernel's signature written over its
 * magic, as hibernation does. */
static void test_mkswap(void)
{
	char cmd[512], path[300];
	struct fs_info fi;
	snprintf(path, sizeof path, "%s/mkswap.img", dir);
	snprintf(cmd, sizeof cmd,
		 "truncate -s 1M %s && mkswap -q -U 01234567-89ab-cdef-0123-456789abcdef %s >/dev/null 2>&1",
		 path, path);
	if (!tap_ok(system(cmd) == 0, "mkswap (util-linux, scripts/install-deps) made a swap area"))
		return;
	int fd = open(path, O_RDWR);
	tap_ok(fd >= 0 && hi_probe_fs(fd, &fi) == 0 && strcmp(fi.type, "swap") == 0 &&
	       strcmp(fi.uuid, "01234567-89ab-cdef-0123-456789abcdef") == 0, "mkswap's area: swap, its UUID");
	tap_ok(fd >= 0 && pwrite(fd, "S1SUSPEND", 10, 4096 - 10) == 10 && hi_probe_fs(fd, &fi) == 0 &&
	       strcmp(fi.type, "swsuspend") == 0, "mkswap's area after hibernation: swsuspend");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_signatures();
	test_probe();
	test_mkswap();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
