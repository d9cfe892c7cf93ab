/* Probe: can a root process after the boot add its own key to what IMA
 * appraisal trusts? Raw add_key(2)/keyctl(2), no keyutils, so it trusts
 * nothing hardinit wrote. Usage:
 *
 *   ima_keyring CERT.der EXEC_DIRECT EXEC_SESSION EXEC_USER
 *
 * CERT is the attacker's certificate; each EXEC_* a file signed by its key,
 * not appraised before (IMA caches a verdict per inode), executed after the
 * matching attack. Prints one line KEY=RESULT per attempt: RESULT is
 * "ok" or the errno's name. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/keyctl.h>

#ifndef KEYCTL_MOVE
#define KEYCTL_MOVE 30
#endif

static const char *result(long rc)
{
	static char buf[32];

	if (rc >= 0)
		return "ok";
	switch (errno) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EEXIST: return "EEXIST";
	case ENOKEY: return "ENOKEY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case ENOTDIR: return "ENOTDIR";
	default:
		snprintf(buf, sizeof buf, "errno%d", errno);
		return buf;
	}
}

static long keyctl(long op, long a, long b, long c, long d)
{
	return syscall(SYS_keyctl, op, a, b, c, d);
}

static long add_key(const char *type, const char *desc, const void *data, size_t len, long ring)
{
	return syscall(SYS_add_key, type, desc, data, len, ring);
}

/* The keys a keyring links (KEYCTL_READ: an array of serials). */
static long ring_keys(long ring, int32_t *ids, size_t max)
{
	long n = keyctl(KEYCTL_READ, ring, (long)ids, (long)(max * sizeof *ids), 0);
	return n < 0 ? n : n / (long)sizeof *ids;
}

/* Exec path in a child: "ok" when it ran and exited 0, else the errno
 * execve gave (the child reports it as its exit status). */
static const char *run(const char *path)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
		execve(path, argv, envp);
		_exit(errno & 0x7f);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return "fork-failed";
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return "ok";
	errno = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	return result(-1);
}

static long search_ima(long from)
{
	return keyctl(KEYCTL_SEARCH, from, (long)"keyring", (long)"_ima", 0);
}

int main(int argc, char **argv)
{
	static char cert[16384];
	char desc[160];
	int32_t ids[16];

	if (argc != 5) {
		fprintf(stderr, "usage: ima_keyring CERT.der EXEC_DIRECT EXEC_SESSION EXEC_USER\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, cert, sizeof cert);
	if (len <= 0) {
		fprintf(stderr, "ima_keyring: cannot read %s\n", argv[1]);
		return 2;
	}
	close(fd);

	long ima = search_ima(KEY_SPEC_USER_KEYRING);
	printf("found=%s\n", result(ima));
	if (ima < 0)
		return 1;
	long n = keyctl(KEYCTL_DESCRIBE, ima, (long)desc, sizeof desc - 1, 0);
	desc[n > 0 && n < (long)sizeof desc ? n : 0] = '\0';
	printf("describe=%s\n", desc);
	long before = ring_keys(ima, ids, 16);
	printf("keys_before=%ld\n", before);
	long cert_id = before > 0 ? ids[0] : -1;

	/* 1. Straight in: add_key(2) into _ima. */
	printf("add_key=%s\n", result(add_key("asymmetric", NULL, cert, (size_t)len, ima)));
	printf("add_keyring=%s\n", result(add_key("keyring", "nested", NULL, 0, ima)));

	/* The attacker's key, in a session keyring of its own that links the
	 * user keyring (the second path). */
	printf("join_session=%s\n", result(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0)));
	printf("link_user_into_session=%s\n",
	       result(keyctl(KEYCTL_LINK, KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING, 0, 0)));
	long via = search_ima(KEY_SPEC_SESSION_KEYRING);
	printf("session_finds_ima=%s\n", via == ima ? "yes" : "no");
	printf("session_add_key=%s\n", result(add_key("asymmetric", NULL, cert, (size_t)len, via)));
	long mine = add_key("asymmetric", NULL, cert, (size_t)len, KEY_SPEC_SESSION_KEYRING);
	printf("own_key=%s\n", result(mine));

	/* 2. Other ways in: link, move, and changing the keyring itself. */
	printf("link=%s\n", result(keyctl(KEYCTL_LINK, mine, ima, 0, 0)));
	printf("move=%s\n", result(keyctl(KEYCTL_MOVE, mine, KEY_SPEC_SESSION_KEYRING, ima, 0)));
	printf("setperm=%s\n", result(keyctl(KEYCTL_SETPERM, ima, 0x3f3f3f3f, 0, 0)));
	printf("chown=%s\n", result(keyctl(KEYCTL_CHOWN, ima, 1001, -1, 0)));
	printf("restrict=%s\n", result(keyctl(KEYCTL_RESTRICT_KEYRING, ima, (long)"asymmetric", 0, 0)));
	printf("clear=%s\n", result(keyctl(KEYCTL_CLEAR, ima, 0, 0, 0)));
	printf("unlink_cert=%s\n", result(keyctl(KEYCTL_UNLINK, cert_id, ima, 0, 0)));
	printf("revoke_cert=%s\n", result(keyctl(KEYCTL_REVOKE, cert_id, 0, 0, 0)));
	printf("setperm_cert=%s\n", result(keyctl(KEYCTL_SETPERM, cert_id, 0x3f3f3f3f, 0, 0)));
	printf("keys_after=%ld\n", ring_keys(ima, ids, 16));
	printf("exec_direct=%s\n", run(argv[2]));

	/* 3. IMA looks "_ima" up by name: one of the attacker's own, found
	 * first in its session keyring... */
	long fake = add_key("keyring", "_ima", NULL, 0, KEY_SPEC_SESSION_KEYRING);
	printf("session_fake_ima=%s\n", result(fake));
	printf("session_fake_key=%s\n", result(add_key("asymmetric", NULL, cert, (size_t)len, fake)));
	printf("session_search_finds_fake=%s\n", search_ima(KEY_SPEC_SESSION_KEYRING) == fake ? "yes" : "no");
	printf("exec_session=%s\n", run(argv[3]));

	/* ...or in place of hardinit's in root's user keyring. */
	printf("unlink_ima_from_user=%s\n", result(keyctl(KEYCTL_UNLINK, ima, KEY_SPEC_USER_KEYRING, 0, 0)));
	long user_fake = add_key("keyring", "_ima", NULL, 0, KEY_SPEC_USER_KEYRING);
	printf("user_fake_ima=%s\n", result(user_fake));
	printf("user_fake_key=%s\n", result(add_key("asymmetric", NULL, cert, (size_t)len, user_fake)));
	printf("exec_user=%s\n", run(argv[4]));
	return 0;
}
