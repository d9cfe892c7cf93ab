/* Modules: load the kernel modules the builder put in the initramfs, in the
 * dependency order it resolved at build time, with finit_module(2). */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "fsutil.h"
#include "log.h"
#include "luks.h"
#include "modules.h"

/* Linux 5.17: the kernel decompresses the module itself. Debian's 6.x
 * modules are .ko.xz, and this saves carrying a decompressor. The uapi
 * name is MODULE_INIT_COMPRESSED_FILE (<linux/module.h>, Linux 5.17), which
 * kernel headers older than 5.17 lack, so the value is ours; the trailing
 * underscore keeps our copy from redefining the header's name wherever
 * that header is included too. */
#define MODULE_INIT_COMPRESSED_FILE_ 4
#define MODULE_PARAMS_MAX 1024

static int compressed(const char *path)
{
	size_t len = strlen(path);
	static const char *const suffixes[] = { ".ko.xz", ".ko.zst", ".ko.gz" };

	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t slen = strlen(suffixes[i]);
		if (len > slen && strcmp(path + len - slen, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

static const char *module_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Whether a command-line word's module part names the module file base
 * ("dm_verity" and "dm-verity" both name dm-verity.ko.xz), as modprobe
 * compares them. */
static bool names_module(const char *word, size_t n, const char *base)
{
	size_t i = 0;

	for (; i < n && base[i] && base[i] != '.'; i++) {
		char a = word[i] == '-' ? '_' : word[i], c = base[i] == '-' ? '_' : base[i];
		if (a != c)
			return false;
	}
	return i == n && (base[i] == '.' || base[i] == '\0');
}

/* The list's parameters, then the kernel command line's MODULE.PARAM=VALUE
 * words for this module, as modprobe passes them (the kernel keeps those
 * words for modules it loads itself only): dm_verity.require_signatures=1
 * reaches dm-verity. Returns 0, or -1 when they do not fit. */
static int module_params(struct boot *b, const char *name, const char *listed, char *out, size_t cap)
{
	size_t len = (size_t)snprintf(out, cap, "%s", listed);

	if (len >= cap)
		return -1;
	for (size_t i = 0; i < b->cmd.n_words; i++) {
		const struct cmdline_word *w = &b->cmd.words[i];
		const char *dot = strchr(w->key, '.');
		if (!dot || dot == w->key || !dot[1] || !names_module(w->key, (size_t)(dot - w->key), name))
			continue;
		int n = snprintf(out + len, cap - len, "%s%s%s%s", len ? " " : "", dot + 1, w->value ? "=" : "",
				 w->value ? w->value : "");
		if (n < 0 || (size_t)n >= cap - len)
			return -1;
		len += (size_t)n;
	}
	return 0;
}

/* Load one module; returns 1 loaded, 0 not needed, -1 failed (warned). */
static int load_module(struct boot *b, const char *path, const char *listed)
{
	const char *name = module_name(path);
	char params[MODULE_PARAMS_MAX];

	if (module_params(b, name, listed, params, sizeof params) < 0) {
		log_warn("module %s: its parameters from the list and the command line are longer than %d bytes; shorten them",
			 name, MODULE_PARAMS_MAX - 1);
		hi_report_add(&b->rep, "modules", name, "failed", "parameters too long");
		return -1;
	}
	if (strcmp(params, listed) != 0)
		hi_report_add(&b->rep, "modules", "parameters", "info", "%s %s", name, params);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		log_warn("module %s: cannot open %s: %s; rebuild the initramfs with it", name, path, strerror(errno));
		hi_report_add(&b->rep, "modules", name, "failed", "missing: %s", strerror(errno));
		return -1;
	}
	int flags = compressed(path) ? MODULE_INIT_COMPRESSED_FILE_ : 0;
	long rc = syscall(SYS_finit_module, fd, params, flags);
	int saved = errno;
	close(fd);
	if (rc == 0) {
		hi_report_add(&b->rep, "modules", name, "ok", "loaded");
		return 1;
	}
	if (saved == EEXIST) {
		hi_report_add(&b->rep, "modules", name, "already", "already loaded");
		return 0;
	}
	if (saved == ENODEV || saved == ENXIO) {
		/* The driver has no device here: not an error for a generic image. */
		hi_report_add(&b->rep, "modules", name, "skipped", "no such device");
		return 0;
	}
	log_warn("module %s: the kernel refused it: %s; check it matches this kernel", name, strerror(saved));
	hi_report_add(&b->rep, "modules", name, "failed", "%s", strerror(saved));
	return -1;
}

int hi_modules_list_parse(char *list, struct module_ref *mods, size_t cap)
{
	char *save = NULL;
	size_t n = 0;

	for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* A line of blanks is not a module named "". */
		line += strspn(line, " \t");
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (n == cap)
			return -1;
		char *params = strchr(line, ' ');
		if (params)
			*params++ = '\0';
		mods[n].path = line;
		mods[n].params = params ? params : "";
		n++;
	}
	return (int)n;
}


/* The list entry named NAME (n bytes; '-' and '_' alike), or -1. */
static int module_index(const struct module_ref *mods, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (names_module(name, len, module_name(mods[i].path)))
			return i;
	return -1;
}

/* Next blank-separated word of *s (NUL-terminated in place), or NULL. */
static char *next_word(char **s)
{
	char *w = *s + strspn(*s, " \t");

	if (!*w)
		return NULL;
	size_t len = strcspn(w, " \t");
	*s = w + len;
	if (**s)
		*(*s)++ = '\0';
	return w;
}

/* "alias PATTERN NAME": the devices matching PATTERN want NAME. last and
 * last_i: the module of the line before (the builder writes a module's
 * aliases together). */
static int parse_alias(char *rest, const struct module_ref *mods, int n, struct modules_demand *d, const char **last,
		       int *last_i, const char **why)
{
	char *pattern = next_word(&rest), *name = next_word(&rest);
	if (!pattern || !name || next_word(&rest)) {
		*why = "an alias line is: alias PATTERN NAME";
		return -1;
	}
	int i = *last && strcmp(*last, name) == 0 ? *last_i : module_index(mods, n, name, strlen(name));
	*last = name;
	*last_i = i;
	if (i < 0) {
		*why = "it names a module the list does not have";
		return -1;
	}
	if (d->n_aliases == MODULES_ALIASES_MAX) {
		*why = "more alias lines than MODULES_ALIASES_MAX";
		return -1;
	}
	d->pattern[d->n_aliases] = pattern;
	d->owner[d->n_aliases++] = i;
	d->ondemand[i] = 1;
	return 0;
}

/* "needs NAME DEP...": NAME loads only when a device wants it, and its
 * dependencies with it. */
static int parse_needs(char *rest, const struct module_ref *mods, int n, struct modules_demand *d, const char **why)
{
	char *name = next_word(&rest);
	int i = name ? module_index(mods, n, name, strlen(name)) : -1;
	if (i < 0) {
		*why = "a needs line is: needs NAME DEP..., each a module of the list";
		return -1;
	}
	if (d->needs[i]) {
		*why = "a second needs line for the same module";
		return -1;
	}
	rest += strspn(rest, " \t");
	d->needs[i] = rest;
	d->ondemand[i] = 1;
	for (char *p = rest; *p;) {
		size_t len = strcspn(p, " \t");
		int j = module_index(mods, n, p, len);
		if (j < 0) {
			*why = "a needs line names a module the list does not have";
			return -1;
		}
		d->ondemand[j] = 1;
		p += len;
		p += strspn(p, " \t");
	}
	return 0;
}

int hi_modules_devices_parse(char *text, const struct module_ref *mods, int n, struct modules_demand *d,
			     int *line, const char **why)
{
	char *save = NULL;
	const char *last = NULL;
	int last_i = -1;

	memset(d, 0, sizeof *d);
	*line = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		(*line)++;
		char *rest = l;
		char *kind = next_word(&rest);
		int rc;
		if (!kind || kind[0] == '#')
			continue;
		if (strcmp(kind, "alias") == 0) {
			rc = parse_alias(rest, mods, n, d, &last, &last_i, why);
		} else if (strcmp(kind, "needs") == 0) {
			rc = parse_needs(rest, mods, n, d, why);
		} else {
			*why = "a line starts with alias or needs";
			rc = -1;
		}
		if (rc < 0)
			return -1;
	}
	return (int)d->n_aliases;
}

