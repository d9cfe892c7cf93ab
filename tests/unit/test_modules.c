/* The modules stage's device table (stages/modules.c): a generic image's
 * controller drivers load only for a device present, with the dependencies
 * only they need; everything else in the list loads; a table line the
 * builder never writes fails the boot. The stage runs against a temporary
 * /sys; its module files do not exist, so each module it tries shows in
 * the report as "failed" (missing), and one it leaves out does not show. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "modules.h"
#include "report.h"
#include "tap.h"

static struct modules_demand d;

static int parse(char *list, char *table, struct module_ref *mods, int *n, const char **why)
{
	int line;

	*n = hi_modules_list_parse(list, mods, MODULES_MAX);
	return hi_modules_devices_parse(table, mods, *n, &d, &line, why);
}

static void test_parse_and_match(void)
{
	static struct module_ref mods[MODULES_MAX];
	char list[] = "/m/libata.ko\n/m/libahci.ko\n/m/ahci.ko\n/m/virtio_pci.ko\n/m/virtio_blk.ko.xz\n"
		      "/m/sd_mod.ko\n/m/ext4.ko\n";
	char table[] = "needs ahci libata libahci\n"
		       "alias pci:v*d*sv*sd*bc01sc06i01* ahci\n"
		       "alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio-pci\n"
		       "alias virtio:d00000002v* virtio_blk\n";
	const char *why = "";
	int n;
	int rc = parse(list, table, mods, &n, &why);

	tap_ok(rc == 3 && n == 7, "three alias lines over a list of seven (%s)", why);
	tap_ok(d.ondemand[0] && d.ondemand[1] && d.ondemand[2] && d.ondemand[3] && d.ondemand[4],
	       "the drivers and the libraries only they need are on demand");
	tap_ok(!d.ondemand[5] && !d.ondemand[6], "sd_mod and ext4, named nowhere in the table, always load");
	tap_ok(hi_modules_demand_match(&d, mods, n, "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01") == 3 &&
		       d.wanted[0] && d.wanted[1] && d.wanted[2] && !d.wanted[3],
	       "an AHCI controller wants ahci and its needs, nothing else");
	tap_ok(hi_modules_demand_match(&d, mods, n, "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01") == 0,
	       "a second matching device wants nothing new");
	tap_ok(hi_modules_demand_match(&d, mods, n, "virtio:d00000001v00001AF4") == 0 && !d.wanted[4],
	       "a virtio network device does not want virtio_blk");
	tap_ok(hi_modules_demand_match(&d, mods, n, "virtio:d00000002v00001AF4") == 1 && d.wanted[4],
	       "a virtio block device wants virtio_blk ('-' and '_' alike in names)");
}

static void test_parse_errors(void)
{
	static struct module_ref mods[MODULES_MAX];
	static const char *const bad[] = {
		"alias pci:* nosuch\n",            /* a module the list lacks */
		"alias pci:*\n",                   /* no name */
		"alias pci:* ahci extra\n",        /* a word too many */
		"needs ahci nosuch\n",             /* a dependency the list lacks */
		"needs ahci libata\nneeds ahci libata\n",
		"load ahci\n",                     /* an unknown kind of line */
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char list[] = "/m/libata.ko\n/m/ahci.ko\n";
		char table[128];
		const char *why = NULL;
		int n;
		snprintf(table, sizeof table, "%s", bad[i]);
		int rc = parse(list, table, mods, &n, &why);
		tap_ok(rc == -1 && why && why[0], "refused: %.*s (%s)",
		       (int)strcspn(bad[i], "\n"), bad[i], why ? why : "no reason");
	}
	char list[] = "/m/ahci.ko\n";
	char table[] = "# a comment\n\nalias pci:* ahci\n";
	const char *why = "";
	int n;
	tap_ok(parse(list, table, mods, &n, &why) == 1, "comment and blank lines are skipped");
}

static int tried(const struct boot *b, const char *name)
{
	const struct report_item *it = hi_report_find(&b->rep, "modules", name);
	return it && strcmp(it->status, "failed") == 0;
}

static void test_stage(void)
{
	const char *root = fixture_tree("hi-modules");
	struct boot b;

	boot_at(&b, root, MODE_INITRAMFS);
	snprintf(b.modules_list, sizeof b.modules_list, "%s/etc/hardinit/modules", root);
	fixture_put(root, "etc/hardinit/modules",
		    "/nonexistent/libata.ko\n/nonexistent/libahci.ko\n/nonexistent/ahci.ko\n"
		    "/nonexistent/nvme_core.ko\n/nonexistent/nvme.ko\n/nonexistent/sd_mod.ko\n/nonexistent/ext4.ko\n");
	fixture_put(root, "etc/hardinit/modules.devices",
		    "needs ahci libata libahci\nneeds nvme nvme_core\n"
		    "alias pci:v*d*sv*sd*bc01sc06i01* ahci\nalias pci:v*d*sv*sd*bc01sc08i02* nvme\n");
	/* An NVMe controller and a network card; no AHCI controller. */
	fixture_put(root, "sys/bus/pci/devices/0000:00:05.0/modalias",
		    "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02\n");
	fixture_put(root, "sys/bus/pci/devices/0000:00:03.0/modalias",
		    "pci:v00008086d0000100Esv00001AF4sd00001100bc02sc00i00\n");
	fixture_mkdir(root, "sys/bus/virtio/devices", 0755);
	tap_ok(hi_stage_modules(&b) == 0, "the stage runs over a generic image's list");
	tap_ok(tried(&b, "nvme.ko") && tried(&b, "nvme_core.ko"), "the NVMe controller's driver and its needs are loaded");
	tap_ok(!tried(&b, "ahci.ko") && !tried(&b, "libahci.ko") && !tried(&b, "libata.ko"),
	       "no AHCI controller: ahci and the libraries only it needs are not");
	tap_ok(tried(&b, "sd_mod.ko") && tried(&b, "ext4.ko"), "the modules the table does not name load");
	const struct report_item *it = hi_report_find(&b.rep, "modules", "devices");
	tap_ok(it && strstr(it->value, "2 of 5"), "the report says how many on-demand modules a device wanted (%s)",
	       it ? it->value : "none");

	/* Without the table every listed module loads, as before. */
	boot_at(&b, root, MODE_INITRAMFS);
	snprintf(b.modules_list, sizeof b.modules_list, "%s/etc/hardinit/modules", root);
	fixture_put(root, "etc/hardinit/modules", "/nonexistent/ahci.ko\n/nonexistent/ext4.ko\n");
	char table[512];
	snprintf(table, sizeof table, "%s/etc/hardinit/modules.devices", root);
	remove(table);
	tap_ok(hi_stage_modules(&b) == 0 && tried(&b, "ahci.ko") && tried(&b, "ext4.ko"),
	       "a list without a device table loads every module");

	/* A table the builder never writes fails the boot with its line. */
	boot_at(&b, root, MODE_INITRAMFS);
	snprintf(b.modules_list, sizeof b.modules_list, "%s/etc/hardinit/modules", root);
	fixture_put(root, "etc/hardinit/modules.devices", "alias pci:* ahci\nalias pci:* gone\n");
	tap_ok(hi_stage_modules(&b) == -1 && strstr(b.err, "line 2") && !tried(&b, "ahci.ko"),
	       "a bad table line fails the boot before any module loads: %s", b.err);
	fixture_rmtree(root);
}

int main(void)
{
	test_parse_and_match();
	test_parse_errors();
	test_stage();
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
