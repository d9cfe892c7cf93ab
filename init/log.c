#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Lines logged before /dev/kmsg exists (devtmpfs is not mounted yet) are
 * kept here and written to the kernel log as soon as it opens, the way
 * Android's first stage collects its early errors. */
static char early[LOG_EARLY_LINES][LOG_LINE_MAX];
static int early_prio[LOG_EARLY_LINES];
static int n_early, early_dropped;

static int console_fd = 2;
static int kmsg_fd = -1;
static int kmsg_enabled = 1;
static int debug_enabled;

void log_set_console_fd(int fd) { console_fd = fd; }
void log_set_kmsg_enabled(int enabled) { kmsg_enabled = enabled; }
void log_set_debug(int enabled) { debug_enabled = enabled; }

static void write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;   /* nowhere left to say it; never block PID 1 */
		s += n;
		len -= (size_t)n;
	}
}

static void kmsg_line(int prio, const char *msg)
{
	char line[LOG_LINE_MAX + 16];
	/* LOG_DAEMON facility keeps our lines apart from the kernel's own in
	 * journald and dmesg -x. */
	int n = snprintf(line, sizeof line, "<%d>hardinit: %s\n", LOG_DAEMON | prio, msg);
	if (n > 0)
		write_all(kmsg_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void log_open_kmsg(const char *dev)
{
	char path[256];

	if (!kmsg_enabled || kmsg_fd >= 0)
		return;
	snprintf(path, sizeof path, "%s/kmsg", dev);
	kmsg_fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (kmsg_fd < 0)
		return;
	for (int i = 0; i < n_early; i++)
		kmsg_line(early_prio[i], early[i]);
	if (early_dropped) {
		char msg[96];
		snprintf(msg, sizeof msg, "%d early log lines were dropped (limit %d)",
			 early_dropped, LOG_EARLY_LINES);
		kmsg_line(LOG_WARNING, msg);
	}
	n_early = 0;
}

void log_close_kmsg(void)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
}

void log_msg(int prio, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX];
	va_list ap;

	if (prio == LOG_DEBUG && !debug_enabled)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* One event, one line: a message must not forge further lines. */
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';

	if (console_fd >= 0) {
		char line[LOG_LINE_MAX + 32];
		const char *tag = prio <= LOG_ERR ? "error: " : prio == LOG_WARNING ? "warning: " : "";
		int n = snprintf(line, sizeof line, "hardinit: %s%s\n", tag, msg);
		if (n > 0)
			write_all(console_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	if (!kmsg_enabled)
		return;
	if (kmsg_fd >= 0) {
		kmsg_line(prio, msg);
	} else if (n_early < LOG_EARLY_LINES) {
		memcpy(early[n_early], msg, sizeof msg);
		early_prio[n_early++] = prio;
	} else {
		early_dropped++;
	}
}
