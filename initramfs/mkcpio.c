/* mkcpio: a small, deterministic writer of "newc" cpio archives for the
 * initramfs builder, run on the build host.
 *
 * It reads a spec in the style of the kernel's usr/gen_init_cpio:
 *
 *   dir   PATH MODE UID GID
 *   file  PATH SRC MODE UID GID
 *   nod   PATH MODE UID GID c|b MAJ MIN
 *   slink PATH TARGET MODE UID GID
 *
 * and writes the entries in the order given (the caller sorts them), so
 * the same spec and the same files give the same bytes: every mtime is the
 * one given with -t, inodes are numbered 1, 2, 3... in order, owners come
 * from the spec, and no host metadata (inode, device, time) is copied.
 * Device nodes are written from the spec, so no mknod and no root is needed
 * to put /dev/console in the archive.
 *
 * The format is the kernel's Documentation/driver-api/early-userspace/
 * buffer-format.rst: a 110-byte ASCII header ("070701" and 13 8-digit hex
 * fields), the NUL-terminated name padded to 4 bytes, the data padded to
 * 4 bytes, and a final "TRAILER!!!" entry. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Named limits: exceeding one is an error that names it. */
#define MKCPIO_LINE_MAX        8192        /* one spec line */
#define MKCPIO_PATH_MAX        1024        /* archive path or source path */
#define MKCPIO_MAX_ENTRIES     65536       /* entries in one archive */
#define MKCPIO_MAX_FILE_BYTES  (256u << 20) /* one file; newc allows < 4 GiB */
#define MKCPIO_MAX_TOTAL_BYTES (1024ull << 20) /* whole archive */
#define MKCPIO_MAX_MAJOR       4095u       /* the kernel's 12-bit major */
#define MKCPIO_MAX_MINOR       1048575u    /* the kernel's 20-bit minor */
#define MKCPIO_MAX_ID          65535u      /* uid/gid: an initramfs has no users */
#define MKCPIO_COPY_CHUNK      65536

#define NEWC_MAGIC      "070701"
#define NEWC_HEADER_LEN 110
#define NEWC_TRAILER    "TRAILER!!!"

struct entry {
	char path[MKCPIO_PATH_MAX];    /* as stored: no leading '/' */
	char src[MKCPIO_PATH_MAX];     /* file: the source; slink: the target */
	uint32_t mode;                 /* type bits | permission bits */
	uint32_t uid, gid;
	uint32_t rmajor, rminor;
};

struct writer {
	FILE *out;
	const char *out_name;
	uint64_t offset;               /* bytes written so far */
	uint32_t next_ino;
	uint32_t mtime;
	unsigned long entries;
};

static const char *prog = "mkcpio";
static const char *spec_name = "-";
static unsigned long spec_line;

/* One line on stderr: where (spec:line when reading one), what, why. */
static void error(const char *fmt, ...)
{
	va_list ap;

	if (spec_line)
		fprintf(stderr, "%s: %s:%lu: ", prog, spec_name, spec_line);
	else
		fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-t EPOCH] [-o OUT] [SPEC]\n"
		"Write a newc cpio archive described by SPEC (or stdin) to OUT (or stdout).\n"
		"  -t EPOCH  mtime of every entry, seconds since 1970 (default 0)\n"
		"  -o OUT    output file (removed again if writing fails)\n"
		"Spec lines (# comments and blank lines are ignored):\n"
		"  dir   PATH MODE UID GID\n"
		"  file  PATH SRC MODE UID GID\n"
		"  nod   PATH MODE UID GID c|b MAJ MIN\n"
		"  slink PATH TARGET MODE UID GID\n"
		"MODE is octal permission bits; entries are written in the given order.\n",
		prog);
}

/* ---- parsing helpers -------------------------------------------------- */

