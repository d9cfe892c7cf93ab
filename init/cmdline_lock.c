/* The kernel's own command-line words under the lock: a boot loader whose
 * command line an attacker can edit must not steer the hand-off or the
 * LSMs by the kernel's words any more than by hardinit.* ones. Each row
 * says what the word does and why it is refused or allowed; the
 * architecture-only words (arch/) are the kernel's memory and CPU
 * options, checked by [kernel], not steering words. */
#include <string.h>

#include "cmdline_lock.h"

const struct kernel_word hi_kernel_words[] = {
	/* The hand-off. */
	{ "init", false, NULL, KWORD_IGNORED,
	  "names the program hardinit hands off to in place of the built one; hardinit alone reads it" },
	{ "rdinit", false, NULL, KWORD_ALLOWED,
	  "the kernel runs it in place of the initramfs's /init: when hardinit reads it, it named hardinit; "
	  "a boot it sent elsewhere never runs hardinit, so no lock refuses it, and that program can extend "
	  "PCR 12 with the prediction's own events: only the boot loader's measurements before it show it" },
	{ "--", true, NULL, KWORD_FATAL,
	  "every word after it becomes the real init's argv (systemd takes options there: --unit=)" },
	/* What the real init boots: systemd reads these from /proc/cmdline
	 * itself, so leaving them out of its argv would not stop it. */
	{ "single", true, NULL, KWORD_FATAL, "the real init boots to a rescue shell" },
	{ "s", true, NULL, KWORD_FATAL, "the real init boots to a rescue shell (runlevel S)" },
	{ "S", true, NULL, KWORD_FATAL, "the real init boots to a rescue shell (runlevel S)" },
	{ "-s", true, NULL, KWORD_FATAL, "the real init boots to a rescue shell" },
	{ "1", true, NULL, KWORD_FATAL, "the real init boots to runlevel 1, a rescue shell" },
	{ "2", true, NULL, KWORD_FATAL, "the real init boots to runlevel 2, not the built target" },
	{ "3", true, NULL, KWORD_FATAL, "the real init boots to runlevel 3, not the built target" },
	{ "4", true, NULL, KWORD_FATAL, "the real init boots to runlevel 4, not the built target" },
	{ "5", true, NULL, KWORD_FATAL, "the real init boots to runlevel 5, not the built target" },
	{ "emergency", true, NULL, KWORD_FATAL, "the real init boots to an emergency shell" },
	{ "rescue", true, NULL, KWORD_FATAL, "the real init boots to a rescue shell" },
	{ "-b", true, NULL, KWORD_FATAL, "the real init boots to an emergency shell" },
	{ "systemd.unit", false, NULL, KWORD_FATAL, "systemd boots this unit, not the built target" },
	{ "systemd.run", false, NULL, KWORD_FATAL, "systemd runs this command as root at boot" },
	{ "systemd.mask", false, NULL, KWORD_FATAL, "systemd masks this unit (a hardening service, say)" },
	{ "systemd.wants", false, NULL, KWORD_FATAL, "systemd starts this unit as well" },
	{ "systemd.debug_shell", false, "0", KWORD_FATAL,
	  "systemd opens a root shell without a password on a virtual console" },
	{ "systemd.debug_shell", true, NULL, KWORD_FATAL,
	  "systemd opens a root shell without a password on a virtual console" },
	{ "systemd.confirm_spawn", false, "0", KWORD_FATAL,
	  "systemd asks on the console before it starts each unit" },
	{ "systemd.crash_shell", false, "0", KWORD_FATAL,
	  "systemd opens a root shell without a password when it crashes" },
	{ "systemd.crash_shell", true, NULL, KWORD_FATAL,
	  "systemd opens a root shell without a password when it crashes" },
	{ "systemd.set_credential", false, NULL, KWORD_FATAL,
	  "hands systemd a credential: tmpfiles.extra writes any file, sysctl.extra undoes hardinit's sysctls, "
	  "ssh.authorized_keys.root lets a key log in as root" },
	{ "systemd.set_credential_binary", false, NULL, KWORD_FATAL,
	  "hands systemd a credential: tmpfiles.extra writes any file, sysctl.extra undoes hardinit's sysctls, "
	  "ssh.authorized_keys.root lets a key log in as root" },
	{ "systemd.setenv", false, NULL, KWORD_FATAL,
	  "sets a variable in systemd's environment and every unit's (LD_PRELOAD=, say), past the hand-off's clean one" },
	{ "systemd.early_core_pattern", false, NULL, KWORD_FATAL,
	  "sets the kernel's core_pattern: a |program there runs as root at the first crash" },
	/* Which volumes the luks stage opens (block/luks_plan.c reads the
	 * words itself): off, the initramfs's crypttab and the options it
	 * gives each volume are gone. */
	/* The md stage reads it: an array with a member left out runs. */
	{ "bootdegraded", false, "false", KWORD_IGNORED,
	  "runs an md array with a member left out: a missing disk, or the real member behind a disk planted "
	  "with the array's UUID and a newer event count; hardinit alone reads it" },
	{ "bootdegraded", true, NULL, KWORD_IGNORED,
	  "runs an md array with a member left out: a missing disk, or the real member behind a disk planted "
	  "with the array's UUID and a newer event count; hardinit alone reads it" },
	{ "rd.luks", false, NULL, KWORD_FATAL,
	  "no opens none of the crypttab's volumes; the command line's own then name what is opened, with its options" },
	{ "luks", false, NULL, KWORD_FATAL,
	  "no opens none of the crypttab's volumes; the command line's own then name what is opened, with its options" },
	{ "rd.luks.crypttab", false, NULL, KWORD_FATAL,
	  "no drops the initramfs's crypttab and the options it sets (the defences against a planted volume among them): "
	  "rd.luks.uuid= then opens the volume with the command line's options" },
	{ "luks.crypttab", false, NULL, KWORD_FATAL,
	  "no drops the initramfs's crypttab and the options it sets (the defences against a planted volume among them): "
	  "rd.luks.uuid= then opens the volume with the command line's options" },
	/* The LSMs: the kernel applied these before hardinit ran. */
	{ "selinux", false, "1", KWORD_FATAL, "0 turns SELinux off in the kernel" },
	{ "enforcing", false, "1", KWORD_FATAL,
	  "0 starts SELinux permissive, and systemd's reload of the policy keeps it permissive" },
	{ "checkreqprot", false, "0", KWORD_FATAL,
	  "1 makes SELinux check the protection asked for, not the one the kernel applies" },
	{ "security", false, "selinux", KWORD_FATAL,
	  "chooses the one major LSM: any other than selinux drops SELinux (Debian's SELinux boot sets security=selinux)" },
	{ "lsm", false, NULL, KWORD_FATAL,
	  "replaces the kernel's list of LSMs: it can leave out SELinux, Yama (ptrace_scope) or lockdown" },
	{ "apparmor", false, "1", KWORD_FATAL, "0 turns AppArmor off in the kernel" },
	{ "ima_appraise", false, "enforce", KWORD_FATAL,
	  "log, fix or off lets files whose IMA signature fails run" },
	{ "evm", false, NULL, KWORD_FATAL, "fix lets files whose EVM signature fails be read" },
	{ "lockdown", false, NULL, KWORD_ALLOWED, "only raises the kernel's lockdown, never lowers it" },
	{ "module.sig_enforce", false, NULL, KWORD_ALLOWED,
	  "enable-only in the kernel: 0 does not turn signature checks off" },
	{ "ima_policy", false, NULL, KWORD_ALLOWED,
	  "only adds the kernel's built-in measurement and appraisal rules" },
	/* Last, so a row naming the word says why first. A key ending in '*'
	 * is a prefix: any bare word starting so. */
	{ "-*", true, NULL, KWORD_FATAL,
	  "the kernel hands it to the real init as an option: systemd reads --crash-shell, --confirm-spawn, "
	  "--unit (with the next word) there as it reads systemd.* words" },
};

const size_t hi_kernel_n_words = sizeof hi_kernel_words / sizeof hi_kernel_words[0];

/* Names compared as the kernel's parameqn() and systemd's
 * proc_cmdline_key_streq() compare them: '-' and '_' are the same
 * character, so ima-appraise=off and systemd.debug-shell act as the rows
 * they spell differently. */
static bool key_eq(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n && a[n - 1] == '*')
		return strncmp(a, b, n - 1) == 0;
	for (;; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x != y)
			return false;
		if (x == '\0')
			return true;
	}
}

const struct kernel_word *hi_kernel_word_refused(const char *key, const char *value)
{
	for (size_t i = 0; i < hi_kernel_n_words; i++) {
		const struct kernel_word *w = &hi_kernel_words[i];
		if (!key_eq(w->key, key) || w->bare != (value == NULL))
			continue;
		if (w->action == KWORD_ALLOWED)
			return NULL;
		if (w->ok_value && value && strcmp(w->ok_value, value) == 0)
			return NULL;
		return w;
	}
	return NULL;
}
