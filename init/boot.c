#include "boot.h"
#include "config.h"
#include "fsutil.h"
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hi_boot_error(struct boot *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof b->err, fmt, ap);
	va_end(ap);
	return -1;
}

int hi_boot_problem(struct boot *b, bool required, const char *stage, const char *key,
		 const char *fmt, ...)
{
	char msg[BOOT_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hi_report_add(&b->rep, stage, key, required ? "failed" : "warn", "%.150s", msg);
	if (required)
		return hi_boot_error(b, "%s", msg);
	log_warn("%s", msg);
	return 0;
}

int hi_boot_sys_block_attr(struct boot *b, const char *name, const char *attr, char *buf, size_t cap)
{
	char path[BOOT_PATH_MAX + 160];

	snprintf(path, sizeof path, "%s/class/block/%s/%s", b->sys, name, attr);
	if (hi_fs_read(path, buf, cap, NULL) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void hi_boot_init_paths(struct boot *b, enum boot_mode mode)
{
	b->mode = mode;
	snprintf(b->proc, sizeof b->proc, "/proc");
	snprintf(b->sys, sizeof b->sys, "/sys");
	snprintf(b->dev, sizeof b->dev, "/dev");
	snprintf(b->run, sizeof b->run, "/run");
	snprintf(b->config_path, sizeof b->config_path, "%s", BOOT_CONFIG_PATH);
	snprintf(b->modules_list, sizeof b->modules_list, "%s", BOOT_MODULES_LIST);
	snprintf(b->md_marker, sizeof b->md_marker, "%s", BOOT_MD_MARKER);
	snprintf(b->root_subvol, sizeof b->root_subvol, "%s", BOOT_ROOT_SUBVOL);
	snprintf(b->ima_policy, sizeof b->ima_policy, "%s", BOOT_IMA_POLICY);
	snprintf(b->ima_certs, sizeof b->ima_certs, "%s", BOOT_IMA_CERTS);
	snprintf(b->newroot, sizeof b->newroot, mode == MODE_INITRAMFS ? "/root" : "/");
	hi_config_defaults(&b->cfg);
}