static int want(struct modules_demand *d, const struct module_ref *mods, int n, int i)
{
	int got = 0;

	if (!d->wanted[i]) {
		d->wanted[i] = 1;
		got++;
	}
	for (const char *p = d->needs[i] ? d->needs[i] : ""; *p;) {
		size_t len = strcspn(p, " \t");
		int j = module_index(mods, n, p, len);
		if (j >= 0 && !d->wanted[j]) {
			d->wanted[j] = 1;
			got++;
		}
		p += len;
		p += strspn(p, " \t");
	}
	return got;
}

int hi_modules_demand_match(struct modules_demand *d, const struct module_ref *mods, int n, const char *modalias)
{
	int got = 0;

	for (size_t a = 0; a < d->n_aliases; a++) {
		const char *p = d->pattern[a];
		/* The pattern's literal start first: fnmatch over thousands of
		 * patterns for each device is the cost here. */
		size_t lit = strcspn(p, "*?[\\");
		if (strncmp(p, modalias, lit) != 0 || d->wanted[d->owner[a]])
			continue;
		if (fnmatch(p, modalias, 0) == 0)
			got += want(d, mods, n, d->owner[a]);
	}
	return got;
}

/* One pass over SYS/bus/ * /devices/ * /modalias. Returns how many modules
 * became wanted. */
