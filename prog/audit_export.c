#include "audit_export.h"
#include "audit_types.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- what a check is ---------------------------------------------------- */

/* The descriptions audit.c gives its checks, by prefix. A new kind of
 * check (verity, TPM) is one row; name NULL: the rest of the description
 * after the prefix is the check's name. */
static const struct item_kind {
	const char *prefix;
	const char *kind;
	const char *name;
} item_kinds[] = {
	{ "sysctl ", "sysctl", NULL },
	{ "PID 1 bounding set ", "capability", NULL },
	{ "capabilities of PID 1", "capability", "readable" },
	{ "mount propagation ", "mount", NULL },
	{ "instance parent ", "instance_parent", NULL },
	{ "selinux mode", "selinux", "mode" },
	{ "selinux boolean ", "selinux_boolean", NULL },
	{ "memory-deny-write-execute", "memory", "mdwe" },
	{ "TIOCSTI seccomp filter in PID 1", "tty", "tiocsti_seccomp" },
	{ "/ on the verity device", "verity", "device" },
	{ "verity table of root", "verity", "table" },
	{ "verity target of root", "verity", "target" },
	{ "verity root hash", "verity", "root_hash" },
	{ "verity on corruption", "verity", "on_corruption" },
	{ "verity options", "verity", "options" },
	{ "verity status", "verity", "status" },
	{ "tpm pcr ", "tpm", NULL },
	{ "secure boot", "firmware", "secure_boot" },
	{ "started from a unified kernel image", "firmware", "uki" },
	{ "kernel lockdown", "firmware", "lockdown" },
};

const char *hi_audit_item_kind(const char *what, char *name, size_t cap)
{
	for (size_t i = 0; i < sizeof item_kinds / sizeof item_kinds[0]; i++) {
		const struct item_kind *k = &item_kinds[i];
		size_t n = strlen(k->prefix);
		if (strncmp(what, k->prefix, n) != 0)
			continue;
		snprintf(name, cap, "%s", k->name ? k->name : what + n);
		return k->kind;
	}
	snprintf(name, cap, "%s", what);
	return "other";
}

/* ComplianceAsCode rules a check verifies the same thing as, so a fleet
 * can join these results with oscap's. Only ids that exist in
 * ComplianceAsCode/content (linux_os/guide/.../RULE/rule.yml, checked at
 * its August 2026 tree); a sysctl without a rule there (dev.tty.*,
 * kernel.io_uring_disabled, kernel.oops_limit, kernel.warn_limit,
 * vm.unprivileged_userfaultfd, vm.mmap_rnd_bits) has none. */
