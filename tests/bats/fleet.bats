#!/usr/bin/env bats
# The fleet export: hardinit audit --format prometheus (node_exporter's
# textfile format) and --json (schema 2) on golden boot reports in a fake
# /proc, /sys and /run tree (clean, with drift, with missing sections, a
# failing audit), read back by real parsers (promtool check metrics and
# prometheus_client's parser); the atomic write; the alerting rules
# (promtool check rules and promtool test rules); the JSON schema against
# the output and the man page; the shipped units. Only reads the host.

HARDINIT=${HARDINIT:-$BATS_TEST_DIRNAME/../../build/hardinit}
SRC=$BATS_TEST_DIRNAME/../..
PY=/usr/bin/python3
PARSE=$BATS_TEST_DIRNAME/fleet-parse.py
SCHEMA=$SRC/contrib/hardinit-audit.schema.json

setup() {
	[ -x "$HARDINIT" ] || skip "build/hardinit not built"
	command -v promtool >/dev/null || skip "promtool missing (package prometheus; scripts/install-deps)"
	T=$BATS_TEST_TMPDIR
}

# The golden clean system: the live state equals the boot report.
golden_clean() {
	mkdir -p "$T/proc/sys/kernel/yama" "$T/proc/sys/fs" "$T/proc/1" "$T/sys/fs/selinux/class/file" \
		"$T/sys/kernel/security" "$T/run" "$T/textfile"
	echo 2 >"$T/proc/sys/kernel/kptr_restrict"
	echo 2 >"$T/proc/sys/fs/protected_fifos"
	echo 1 >"$T/proc/sys/kernel/modules_disabled"
	echo 1 >"$T/proc/sys/kernel/kexec_load_disabled"
	echo 3 >"$T/proc/sys/kernel/yama/ptrace_scope"
	echo 'none [integrity] confidentiality' >"$T/sys/kernel/security/lockdown"
	echo 1 >"$T/sys/fs/selinux/enforce"
	printf 'Name:\tinit\nCapBnd:\t000001fffffdffff\n' >"$T/proc/1/status"
	echo '22 1 254:0 / / ro,relatime shared:1 - ext4 /dev/vda ro' >"$T/proc/1/mountinfo"
	cat >"$T/run/config" <<-EOF
	[selinux]
	mode = enforcing
	[sysctl]
	kernel.kptr_restrict = 2
	fs.protected_fifos = 2
	[capabilities]
	drop = cap_sys_rawio
	[locks]
	modules = yes
	kexec = yes
	lockdown = integrity
	ptrace_scope = 3
	[mounts]
	shared = yes
	EOF
	cat >"$T/run/report.txt" <<-EOF
	stage early       ok         0.120 ms
	stage sysctl      ok         1.500 ms
	sysctl kernel.kptr_restrict applied 2
	selinux enforce applied enforcing (config)
	locks kernel.modules_disabled applied 1
	locks kernel.kexec_load_disabled applied 1
	locks kernel.yama.ptrace_scope applied 3
	locks lockdown applied integrity
	EOF
	cat >"$T/run/report.json" <<-EOF
	{
	  "version": "0.0.9",
	  "start_ns": 1000000,
	  "exec_ns": 5500000,
	  "stages": [
	    {"name": "early", "result": "ok", "duration_us": 120},
	    {"name": "sysctl", "result": "ok", "duration_us": 1500},
	    {"name": "modules", "result": "skipped", "duration_us": 0}
	  ],
	  "items": [
	    {"stage": "sysctl", "key": "kernel.kptr_restrict", "value": "2", "status": "applied"}
	  ],
	  "dropped_items": 0
	}
	EOF
}

# Drift everywhere a fleet alerts: a sysctl, a lock, SELinux.
golden_drift() {
	golden_clean
	echo 0 >"$T/proc/sys/kernel/kptr_restrict"
	echo 0 >"$T/proc/sys/kernel/kexec_load_disabled"
	echo 0 >"$T/sys/fs/selinux/enforce"
}

