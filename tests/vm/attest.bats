#!/usr/bin/env bats
# What the real root's systemd makes of hardinit's hand-off, on
# one boot: OVMF starts hardinit's strict UKI (systemd-stub measures it
# into PCR 11) with swtpm (sha1 and sha256 banks), the root is the Debian
# 12 image (systemd 252). hardinit extends the phases into PCR 11 and its
# measurements into the measurement PCR (PCR below: hardinit's default,
# hardinit limits' TPM_PCR_DEFAULT) and writes systemd's userspace event
# log;
# systemd 252 then runs systemd-pcrphase (sysinit, ready). A test copy of
# the image gets, with debugfs: bookworm's TPM2 libraries (systemd 252's
# pcrphase dlopens them; the image has none, so it would skip) and a unit
# that runs after pcrphase and before the image's probe and prints the
# PCRs (sysfs), the firmware's event log, the userspace log and what
# Debian 13's systemd-pcrlock (systemd 257, tests/vm/pcrlock.bash, on a
# third disk) reads from the log and the TPM. On the host the log is read
# a second time by tests/vm/cel-replay, written from systemd's documented
# format, not from hardinit's code.
#
# systemd 252 does not write the userspace log: it arrived in systemd 255
# (NEWS, "TPM measurements are now also written to an event log at
# /run/log/systemd/tpm2-measure.log"); 252's src/boot/pcrphase.c extends
# and logs to the journal only. So after 252's extends the log holds
# hardinit's records unchanged, the measurement PCR replays from it
# exactly, and PCR 11 is the log's replay plus the two words 252 extended without a record
# (its journal names them).
#
# A systemd that does write the log must append to hardinit's without
# corrupting it: after the first reading, the probe runs Debian 13's
# systemd-pcrextend (systemd 257, from the pcrlock image) as 257's
# pcrphase units would, one word into the measurement PCR, and reads the
# PCR, the log and pcrlock's view again (PCREXTEND, CEL_AFTER_B64, PCRLOCK_AFTER).

# budget: 125 s

load lib
load images
load pcrlock

# The measurement PCR: hardinit's default (the strict profile sets no [tpm] pcr).
PCR=$("$HARDINIT_SRC/build/hardinit" limits | sed -n 's/^TPM_PCR_DEFAULT=//p')
ATTEST_TIMEOUT=${ATTEST_TIMEOUT:-900}