static const struct rule_id {
	const char *kind, *name, *rule;
} rule_ids[] = {
	{ "sysctl", "fs.protected_fifos", "sysctl_fs_protected_fifos" },
	{ "sysctl", "fs.protected_hardlinks", "sysctl_fs_protected_hardlinks" },
	{ "sysctl", "fs.protected_regular", "sysctl_fs_protected_regular" },
	{ "sysctl", "fs.protected_symlinks", "sysctl_fs_protected_symlinks" },
	{ "sysctl", "fs.suid_dumpable", "sysctl_fs_suid_dumpable" },
	{ "sysctl", "kernel.dmesg_restrict", "sysctl_kernel_dmesg_restrict" },
	{ "sysctl", "kernel.kexec_load_disabled", "sysctl_kernel_kexec_load_disabled" },
	{ "sysctl", "kernel.kptr_restrict", "sysctl_kernel_kptr_restrict" },
	{ "sysctl", "kernel.modules_disabled", "sysctl_kernel_modules_disabled" },
	{ "sysctl", "kernel.perf_event_paranoid", "sysctl_kernel_perf_event_paranoid" },
	{ "sysctl", "kernel.randomize_va_space", "sysctl_kernel_randomize_va_space" },
	{ "sysctl", "kernel.sysrq", "sysctl_kernel_sysrq" },
	{ "sysctl", "kernel.unprivileged_bpf_disabled", "sysctl_kernel_unprivileged_bpf_disabled" },
	{ "sysctl", "kernel.yama.ptrace_scope", "sysctl_kernel_yama_ptrace_scope" },
	{ "sysctl", "net.core.bpf_jit_harden", "sysctl_net_core_bpf_jit_harden" },
	{ "sysctl", "net.ipv4.conf.all.accept_redirects", "sysctl_net_ipv4_conf_all_accept_redirects" },
	{ "sysctl", "net.ipv4.conf.all.accept_source_route", "sysctl_net_ipv4_conf_all_accept_source_route" },
	{ "sysctl", "net.ipv4.conf.all.log_martians", "sysctl_net_ipv4_conf_all_log_martians" },
	{ "sysctl", "net.ipv4.conf.all.rp_filter", "sysctl_net_ipv4_conf_all_rp_filter" },
	{ "sysctl", "net.ipv4.conf.all.secure_redirects", "sysctl_net_ipv4_conf_all_secure_redirects" },
	{ "sysctl", "net.ipv4.conf.all.send_redirects", "sysctl_net_ipv4_conf_all_send_redirects" },
	{ "sysctl", "net.ipv4.conf.default.accept_redirects", "sysctl_net_ipv4_conf_default_accept_redirects" },
	{ "sysctl", "net.ipv4.conf.default.accept_source_route", "sysctl_net_ipv4_conf_default_accept_source_route" },
	{ "sysctl", "net.ipv4.conf.default.rp_filter", "sysctl_net_ipv4_conf_default_rp_filter" },
	{ "sysctl", "net.ipv4.conf.default.secure_redirects", "sysctl_net_ipv4_conf_default_secure_redirects" },
	{ "sysctl", "net.ipv4.conf.default.send_redirects", "sysctl_net_ipv4_conf_default_send_redirects" },
	{ "sysctl", "net.ipv4.icmp_echo_ignore_broadcasts", "sysctl_net_ipv4_icmp_echo_ignore_broadcasts" },
	{ "sysctl", "net.ipv4.icmp_ignore_bogus_error_responses", "sysctl_net_ipv4_icmp_ignore_bogus_error_responses" },
	{ "sysctl", "net.ipv4.tcp_rfc1337", "sysctl_net_ipv4_tcp_rfc1337" },
	{ "sysctl", "net.ipv4.tcp_syncookies", "sysctl_net_ipv4_tcp_syncookies" },
	{ "sysctl", "net.ipv6.conf.all.accept_redirects", "sysctl_net_ipv6_conf_all_accept_redirects" },
	{ "sysctl", "net.ipv6.conf.all.accept_source_route", "sysctl_net_ipv6_conf_all_accept_source_route" },
	{ "sysctl", "net.ipv6.conf.default.accept_redirects", "sysctl_net_ipv6_conf_default_accept_redirects" },
	{ "sysctl", "user.max_user_namespaces", "sysctl_user_max_user_namespaces" },
	{ "sysctl", "vm.mmap_min_addr", "sysctl_vm_mmap_min_addr" },
	{ "selinux", "mode", "selinux_state" },
};

const char *hi_audit_rule_id(const char *kind, const char *name)
{
	for (size_t i = 0; i < sizeof rule_ids / sizeof rule_ids[0]; i++)
		if (strcmp(rule_ids[i].kind, kind) == 0 && strcmp(rule_ids[i].name, name) == 0)
			return rule_ids[i].rule;
	return NULL;
}

/* ---- text ----------------------------------------------------------------- */

void hi_audit_format_text(const struct audit *a, struct sink *s)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_item *it = &a->items[i];
		hi_sink_printf(s, "%-5s %-44s expected %-18s actual %s\n", it->drift ? "drift" : "ok",
			    it->what, it->expected, it->actual);
	}
	if (a->cpu_vuln_note[0])
		hi_sink_printf(s, "note  %-44s %s\n", "cpu vulnerabilities", a->cpu_vuln_note);
	hi_sink_printf(s, "audit: %zu checked, %zu ok, %d drift%s\n", a->n, a->n - (size_t)a->drifts, a->drifts,
		    a->dropped ? " (some items over the limit were not checked)" : "");
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_string_or_null(struct sink *s, const char *str)
{
	if (str && *str)
		hi_sink_json_string(s, str);
	else
		hi_sink_printf(s, "null");
}

static const char *json_bool(int v)
{
	return v ? "true" : "false";
}

