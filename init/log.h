/* Logging: one line per event, "hardinit: ..." on the console and, with a
 * syslog priority, in /dev/kmsg. Lines logged before /dev/kmsg can be
 * opened are kept (bounded) and written to it as soon as it is. */
#ifndef HARDINIT_LOG_H
#define HARDINIT_LOG_H

#include <stddef.h>
#include <syslog.h>

#define LOG_LINE_MAX     512
#define LOG_EARLY_LINES  32

/* Open /dev/kmsg under dev (e.g. "/dev") and flush the early lines. */
void hi_log_open_kmsg(const char *dev);
/* Close the kernel log fd before the hand-off closes every fd; a later
 * hi_log_open_kmsg() opens it again if the exec fails. */
void hi_log_close_kmsg(void);
/* Stop writing to the console (dry runs and tests write to stderr only). */
void hi_log_set_console_fd(int fd);
void hi_log_set_kmsg_enabled(int enabled);
/* The console_loglevel of /proc/sys/kernel/printk (first field). */
void hi_log_set_console_level(int level);
/* Debug lines are shown only with hardinit.debug on the command line. */
void hi_log_set_debug(int enabled);
/* Whether debug lines are shown: a caller skips the work of one (a time
 * formatted for every file read) when they are not. */
int hi_log_debug_on(void);

/* Name the bytes a terminal shows as nothing: each UTF-8 byte-order mark
 * (EF BB BF, which some editors put at the start of a file) in s becomes
 * "<UTF-8 byte-order mark>", bounded by cap. Returns how many were named.
 * log_msg does this to every line. */
int hi_log_name_invisible(char *s, size_t cap);

void hi_log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)   hi_log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  hi_log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) hi_log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)  hi_log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) hi_log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
