#!/usr/bin/env bats
# The fleet export on a real system: Debian 12 with systemd booted by
# hardinit (baseline profile) on Debian's 6.12 cloud kernel, with Debian's
# prometheus-node-exporter started by systemd with its textfile directory
# and hardinit-audit.timer/.service as `make install` ships them
# (tests/vm/images.bash: img_debian_systemd_fleet), SELinux permissive and
# enforcing (Debian's refpolicy). Inside the guest the
# probe scrapes http://127.0.0.1:9100/metrics after the timer's first
# audit, next to raw reads of /proc/sys and /sys; then it lowers
# kernel.kptr_restrict, starts hardinit-audit.service and scrapes again.
# One boot per variant, shared by its tests; the metrics are checked against the raw
# reads, not against hardinit's own report. node_exporter serves labels
# sorted by name (and adds rule="" where a check has no rule).

# budget: 120 s

load lib
load images

# A systemd boot, the timer's first run (5 s after boot: the test image's
# drop-in), two scrapes: 2-4 minutes alone under TCG, twice that on a
# loaded host.
FLEET_TIMEOUT=${FLEET_TIMEOUT:-1500}
FLEET_APPEND="root=/dev/vda security=selinux systemd.show_status=error"

setup_file() {
	FLEET_DIR=$(vm_cache_dir)/fleet
	export FLEET_DIR
	mkdir -p "$FLEET_DIR"
	vm_build_once "$FLEET_DIR/initrd.img" vm_initramfs "$FLEET_DIR/initrd.img" --profile baseline >/dev/null
}

# Boot the VARIANT image once (the first test that needs it) and keep its
# log and sections in $FLEET_DIR/VARIANT/, even of a failed boot, so later
# tests report the same failure instead of booting again.
fleet_boot() {
	local variant=$1 dir=$FLEET_DIR/$1 img s
	mkdir -p "$dir"
	(
		flock 9
		[[ -f $dir/console.log ]] && exit 0
		if img=$(img_debian_systemd_fleet "$variant"); then
			vm_boot "$dir/console.log.new" --initrd "$FLEET_DIR/initrd.img" --disk "$img" --mem 1024 \
				--timeout "$FLEET_TIMEOUT" --append "$FLEET_APPEND" -- -snapshot >&2 || true
		fi
		mv -f "$dir/console.log.new" "$dir/console.log" 2>/dev/null || : >"$dir/console.log"
		for s in TIMER RAW1 METRICS1 CHANGE RAW2 METRICS2 FLEET_AVC; do
			vm_section "$dir/console.log" "$s" >"$dir/$s" 2>/dev/null || : >"$dir/$s"
		done
	) 9>"$dir.lock"
	D=$dir
	LOG=$dir/console.log
}

# Compare the samples of METRICS with the raw reads of RAW (python: the
# label values need a real parser). Prints what it found.
check_live() {
	/usr/bin/python3 - "$D/$1" "$D/$2" <<-'EOF'
	import sys
	from prometheus_client.parser import text_string_to_metric_families
	raw = dict(l.split("=", 1) for l in open(sys.argv[1]).read().split("\n") if "=" in l)
	text = "".join(l + "\n" for l in open(sys.argv[2]).read().split("\n") if l.startswith("hardinit_"))
	samples = [s for f in text_string_to_metric_families(text) for s in f.samples]
	checks = [s for s in samples if s.name == "hardinit_check_ok"]
	sysctls = [s for s in checks if s.labels["kind"] == "sysctl"]
	assert len(sysctls) >= 10, f"only {len(sysctls)} sysctl samples"
	compared = 0
	for s in sysctls:
	    name, actual, expected = s.labels["name"], s.labels["actual"], s.labels["expected"]
	    if actual != "absent":
	        live = " ".join(raw.get(name, "not read").split())
	        assert live == actual, f"{name}: metric says {actual}, /proc/sys says {live}"
	        compared += 1
	    want = 1 if " ".join(actual.split()) == " ".join(expected.split()) else 0
	    assert s.value == want, f"{name}: value {s.value} but expected {expected} actual {actual}"
	assert compared >= 7, f"only {compared} sysctls compared with raw reads"
	value = {s.name: s.value for s in samples if not s.labels}
	assert value["hardinit_audit_success"] == 1, value
	assert value["hardinit_drift_checks"] == sum(1 for s in checks if s.value == 0), value
	assert value["hardinit_selinux_enforcing"] == int(raw["selinux_enforce"]), (value, raw["selinux_enforce"])
	locks = {s.labels["name"]: s for s in samples if s.name == "hardinit_lock_engaged"}
	for name, key, want in (("modules_disabled", "modules_disabled", "1"), ("kexec_load_disabled", "kexec_load_disabled", "1"),
	                        ("ptrace_scope", "yama/ptrace_scope", "3")):
	    assert locks[name].labels["state"] == raw[key], (name, locks[name].labels, raw[key])
	    assert locks[name].value == (raw[key] == want), (name, locks[name].value, raw[key])
	print(f"drift={int(value['hardinit_drift_checks'])} compared={compared}")
	EOF
}

