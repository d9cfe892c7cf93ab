/* What a guest's kernel says of the hypervisor it runs on
 * (/sys/hypervisor), for the facts that change what a report may claim.
 * Read from a given sysfs root so a test can point it at a tree. */
#ifndef HARDINIT_HYPERVISOR_H
#define HARDINIT_HYPERVISOR_H

#include <stdbool.h>

/* On a Xen PV guest the kernel runs deprivileged under Xen, which does
 * every switch between guest kernel, guest user and other domains: the
 * CPU-vulnerability files (devices/system/cpu/vulnerabilities, meltdown's
 * "Unknown (XEN PV detected, hypervisor mitigation required)") describe
 * what the hypervisor must do, not what this kernel did. The boot report
 * gives such lines the status "hypervisor" (report_status_names) and
 * `hardinit audit` this note. */
#define HYPERVISOR_VULN_NOTE   "a Xen PV guest: CPU vulnerabilities are the hypervisor's to mitigate"

/* The balloon driver's switch for zeroing pages before they go back to
 * Xen (the xen_scrub_pages= word's live state), relative to sysfs. */
#define HYPERVISOR_XEN_SCRUB_PAGES "devices/system/xen_memory/xen_memory0/scrub_pages"

/* True when SYS/hypervisor/type reads "xen" and SYS/hypervisor/guest_type
 * "PV". PVH and HVM guests run on the real CPU's protections: false. */
bool hi_hypervisor_xen_pv(const char *sys);

#endif
