/* lockprobe: are the one-way locks in force? For tests/vm/hardening.bats.
 *   lock.init_module=EPERM|ENOEXEC|...   a garbage image: EPERM comes from
 *       may_init_module() (modules_disabled or no CAP_SYS_MODULE) before
 *       the image is parsed; ENOEXEC means loading is still open
 *   lock.finit_module=...                 the same through a file (this
 *       program, an ELF but not a module)
 *   lock.kexec_load=ok|EPERM|...          zero segments: unloads nothing if
 *       allowed; EPERM from kexec_load_disabled (or lockdown)
 * Plain syscalls, independent of hardinit. kexec_load with no segments
 * would unload a loaded crash kernel, so it runs only with --in-vm (the
 * test's guest), never by accident on a build host. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *err_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOEXEC: return "ENOEXEC";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOSYS: return "ENOSYS";
	case EBUSY: return "EBUSY";
	case EKEYREJECTED: return "EKEYREJECTED";
	default: return "other";
	}
}

static void result(const char *what, long rc, int err)
{
	if (rc == 0)
		printf("lock.%s=ok\n", what);
	else
		printf("lock.%s=%s\n", what, err_name(err));
}

int main(int argc, char **argv)
{
	static char garbage[256] = "not a module";

	if (argc < 2 || strcmp(argv[1], "--in-vm") != 0) {
		fprintf(stderr, "usage: lockprobe --in-vm  (inside a test VM only)\n");
		return 2;
	}
	long rc = syscall(SYS_init_module, garbage, sizeof garbage, "");
	result("init_module", rc, errno);

	int fd = open(argc > 0 ? argv[0] : "/probe/lockprobe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("lock.finit_module=setup-failed\n");
	} else {
		rc = syscall(SYS_finit_module, fd, "", 0);
		result("finit_module", rc, errno);
		close(fd);
	}

	rc = syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0UL);
	result("kexec_load", rc, errno);
	return 0;
}