static int parse_u32(const char *s, int base, uint32_t max, const char *what,
		     uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+') {
		error("%s: expected a number, got \"%s\"", what, s ? s : "");
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end) {
		error("%s: \"%s\" is not an %s number", what, s,
		      base == 8 ? "octal" : "unsigned decimal");
		return -1;
	}
	if (v > max) {
		error("%s: %s is above the limit %" PRIu32, what, s, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* Archive paths: absolute or relative, stored without the leading '/'
 * (as gen_init_cpio does); no empty, "." or ".." components, since the
 * kernel would create whatever the name says. */
static int parse_archive_path(const char *s, char *out)
{
	const char *p = s;
	size_t len;

	while (*p == '/')
		p++;
	len = strlen(p);
	if (len == 0) {
		error("path \"%s\": empty; give a path such as /init", s);
		return -1;
	}
	if (len >= MKCPIO_PATH_MAX) {
		error("path \"%.40s...\": longer than MKCPIO_PATH_MAX (%d)", s,
		      MKCPIO_PATH_MAX - 1);
		return -1;
	}
	for (const char *c = p; *c; ) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.')) {
			error("path \"%s\": empty, \".\" or \"..\" component", s);
			return -1;
		}
		c += n + (slash ? 1 : 0);
		if (slash && !*c) {
			error("path \"%s\": trailing '/'", s);
			return -1;
		}
	}
	memcpy(out, p, len + 1);
	return 0;
}

static int copy_bounded(char *out, const char *s, const char *what)
{
	size_t len = strlen(s);

	if (len == 0 || len >= MKCPIO_PATH_MAX) {
		error("%s \"%.40s\": empty or longer than MKCPIO_PATH_MAX (%d)",
		      what, s, MKCPIO_PATH_MAX - 1);
		return -1;
	}
	memcpy(out, s, len + 1);
	return 0;
}

static int parse_owner_mode(char **f, struct entry *e, uint32_t type)
{
	uint32_t perm;

	if (parse_u32(f[0], 8, 07777, "MODE", &perm) < 0 ||
	    parse_u32(f[1], 10, MKCPIO_MAX_ID, "UID", &e->uid) < 0 ||
	    parse_u32(f[2], 10, MKCPIO_MAX_ID, "GID", &e->gid) < 0)
		return -1;
	e->mode = type | perm;
	return 0;
}

static int parse_nod(char **f, struct entry *e)
{
	uint32_t type;

	if (strcmp(f[4], "c") == 0)
		type = S_IFCHR;
	else if (strcmp(f[4], "b") == 0)
		type = S_IFBLK;
	else {
		error("nod: type \"%s\" must be c or b", f[4]);
		return -1;
	}
	if (parse_archive_path(f[0], e->path) < 0 ||
	    parse_owner_mode(f + 1, e, type) < 0 ||
	    parse_u32(f[5], 10, MKCPIO_MAX_MAJOR, "MAJ", &e->rmajor) < 0 ||
	    parse_u32(f[6], 10, MKCPIO_MAX_MINOR, "MIN", &e->rminor) < 0)
		return -1;
	return 0;
}

#define MAX_FIELDS 9

/* Split a line into whitespace-separated fields; returns the count, or -1
 * when there are more than MAX_FIELDS - 1. */
static int split_fields(char *line, char **f)
{
	int n = 0;

	for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
		if (n == MAX_FIELDS - 1)
			return -1;
		f[n++] = tok;
	}
	f[n] = NULL;
	return n;
}

struct kind {
	const char *word;
	int fields;            /* after the keyword */
	const char *syntax;
};

static const struct kind kinds[] = {
	{ "dir",   4, "dir PATH MODE UID GID" },
	{ "file",  5, "file PATH SRC MODE UID GID" },
	{ "nod",   7, "nod PATH MODE UID GID c|b MAJ MIN" },
	{ "slink", 5, "slink PATH TARGET MODE UID GID" },
};

