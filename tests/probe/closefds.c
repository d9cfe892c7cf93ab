/* Test helper: start hardinit (/init) the way a kernel without a console
 * would, with fds 0-2 closed. Booted as rdinit=/closefds; stays PID 1
 * across the exec. */
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argc;
	close(0);
	close(1);
	close(2);
	argv[0] = "/init";
	execv("/init", argv);
	return 127;   /* the kernel panics on init's exit: the test sees that */
}