static int scan_devices(struct boot *b, struct modules_demand *d, const struct module_ref *mods, int n)
{
	char path[BOOT_PATH_MAX + 64], alias[MODULES_MODALIAS_MAX];
	int got = 0, seen = 0, buses = 0;

	snprintf(path, sizeof path, "%s/bus", b->sys);
	DIR *bus = opendir(path);
	if (!bus) {
		log_warn("modules: cannot read %s: %s; the generic image loads no device driver", path, strerror(errno));
		return 0;
	}
	for (struct dirent *e; (e = readdir(bus)) && buses < MODULES_BUSES_MAX;) {
		if (e->d_name[0] == '.')
			continue;
		buses++;
		snprintf(path, sizeof path, "%s/bus/%s/devices", b->sys, e->d_name);
		DIR *devs = opendir(path);
		if (!devs)
			continue;
		int dfd = dirfd(devs);
		for (struct dirent *v; (v = readdir(devs)) && seen < MODULES_SCAN_MAX;) {
			if (v->d_name[0] == '.')
				continue;
			seen++;
			char rel[300];
			if ((size_t)snprintf(rel, sizeof rel, "%s/modalias", v->d_name) >= sizeof rel)
				continue;
			int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
			if (fd < 0)
				continue;
			ssize_t len = read(fd, alias, sizeof alias - 1);
			close(fd);
			if (len <= 0)
				continue;
			alias[len] = '\0';
			alias[strcspn(alias, "\n")] = '\0';
			got += hi_modules_demand_match(d, mods, n, alias);
		}
		closedir(devs);
	}
	closedir(bus);
	if (seen == MODULES_SCAN_MAX || buses == MODULES_BUSES_MAX)
		log_warn("modules: more than %d devices or %d buses in %s/bus; the rest were not matched",
			 MODULES_SCAN_MAX, MODULES_BUSES_MAX, b->sys);
	return got;
}

/* The device table of a generic image: 1 read, 0 none (every listed
 * module loads), -1 failed (the boot's error recorded). */
