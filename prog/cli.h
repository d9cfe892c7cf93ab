/* The command-line interface when hardinit is not PID 1: help, version,
 * check-config, dry-run, audit. None of it changes the system. */
#ifndef HARDINIT_CLI_H
#define HARDINIT_CLI_H

int hi_cli_main(int argc, char **argv);

#endif
