/* wx: does this process's kernel let memory become writable and executable?
 * Prints one line per attempt for the VM tests (tests/vm/hardening.bats):
 *   wx.mdwe=N|EINVAL          PR_GET_MDWE: the flags this process inherited
 *   wx.mmap_x=ok|ERR          R+X anonymous mapping: allowed even under MDWE
 *   wx.mmap_wx=ok|ERR         W+X anonymous mapping: refused under MDWE
 *   wx.mprotect_w_then_x=ok|ERR  RW mapping, then mprotect to R+X: refused
 * ERR is the errno name (EACCES is MDWE's answer). Independent of hardinit:
 * plain syscalls only. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_GET_MDWE
#define PR_GET_MDWE 66
#endif

static const char *err_name(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	default: return "other";
	}
}

static void result(const char *what, int ok, int err)
{
	if (ok)
		printf("wx.%s=ok\n", what);
	else
		printf("wx.%s=%s\n", what, err_name(err));
}

static void try_mmap(const char *what, int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err = errno;
	result(what, p != MAP_FAILED, err);
	if (p != MAP_FAILED)
		munmap(p, 4096);
}

static void try_write_then_exec(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("wx.mprotect_w_then_x=setup-failed\n");
		return;
	}
	p[0] = 0xc3; /* ret: the page is written before it is made executable */
	int rc = mprotect(p, 4096, PROT_READ | PROT_EXEC);
	int err = errno;
	result("mprotect_w_then_x", rc == 0, err);
	munmap(p, 4096);
}

int main(void)
{
	int mdwe = prctl(PR_GET_MDWE, 0L, 0L, 0L, 0L);
	if (mdwe < 0)
		printf("wx.mdwe=%s\n", err_name(errno));
	else
		printf("wx.mdwe=%d\n", mdwe);
	try_mmap("mmap_x", PROT_READ | PROT_EXEC);
	try_mmap("mmap_wx", PROT_READ | PROT_WRITE | PROT_EXEC);
	try_write_then_exec();
	return 0;
}
