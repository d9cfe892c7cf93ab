/* selinux_label: print the SELinux label of each path argument, read raw
 * from its security.selinux xattr (no libselinux, no symlink following):
 *   PATH LABEL            the label
 *   PATH -ENODATA         no label stored
 *   PATH -EOPNOTSUPP      the file system holds no such xattrs
 * Used inside the VM tests as an independent witness of the relabel. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

#define LABEL_MAX 256

static const char *errname(int e)
{
	switch (e) {
	case ENODATA: return "-ENODATA";
	case EOPNOTSUPP: return "-EOPNOTSUPP";
	case ENOENT: return "-ENOENT";
	case EACCES: return "-EACCES";
	default: return "-EOTHER";
	}
}

int main(int argc, char **argv)
{
	char label[LABEL_MAX + 1];
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		ssize_t n = lgetxattr(argv[i], "security.selinux", label, LABEL_MAX);
		if (n < 0) {
			printf("%s %s\n", argv[i], errname(errno));
			rc = 1;
			continue;
		}
		/* The kernel includes the terminating NUL in the value. */
		label[n] = '\0';
		printf("%s %s\n", argv[i], label);
	}
	return rc;
}
