/* A secret asked on the console: echo off on a terminal, one line read
 * with a bound on each byte's wait, the line wiped on every failure. The
 * luks stage's passphrase and PIN prompts (stages/luks.c). */
#ifndef HARDINIT_PROMPT_H
#define HARDINIT_PROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct prompt {
	int fd;                /* DEV/console, read-write */
	struct termios saved;  /* the terminal's settings before echo went off */
	bool tty;              /* the console is a terminal: saved is set */
};

/* DEV/console opened with echo off on a terminal; -1 without a console. */
int hi_prompt_open(struct prompt *p, const char *dev);
/* The terminal's settings put back, the console closed. */
void hi_prompt_close(struct prompt *p);
/* text written to the console, whole unless it fails. */
void hi_prompt_say(const struct prompt *p, const char *text);
/* The question said, one line read (hi_prompt_read_line), a new line
 * said: the line's length, or -1. */
int hi_prompt_ask(const struct prompt *p, const char *question, char *out, size_t cap, int timeout_ms);

/* One line from fd (up to '\n' or '\r', at most cap-1 bytes, waiting at
 * most timeout_ms for each byte). Returns its length, or -1 (timeout,
 * end of input, too long). On -1, out is wiped. */
int hi_prompt_read_line(int fd, char *out, size_t cap, int timeout_ms);

#endif
