/* `hardinit private-tmp`: give one command its own instance of /tmp (or
 * another polydir) the way pam_namespace does, for systems without PAM
 * (busybox appliances). Wired into the CLI by init/cli.c. */
#ifndef HARDINIT_POLYTMP_H
#define HARDINIT_POLYTMP_H

/* argv: [private-tmp] [--dir POLYDIR] USER COMMAND [ARGS...]. Never
 * returns on success (execs COMMAND as USER); returns 1 after printing
 * one line on stderr otherwise, 2 on bad usage. */
int hi_polytmp_main(int argc, char **argv);

#endif