# The guest's probe; @PCR@ is the measurement PCR.
attest_probe() {
	sed "s/@PCR@/$PCR/g" <<-'EOF'
		#!/bin/bash
		# Run after systemd-pcrphase (sysinit, ready), before the image's probe.
		exec >/dev/ttyS0 2>&1 </dev/null
		PATH=/usr/sbin:/usr/bin:/sbin:/bin
		begin() { echo "=== BEGIN $1 ==="; }
		end() { echo "=== END $1 ==="; }
		begin ATTEST
		for u in systemd-pcrphase-sysinit systemd-pcrphase; do
			echo "$u $(systemctl show -p ActiveState -p Result "$u.service" | tr '\n' ' ')"
		done
		journalctl -b -o cat --no-pager -u systemd-pcrphase-sysinit.service -u systemd-pcrphase.service |
			sed 's/^/journal: /'
		for b in sha1 sha256; do
			for p in 11 @PCR@; do echo "pcr${p}_$b=$(cat /sys/class/tpm/tpm0/pcr-$b/$p)"; done
		done
		echo "cel_mode=$(stat -c %a /run/log/systemd/tpm2-measure.log)"
		echo "boot_id=$(tr -d '-' </proc/sys/kernel/random/boot_id)"
		end ATTEST
		begin SETUP
		echo "hostname=$(hostname)"
		echo "machine_id=$(cat /etc/machine-id)"
		for m in /dev/shm /dev/pts /dev/mqueue /dev/hugepages /run /sys/fs/cgroup /sys/kernel/security \
			/sys/kernel/debug /sys/fs/selinux /run/lock; do
			echo "mount $m $(findmnt -no FSTYPE "$m")"
		done
		echo "lo=$(cat /sys/class/net/lo/operstate)"
		systemctl show -p InitRDTimestampMonotonic -p UserspaceTimestampMonotonic
		journalctl -b -o cat --no-pager _PID=1 | grep -i -m5 -e deserializ -e 'initrd' | sed 's/^/pid1: /'
		end SETUP
		begin EVENTLOG
		od -An -tx1 -v /sys/kernel/security/tpm0/binary_bios_measurements
		end EVENTLOG
		begin CEL_B64
		base64 /run/log/systemd/tpm2-measure.log
		end CEL_B64
		mkdir -p /run/pcrlock && mount -o ro LABEL=pcrlock /run/pcrlock
		L=/run/pcrlock/lib
		# trixie's tools through trixie's loader, the guest's other libraries.
		trixie() {
			local tool=$1
			shift
			timeout 120 "$L/ld-linux-x86-64.so.2" --library-path "$L:/usr/lib/x86_64-linux-gnu" \
				"/run/pcrlock/bin/$tool" "$@" 2>"/run/$tool.err"
			rc=$?
			echo
			echo "rc=$rc"
			sed 's/^/stderr: /' "/run/$tool.err" | head -n 20
		}
		# The banks the TPM allocated (the kernel's pcr-ALG directories):
		# pcrlock takes the firmware log's list otherwise, which names
		# banks this TPM does not have.
		algs=$(cd /sys/class/tpm/tpm0 && ls -d pcr-* | sed 's/^pcr-//' | paste -sd:)
		begin PCRLOCK
		echo "algorithms=$algs"
		SYSTEMD_TPM2_HASH_ALGORITHMS=$algs trixie systemd-pcrlock log --json=short
		end PCRLOCK
		# A systemd that writes the log (257) appends to it after the
		# hand-off, as its pcrphase units would: one word into the
		# measurement PCR, on the TPM and banks it picks itself, taking the
		# log's flock.
		begin PCREXTEND
		SYSTEMD_LOG_TARGET=console trixie systemd-pcrextend --pcr=@PCR@ hardinit-test:after-handoff
		for b in sha1 sha256; do echo "pcr@PCR@_$b=$(cat /sys/class/tpm/tpm0/pcr-$b/@PCR@)"; done
		echo "cel_mode=$(stat -c %a /run/log/systemd/tpm2-measure.log)"
		end PCREXTEND
		begin CEL_AFTER_B64
		base64 /run/log/systemd/tpm2-measure.log
		end CEL_AFTER_B64
		begin PCRLOCK_AFTER
		SYSTEMD_TPM2_HASH_ALGORITHMS=$algs trixie systemd-pcrlock log --json=short
		end PCRLOCK_AFTER
	EOF
}

# The Debian image, copied, with the TPM2 libraries and the probe unit.
attest_image() {
	local img=$1 out=$2 dir=$3 lib f
	cp --sparse=always "$img" "$out"
	attest_probe >"$dir/hardinit-attest-probe"
	chmod 0755 "$dir/hardinit-attest-probe"
	cat >"$dir/hardinit-test-attest.service" <<-'EOF'
		[Unit]
		Description=hardinit attestation probe (PCRs and event logs on ttyS0)
		After=multi-user.target systemd-pcrphase.service systemd-pcrphase-sysinit.service
		Before=hardinit-test-probe.service
		[Service]
		Type=oneshot
		ExecStart=/usr/local/sbin/hardinit-attest-probe
		[Install]
		WantedBy=multi-user.target
	EOF
	{
		echo "write $dir/hardinit-attest-probe /usr/local/sbin/hardinit-attest-probe"
		echo "write $dir/hardinit-test-attest.service /etc/systemd/system/hardinit-test-attest.service"
		echo "symlink /etc/systemd/system/multi-user.target.wants/hardinit-test-attest.service /etc/systemd/system/hardinit-test-attest.service"
		# systemd 252 dlopens these by soname (src/shared/tpm2-util.c).
		for lib in libtss2-esys.so.0 libtss2-mu.so.0 libtss2-rc.so.0 libtss2-sys.so.1 libtss2-tctildr.so.0 \
			libtss2-tcti-device.so.0; do
			f=$(readlink -f "/usr/lib/x86_64-linux-gnu/$lib") || return 1
			echo "write $f /usr/lib/x86_64-linux-gnu/$lib"
		done
	} >"$dir/debugfs.cmds"
	debugfs -w -f "$dir/debugfs.cmds" "$out" >"$dir/debugfs.log" 2>&1 || { cat "$dir/debugfs.log"; return 1; }
	debugfs -R "stat /usr/lib/x86_64-linux-gnu/libtss2-esys.so.0" "$out" 2>/dev/null | grep -q 'Size: [1-9]' ||
		{ echo "debugfs did not copy the TPM2 libraries into $out"; cat "$dir/debugfs.log"; return 1; }
}

