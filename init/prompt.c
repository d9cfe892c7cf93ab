/* A secret asked on the console: see prompt.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "prompt.h"

int hi_prompt_open(struct prompt *p, const char *dev)
{
	char path[BOOT_PATH_MAX];

	p->fd = open(hi_boot_path(path, sizeof path, dev, "console") ? path : "", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->fd < 0)
		return -1;
	p->tty = tcgetattr(p->fd, &p->saved) == 0;
	if (p->tty) {
		struct termios t = p->saved;
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		t.c_lflag |= ICANON;
		tcsetattr(p->fd, TCSAFLUSH, &t);
	}
	return p->fd;
}

void hi_prompt_close(struct prompt *p)
{
	if (p->tty)
		tcsetattr(p->fd, TCSAFLUSH, &p->saved);
	close(p->fd);
	p->fd = -1;
}

void hi_prompt_say(const struct prompt *p, const char *text)
{
	size_t len = strlen(text);
	while (len) {
		ssize_t n = write(p->fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		text += n;
		len -= (size_t)n;
	}
}

int hi_prompt_ask(const struct prompt *p, const char *question, char *out, size_t cap, int timeout_ms)
{
	hi_prompt_say(p, question);
	int len = hi_prompt_read_line(p->fd, out, cap, timeout_ms);
	hi_prompt_say(p, "\n");
	return len;
}

int hi_prompt_read_line(int fd, char *out, size_t cap, int timeout_ms)
{
	size_t n = 0;
	bool too_long = false;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		char c;
		ssize_t got = read(fd, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (c == '\n' || c == '\r') {
			if (too_long)
				break;
			out[n] = '\0';
			return (int)n;
		}
		/* Too long: the rest of the line is read and dropped, so the
		 * next try starts at a new line. */
		if (n + 1 >= cap)
			too_long = true;
		else
			out[n++] = c;
	}
	explicit_bzero(out, cap);
	return -1;
}