static int read_devices(struct boot *b, const struct module_ref *mods, int n, struct modules_demand *d)
{
	static char text[MODULES_DEVICES_MAX];
	char path[BOOT_PATH_MAX + sizeof MODULES_DEVICES_SUFFIX];
	const char *why = "";
	int line;

	snprintf(path, sizeof path, "%s%s", b->modules_list, MODULES_DEVICES_SUFFIX);
	if (hi_fs_read(path, text, sizeof text, NULL) < 0) {
		if (errno == ENOENT)
			return 0;
		return hi_boot_error(b, "cannot read the device table %s: %s; rebuild the initramfs", path,
				     hi_fs_read_why(errno));
	}
	int aliases = hi_modules_devices_parse(text, mods, n, d, &line, &why);
	if (aliases < 0)
		return hi_boot_error(b, "device table %s line %d: %s; rebuild the initramfs", path, line, why);
	return 1;
}

/* The image's module list into list, mods and *count; returns 0, 1 when
 * the image has none, -1 on failure. */
static int read_list(struct boot *b, char *list, size_t cap, struct module_ref *mods, int *count)
{
	if (hi_fs_read(b->modules_list, list, cap, NULL) < 0) {
		if (errno == ENOENT) {
			log_debug("no module list %s: nothing to load", b->modules_list);
			return 1;
		}
		return hi_boot_error(b, "cannot read the module list %s: %s; rebuild the initramfs",
				  b->modules_list, errno == E2BIG ? "larger than MODULES_LIST_MAX" : strerror(errno));
	}
	*count = hi_modules_list_parse(list, mods, MODULES_MAX);
	if (*count < 0)
		return hi_boot_error(b, "module list %s has more than %d modules; split the image", b->modules_list, MODULES_MAX);
	return 0;
}

/* Round 0 loads what always loads and the drivers of the devices present;
 * each later round the drivers of the devices those drivers made, until a
 * round loads no driver. Without a devices table (table 0) every module
 * loads in round 0. Returns how many loaded. */
static int load_rounds(struct boot *b, const struct module_ref *mods, int count, int table,
		       struct modules_demand *demand)
{
	static unsigned char tried[MODULES_MAX];
	int loaded = 0;

	memset(tried, 0, sizeof tried);
	for (int round = 0; round < MODULES_ROUNDS; round++) {
		int drivers = 0;
		if (table)
			scan_devices(b, demand, mods, count);
		for (int i = 0; i < count; i++) {
			if (tried[i] || (table && demand->ondemand[i] && !demand->wanted[i]))
				continue;
			tried[i] = 1;
			if (table && demand->ondemand[i])
				drivers++;
			if (load_module(b, mods[i].path, mods[i].params) > 0)
				loaded++;
		}
		if (!table || drivers == 0)
			break;
	}
	return loaded;
}

static void report_demand(struct boot *b, const struct modules_demand *demand, int count)
{
	int ondemand = 0, wanted = 0;

	for (int i = 0; i < count; i++) {
		ondemand += demand->ondemand[i];
		wanted += demand->ondemand[i] && demand->wanted[i];
	}
	hi_report_add(&b->rep, "modules", "devices", "info", "%d of %d on-demand modules wanted by a device", wanted,
		      ondemand);
}

int hi_stage_modules(struct boot *b)
{
	static char list[MODULES_LIST_MAX];
	static struct module_ref mods[MODULES_MAX];
	static struct modules_demand demand;

	/* The TPM's fixed costs of an unseal, on a thread while the kernel
	 * loads the modules below (stages/luks.h). */
	hi_luks_warmup_start(b);
	int count = 0;
	int rc = read_list(b, list, sizeof list, mods, &count);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	int table = read_devices(b, mods, count, &demand);
	if (table < 0)
		return -1;
	if (b->mode == MODE_DRY_RUN) {
		for (int i = 0; i < count; i++)
			log_info("dry run: would load module %s%s%s%s", mods[i].path, mods[i].params[0] ? " " : "",
				 mods[i].params, table && demand.ondemand[i] ? " (when a device needs it)" : "");
		return 0;
	}
	int loaded = load_rounds(b, mods, count, table, &demand);
	if (table)
		report_demand(b, &demand, count);
	log_debug("modules: %d listed, %d loaded", count, loaded);
	return 0;
}