setup_file() {
	[[ $PCR =~ ^[0-9]+$ ]] || { echo "build/hardinit limits gave no TPM_PCR_DEFAULT: make first" >&2; return 1; }
	vm_need_ovmf
	vm_need_swtpm
	local dir img pcrlock d
	dir=$(vm_cache_dir)/attest
	export ADIR=$dir
	rm -rf "$dir" && mkdir -p "$dir"
	ls /usr/lib/x86_64-linux-gnu/libtss2-esys.so.0 >/dev/null || return 1
	img=$(img_debian_systemd permissive) || return 1
	pcrlock=$(pcrlock_image) || return 1
	attest_image "$img" "$dir/root.img" "$dir" || return 1
	vm_uki "$dir/uki.efi" --profile strict \
		--cmdline "root=LABEL=debian-root console=ttyS0 panic=-1 security=selinux systemd.show_status=error" \
		>"$dir/build.log"
	vm_make_esp "$dir/uki.efi" "$dir/uki.esp"
	d=$dir/swtpm
	vm_swtpm_setup "$d" sha1,sha256 || return 1
	vm_swtpm_start "$d" || return 1
	vm_ovmf_boot "$dir/boot.log" plain "$ATTEST_TIMEOUT" "" -drive "file=$dir/root.img,if=virtio,format=raw" \
		-drive "file=$dir/uki.esp,if=virtio,format=raw" \
		-drive "file=$pcrlock,if=virtio,format=raw,readonly=on" "${VM_TPM_ARGS[@]}" || true
	vm_swtpm_stop
	rm -f "$dir/root.img"
}

teardown_file() {
	vm_swtpm_stop
}

setup() {
	[[ -n ${ADIR:-} && -f $ADIR/boot.log ]] || skip "the Debian UKI boot did not run"
}

# cel [SECTION]: the userspace log as the probe read it (CEL_B64: after
# systemd 252; CEL_AFTER_B64: after systemd 257's pcrextend).
cel() {
	vm_section "$ADIR/boot.log" "${1:-CEL_B64}" | tr -d ' \r\n' | base64 -d
}

# tests/vm/cel-replay over the guest's firmware log and userspace log.
replay() {
	vm_section "$ADIR/boot.log" EVENTLOG >"$BATS_TEST_TMPDIR/eventlog.hex"
	cel "${1:-}" >"$BATS_TEST_TMPDIR/cel.log"
	"$HARDINIT_SRC/tests/vm/cel-replay" "$BATS_TEST_TMPDIR/eventlog.hex" "$BATS_TEST_TMPDIR/cel.log"
}

guest() {
	vm_section "$ADIR/boot.log" ATTEST | tr -d '\r' | sed -n "s/^$1=//p" | tr 'A-F' 'a-f'
}

@test "systemd 252 reaches multi-user after the hand-off on the UKI, and systemd-analyze prints hardinit's time as (initrd)" {
	vm_assert_log_contains "$ADIR/boot.log" "=== PROBE DONE ==="
	vm_assert_section_line "$ADIR/boot.log" SYSTEMD "multi-user=active"
	vm_assert_section_lacks "$ADIR/boot.log" SYSTEMD "failed: "
	vm_assert_log_contains "$ADIR/boot.log" "with the initrd's start time, as systemd's initrd"
	vm_assert_section_contains "$ADIR/boot.log" SYSTEMD "(initrd)"
	local initrd user
	initrd=$(vm_section "$ADIR/boot.log" SETUP | tr -d '\r' | sed -n 's/^InitRDTimestampMonotonic=//p')
	user=$(vm_section "$ADIR/boot.log" SETUP | tr -d '\r' | sed -n 's/^UserspaceTimestampMonotonic=//p')
	echo "initrd=$initrd userspace=$user"
	# hardinit's start, before systemd's: the initrd's time is theirs apart.
	[[ $initrd =~ ^[0-9]+$ && $user =~ ^[0-9]+$ ]] && ((initrd > 0 && initrd < user))
}

