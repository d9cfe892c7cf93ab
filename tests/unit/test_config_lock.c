/* The lock, walked from the tables: every row of config_key_table has a
 * rule, and for each row and each list the test tries overrides that
 * weaken and that strengthen a locked config and checks what the lock
 * does. A key added without a rule, or a string or list key added without
 * a case here, fails this test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "config_lock.h"
#include "config_table.h"
#include "tap.h"

static char err[CONFIG_ERR_MAX];

/* Apply "SECTION.KEY=VALUE" to c; the lock is whatever c says. */
static int over(struct config *c, const char *name, const char *value)
{
	err[0] = '\0';
	return hi_config_override(c, name, value, err, sizeof err);
}

static void full_name(char *out, size_t cap, const struct key_def *d)
{
	snprintf(out, cap, "%s.%s", hi_config_section_names[d->section], d->key);
}

/* From a config whose key holds `from` (set before the lock), try `to`
 * under the lock; want 1 (refused) or 0 (applied). */
static void try_change(const struct key_def *d, const char *from, const char *to, int want)
{
	static struct config c, before;
	char name[96];

	full_name(name, sizeof name, d);
	hi_config_defaults(&c);
	if (over(&c, name, from) != 0) {
		tap_ok(0, "%s: base value %s applies (%s)", name, from, err);
		return;
	}
	c.lock_cmdline = true;
	before = c;
	int rc = over(&c, name, to);
	int same = memcmp(&c, &before, sizeof c) == 0;
	tap_ok(rc == want && (want == 0 || same), "locked %s: %s -> %s %s", name, from, to,
	       want ? "refused" : "applied");
	if (rc != want)
		printf("#   rc %d, want %d: %s\n", rc, want, err);
	if (want == 1 && rc == 1)
		tap_ok(strstr(err, name) || strstr(err, d->key), "locked %s: the refusal names the key", name);
}

static int rank_of(const struct key_def *d, int v)
{
	return d->rank ? d->rank(v) : v;
}

/* Two valid values for each string key: the first a protection's
 * setting, the second another one. */
static const struct { const char *key, *a, *b; } string_samples[] = {
	{ "boot.init", "/sbin/init", "/bin/sh" },
	{ "selinux.type", "default", "mls" },
	{ "mounts.tmp_size", "50%", "10%" },
	{ "verity.roothash", "4392712ba01368efdf14b05c76f9e4df0d53664630b5d48632ed17a137f39076",
	  "6ad8a1fbce8b6bc8ee7a6fd6a8c8ba98b9c70d2a53e3e0e2d63b0a0bc4b5c0d1" },
	{ "verity.data", "/dev/vda", "LABEL=data" },
	{ "verity.hash", "/dev/vdb", "LABEL=hash" },
	{ "verity.options", "ignore-zero-blocks", "check-at-most-once" },
};

static const char *sample(const char *name, int second)
{
	for (size_t i = 0; i < sizeof string_samples / sizeof string_samples[0]; i++)
		if (strcmp(string_samples[i].key, name) == 0)
			return second ? string_samples[i].b : string_samples[i].a;
	return NULL;
}

static void test_bool(const struct key_def *d)
{
	const char *off = d->kind == K_NAMED_BOOL ? d->names[0] : "no";
	const char *on = d->kind == K_NAMED_BOOL ? d->names[1] : "yes";

	switch (d->lock) {
	case LOCK_ON_ONLY:
		try_change(d, on, off, 1);
		try_change(d, off, on, 0);
		break;
	case LOCK_FIXED:
		try_change(d, on, off, 1);
		try_change(d, off, on, 1);
		try_change(d, on, on, 0);
		break;
	default:
		tap_ok(0, "%s.%s: a bool with lock rule %d has no test", hi_config_section_names[d->section], d->key, d->lock);
	}
}

/* Every pair of names: applied exactly when the rank rises. */
static void test_enum(const struct key_def *d)
{
	for (int i = 0; d->names[i]; i++)
		for (int j = 0; d->names[j]; j++) {
			int want;
			if (d->lock == LOCK_FIXED)
				want = i != j;
			else if (d->lock == LOCK_RANK)
				want = i != j && rank_of(d, j) <= rank_of(d, i);
			else {
				tap_ok(0, "%s: an enum with lock rule %d has no test", d->key, d->lock);
				return;
			}
			try_change(d, d->names[i], d->names[j], want);
		}
}