static void seconds(struct sink *s, uint64_t us)
{
	hi_sink_printf(s, "%llu.%06llu", (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
}

static void json_items(const struct audit *a, struct sink *s)
{
	char name[96];

	hi_sink_printf(s, "  \"items\": [");
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_item *it = &a->items[i];
		const char *kind = hi_audit_item_kind(it->what, name, sizeof name);
		hi_sink_printf(s, "%s\n    {\"item\": ", i ? "," : "");
		hi_sink_json_string(s, it->what);
		hi_sink_printf(s, ", \"kind\": ");
		hi_sink_json_string(s, kind);
		hi_sink_printf(s, ", \"name\": ");
		hi_sink_json_string(s, name);
		hi_sink_printf(s, ", \"rule\": ");
		json_string_or_null(s, hi_audit_rule_id(kind, name));
		hi_sink_printf(s, ", \"expected\": ");
		hi_sink_json_string(s, it->expected);
		hi_sink_printf(s, ", \"actual\": ");
		hi_sink_json_string(s, it->actual);
		hi_sink_printf(s, ", \"status\": \"%s\"}", it->drift ? "drift" : "ok");
	}
	hi_sink_printf(s, "%s],\n", a->n ? "\n  " : "");
}

static void json_states(const struct audit *a, struct sink *s)
{
	hi_sink_printf(s, "  \"states\": [");
	for (size_t i = 0; i < a->n_states; i++) {
		const struct audit_state *st = &a->states[i];
		hi_sink_printf(s, "%s\n    {\"kind\": ", i ? "," : "");
		hi_sink_json_string(s, st->kind);
		hi_sink_printf(s, ", \"name\": ");
		hi_sink_json_string(s, st->name);
		hi_sink_printf(s, ", \"configured\": %s, \"engaged\": %s, \"state\": ", json_bool(st->configured),
			    json_bool(st->engaged));
		hi_sink_json_string(s, st->state);
		hi_sink_printf(s, "}");
	}
	hi_sink_printf(s, "%s],\n", a->n_states ? "\n  " : "");
}

static void json_stages(const struct audit *a, struct sink *s)
{
	hi_sink_printf(s, "  \"stages\": [");
	for (size_t i = 0; i < a->n_stages; i++) {
		const struct audit_stage *st = &a->stages[i];
		hi_sink_printf(s, "%s\n    {\"name\": ", i ? "," : "");
		hi_sink_json_string(s, st->name);
		hi_sink_printf(s, ", \"result\": ");
		hi_sink_json_string(s, st->result);
		hi_sink_printf(s, ", \"duration_seconds\": ");
		seconds(s, st->duration_us);
		hi_sink_printf(s, "}");
	}
	hi_sink_printf(s, "%s],\n", a->n_stages ? "\n  " : "");
}

/* What the audit says beside its checks, neither ok nor drift: today the
 * one note, that a Xen PV guest's CPU-vulnerability lines are the
 * hypervisor's (hypervisor.h), the same words the text output prints. */
static void json_notes(const struct audit *a, struct sink *s)
{
	hi_sink_printf(s, "  \"notes\": [");
	if (a->cpu_vuln_note[0]) {
		hi_sink_printf(s, "\n    {\"topic\": \"cpu_vulnerabilities\", \"owner\": \"hypervisor\", \"text\": ");
		hi_sink_json_string(s, a->cpu_vuln_note);
		hi_sink_printf(s, "}\n  ");
	}
	hi_sink_printf(s, "],\n");
}

void hi_audit_format_json(const struct audit *a, struct sink *s)
{
	hi_sink_printf(s, "{\n  \"schema\": %d,\n  \"hardinit_version\": ", AUDIT_JSON_SCHEMA);
	hi_sink_json_string(s, HARDINIT_VERSION);
	hi_sink_printf(s, ",\n  \"boot_version\": ");
	json_string_or_null(s, a->boot_version);
	hi_sink_printf(s, ",\n  \"profile\": ");
	hi_sink_json_string(s, a->profile);
	hi_sink_printf(s, ",\n  \"config_digest\": ");
	json_string_or_null(s, a->config_digest);
	hi_sink_printf(s, ",\n  \"success\": %s,\n  \"error\": ", json_bool(a->success));
	json_string_or_null(s, a->error);
	hi_sink_printf(s, ",\n  \"checked\": %zu,\n  \"drift\": %d,\n  \"dropped\": %zu,\n", a->n, a->drifts, a->dropped);
	json_items(a, s);
	json_states(a, s);
	hi_sink_printf(s, "  \"selinux\": {\"enforcing\": %s, \"policy_loaded\": %s, \"enforcing_wanted\": %s},\n",
		    a->selinux_enforcing < 0 ? "null" : json_bool(a->selinux_enforcing),
		    json_bool(a->selinux_policy_loaded), json_bool(a->selinux_wanted));
	json_stages(a, s);
	json_notes(a, s);
	hi_sink_printf(s, "  \"boot_duration_seconds\": ");
	if (a->have_boot_json)
		seconds(s, a->boot_ns / 1000);
	else
		hi_sink_printf(s, "null");
	hi_sink_printf(s, "\n}\n");
}

/* ---- Prometheus: node_exporter's textfile format ---------------------------- */

/* A label value: backslash, double quote and newline escaped (the text
 * exposition format's only escapes). */
static void prom_value(struct sink *s, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			hi_sink_printf(s, "\\%c", *v);
		else if (*v == '\n')
			hi_sink_printf(s, "\\n");
		else
			hi_sink_printf(s, "%c", *v);
	}
}