# A boot report with only its first section, no report.json, no
# selinuxfs, no securityfs: every section the exporter reads is missing.
golden_missing() {
	golden_clean
	rm -r "$T/sys/fs/selinux" "$T/sys/kernel/security" "$T/run/report.json"
	printf 'stage early ok 0.120 ms\n' >"$T/run/report.txt"
	printf '[sysctl]\nkernel.kptr_restrict = 2\n' >"$T/run/config"
}

# hardinit audit on the tree; extra arguments after.
audit() {
	run "$HARDINIT" audit --config "$T/run/config" --report "$T/run/report.txt" --proc "$T/proc" --sys "$T/sys" \
		--profiles "$SRC/config" "$@"
}

# Write the textfile, check it with both parsers, leave the samples in $T/samples.
export_prom() {
	local want_status=$1
	shift
	audit --format prometheus --output "$T/textfile/hardinit.prom" "$@"
	[ "$status" -eq "$want_status" ] || { echo "status $status, wanted $want_status: $output"; false; }
	audit_output=$output
	run promtool check metrics <"$T/textfile/hardinit.prom"
	[ "$status" -eq 0 ] || { echo "promtool: $output"; cat "$T/textfile/hardinit.prom"; false; }
	[ -z "$output" ] || { echo "promtool lint: $output"; false; }
	"$PY" "$PARSE" "$T/textfile/hardinit.prom" >"$T/samples" || { cat "$T/textfile/hardinit.prom"; false; }
}

# A sample line must be present, exactly.
sample() {
	grep -qxF -- "$1" "$T/samples" || { echo "no sample '$1' in:"; cat "$T/samples"; false; }
}

no_sample() {
	! grep -q -- "$1" "$T/samples" || { echo "unexpected '$1' in:"; cat "$T/samples"; false; }
}

schema_valid() {
	"$PY" - "$SCHEMA" "$1" <<-'EOF'
	import json, sys, jsonschema
	schema = json.load(open(sys.argv[1]))
	jsonschema.Draft202012Validator.check_schema(schema)
	jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
	EOF
}

@test "clean report: one sample per check with kind, name, rule, expected and actual; no drift" {
	golden_clean
	export_prom 0
	sample 'hardinit_audit_success{} 1'
	sample 'hardinit_drift_checks{} 0'
	sample 'hardinit_check_ok{actual=2,expected=2,kind=sysctl,name=kernel.kptr_restrict,rule=sysctl_kernel_kptr_restrict} 1'
	sample 'hardinit_check_ok{actual=dropped,expected=dropped,kind=capability,name=cap_sys_rawio} 1'
	sample 'hardinit_check_ok{actual=shared,expected=shared,kind=mount,name=/} 1'
	sample 'hardinit_check_ok{actual=enforcing,expected=enforcing,kind=selinux,name=mode,rule=selinux_state} 1'
	n=$(grep -c '^hardinit_check_ok' "$T/samples")
	sample "hardinit_audit_checks{} $n"
	[ "$n" -ge 7 ]
}

@test "clean report: locks engaged, SELinux enforcing with a policy, stage times in seconds from report.json" {
	golden_clean
	export_prom 0
	for lock in modules_disabled:1 kexec_load_disabled:1 ptrace_scope:3 lockdown:integrity; do
		sample "hardinit_lock_engaged{configured=yes,name=${lock%%:*},state=${lock#*:}} 1"
	done
	sample 'hardinit_selinux_enforcing{} 1'
	sample 'hardinit_selinux_enforcing_wanted{} 1'
	sample 'hardinit_selinux_policy_loaded{} 1'
	sample 'hardinit_boot_stage_duration_seconds{result=ok,stage=early} 0.00012'
	sample 'hardinit_boot_stage_duration_seconds{result=ok,stage=sysctl} 0.0015'
	sample 'hardinit_boot_stage_duration_seconds{result=skipped,stage=modules} 0.0'
	sample 'hardinit_boot_duration_seconds{} 0.0045'
}