static void test_int(const struct key_def *d)
{
	char lo[24], hi[24];

	snprintf(lo, sizeof lo, "%ld", d->min);
	snprintf(hi, sizeof hi, "%ld", d->min + 1);
	switch (d->lock) {
	case LOCK_FREE:
		try_change(d, hi, lo, 0);
		try_change(d, lo, hi, 0);
		break;
	case LOCK_FIXED:
		try_change(d, hi, lo, 1);
		try_change(d, lo, hi, 1);
		try_change(d, lo, lo, 0);
		break;
	case LOCK_RANK:
		try_change(d, lo, hi, rank_of(d, (int)d->min + 1) <= rank_of(d, (int)d->min));
		try_change(d, hi, lo, rank_of(d, (int)d->min) <= rank_of(d, (int)d->min + 1));
		if (d->none_is_minus_one) {
			try_change(d, "none", lo, rank_of(d, (int)d->min) <= rank_of(d, -1));
			try_change(d, lo, "none", rank_of(d, -1) <= rank_of(d, (int)d->min));
		}
		break;
	default:
		tap_ok(0, "%s: an int with lock rule %d has no test", d->key, d->lock);
	}
}

static void test_string(const struct key_def *d)
{
	char name[96];

	full_name(name, sizeof name, d);
	const char *a = sample(name, 0), *b = sample(name, 1);
	if (!tap_ok(a && b, "%s: the test has two sample values (add them to string_samples)", name))
		return;
	const char *empty = d->off_is_empty ? "off" : "";
	switch (d->lock) {
	case LOCK_FIXED:
		try_change(d, a, b, 1);
		try_change(d, empty, a, 1);
		try_change(d, a, empty, 1);
		try_change(d, a, a, 0);
		break;
	case LOCK_ON_ONLY:
		try_change(d, a, empty, 1);
		try_change(d, empty, a, 0);
		try_change(d, a, b, 0);
		break;
	default:
		tap_ok(0, "%s: a string with lock rule %d has no test", name, d->lock);
	}
}

/* ---- lists ------------------------------------------------------------------ */

/* For each list key: a locked config, an override that weakens it (NULL
 * when the rule is LOCK_ADD_ONLY: nothing can) and one that strengthens
 * it. */
static const struct list_case {
	const char *key, *config, *weaken_value, *strengthen_value;
} list_cases[] = {
	{ "selinux.boolean", "[selinux]\nboolean = allow_execmem=off\n", "allow_execmem=on", NULL },
	{ "sysctl.require", "[sysctl]\nkernel.kptr_restrict = 2\n", NULL, "kernel.kptr_restrict" },
	{ "sysctl.include", "[sysctl]\nkernel.kptr_restrict = 2\n", NULL, NULL },
	{ "kernel.warn", "[kernel]\nrequire = slab_nomerge\n", NULL, "init_on_free=1" },
	{ "kernel.require", "[kernel]\nwarn = slab_nomerge\n", NULL, "slab_nomerge" },
	{ "capabilities.drop", "[capabilities]\ndrop = cap_sys_module\n", NULL, "cap_sys_rawio" },
	{ "capabilities.keep", "[capabilities]\ndrop = cap_sys_module\n", "cap_sys_module", "cap_bpf" },
	{ "mounts.polydirs", "[mounts]\npolydirs = /tmp /var/tmp\n", "/tmp", "/tmp /var/tmp /srv/tmp" },
};

/* The sysctl assignments are no row: the [sysctl] list rule covers them. */
static const struct { const char *key, *config, *weaken_key, *weaken_value, *strengthen_key, *strengthen_value; } sysctl_case = {
	"sysctl", "[sysctl]\nkernel.kptr_restrict = 2\n[memory]\naslr = yes\n",
	"sysctl.kernel.kptr_restrict", "0", "sysctl.kernel.sysrq", "0",
};

static int locked_config(struct config *c, const char *text)
{
	hi_config_defaults(c);
	err[0] = '\0';
	int rc = hi_config_parse(c, text, strlen(text), "t.conf", "", err, sizeof err);
	c->lock_cmdline = true;
	return rc;
}

/* Nothing the old config had is gone from the new one. */
static int kernel_superset(const struct config *o, const struct config *n)
{
	for (size_t i = 0; i < o->n_kernel_opts; i++) {
		size_t j;
		for (j = 0; j < n->n_kernel_opts; j++)
			if (strcmp(o->kernel_opts[i].word, n->kernel_opts[j].word) == 0)
				break;
		if (j == n->n_kernel_opts || (o->kernel_opts[i].required && !n->kernel_opts[j].required))
			return 0;
	}
	return 1;
}

