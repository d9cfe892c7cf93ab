#define _GNU_SOURCE   /* dup3 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* PID 1 is not alone while the measuring thread runs (stages/measure_queue.c):
 * it logs too, and the early lines, the kmsg fd and its reopen count are
 * shared. One lock around the output of each line; nothing is formatted or
 * waited for under it but the line's own writes. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static int console_fd = 2;
static int kmsg_fd = -1;
static int kmsg_enabled = 1;
static int debug_enabled;
/* The kernel echoes kmsg lines below this level to the console itself. */
static int console_level = 7;

void hi_log_set_console_fd(int fd) { console_fd = fd; }
void hi_log_set_kmsg_enabled(int enabled) { kmsg_enabled = enabled; }
void hi_log_set_debug(int enabled) { debug_enabled = enabled; }
int hi_log_debug_on(void) { return debug_enabled; }
void hi_log_set_console_level(int level) { console_level = level; }

/* Write to the console ourselves only where the kernel will not: before
 * /dev/kmsg is open, and for warnings and errors that a quiet console
 * level hides. Otherwise each line would show twice. */
static int console_wants(int prio)
{
	if (console_fd < 0)
		return 0;
	if (kmsg_fd < 0 || !kmsg_enabled)
		return 1;
	return prio >= console_level && prio <= LOG_WARNING;
}

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

/* /dev/kmsg rate-limits each open file to 10 lines per 5 s (printk.devkmsg
 * defaults to "ratelimit"); a boot logs more than that in milliseconds, so
 * the file is reopened before the limit rather than losing lines. */
#define KMSG_LINES_PER_OPEN 9
static char kmsg_path[256];
static int kmsg_lines;

/* openat, not open (here and below): musl's open() adds an fcntl(F_SETFD)
 * after every O_CLOEXEC open, a system call more per reopen (init/fsutil.c). */
static void kmsg_reopen(void)
{
	int fd = openat(AT_FDCWD, kmsg_path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	/* Keep the same descriptor number: nothing else learns a new one. */
	if (dup3(fd, kmsg_fd, O_CLOEXEC) >= 0)
		kmsg_lines = 0;
	close(fd);
}

static void kmsg_line(int prio, const char *msg)
{
	char line[LOG_LINE_MAX + 16];

	if (kmsg_lines >= KMSG_LINES_PER_OPEN)
		kmsg_reopen();
	kmsg_lines++;
	/* LOG_DAEMON facility keeps our lines apart from the kernel's own in
	 * journald and dmesg -x. */
	int n = snprintf(line, sizeof line, "<%d>hardinit: %s\n", LOG_DAEMON | prio, msg);
	if (n > 0)
		write_all(kmsg_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void open_kmsg_locked(const char *dev);

void hi_log_open_kmsg(const char *dev)
{
	pthread_mutex_lock(&log_lock);
	open_kmsg_locked(dev);
	pthread_mutex_unlock(&log_lock);
}

static void open_kmsg_locked(const char *dev)
{
	if (!kmsg_enabled || kmsg_fd >= 0)
		return;
	snprintf(kmsg_path, sizeof kmsg_path, "%s/kmsg", dev);
	kmsg_fd = openat(AT_FDCWD, kmsg_path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	kmsg_lines = 0;
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

void hi_log_close_kmsg(void)
{
	pthread_mutex_lock(&log_lock);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
	pthread_mutex_unlock(&log_lock);
}

int hi_log_name_invisible(char *s, size_t cap)
{
	static const char bom[] = "\xef\xbb\xbf", name[] = "<UTF-8 byte-order mark>";
	int n = 0;

	for (char *p = strstr(s, bom); p; p = strstr(p, bom)) {
		size_t len = strlen(s), tail = len - (size_t)(p - s) - 3;
		size_t grow = sizeof name - 1 - 3;
		if (len + grow + 1 > cap)
			break;
		memmove(p + sizeof name - 1, p + 3, tail + 1);
		memcpy(p, name, sizeof name - 1);
		p += sizeof name - 1;
		n++;
	}
	return n;
}

void hi_log_msg(int prio, const char *fmt, ...)
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
	hi_log_name_invisible(msg, sizeof msg);

	pthread_mutex_lock(&log_lock);
	if (console_wants(prio)) {
		char line[LOG_LINE_MAX + 32];
		const char *tag = prio <= LOG_ERR ? "error: " : prio == LOG_WARNING ? "warning: " : "";
		int n = snprintf(line, sizeof line, "hardinit: %s%s\n", tag, msg);
		if (n > 0)
			write_all(console_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	if (!kmsg_enabled) {
		/* nothing more */
	} else if (kmsg_fd >= 0) {
		kmsg_line(prio, msg);
	} else if (n_early < LOG_EARLY_LINES) {
		memcpy(early[n_early], msg, sizeof msg);
		early_prio[n_early++] = prio;
	} else {
		early_dropped++;
	}
	pthread_mutex_unlock(&log_lock);
}
