/* Whether the kernel enforces BTI on this static arm64 probe (built with
 * -mbranch-protection=standard and linked, like hardinit, only from
 * objects with the BTI property note): prints
 *   bti.pad=ok        an indirect call to a function's landing pad
 *   bti.nopad=SIGILL  an indirect call to code without one (guarded pages:
 *                     a Branch Target exception, delivered as SIGILL), or
 *                     "returned 7" where the code is not guarded
 *   bti.text=FLAGS    the VmFlags of this program's text in smaps ("bt"
 *                     when guarded)
 * Each call runs in a child, so a fault ends only the child. On other
 * architectures it prints bti.arch=none. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__aarch64__)
/* No landing pad: its first instruction is not a BTI (hand-written, so
 * the compiler adds none). */
int probe_nopad(void);
__asm__(".text\n"
	".global probe_nopad\n"
	".type probe_nopad, %function\n"
	"probe_nopad:\n"
	"\tmov w0, #7\n"
	"\tret\n"
	".size probe_nopad, .-probe_nopad\n");

static int padded(void)
{
	return 7;
}

static void call(const char *name, int (*volatile fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn() == 7 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		printf("bti.%s=error\n", name);
		return;
	}
	if (WIFSIGNALED(status))
		printf("bti.%s=%s\n", name, WTERMSIG(status) == SIGILL ? "SIGILL" : strsignal(WTERMSIG(status)));
	else
		printf("bti.%s=%s\n", name, WEXITSTATUS(status) == 0 ? (fn == padded ? "ok" : "returned 7") : "wrong");
}

/* The VmFlags of the mapping holding this function. */
static void text_flags(void)
{
	char line[512];
	unsigned long lo, hi, me = (unsigned long)&text_flags;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f) {
		puts("bti.text=<no smaps>");
		return;
	}
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = me >= lo && me < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			line[strcspn(line, "\n")] = 0;
			printf("bti.text=%s\n", line + 9);
			break;
		}
	}
	fclose(f);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	call("pad", padded);
	call("nopad", probe_nopad);
	text_flags();
	return 0;
}
#else
int main(void)
{
	puts("bti.arch=none");
	return 0;
}
#endif