static void prom_label(struct sink *s, const char *sep, const char *key, const char *value)
{
	hi_sink_printf(s, "%s%s=\"", sep, key);
	prom_value(s, value);
	hi_sink_printf(s, "\"");
}

static void prom_family(struct sink *s, const char *name, const char *help)
{
	hi_sink_printf(s, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static int same_item_labels(const struct audit_item *x, const struct audit_item *y)
{
	return strcmp(x->what, y->what) == 0 && strcmp(x->expected, y->expected) == 0 &&
	       strcmp(x->actual, y->actual) == 0;
}

/* A check reached twice (a sysctl in [sysctl] that a later stage also
 * reported) is one series: a scrape with a duplicate series is refused. */
static int seen_before(const struct audit *a, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_item_labels(&a->items[j], &a->items[i]))
			return 1;
	return 0;
}

static void prom_checks(const struct audit *a, struct sink *s)
{
	char name[96];

	prom_family(s, "hardinit_check_ok", "1 when the live state of a check matches what hardinit set at boot, 0 on drift.");
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_item *it = &a->items[i];
		if (seen_before(a, i))
			continue;
		const char *kind = hi_audit_item_kind(it->what, name, sizeof name);
		const char *rule = hi_audit_rule_id(kind, name);
		prom_label(s, "hardinit_check_ok{", "kind", kind);
		prom_label(s, ",", "name", name);
		if (rule)
			prom_label(s, ",", "rule", rule);
		prom_label(s, ",", "expected", it->expected);
		prom_label(s, ",", "actual", it->actual);
		hi_sink_printf(s, "} %d\n", it->drift ? 0 : 1);
	}
}

/* The states, one metric per kind. Verity and TPM add a row each. */
static const struct state_metric {
	const char *kind, *metric, *help;
} state_metrics[] = {
	{ "lock", "hardinit_lock_engaged",
	  "1 when a one-way lock (modules_disabled, kexec_load_disabled, lockdown, ptrace_scope 3) is engaged; configured says whether the booted config asks for it." },
};

static void prom_states(const struct audit *a, struct sink *s)
{
	for (size_t k = 0; k < sizeof state_metrics / sizeof state_metrics[0]; k++) {
		const struct state_metric *m = &state_metrics[k];
		prom_family(s, m->metric, m->help);
		for (size_t i = 0; i < a->n_states; i++) {
			const struct audit_state *st = &a->states[i];
			if (strcmp(st->kind, m->kind) != 0)
				continue;
			hi_sink_printf(s, "%s", m->metric);
			prom_label(s, "{", "name", st->name);
			prom_label(s, ",", "configured", st->configured ? "yes" : "no");
			prom_label(s, ",", "state", st->state);
			hi_sink_printf(s, "} %d\n", st->engaged ? 1 : 0);
		}
	}
}