/* Parse one non-empty spec line into e. Returns 0, or -1 after an error. */
static int parse_line(char *line, struct entry *e)
{
	char *f[MAX_FIELDS];
	int n = split_fields(line, f);
	const struct kind *k = NULL;

	memset(e, 0, sizeof(*e));
	if (n < 0) {
		error("too many fields");
		return -1;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(f[0], kinds[i].word) == 0)
			k = &kinds[i];
	if (!k) {
		error("unknown entry type \"%s\"; use dir, file, nod or slink", f[0]);
		return -1;
	}
	if (n - 1 != k->fields) {
		error("%s: %d fields, expected: %s", k->word, n - 1, k->syntax);
		return -1;
	}
	if (k->word[0] == 'd')
		return parse_archive_path(f[1], e->path) < 0 ? -1 :
		       parse_owner_mode(f + 2, e, S_IFDIR);
	if (k->word[0] == 'n')
		return parse_nod(f + 1, e);
	if (parse_archive_path(f[1], e->path) < 0 ||
	    copy_bounded(e->src, f[2], k->word[0] == 'f' ? "SRC" : "TARGET") < 0)
		return -1;
	return parse_owner_mode(f + 3, e, k->word[0] == 'f' ? S_IFREG : S_IFLNK);
}

/* ---- output ----------------------------------------------------------- */

static int out_write(struct writer *w, const void *buf, size_t len)
{
	if (w->offset + len > MKCPIO_MAX_TOTAL_BYTES) {
		error("archive larger than MKCPIO_MAX_TOTAL_BYTES (%llu MiB)",
		      MKCPIO_MAX_TOTAL_BYTES >> 20);
		return -1;
	}
	if (len && fwrite(buf, 1, len, w->out) != len) {
		error("writing %s: %s", w->out_name, strerror(errno));
		return -1;
	}
	w->offset += len;
	return 0;
}

static int out_pad4(struct writer *w)
{
	static const char zeros[4];
	size_t pad = (4 - (w->offset & 3)) & 3;

	return out_write(w, zeros, pad);
}

static int write_header(struct writer *w, const struct entry *e,
			uint32_t ino, uint32_t nlink, uint32_t size)
{
	char hdr[NEWC_HEADER_LEN + 1];
	size_t namesize = strlen(e->path) + 1;

	/* Fields: ino mode uid gid nlink mtime filesize devmajor devminor
	 * rdevmajor rdevminor namesize check. The archive's own device is 0:0
	 * for every entry, so nothing of the build host leaks in. */
	snprintf(hdr, sizeof(hdr),
		 NEWC_MAGIC "%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ino, e->mode, e->uid, e->gid, nlink, w->mtime, size, 0u, 0u,
		 e->rmajor, e->rminor, (uint32_t)namesize, 0u);
	if (out_write(w, hdr, NEWC_HEADER_LEN) < 0 ||
	    out_write(w, e->path, namesize) < 0)
		return -1;
	return out_pad4(w);
}

/* Copy exactly size bytes of fd; a file that grows or shrinks while we
 * read it is an error rather than a silently different archive. */
static int copy_file_data(struct writer *w, int fd, const char *src, uint32_t size)
{
	char buf[MKCPIO_COPY_CHUNK];
	uint32_t left = size;

	while (left > 0) {
		size_t want = left < sizeof(buf) ? left : sizeof(buf);
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("reading %s: %s", src, strerror(errno));
			return -1;
		}
		if (n == 0) {
			error("reading %s: file shrank while it was read", src);
			return -1;
		}
		if (out_write(w, buf, (size_t)n) < 0)
			return -1;
		left -= (uint32_t)n;
	}
	if (read(fd, buf, 1) != 0) {
		error("reading %s: file grew while it was read", src);
		return -1;
	}
	return out_pad4(w);
}