@test "hardinit_info carries the versions, the profile the config equals and the config's SHA-256" {
	golden_clean
	export_prom 0
	digest=$(sha256sum <"$T/run/config" | cut -d' ' -f1)
	want=$(sed -n '1s/^hardinit (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
	sample "hardinit_info{boot_version=0.0.9,config_digest=$digest,profile=custom,version=$want} 1"
	# The effective config of a shipped profile is recognised by content.
	"$HARDINIT" check-config "$SRC/config/strict.conf" >/dev/null
	cp "$SRC/config/strict.conf" "$T/run/config"
	export_prom 1
	grep -q '^hardinit_info{.*profile=strict,' "$T/samples" || { cat "$T/samples"; false; }
}

@test "drift: the drift count, each drifted check's sample and actual state, a lock and SELinux change" {
	golden_drift
	export_prom 1
	sample 'hardinit_drift_checks{} 3'
	sample 'hardinit_check_ok{actual=0,expected=2,kind=sysctl,name=kernel.kptr_restrict,rule=sysctl_kernel_kptr_restrict} 0'
	sample 'hardinit_check_ok{actual=0,expected=1,kind=sysctl,name=kernel.kexec_load_disabled,rule=sysctl_kernel_kexec_load_disabled} 0'
	sample 'hardinit_check_ok{actual=permissive,expected=enforcing,kind=selinux,name=mode,rule=selinux_state} 0'
	sample 'hardinit_lock_engaged{configured=yes,name=kexec_load_disabled,state=0} 0'
	sample 'hardinit_selinux_enforcing{} 0'
	sample 'hardinit_selinux_enforcing_wanted{} 1'
	sample 'hardinit_audit_success{} 1'
}

@test "missing sections: no report.json, selinuxfs or securityfs still gives a valid file without them" {
	golden_missing
	export_prom 0
	sample 'hardinit_audit_success{} 1'
	sample 'hardinit_drift_checks{} 0'
	sample 'hardinit_selinux_enforcing{} 0'
	sample 'hardinit_selinux_policy_loaded{} 0'
	sample 'hardinit_selinux_enforcing_wanted{} 0'
	sample 'hardinit_lock_engaged{configured=no,name=lockdown,state=unreadable} 0'
	no_sample '^hardinit_boot_stage_duration_seconds{'
	no_sample '^hardinit_boot_duration_seconds'
	grep -q '^hardinit_info{boot_version=unknown,' "$T/samples"
}

@test "a failing audit still writes the file, with hardinit_audit_success 0, and exits 2" {
	golden_clean
	rm "$T/run/report.txt"
	export_prom 2
	[[ $audit_output == *"cannot read the boot report"* ]]
	sample 'hardinit_audit_success{} 0'
	rm "$T/run/config"
	export_prom 2
	sample 'hardinit_audit_success{} 0'
	sample 'hardinit_audit_checks{} 0'
	grep -q '^hardinit_info{.*config_digest=unknown,profile=unknown,' "$T/samples"
}

@test "the default output is node_exporter's textfile directory, the same path the unit writes" {
	run grep -o '"/var/lib/prometheus/node-exporter/hardinit.prom"' "$SRC/prog/audit_export.h"
	[ "$status" -eq 0 ]
	grep -q -- '--output /var/lib/prometheus/node-exporter/hardinit.prom' "$SRC/contrib/systemd/hardinit-audit.service.in"
	grep -qx 'ReadWritePaths=/var/lib/prometheus/node-exporter' "$SRC/contrib/systemd/hardinit-audit.service.in"
	golden_clean
	audit --format prometheus --output -
	[ "$status" -eq 0 ]
	[[ $output == *"# TYPE hardinit_drift_checks gauge"* ]]
}

@test "an output directory that does not exist is one clear error and writes nothing" {
	golden_clean
	audit --format prometheus --output "$T/nope/hardinit.prom"
	[ "$status" -eq 2 ]
	[[ $output == *"cannot create a temporary file in $T/nope"* ]]
	[[ $output == *"--output FILE"* ]]
	[ ! -e "$T/nope" ]
	audit --format yaml
	[ "$status" -eq 2 ]
	[[ $output == *"unknown format 'yaml'"* ]]
}

@test "the write is atomic: a reader never sees a partial file while the writer runs repeatedly" {
	golden_clean
	cp -r "$T/proc" "$T/proc-drift"
	echo 0 >"$T/proc-drift/sys/kernel/kptr_restrict"
	out=$T/textfile/hardinit.prom
	"$HARDINIT" audit --config "$T/run/config" --report "$T/run/report.txt" --proc "$T/proc" --sys "$T/sys" --format prometheus --output "$T/clean.prom"
	"$HARDINIT" audit --config "$T/run/config" --report "$T/run/report.txt" --proc "$T/proc-drift" --sys "$T/sys" --format prometheus --output "$T/drift.prom" || true
	cmp -s "$T/clean.prom" "$T/drift.prom" && { echo "the two outputs must differ"; false; }
	cp "$T/clean.prom" "$out"
	# 300 writes alternating the two states, bounded by timeout.
	timeout 120 bash -c '
		for i in $(seq 150); do
			"$1" audit --config "$2/run/config" --report "$2/run/report.txt" --proc "$2/proc" --sys "$2/sys" --format prometheus --output "$3"
			"$1" audit --config "$2/run/config" --report "$2/run/report.txt" --proc "$2/proc-drift" --sys "$2/sys" --format prometheus --output "$3"
		done; touch "$2/writer.done"' _ "$HARDINIT" "$T" "$out" 2>/dev/null &
	writer=$!
	reads=0 bad=0
	while [ ! -e "$T/writer.done" ] && [ "$reads" -lt 20000 ]; do
		cat "$out" >"$T/read" 2>/dev/null || { bad=$((bad + 1)); continue; }
		cmp -s "$T/read" "$T/clean.prom" || cmp -s "$T/read" "$T/drift.prom" || { bad=$((bad + 1)); cp "$T/read" "$T/bad.prom"; }
		reads=$((reads + 1))
	done
	wait "$writer" || true
	[ -e "$T/writer.done" ] || { echo "the writer did not finish"; false; }
	echo "# reads=$reads bad=$bad" >&3
	[ "$bad" -eq 0 ]
	[ "$reads" -ge 50 ]
	# No temporary file left behind, and the file is world-readable for the exporter.
	[ "$(ls -A "$T/textfile")" = "hardinit.prom" ]
	[ "$(stat -c %a "$out")" = 644 ]
}

@test "--json: schema 2, kinds and ComplianceAsCode rule ids, valid against the shipped JSON Schema in every case" {
	for golden in golden_clean golden_drift golden_missing; do
		rm -rf "$T/proc" "$T/sys" "$T/run"
		$golden
		audit --json
		[ "$status" -le 1 ] || { echo "$golden: $output"; false; }
		printf '%s\n' "$output" >"$T/$golden.json"
		schema_valid "$T/$golden.json" || { echo "$golden:"; cat "$T/$golden.json"; false; }
	done
	"$PY" - "$T/golden_drift.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["schema"] == 2 and d["success"] is True and d["drift"] == 3, d
	k = [i for i in d["items"] if i["name"] == "kernel.kptr_restrict"][0]
	assert k["kind"] == "sysctl" and k["rule"] == "sysctl_kernel_kptr_restrict" and k["actual"] == "0", k
	assert [i["rule"] for i in d["items"] if i["kind"] == "capability"] == [None], d["items"]
	lock = [s for s in d["states"] if s["name"] == "kexec_load_disabled"][0]
	assert lock == {"kind": "lock", "name": "kexec_load_disabled", "configured": True, "engaged": False, "state": "0"}, lock
	assert d["selinux"] == {"enforcing": False, "policy_loaded": True, "enforcing_wanted": True}, d["selinux"]
	assert [s["name"] for s in d["stages"]] == ["early", "sysctl", "modules"], d["stages"]
	EOF
	# A failing audit is a document too.
	rm "$T/run/report.txt"
	audit --json
	[ "$status" -eq 2 ]
	printf '%s\n' "$output" | sed -n '/^{/,$p' >"$T/fail.json"
	schema_valid "$T/fail.json"
	grep -q '"success": false' "$T/fail.json"
}

@test "a Xen PV guest: the CPU-vulnerability note is in --json's notes and hardinit_cpu_vulnerabilities_hypervisor 1; elsewhere none and 0" {
	local note="a Xen PV guest: CPU vulnerabilities are the hypervisor's to mitigate (meltdown: Unknown (XEN PV detected, hypervisor mitigation required))"
	golden_clean
	mkdir -p "$T/sys/hypervisor" "$T/sys/devices/system/cpu/vulnerabilities"
	echo 'Unknown (XEN PV detected, hypervisor mitigation required)' >"$T/sys/devices/system/cpu/vulnerabilities/meltdown"
	echo xen >"$T/sys/hypervisor/type"
	# A PVH guest's lines are its own kernel's: no note.
	echo PVH >"$T/sys/hypervisor/guest_type"
	export_prom 0
	sample 'hardinit_cpu_vulnerabilities_hypervisor{} 0'
	audit --json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/pvh.json"
	echo PV >"$T/sys/hypervisor/guest_type"
	export_prom 0
	sample "hardinit_cpu_vulnerabilities_hypervisor{note=$note} 1"
	no_sample 'hardinit_cpu_vulnerabilities_hypervisor{} 0'
	# the same words as the text output's note line
	audit
	grep -qxF "note  cpu vulnerabilities                          $note" <<<"$output"
	audit --json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/pv.json"
	schema_valid "$T/pv.json"
	schema_valid "$T/pvh.json"
	"$PY" - "$T/pv.json" "$T/pvh.json" "$note" <<-'EOF'
	import json, sys
	pv, pvh = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
	assert pv["notes"] == [{"topic": "cpu_vulnerabilities", "owner": "hypervisor", "text": sys.argv[3]}], pv["notes"]
	assert pvh["notes"] == [], pvh["notes"]
	# a note is neither ok nor drift: the checks are the same with and without it
	assert pv["checked"] == pvh["checked"] and pv["drift"] == pvh["drift"] == 0, (pv, pvh)
	EOF
}

@test "the schema is strict, so a field the code adds without the schema fails the test above" {
	"$PY" - "$SCHEMA" <<-'EOF'
	import json, sys
	def walk(node, path):
	    if node.get("type") == "object" or "properties" in node:
	        assert node.get("additionalProperties") is False, path
	        assert sorted(node["required"]) == sorted(node["properties"]), path
	        for k, v in node["properties"].items():
	            walk(v, path + "." + k)
	    if "items" in node:
	        walk(node["items"], path + "[]")
	walk(json.load(open(sys.argv[1])), "$")
	EOF
}

@test "every field of the JSON schema is documented in hardinit(8)" {
	man=$(sed -n '/^\.SH JSON OUTPUT/,/^\.SH [^J]/p' "$SRC/man/hardinit.8" | sed 's/\\//g')
	[ -n "$man" ] || { echo "hardinit.8 has no JSON OUTPUT section"; false; }
	fields=$("$PY" - "$SCHEMA" <<-'EOF'
	import json, sys
	def walk(node, prefix):
	    for k, v in node.get("properties", {}).items():
	        print(prefix + k)
	        walk(v, prefix + k + ".")
	        if "items" in v:
	            walk(v["items"], prefix + k + "[].")
	walk(json.load(open(sys.argv[1])), "")
	EOF
	)
	missing=""
	for f in $fields; do
		grep -qF -- "$f" <<<"$man" || missing+=" $f"
	done
	[ -z "$missing" ] || { echo "not in hardinit(8) JSON OUTPUT:$missing"; false; }
	grep -q 'schema.*2' <<<"$man"
}

@test "every metric the exporter writes is documented in hardinit(8)" {
	golden_clean
	export_prom 0
	man=$(sed 's/\\//g' "$SRC/man/hardinit.8")
	for m in $(sed 's/{.*//' "$T/samples" | sort -u); do
		grep -qF -- "$m" <<<"$man" || { echo "hardinit.8 lacks $m"; false; }
	done
}

@test "the alerting rules pass promtool check rules and fire on the states they name" {
	run promtool check rules "$SRC/contrib/prometheus/hardinit-alerts.yml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"SUCCESS: 6 rules found"* ]]
	run promtool test rules "$BATS_TEST_DIRNAME/fleet-alerts.test.yml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# Every metric a rule uses exists in the exporter's output.
	golden_clean
	export_prom 0
	for m in $(grep -o 'hardinit_[a-z_]*' "$SRC/contrib/prometheus/hardinit-alerts.yml" | sort -u); do
		grep -q "^$m{" "$T/samples" || { echo "the rules use $m, the exporter does not write it"; false; }
	done
}

@test "make install ships the units, the cron line and the rules with the installed binary's path" {
	dest=$T/dest
	run make -C "$SRC" --no-print-directory install DESTDIR="$dest" PREFIX=/usr
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	svc=$dest/usr/lib/systemd/system/hardinit-audit.service
	grep -qx 'ExecStart=/usr/sbin/hardinit audit --format prometheus --output /var/lib/prometheus/node-exporter/hardinit.prom' "$svc"
	for opt in ProtectSystem=strict ProtectHome=yes NoNewPrivileges=yes PrivateTmp=yes PrivateNetwork=yes SuccessExitStatus=1; do
		grep -qx "$opt" "$svc" || { echo "$svc lacks $opt"; false; }
	done
	run ! grep -q '^ProcSubset=pid' "$svc"
	grep -qx 'OnUnitActiveSec=15min' "$dest/usr/lib/systemd/system/hardinit-audit.timer"
	grep -qx 'OnBootSec=1min' "$dest/usr/lib/systemd/system/hardinit-audit.timer"
	grep -q '^\*/15 \* \* \* \* root /usr/sbin/hardinit audit --format prometheus' "$dest/usr/share/hardinit/cron/hardinit-audit"
	promtool check rules "$dest/usr/share/hardinit/prometheus/hardinit-alerts.yml" >/dev/null
	[ -f "$dest/usr/share/hardinit/hardinit-audit.schema.json" ]
	! grep -rq '@SBINDIR@' "$dest"
}

@test "--help names the formats and --output" {
	run "$HARDINIT" --help
	[[ $output == *"--format text|json|prometheus"* ]]
	[[ $output == *"--output FILE"* ]]
	[[ $output == *"/var/lib/prometheus/node-exporter/hardinit.prom"* ]]
}

@test "systemd accepts the units as shipped: no unknown or invalid setting, sandbox exposure low" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze missing"
	mkdir -p "$T/units"
	# The binary under test in place of the installed one: verify checks that ExecStart exists.
	sed "s|@SBINDIR@|$(cd "$(dirname "$HARDINIT")" && pwd)|" "$SRC/contrib/systemd/hardinit-audit.service.in" \
		>"$T/units/hardinit-audit.service"
	cp "$SRC/contrib/systemd/hardinit-audit.timer" "$T/units/"
	run systemd-analyze verify --man=no "$T/units/hardinit-audit.service" "$T/units/hardinit-audit.timer"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$output" ] || { echo "systemd-analyze: $output"; false; }
	run systemd-analyze security --offline=yes --threshold=30 "$T/units/hardinit-audit.service"
	[ "$status" -eq 0 ] || { echo "$output" | tail -n 25; false; }
	[[ $output == *"Overall exposure level for hardinit-audit.service: "[0-2].* ]] || { echo "$output" | tail -n 3; false; }
}