@test "with --switched-root --deserialize systemd 252 still did its normal setup: API mounts, hostname, machine-id, loopback" {
	local s
	s=$(vm_section "$ADIR/boot.log" SETUP | tr -d '\r')
	echo "$s"
	grep -qx "hostname=$IMG_HOSTNAME" <<<"$s"
	grep -qx "machine_id=6861726469696e6974746573740a0001" <<<"$s"
	grep -qx "mount /dev/shm tmpfs" <<<"$s"
	grep -qx "mount /dev/pts devpts" <<<"$s"
	grep -qx "mount /dev/mqueue mqueue" <<<"$s"
	grep -qx "mount /dev/hugepages hugetlbfs" <<<"$s"
	grep -qx "mount /run tmpfs" <<<"$s"
	grep -qx "mount /sys/fs/cgroup cgroup2" <<<"$s"
	grep -qx "mount /sys/kernel/security securityfs" <<<"$s"
	grep -qx "lo=unknown" <<<"$s"
}

@test "the userspace event log has systemd's format: a reader written from systemd's documentation accepts every record" {
	local out
	out=$(replay)
	echo "$out"
	grep -q '^rec1 pcr=11 type=phase string=enter-initrd$' <<<"$out"
	grep -q "^rec[0-9]* pcr=$PCR type=- string=hardinit:handoff:" <<<"$out"
	grep -q '^rec[0-9]* pcr=11 type=phase string=leave-initrd$' <<<"$out"
	[[ $(guest cel_mode) == 600 ]]
	# Each record's bootId is this boot's.
	cel | python3 -c 'import json, sys
ids = {json.loads(r)["content"]["bootId"] for r in sys.stdin.read().split("\x1e") if r.strip()}
assert ids == {sys.argv[1]}, ids' "$(guest boot_id)"
}

@test "the measurement PCR replays exactly from the firmware's log and hardinit's records, in both banks" {
	local out bank
	out=$(replay)
	for bank in sha1 sha256; do
		echo "$bank: log $(sed -n "s/^pcr$PCR $bank=//p" <<<"$out") guest $(guest "pcr${PCR}_$bank")"
		[[ -n $(guest "pcr${PCR}_$bank") && $(sed -n "s/^pcr$PCR $bank=//p" <<<"$out") == "$(guest "pcr${PCR}_$bank")" ]]
	done
}

