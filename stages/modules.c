/* Modules: load the kernel modules the builder put in the initramfs, in the
 * dependency order it resolved at build time, with finit_module(2). */
#include <errno.h>
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

int hi_stage_modules(struct boot *b)
{
	static char list[MODULES_LIST_MAX];
	static struct module_ref mods[MODULES_MAX];
	int loaded = 0;

	/* The TPM's fixed costs of an unseal, on a thread while the kernel
	 * loads the modules below (stages/luks.h). */
	hi_luks_warmup_start(b);
	if (hi_fs_read(b->modules_list, list, sizeof list, NULL) < 0) {
		if (errno == ENOENT) {
			log_debug("no module list %s: nothing to load", b->modules_list);
			return 0;
		}
		return hi_boot_error(b, "cannot read the module list %s: %s; rebuild the initramfs",
				  b->modules_list, errno == E2BIG ? "larger than 32 KiB" : strerror(errno));
	}
	int count = hi_modules_list_parse(list, mods, MODULES_MAX);
	if (count < 0)
		return hi_boot_error(b, "module list %s has more than %d modules; split the image", b->modules_list, MODULES_MAX);
	for (int i = 0; i < count; i++) {
		if (b->mode == MODE_DRY_RUN) {
			log_info("dry run: would load module %s%s%s", mods[i].path,
				 mods[i].params[0] ? " " : "", mods[i].params);
			continue;
		}
		if (load_module(b, mods[i].path, mods[i].params) > 0)
			loaded++;
	}
	log_debug("modules: %d listed, %d loaded", count, loaded);
	return 0;
}
