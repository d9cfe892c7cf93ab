/* The lists of struct config, each one's formatter and lock rule: what
 * the list table (config_table.c) names, below it, so the formatter
 * (config_format.c) and the lock (config_lock.c) can walk the table. */
#include "config_lists.h"

#include <cap-ng.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_types.h"
#include "config_values.h"
#include "sink.h"

int hi_config_why_weaker(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 1;
}

/* The lists, one item a line: repeatable keys keep the order exactly. */
void hi_format_booleans(struct sink *o, const struct config *c)
{
	for (size_t i = 0; i < c->n_booleans; i++)
		hi_sink_printf(o, "boolean = %s=%s\n", c->booleans[i].name, c->booleans[i].value ? "on" : "off");
}

void hi_format_sysctls(struct sink *o, const struct config *c)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		hi_sink_printf(o, "%s%s = %s\n", c->sysctls[i].ignore_failure ? "-" : "", c->sysctls[i].key, c->sysctls[i].value);
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (c->sysctls[i].required)
			hi_sink_printf(o, "require = %s\n", c->sysctls[i].key);
}

void hi_format_kernel_opts(struct sink *o, const struct config *c)
{
	for (size_t i = 0; i < c->n_kernel_opts; i++)
		hi_sink_printf(o, "%s = %s\n", c->kernel_opts[i].required ? "require" : "warn", c->kernel_opts[i].word);
}

void hi_format_cap_drop(struct sink *o, const struct config *c)
{
	for (size_t i = 0; i < c->n_cap_drop; i++) {
		const char *name = capng_capability_to_name((unsigned)c->cap_drop[i]);
		if (name)
			hi_sink_printf(o, "drop = cap_%s\n", name);
		else
			o->full = true;   /* cannot be written back: fail */
	}
}

void hi_format_polydirs(struct sink *o, const struct config *c)
{
	hi_sink_printf(o, "polydirs =");
	for (size_t i = 0; i < c->n_polydirs; i++)
		hi_sink_printf(o, " %s", c->polydirs[i]);
	hi_sink_printf(o, "\n");
}

int hi_booleans_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	if (o->n_booleans != n->n_booleans || memcmp(o->booleans, n->booleans, sizeof o->booleans) != 0)
		return hi_config_why_weaker(why, len, "selinux.boolean (booleans cannot change under the lock)");
	return 0;
}

/* Sysctls that another section sets when its protection is on: adding one
 * by override would undo that protection (the sysctl stage writes after the
 * memory stage), so under the lock it counts as configured. */
static const char *sysctl_owner(const struct config *c, const char *key)
{
	static const char *const aslr_keys[] = {
		"kernel.randomize_va_space", "vm.mmap_min_addr", "vm.mmap_rnd_bits", "vm.mmap_rnd_compat_bits", NULL
	};

	if (c->aslr && hi_config_lookup_name(aslr_keys, key) >= 0)
		return "memory.aslr";
	if (c->tiocsti != TIOCSTI_ALLOW && strcmp(key, "dev.tty.legacy_tiocsti") == 0)
		return "tty.tiocsti";
	if (c->lock_modules && strcmp(key, "kernel.modules_disabled") == 0)
		return "locks.modules";
	if (c->lock_kexec && strcmp(key, "kernel.kexec_load_disabled") == 0)
		return "locks.kexec";
	if (c->ptrace_scope >= 0 && strcmp(key, "kernel.yama.ptrace_scope") == 0)
		return "locks.ptrace_scope";
	return NULL;
}

int hi_sysctls_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < n->n_sysctls; i++) {
		const char *owner = sysctl_owner(o, n->sysctls[i].key);
		if (owner && hi_config_sysctl_index(o, n->sysctls[i].key) < 0)
			return hi_config_why_weaker(why, len, "sysctl %s is set by %s", n->sysctls[i].key, owner);
	}
	for (size_t i = 0; i < o->n_sysctls; i++) {
		const struct sysctl_setting *os = &o->sysctls[i];
		long j = hi_config_sysctl_index(n, os->key);
		const struct sysctl_setting *ns = j < 0 ? NULL : &n->sysctls[j];
		if (!ns || strcmp(os->value, ns->value) != 0 || (ns->ignore_failure && !os->ignore_failure) ||
		    (os->required && !ns->required))
			return hi_config_why_weaker(why, len, "sysctl %s = %s is set by the config (only new sysctls can be added under the lock)",
				      os->key, os->value);
	}
	return 0;
}

int hi_cap_drop_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < o->n_cap_drop; i++) {
		if (hi_config_cap_listed(n, o->cap_drop[i]))
			continue;
		const char *name = capng_capability_to_name((unsigned)o->cap_drop[i]);
		return hi_config_why_weaker(why, len, "cap_%s would no longer be dropped", name ? name : "?");
	}
	return 0;
}

int hi_polydirs_weaker(const struct config *o, const struct config *n, char *why, size_t len)
{
	for (size_t i = 0; i < o->n_polydirs; i++)
		if (!hi_config_polydir_listed(n, o->polydirs[i]))
			return hi_config_why_weaker(why, len, "polydir %s would no longer be prepared", o->polydirs[i]);
	return 0;
}
