/* What a guest's kernel says of its hypervisor (hypervisor.h). */
#include <stdio.h>
#include <string.h>

#include "fsutil.h"
#include "hypervisor.h"

#define HYPERVISOR_FILE_MAX 32   /* "xen\n", "PV\n": short words */

static bool sys_word_is(const char *sys, const char *rel, const char *want)
{
	char path[512], buf[HYPERVISOR_FILE_MAX];

	if ((size_t)snprintf(path, sizeof path, "%s/%s", sys, rel) >= sizeof path ||
	    hi_fs_read(path, buf, sizeof buf, NULL) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return strcmp(buf, want) == 0;
}

bool hi_hypervisor_xen_pv(const char *sys)
{
	return sys_word_is(sys, "hypervisor/type", "xen") && sys_word_is(sys, "hypervisor/guest_type", "PV");
}