@test "systemd 252's pcrphase extended sysinit and ready without a record: the log is hardinit's, intact; PCR 11 is its replay plus those two words" {
	local out bank want u
	for u in systemd-pcrphase-sysinit systemd-pcrphase; do
		vm_section "$ADIR/boot.log" ATTEST | grep "^$u " | grep "ActiveState=active" | grep -q "Result=success"
	done
	vm_section "$ADIR/boot.log" ATTEST | grep -q "journal: Successfully extended PCR index 11 with 'sysinit'"
	vm_section "$ADIR/boot.log" ATTEST | grep -q "journal: Successfully extended PCR index 11 with 'ready'"
	out=$(replay)
	# Only hardinit's records: its two phases and its five measurements.
	[[ $(grep -c '^rec' <<<"$out") -eq 7 ]]
	[[ $(grep -c '^rec.* pcr=11 ' <<<"$out") -eq 2 ]]
	for bank in sha1 sha256; do
		want=$(sed -n "s/^pcr11 $bank=//p" <<<"$out" | python3 -c 'import hashlib, sys
bank, v = sys.argv[1], bytes.fromhex(sys.stdin.read().strip())
for word in (b"sysinit", b"ready"):
    v = hashlib.new(bank, v + hashlib.new(bank, word).digest()).digest()
print(v.hex())' "$bank")
		echo "$bank: replay+sysinit+ready $want guest $(guest "pcr11_$bank")"
		[[ -n $want && $want == "$(guest "pcr11_$bank")" ]]
	done
}

@test "systemd-pcrlock (systemd 257) reads the log with the TPM: the measurement PCR matches it; PCR 11 does not, by systemd 252's two unrecorded words" {
	local json
	vm_section "$ADIR/boot.log" PCRLOCK | grep -qx "rc=0" || { vm_section "$ADIR/boot.log" PCRLOCK; false; }
	json=$(vm_section "$ADIR/boot.log" PCRLOCK | tr -d '\r' | grep '^{')
	python3 -c 'import json, sys
j = json.loads(sys.argv[1])
m = int(sys.argv[2])
pcrs = {p["pcr"]: p for p in j["pcrs"]}
print(pcrs[11], pcrs[m], sep="\n")
assert pcrs[m]["hashMatchesEventLog"] is True, pcrs[m]
assert pcrs[11]["hashMatchesEventLog"] is False, pcrs[11]
descr = [r.get("description") for r in j["log"] if r["pcr"] in (11, m)]
print(descr)
assert "enter-initrd" in descr and "leave-initrd" in descr, descr
assert any(d and d.startswith("hardinit:handoff:") for d in descr), descr
phase = [r for r in j["log"] if r.get("description") == "enter-initrd"][0]
print(phase)
assert phase.get("event") == "phase" and phase.get("match") is True, phase' "$json" "$PCR"
}

@test "systemd 257's pcrextend appends to hardinit's log after the hand-off: one record of systemd's after hardinit's, the whole log replays the measurement PCR in both banks, pcrlock still matches" {
	local ext out bank want
	ext=$(vm_section "$ADIR/boot.log" PCREXTEND | tr -d '\r')
	echo "$ext"
	grep -qx "rc=0" <<<"$ext"
	grep -q "Extended PCR index $PCR with 'hardinit-test:after-handoff'" <<<"$ext"
	grep -qx "cel_mode=600" <<<"$ext"
	cel >"$BATS_TEST_TMPDIR/before.log"
	cel CEL_AFTER_B64 >"$BATS_TEST_TMPDIR/after.log"
	# hardinit's bytes unchanged, then exactly one record, as systemd
	# writes it: its four fields, the word with its event type, this
	# boot's id, a later CLOCK_BOOTTIME, one digest per active bank.
	python3 -c 'import hashlib, json, sys
before, after = (open(f, "rb").read() for f in sys.argv[1:3])
assert before and after.startswith(before), "the records before the append changed"
new = after[len(before):]
assert new.startswith(b"\x1e") and new.endswith(b"\n") and new.count(b"\x1e") == 1, new
rec = json.loads(new[1:])
print(rec)
assert sorted(rec) == ["content", "content_type", "digests", "pcr"], rec
assert rec["pcr"] == int(sys.argv[4]) and rec["content_type"] == "systemd", rec
c = rec["content"]
assert sorted(c) == ["bootId", "eventType", "string", "timestamp"], c
assert c["string"] == "hardinit-test:after-handoff" and c["eventType"] == "phase", c
assert c["bootId"] == sys.argv[3], c
old = [json.loads(r) for r in before.split(b"\x1e") if r.strip()]
assert c["timestamp"] > max(r["content"]["timestamp"] for r in old), c
word = c["string"].encode()
assert {d["hashAlg"]: d["digest"] for d in rec["digests"]} == \
    {b: hashlib.new(b, word).hexdigest() for b in ("sha1", "sha256")}, rec["digests"]' \
		"$BATS_TEST_TMPDIR/before.log" "$BATS_TEST_TMPDIR/after.log" "$(guest boot_id)" "$PCR"
	# The whole log: a reader written from systemd's documentation accepts
	# it and the measurement PCR is the firmware's log plus every record, in each bank.
	out=$(replay CEL_AFTER_B64)
	echo "$out"
	[[ $(grep -c '^rec' <<<"$out") -eq 8 ]]
	grep -qx "rec8 pcr=$PCR type=phase string=hardinit-test:after-handoff" <<<"$out"
	for bank in sha1 sha256; do
		want=$(sed -n "s/^pcr${PCR}_$bank=//p" <<<"$ext" | tr 'A-F' 'a-f')
		echo "$bank: log $(sed -n "s/^pcr$PCR $bank=//p" <<<"$out") guest $want (before $(guest "pcr${PCR}_$bank"))"
		[[ -n $want && $want != "$(guest "pcr${PCR}_$bank")" && $(sed -n "s/^pcr$PCR $bank=//p" <<<"$out") == "$want" ]]
	done
	# systemd-pcrlock reads the appended log with the TPM: the measurement PCR matches.
	vm_section "$ADIR/boot.log" PCRLOCK_AFTER | grep -qx "rc=0" || { vm_section "$ADIR/boot.log" PCRLOCK_AFTER; false; }
	python3 -c 'import json, sys
j = json.loads(sys.argv[1])
m = int(sys.argv[2])
pcrs = {p["pcr"]: p for p in j["pcrs"]}
print(pcrs[m])
assert pcrs[m]["hashMatchesEventLog"] is True, pcrs[m]
rec = [r for r in j["log"] if r.get("description") == "hardinit-test:after-handoff"]
print(rec)
assert len(rec) == 1 and rec[0]["pcr"] == m and rec[0].get("event") == "phase", rec' \
		"$(vm_section "$ADIR/boot.log" PCRLOCK_AFTER | tr -d '\r' | grep '^{')" "$PCR"
}