static void prom_selinux(const struct audit *a, struct sink *s)
{
	prom_family(s, "hardinit_selinux_enforcing", "1 when SELinux is enforcing, 0 when permissive or not active.");
	hi_sink_printf(s, "hardinit_selinux_enforcing %d\n", a->selinux_enforcing > 0);
	prom_family(s, "hardinit_selinux_enforcing_wanted", "1 when the boot set SELinux enforcing or the booted config asks for it.");
	hi_sink_printf(s, "hardinit_selinux_enforcing_wanted %d\n", a->selinux_wanted > 0);
	prom_family(s, "hardinit_selinux_policy_loaded", "1 when the kernel has an SELinux policy loaded.");
	hi_sink_printf(s, "hardinit_selinux_policy_loaded %d\n", a->selinux_policy_loaded > 0);
}

static void prom_stages(const struct audit *a, struct sink *s)
{
	prom_family(s, "hardinit_boot_stage_duration_seconds", "Time each hardinit boot stage took, from /run/hardinit/report.json.");
	for (size_t i = 0; i < a->n_stages; i++) {
		prom_label(s, "hardinit_boot_stage_duration_seconds{", "stage", a->stages[i].name);
		prom_label(s, ",", "result", a->stages[i].result);
		hi_sink_printf(s, "} ");
		seconds(s, a->stages[i].duration_us);
		hi_sink_printf(s, "\n");
	}
	if (!a->have_boot_json)
		return;
	prom_family(s, "hardinit_boot_duration_seconds", "Time from hardinit's first instruction to the exec of the real init.");
	hi_sink_printf(s, "hardinit_boot_duration_seconds ");
	seconds(s, a->boot_ns / 1000);
	hi_sink_printf(s, "\n");
}

/* Always one sample, so a rule can tell "the kernel's" (0) from a missing
 * series; the note's words ride along as a label where it applies. */
static void prom_cpu_vulnerabilities(const struct audit *a, struct sink *s)
{
	prom_family(s, "hardinit_cpu_vulnerabilities_hypervisor",
		    "1 on a Xen PV guest, whose CPU-vulnerability lines are the hypervisor's to mitigate (neither ok nor drift here), 0 when they are this kernel's.");
	if (!a->cpu_vuln_note[0]) {
		hi_sink_printf(s, "hardinit_cpu_vulnerabilities_hypervisor 0\n");
		return;
	}
	prom_label(s, "hardinit_cpu_vulnerabilities_hypervisor{", "note", a->cpu_vuln_note);
	hi_sink_printf(s, "} 1\n");
}

void hi_audit_format_prometheus(const struct audit *a, struct sink *s)
{
	prom_family(s, "hardinit_info", "The hardinit that audits, the one that booted, the shipped profile the booted config equals and its SHA-256.");
	prom_label(s, "hardinit_info{", "version", HARDINIT_VERSION);
	prom_label(s, ",", "boot_version", a->boot_version[0] ? a->boot_version : "unknown");
	prom_label(s, ",", "profile", a->profile);
	prom_label(s, ",", "config_digest", a->config_digest[0] ? a->config_digest : "unknown");
	hi_sink_printf(s, "} 1\n");
	prom_family(s, "hardinit_audit_success", "1 when the audit could read the booted config and the boot report and ran its checks.");
	hi_sink_printf(s, "hardinit_audit_success %d\n", a->success ? 1 : 0);
	prom_family(s, "hardinit_audit_checks", "Checks the audit ran.");
	hi_sink_printf(s, "hardinit_audit_checks %zu\n", a->n);
	prom_family(s, "hardinit_audit_dropped_checks", "Checks over the audit's limit, not run.");
	hi_sink_printf(s, "hardinit_audit_dropped_checks %zu\n", a->dropped);
	prom_family(s, "hardinit_drift_checks", "Checks whose live state differs from what hardinit set at boot.");
	hi_sink_printf(s, "hardinit_drift_checks %d\n", a->drifts);
	prom_checks(a, s);
	prom_states(a, s);
	prom_selinux(a, s);
	prom_cpu_vulnerabilities(a, s);
	prom_stages(a, s);
}

/* ---- report.json's stage times --------------------------------------------- */

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* The value after "key": in [p, end), or NULL. report.json is written by
 * init/report.c, flat within each object, so a key search is enough. */
