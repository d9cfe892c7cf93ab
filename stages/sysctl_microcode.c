/* The early-microcode line of the kernel log (stages/sysctl_microcode.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysctl_microcode.h"

int hi_microcode_early_line(const char *line, char *what, size_t cap)
{
	static const char *const says[] = { "updated early: 0x", "microcode updated early to ", "Updated early from: 0x" };
	const char *semi = strchr(line, ';'), *text = line;

	/* A kmsg record's prefix holds digits, commas, flags: no spaces. */
	if (semi && !memchr(line, ' ', (size_t)(semi - line)))
		text = semi + 1;
	if (strncmp(text, "microcode: ", 11) != 0)
		return 0;
	text += 11;
	for (size_t i = 0; i < sizeof says / sizeof says[0]; i++) {
		if (strncmp(text, says[i], strlen(says[i])) != 0)
			continue;
		size_t n = 0;
		for (; text[n] && text[n] != '\n' && n + 1 < cap; n++)
			what[n] = (text[n] >= 0x20 && text[n] < 0x7f) ? text[n] : '?';
		if (cap)
			what[n] = '\0';
		return 1;
	}
	return 0;
}

/* Each read of /dev/kmsg returns one record; a regular file (tests)
 * returns what fits, so lines are split here, a partial one carried. */
int hi_microcode_early_seen(const struct boot *b, char *what, size_t cap)
{
	char path[BOOT_PATH_MAX + 8], buf[8192 + 1], line[8192 + 1];
	size_t carry = 0;
	int found = 0;

	snprintf(path, sizeof path, "%s/kmsg", b->dev);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (unsigned rec = 0; rec < MICROCODE_KMSG_RECORDS && !found; rec++) {
		ssize_t r = read(fd, buf, sizeof buf - 1);
		if (r < 0 && errno == EPIPE)   /* a record overwritten while read: go on */
			continue;
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r && !found; i++) {
			if (buf[i] != '\n' && carry < sizeof line - 1) {
				line[carry++] = buf[i];
				continue;
			}
			line[carry] = '\0';
			carry = 0;
			found = hi_microcode_early_line(line, what, cap);
		}
	}
	if (!found && carry) {
		line[carry] = '\0';
		found = hi_microcode_early_line(line, what, cap);
	}
	close(fd);
	return found;
}
