/* The outputs of hardinit audit: text for people, JSON (schema
 * AUDIT_JSON_SCHEMA) for log shippers, node_exporter's textfile format for
 * Prometheus; the tables that name each check's kind and its
 * ComplianceAsCode rule; the reader of report.json's stage times; the
 * atomic file write. Pure formatting: nothing here reads the live system. */
#ifndef HARDINIT_AUDIT_EXPORT_H
#define HARDINIT_AUDIT_EXPORT_H

#include <stddef.h>

#include "audit_types.h"
#include "sink.h"

/* Where node_exporter's textfile collector reads on Debian (its package's
 * default --collector.textfile.directory). */
#define AUDIT_PROM_DEFAULT "/var/lib/prometheus/node-exporter/hardinit.prom"
/* Bound of any rendered output: a fleet file this large is a bug. */
#define AUDIT_OUTPUT_MAX (192 * 1024)
#define AUDIT_BOOT_JSON_MAX (REPORT_MAX_ITEMS * 512 + 8192)

enum audit_format { AUDIT_TEXT, AUDIT_JSON, AUDIT_PROMETHEUS };

/* The kind of a check ("sysctl", "capability", ...) and its name within
 * the kind ("kernel.kptr_restrict"), from its description. name gets a
 * NUL-terminated copy (at most cap-1 bytes). */
const char *hi_audit_item_kind(const char *what, char *name, size_t cap);

/* The ComplianceAsCode/OpenSCAP rule id of a check, or NULL. */
const char *hi_audit_rule_id(const char *kind, const char *name);

/* Render the audit. The sink's full flag says the bound was hit. */
void hi_audit_format_text(const struct audit *a, struct sink *s);
void hi_audit_format_json(const struct audit *a, struct sink *s);
void hi_audit_format_prometheus(const struct audit *a, struct sink *s);

/* Fill a->stages, a->boot_ns and a->boot_version from report.json text.
 * Returns 0, or -1 when the text has no readable "stages" array. */
int hi_audit_read_boot_json(struct audit *a, const char *text);

/* Replace path with len bytes of text atomically: a temporary file in the
 * same directory, fsync, rename, then fsync the directory. A reader sees
 * the old file or the new one, never a part. Returns 0, or -1 with err. */
int hi_audit_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errlen);

#endif