static const char *json_key(const char *p, const char *end, const char *key)
{
	char pat[40];
	int n = snprintf(pat, sizeof pat, "\"%s\"", key);

	if (n <= 0 || (size_t)n >= sizeof pat)
		return NULL;
	for (const char *q = p; q + n <= end; q++) {
		if (memcmp(q, pat, (size_t)n) != 0)
			continue;
		const char *v = skip_space(q + n, end);
		if (v < end && *v == ':')
			return skip_space(v + 1, end);
	}
	return NULL;
}

static int json_get_string(const char *v, const char *end, char *out, size_t cap)
{
	size_t n = 0;

	if (!v || v >= end || *v != '"')
		return -1;
	for (v++; v < end && *v != '"'; v++) {
		if (*v == '\\' && ++v >= end)
			return -1;
		if (n + 1 >= cap)
			return -1;
		out[n++] = *v;
	}
	if (v >= end)
		return -1;
	out[n] = '\0';
	return 0;
}

static int json_get_uint(const char *v, const char *end, uint64_t *out)
{
	uint64_t x = 0;
	const char *start = v;

	for (; v && v < end && *v >= '0' && *v <= '9'; v++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*v - '0');
	}
	if (!v || v == start)
		return -1;
	*out = x;
	return 0;
}

/* The end of the object starting at p ('{'): its '}', skipping strings. */
static const char *object_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
		} else if (*p == '}') {
			return p;
		} else if (*p == '{') {
			return NULL;
		}
	}
	return NULL;
}

static void read_stage(struct audit *a, const char *p, const char *end)
{
	struct audit_stage st;

	if (a->n_stages >= AUDIT_MAX_STAGES ||
	    json_get_string(json_key(p, end, "name"), end, st.name, sizeof st.name) < 0 ||
	    json_get_string(json_key(p, end, "result"), end, st.result, sizeof st.result) < 0 ||
	    json_get_uint(json_key(p, end, "duration_us"), end, &st.duration_us) < 0)
		return;
	a->stages[a->n_stages++] = st;
}

int hi_audit_read_boot_json(struct audit *a, const char *text)
{
	const char *end = text + strlen(text);
	const char *p = json_key(text, end, "stages");
	uint64_t start_ns, exec_ns;

	a->n_stages = 0;
	if (!p || *p != '[')
		return -1;
	if (json_get_string(json_key(text, p, "version"), p, a->boot_version, sizeof a->boot_version) < 0)
		a->boot_version[0] = '\0';
	for (p++;;) {
		p = skip_space(p, end);
		if (p >= end)
			return -1;
		if (*p == ']')
			break;
		if (*p == ',') {
			p++;
			continue;
		}
		const char *close = *p == '{' ? object_end(p, end) : NULL;
		if (!close)
			return -1;
		read_stage(a, p, close);
		p = close + 1;
	}
	const char *top_end = json_key(text, end, "stages");
	if (json_get_uint(json_key(text, top_end, "start_ns"), top_end, &start_ns) == 0 &&
	    json_get_uint(json_key(text, top_end, "exec_ns"), top_end, &exec_ns) == 0 && exec_ns >= start_ns) {
		a->boot_ns = exec_ns - start_ns;
		a->have_boot_json = true;
	}
	return 0;
}

/* ---- the atomic write -------------------------------------------------------- */

static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int hi_audit_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char dir[512], tmp[600];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	if (!*base || strlen(path) >= sizeof dir) {
		snprintf(err, errlen, "bad output path '%s'", path);
		return -1;
	}
	if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	/* A leading dot and no .prom suffix: node_exporter's textfile
	 * collector reads *.prom only, so it never sees the partial file. */
	snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, base);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary file in %s: %s; create the directory "
			 "(node_exporter's --collector.textfile.directory) or pass --output FILE", dir, strerror(errno));
		return -1;
	}
	int saved = 0;
	if (fchmod(fd, 0644) < 0 || write_all(fd, text, len) < 0 || fsync(fd) < 0)
		saved = errno ? errno : EIO;
	if (close(fd) < 0 && !saved)
		saved = errno;
	if (!saved && rename(tmp, path) < 0)
		saved = errno;
	if (saved) {
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
		return -1;
	}
	sync_dir(dir);
	return 0;
}
