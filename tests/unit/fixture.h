/* The unit tests' one fixture: a boot context whose every path lies in a
 * temporary tree, and the file helpers the tests write that tree with.
 *
 *   fixture_tree(prefix)      make a fresh temporary directory, return it
 *   boot_at(b, root, mode)    hi_boot_init_paths() for mode, then proc, sys,
 *                             dev, run and newroot under root
 *                             (ROOT/proc ... ROOT/root), defaults config
 *   fixture_put(root, rel, text)   write ROOT/REL, making its directories
 *   fixture_put_bytes(root, rel, data, len)
 *   fixture_mkdir(root, rel, mode) make ROOT/REL (and parents) with mode
 *   fixture_get(root, rel)    ROOT/REL's text (static buffer, 64 KiB), NULL
 *                             when unreadable
 *   fixture_rmtree(root)      remove ROOT and everything under it (no link
 *                             followed); nothing when root is ""
 * A helper that cannot do its job ends the test binary with status 2: a
 * broken fixture must not read as a passing or failing assertion. */
#ifndef HARDINIT_TEST_FIXTURE_H
#define HARDINIT_TEST_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot.h"
#include "fsutil.h"

static inline void fixture_die(const char *what, const char *path)
{
	printf("# fixture: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static inline const char *fixture_tree(const char *prefix)
{
	static char dir[4][128];
	static int n;
	char *d = dir[n++ % 4];

	snprintf(d, sizeof dir[0], "/tmp/%s-XXXXXX", prefix);
	if (!mkdtemp(d))
		fixture_die("mkdtemp", d);
	return d;
}

static inline void boot_at(struct boot *b, const char *root, enum boot_mode mode)
{
	memset(b, 0, sizeof *b);
	hi_boot_init_paths(b, mode);
	snprintf(b->proc, sizeof b->proc, "%s/proc", root);
	snprintf(b->sys, sizeof b->sys, "%s/sys", root);
	snprintf(b->dev, sizeof b->dev, "%s/dev", root);
	snprintf(b->run, sizeof b->run, "%s/run", root);
	snprintf(b->newroot, sizeof b->newroot, "%s/root", root);
}

static inline void fixture_path(char *out, size_t cap, const char *root, const char *rel)
{
	if (!hi_boot_path(out, cap, root, rel))
		fixture_die("path too long", rel);
}

static inline void fixture_parent(const char *path)
{
	char dir[512];

	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (hi_fs_mkdir_p(dir, 0755) < 0)
			fixture_die("mkdir", dir);
	}
}

static inline void fixture_put_bytes(const char *root, const char *rel, const void *data, size_t len)
{
	char p[512];

	fixture_path(p, sizeof p, root, rel);
	fixture_parent(p);
	FILE *f = fopen(p, "wb");
	if (!f)
		fixture_die("open", p);
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		fixture_die("write", p);
}

static inline void fixture_put(const char *root, const char *rel, const char *text)
{
	fixture_put_bytes(root, rel, text, strlen(text));
}

static inline void fixture_mkdir(const char *root, const char *rel, unsigned mode)
{
	char p[512];

	fixture_path(p, sizeof p, root, rel);
	if (hi_fs_mkdir_p(p, 0755) < 0 || chmod(p, mode) < 0)
		fixture_die("mkdir", p);
}

static inline const char *fixture_get(const char *root, const char *rel)
{
	static char buf[64 * 1024];
	char p[512];

	fixture_path(p, sizeof p, root, rel);
	if (hi_fs_read(p, buf, sizeof buf, NULL) < 0)
		return NULL;
	return buf;
}

/* Depth first, lstat: a link is removed, never followed. Bounded by the
 * path buffer (a deeper tree than 512 bytes of path is a broken fixture). */
static inline void fixture_rm_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return;
		fixture_die("lstat", path);
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d)
			fixture_die("opendir", path);
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			char child[512];
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if ((size_t)snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= sizeof child)
				fixture_die("path too long under", path);
			fixture_rm_path(child);
		}
		closedir(d);
	}
	if (remove(path) < 0)
		fixture_die("remove", path);
}

static inline void fixture_rmtree(const char *root)
{
	if (root[0])
		fixture_rm_path(root);
}

#endif