static void test_list_key(const struct key_def *d)
{
	static struct config c, before;
	char name[96];
	const struct list_case *lc = NULL;

	full_name(name, sizeof name, d);
	for (size_t i = 0; i < sizeof list_cases / sizeof list_cases[0]; i++)
		if (strcmp(list_cases[i].key, name) == 0)
			lc = &list_cases[i];
	if (!tap_ok(lc != NULL, "%s: the list key has a case in list_cases", name))
		return;
	if (!tap_ok(locked_config(&c, lc->config) == 0, "%s: case config parses", name)) {
		printf("#   %s\n", err);
		return;
	}
	if (d->lock == LOCK_LIST) {
		before = c;
		tap_ok(lc->weaken_value && over(&c, name, lc->weaken_value) == 1 && memcmp(&c, &before, sizeof c) == 0,
		       "locked %s=%s refused", name, lc->weaken_value ? lc->weaken_value : "(no weakening case)");
	} else if (d->lock == LOCK_ADD_ONLY) {
		tap_ok(lc->weaken_value == NULL, "%s: an add-only key has no weakening value", name);
	} else {
		tap_ok(0, "%s: a list key with lock rule %d", name, d->lock);
	}
	if (!lc->strengthen_value) {
		/* include: only in a file, never from the command line. */
		tap_ok(over(&c, name, "/etc/sysctl.conf") == -1, "%s is refused on the command line", name);
		return;
	}
	before = c;
	int rc = over(&c, name, lc->strengthen_value);
	tap_ok(rc == 0, "locked %s=%s applied", name, lc->strengthen_value);
	if (rc != 0)
		printf("#   %s\n", err);
	if (d->list == LIST_KERNEL_OPTS)
		tap_ok(kernel_superset(&before, &c), "%s: every checked word is still checked", name);
}

static void test_sysctl_list(void)
{
	static struct config c;

	tap_ok(locked_config(&c, sysctl_case.config) == 0, "sysctl case parses");
	tap_ok(over(&c, sysctl_case.weaken_key, sysctl_case.weaken_value) == 1, "locked %s=%s refused",
	       sysctl_case.weaken_key, sysctl_case.weaken_value);
	tap_ok(over(&c, "sysctl.kernel.randomize_va_space", "0") == 1,
	       "locked: a sysctl owned by memory.aslr cannot be added");
	tap_ok(over(&c, sysctl_case.strengthen_key, sysctl_case.strengthen_value) == 0, "locked %s=%s applied",
	       sysctl_case.strengthen_key, sysctl_case.strengthen_value);
}

/* Every list of the list table is reached by some key row or case. */
static void test_lists_covered(void)
{
	for (size_t l = 0; l < hi_config_n_lists; l++) {
		const struct list_def *ld = &hi_config_list_table[l];
		int rows = 0, add_only = 0;
		for (size_t k = 0; k < hi_config_n_keys; k++) {
			if (hi_config_key_table[k].kind != K_LIST || hi_config_key_table[k].list != ld->id)
				continue;
			rows++;
			add_only += hi_config_key_table[k].lock == LOCK_ADD_ONLY;
		}
		tap_ok(rows > 0 || ld->id == LIST_SYSCTLS, "list %s is set by a key row", ld->name);
		if (!ld->weaker)
			tap_ok(rows > 0 && add_only == rows, "list %s has no rule: all its rows are add-only", ld->name);
	}
}

static void test_lock_cmdline(void)
{
	static struct config c;

	hi_config_defaults(&c);
	c.lock_cmdline = true;
	tap_ok(over(&c, "boot.lock_cmdline", "no") == 1 && c.lock_cmdline, "locked boot.lock_cmdline: yes -> no refused");
	tap_ok(over(&c, "boot.lock_cmdline", "yes") == 0, "locked boot.lock_cmdline: yes -> yes applied");
}

int main(void)
{
	size_t unset = 0;

	for (size_t k = 0; k < hi_config_n_keys; k++) {
		const struct key_def *d = &hi_config_key_table[k];
		char name[96];
		full_name(name, sizeof name, d);
		if (d->lock == LOCK_UNSET) {
			unset++;
			tap_ok(0, "%s has a lock rule", name);
			continue;
		}
		if (strcmp(name, "boot.lock_cmdline") == 0)
			continue;
		switch (d->kind) {
		case K_BOOL:
		case K_NAMED_BOOL:
			test_bool(d);
			break;
		case K_ENUM:
			test_enum(d);
			break;
		case K_INT:
			test_int(d);
			break;
		case K_STRING:
			test_string(d);
			break;
		case K_LIST:
			test_list_key(d);
			break;
		}
	}
	tap_ok(unset == 0, "every key of the table has a lock rule (%zu rows)", hi_config_n_keys);
	test_lock_cmdline();
	test_sysctl_list();
	test_lists_covered();

	static struct config o, n;
	hi_config_defaults(&o);
	n = o;
	char why[CONFIG_ERR_MAX];
	tap_ok(hi_config_weaker(&o, &n, why, sizeof why) == 0, "an unchanged config is not weaker");
	return tap_done();
}
