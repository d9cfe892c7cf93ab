/* libFuzzer target for block/btrfs.c's hi_btrfs_root_flags: the command
 * line's rootflags= (whoever edits the boot loader's entry writes it)
 * against the subvolume the image carries.
 *
 * Input: byte 0 bit 0 locked, bit 1 the image carries no subvolume, bits
 * 2-7 the output buffer's size (times 16); then the image's subvolume up
 * to the first NUL byte, and rootflags after it (none without a second
 * part).
 *
 * Invariants: data is NUL-terminated inside its buffer, and so is err on
 * a refusal. Without an image subvolume data is rootflags as it is. With
 * one, a success under the lock holds no device= and no subvolid=, and
 * the last subvol= in data is one the image's path names (the same
 * components). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btrfs.h"

/* a's and b's components, slashes aside. */
static int same_path(const char *a, size_t alen, const char *b)
{
	size_t i = 0, j = 0, blen = strlen(b);

	for (;;) {
		while (i < alen && a[i] == '/')
			i++;
		while (j < blen && b[j] == '/')
			j++;
		if (i == alen || j == blen)
			return i == alen && j == blen;
		while (i < alen && j < blen && a[i] != '/' && b[j] != '/' && a[i] == b[j])
			i++, j++;
		if ((i < alen && a[i] != '/') || (j < blen && b[j] != '/'))
			return 0;
	}
}

static void check_locked(const char *data, const char *image)
{
	const char *last = NULL;
	size_t last_len = 0;

	for (const char *p = data; *p;) {
		size_t n = strcspn(p, ",");
		if ((n >= 7 && !strncmp(p, "device=", 7)) || (n >= 9 && !strncmp(p, "subvolid=", 9)))
			abort();
		if (n >= 7 && !strncmp(p, "subvol=", 7))
			last = p + 7, last_len = n - 7;
		p += n + (p[n] == ',');
	}
	if (!last || !same_path(last, last_len, image))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int locked = data[0] & 1, none = data[0] & 2;
	size_t cap = (size_t)(data[0] >> 2) * 16 + 1;
	char *text = malloc(size), *out = malloc(cap), err[512];
	if (!text || !out) {
		free(text);
		free(out);
		return 0;
	}
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	const char *image = text, *flags = NULL;
	size_t ilen = strlen(text);
	if (ilen + 1 < size - 1)
		flags = text + ilen + 1;
	memset(err, 'x', sizeof err);
	int rc = hi_btrfs_root_flags(flags, none ? NULL : image, locked, out, cap, err, sizeof err);
	if (rc == 0 && !memchr(out, '\0', cap))
		abort();
	if (rc < 0 && !memchr(err, '\0', sizeof err))
		abort();
	if (rc == 0 && none && strcmp(out, flags ? flags : "") != 0)
		abort();
	if (rc == 0 && !none && locked)
		check_locked(out, image);
	free(text);
	free(out);
	return 0;
}