static int write_file(struct writer *w, const struct entry *e)
{
	struct stat st;
	int fd = open(e->src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (fd < 0) {
		error("file %s: cannot open %s: %s", e->path, e->src, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("file %s: %s is not a regular file", e->path, e->src);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > MKCPIO_MAX_FILE_BYTES) {
		error("file %s: %s is %lld bytes, above MKCPIO_MAX_FILE_BYTES (%u MiB)",
		      e->path, e->src, (long long)st.st_size, MKCPIO_MAX_FILE_BYTES >> 20);
		close(fd);
		return -1;
	}
	rc = write_header(w, e, w->next_ino++, 1, (uint32_t)st.st_size);
	if (rc == 0)
		rc = copy_file_data(w, fd, e->src, (uint32_t)st.st_size);
	close(fd);
	return rc;
}

static int write_entry(struct writer *w, const struct entry *e)
{
	if (++w->entries > MKCPIO_MAX_ENTRIES) {
		error("more than MKCPIO_MAX_ENTRIES (%d) entries", MKCPIO_MAX_ENTRIES);
		return -1;
	}
	switch (e->mode & S_IFMT) {
	case S_IFREG:
		return write_file(w, e);
	case S_IFLNK: {
		/* A symlink's data is its target, without a NUL. */
		uint32_t len = (uint32_t)strlen(e->src);

		if (write_header(w, e, w->next_ino++, 1, len) < 0 ||
		    out_write(w, e->src, len) < 0)
			return -1;
		return out_pad4(w);
	}
	case S_IFDIR:
		return write_header(w, e, w->next_ino++, 2, 0);
	default:
		return write_header(w, e, w->next_ino++, 1, 0);
	}
}

static int write_trailer(struct writer *w)
{
	struct entry t;

	memset(&t, 0, sizeof(t));
	strcpy(t.path, NEWC_TRAILER);
	return write_header(w, &t, 0, 1, 0);
}

/* ---- the spec --------------------------------------------------------- */

/* Read one line into buf; returns 1, 0 at EOF, -1 when the line does not
 * fit or contains a NUL byte (fgets would silently cut it there). */
static int read_line(FILE *in, char *buf, size_t cap)
{
	size_t len = 0;
	int c;

	while ((c = getc(in)) != EOF && c != '\n') {
		if (c == '\0') {
			error("NUL byte in the spec");
			return -1;
		}
		if (len == cap - 1) {
			error("line longer than MKCPIO_LINE_MAX (%d)", MKCPIO_LINE_MAX - 1);
			return -1;
		}
		buf[len++] = (char)c;
	}
	if (c == EOF && len == 0)
		return 0;
	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	return 1;
}

static bool blank_or_comment(const char *s)
{
	s += strspn(s, " \t");
	return *s == '\0' || *s == '#';
}

static int write_spec(struct writer *w, FILE *in)
{
	static char line[MKCPIO_LINE_MAX];
	static struct entry e;
	int r;

	for (;;) {
		spec_line++;
		r = read_line(in, line, sizeof(line));
		if (r <= 0)
			break;
		if (blank_or_comment(line))
			continue;
		if (parse_line(line, &e) < 0 || write_entry(w, &e) < 0)
			return -1;
	}
	if (r < 0)
		return -1;
	if (ferror(in)) {
		error("reading spec: %s", strerror(errno));
		return -1;
	}
	spec_line = 0;
	return write_trailer(w);
}

static int finish_output(struct writer *w)
{
	if (fflush(w->out) != 0 || ferror(w->out)) {
		error("writing %s: %s", w->out_name, strerror(errno));
		return -1;
	}
	if (w->out != stdout && fclose(w->out) != 0) {
		error("closing %s: %s", w->out_name, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct writer w = { .out = stdout, .out_name = "stdout", .next_ino = 1 };
	const char *out_path = NULL;
	FILE *in = stdin;
	int opt, rc;

	while ((opt = getopt(argc, argv, "ht:o:")) != -1) {
		switch (opt) {
		case 't':
			if (parse_u32(optarg, 10, UINT32_MAX, "-t EPOCH", &w.mtime) < 0)
				return 1;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind > 1) {
		error("more than one SPEC given; see -h");
		return 1;
	}
	if (argc - optind == 1 && strcmp(argv[optind], "-") != 0) {
		spec_name = argv[optind];
		in = fopen(spec_name, "r");
		if (!in) {
			error("cannot open spec %s: %s", spec_name, strerror(errno));
			return 1;
		}
	}
	if (out_path) {
		w.out = fopen(out_path, "w");
		w.out_name = out_path;
		if (!w.out) {
			error("cannot write %s: %s", out_path, strerror(errno));
			return 1;
		}
	}
	rc = write_spec(&w, in);
	if (rc == 0)
		rc = finish_output(&w);
	else if (w.out != stdout)
		fclose(w.out);
	if (rc < 0 && out_path)
		unlink(out_path);  /* never leave a partial archive behind */
	return rc < 0 ? 1 : 0;
}
