/* The real root's /etc/fstab (fstab(5)): blank-separated fields, octal
 * escapes for blanks, '#' comments; options as mount(8) reads them. */
#include "fstab.h"

#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "mounts_mountinfo.h"

int hi_fstab_next(const char **cursor, struct fstab_line *out)
{
	while (*cursor && **cursor) {
		const char *l = *cursor, *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char *save = NULL;

		*cursor = nl ? nl + 1 : NULL;
		if (len >= sizeof out->buf)
			continue;
		memcpy(out->buf, l, len);
		out->buf[len] = '\0';
		out->spec = strtok_r(out->buf, " \t", &save);
		out->file = strtok_r(NULL, " \t", &save);
		out->type = strtok_r(NULL, " \t", &save);
		out->opts = strtok_r(NULL, " \t", &save);
		if (!out->spec || !out->file || !out->type || out->spec[0] == '#')
			continue;
		hi_unescape_octal(out->spec);
		hi_unescape_octal(out->file);
		hi_strip_trailing_slashes(out->file);
		if (out->opts)
			hi_unescape_octal(out->opts);
		else
			out->opts = "defaults";
		return 1;
	}
	return 0;
}

int hi_fstab_find(const char *fstab, const char *point, struct fstab_line *out)
{
	struct fstab_line l;
	int found = 0;

	for (const char *c = fstab; hi_fstab_next(&c, &l);) {
		if (strcmp(l.file, point) != 0)
			continue;
		/* The fields point into buf: move them with it. */
		memcpy(out->buf, l.buf, sizeof out->buf);
		out->spec = out->buf + (l.spec - l.buf);
		out->file = out->buf + (l.file - l.buf);
		out->type = out->buf + (l.type - l.buf);
		out->opts = l.opts >= l.buf && l.opts < l.buf + sizeof l.buf ? out->buf + (l.opts - l.buf) : l.opts;
		found = 1;
	}
	return found;
}

/* mount(8)'s words for mount(2)'s flags (util-linux's optmap), each with
 * what it sets or clears. */
static const struct { const char *word; unsigned long flag; bool clear; } flag_words[] = {
	{ "ro", MS_RDONLY, false },        { "rw", MS_RDONLY, true },
	{ "nosuid", MS_NOSUID, false },    { "suid", MS_NOSUID, true },
	{ "nodev", MS_NODEV, false },      { "dev", MS_NODEV, true },
	{ "noexec", MS_NOEXEC, false },    { "exec", MS_NOEXEC, true },
	{ "sync", MS_SYNCHRONOUS, false }, { "async", MS_SYNCHRONOUS, true },
	{ "dirsync", MS_DIRSYNC, false },
	{ "noatime", MS_NOATIME, false },  { "atime", MS_NOATIME, true },
	{ "nodiratime", MS_NODIRATIME, false }, { "diratime", MS_NODIRATIME, true },
	{ "relatime", MS_RELATIME, false }, { "norelatime", MS_RELATIME, true },
	{ "strictatime", MS_STRICTATIME, false }, { "nostrictatime", MS_STRICTATIME, true },
	{ "lazytime", MS_LAZYTIME, false }, { "nolazytime", MS_LAZYTIME, true },
	{ "iversion", MS_I_VERSION, false }, { "noiversion", MS_I_VERSION, true },
	{ "silent", MS_SILENT, false },    { "loud", MS_SILENT, true },
};

/* Read by mount(8), systemd or the fstab's other readers, never by the
 * kernel ("defaults" is rw, suid, dev, exec, auto, nouser, async: only rw
 * matters, and a root's file systems are mounted read-only unless rw). */
static bool user_space_word(const char *w)
{
	static const char *const words[] = { "defaults", "auto", "noauto", "nofail", "user", "nouser",
					     "users", "owner", "group", "_netdev", "mand", "nomand" };

	if (!strncmp(w, "x-", 2) || !strncmp(w, "comment=", 8))
		return true;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

int hi_fstab_mount_opts(const char *opts, unsigned long *flags, char *data, size_t cap)
{
	size_t used = 0;

	*flags = MS_RDONLY;
	if (cap == 0)
		return -1;
	data[0] = '\0';
	for (const char *w = opts; w && *w;) {
		const char *comma = strchr(w, ',');
		size_t len = comma ? (size_t)(comma - w) : strlen(w);
		char word[FSTAB_LINE_MAX];
		bool known = false;

		if (len > 0 && len < sizeof word) {
			memcpy(word, w, len);
			word[len] = '\0';
			for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
				if (!strcmp(word, flag_words[i].word)) {
					*flags = flag_words[i].clear ? *flags & ~flag_words[i].flag : *flags | flag_words[i].flag;
					known = true;
				}
			if (!known && !user_space_word(word)) {
				if (used + (used ? 1 : 0) + len >= cap)
					return -1;
				used += (size_t)snprintf(data + used, cap - used, "%s%s", used ? "," : "", word);
			}
		} else if (len >= sizeof word) {
			return -1;
		}
		w = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* udev's link names escape what is not plain as \xHH (blkid_encode_string). */
static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void unescape_udev(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		int hi = r[1] == 'x' ? hexval(r[2]) : -1, lo = hi >= 0 ? hexval(r[3]) : -1;
		if (r[0] == '\\' && lo >= 0 && (hi || lo)) {
			*w++ = (char)(hi * 16 + lo);
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int hi_fstab_device_spec(const char *spec, char *out, size_t cap)
{
	static const struct { const char *dir, *tag; } links[] = {
		{ "/dev/disk/by-uuid/", "UUID=" },
		{ "/dev/disk/by-label/", "LABEL=" },
		{ "/dev/disk/by-partuuid/", "PARTUUID=" },
		{ "/dev/disk/by-partlabel/", "PARTLABEL=" },
	};

	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		size_t n = strlen(links[i].dir);
		if (strncmp(spec, links[i].dir, n) != 0 || !spec[n])
			continue;
		int w = snprintf(out, cap, "%s%s", links[i].tag, spec + n);
		if (w < 0 || (size_t)w >= cap)
			return -1;
		unescape_udev(out + strlen(links[i].tag));
		return 0;
	}
	int w = snprintf(out, cap, "%s", spec);
	return w < 0 || (size_t)w >= cap ? -1 : 0;
}