sample_value() {
	grep -E "^$1 " "$D/$2" | awk '{print $NF}'
}

@test "the guest booted, the timer ran the audit and node_exporter serves it" {
	fleet_boot permissive
	local log=$LOG
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	vm_assert_section_line "$log" TIMER "timer=active"
	vm_assert_section_line "$log" TIMER "exporter=active"
	vm_assert_section_line "$log" TIMER "Result=success"
	# The file was there before the probe ran the service itself.
	waited=$(sed -n 's/^file_waited=//p' "$D/TIMER")
	[ -n "$waited" ] && [ "$waited" -lt 240 ] || { cat "$D/TIMER"; false; }
	# The shipped timer, installed as make install ships it, read back in
	# the guest (the test's drop-in only moved its first run earlier).
	local k v
	while IFS='=' read -r k v; do
		vm_assert_section_line "$log" TIMER "unit_$k=$v"
	done < <(grep -E '^(OnBootSec|OnUnitActiveSec|RandomizedDelaySec|AccuracySec)=' \
		"$HARDINIT_SRC/contrib/systemd/hardinit-audit.timer")
	vm_assert_section_contains "$log" METRICS1 "hardinit_audit_success 1"
	# node_exporter's own parser took the file.
	vm_assert_section_contains "$log" METRICS1 'node_textfile_scrape_error 0'
	grep -q '^node_textfile_mtime_seconds{file=".*hardinit.prom"}' "$D/METRICS1" || { cat "$D/METRICS1"; false; }
}

@test "the audit service runs sandboxed as shipped" {
	fleet_boot permissive
	for p in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes PrivateNetwork=yes NoNewPrivileges=yes \
		ReadWritePaths=/var/lib/prometheus/node-exporter; do
		grep -qx "$p" "$D/TIMER" || { echo "missing $p:"; cat "$D/TIMER"; false; }
	done
}

@test "after boot the hardinit_ metrics match the live state read from /proc/sys and /sys" {
	fleet_boot permissive
	run check_live RAW1 METRICS1
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^hardinit_info{.*profile="baseline"' "$D/METRICS1" || { grep hardinit_info "$D/METRICS1"; false; }
	grep -q '^hardinit_boot_stage_duration_seconds{result="ok",stage="sysctl"}' "$D/METRICS1"
	grep -q '^hardinit_check_ok{actual="1",expected="1",kind="sysctl",name="kernel.kptr_restrict",rule="sysctl_kernel_kptr_restrict"} 1$' "$D/METRICS1"
}

@test "a changed sysctl: hardinit-audit.service turns its sample to 0 and raises the drift count" {
	fleet_boot permissive
	vm_assert_section_line "$LOG" RAW2 "kernel.kptr_restrict=0"
	vm_assert_section_line "$LOG" CHANGE "start-exit=0"
	run check_live RAW2 METRICS2
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^hardinit_check_ok{actual="0",expected="1",kind="sysctl",name="kernel.kptr_restrict",rule="sysctl_kernel_kptr_restrict"} 0$' "$D/METRICS2" ||
		{ grep kptr "$D/METRICS2"; false; }
	before=$(sample_value hardinit_drift_checks METRICS1)
	after=$(sample_value hardinit_drift_checks METRICS2)
	echo "drift before=$before after=$after"
	[ -n "$before" ] && [ "$after" -eq $((before + 1)) ]
}

@test "enforcing: the sandboxed audit writes its file under Debian's refpolicy without a denial" {
	fleet_boot enforcing
	vm_assert_log_contains "$LOG" "=== PROBE DONE ==="
	vm_assert_section_line "$LOG" RAW1 "selinux_enforce=1"
	vm_assert_section_line "$LOG" TIMER "Result=success"
	vm_assert_section_line "$LOG" CHANGE "start-exit=0"
	[ ! -s "$D/FLEET_AVC" ] || { echo "denials:"; cat "$D/FLEET_AVC"; false; }
	vm_assert_section_contains "$LOG" METRICS1 'node_textfile_scrape_error 0'
}

@test "enforcing: SELinux metrics and every check match the live state, before and after the change" {
	fleet_boot enforcing
	run check_live RAW1 METRICS1
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'hardinit_selinux_enforcing 1' "$D/METRICS1"
	grep -qx 'hardinit_selinux_enforcing_wanted 1' "$D/METRICS1"
	grep -qx 'hardinit_selinux_policy_loaded 1' "$D/METRICS1"
	run check_live RAW2 METRICS2
	echo "$output"
	[ "$status" -eq 0 ]
	before=$(sample_value hardinit_drift_checks METRICS1)
	after=$(sample_value hardinit_drift_checks METRICS2)
	[ -n "$before" ] && [ "$after" -eq $((before + 1)) ]
}
