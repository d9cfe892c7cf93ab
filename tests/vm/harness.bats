#!/usr/bin/env bats
# Tests of the VM harness itself (tests/vm/lib.bash and tests/probe/testinit),
# independent of hardinit: testinit runs as /init from a plain cpio and
# reads the test disk with busybox after loading virtio_blk itself.
#
# Boots: the 6.12 kernel with the report + disk probe, the 6.1 kernel bare,
# a hanging guest (timeout), a guest without init (panic).

# budget: 60 s

load lib

ROOT_LABEL=harness-root
ROOT_UUID=6b1d3f0e-2c55-4b8e-9a41-5d0c7e2a9f13

# An initramfs whose /init is testinit, with busybox, the given kernel's
# virtio_blk (decompressed: busybox insmod takes a plain .ko) and a probe.
build_probe_initrd() {
	local out=$1 version=$2 probe=$3 dir kdir kver ko
	dir=$(mktemp -d "$BATS_FILE_TMPDIR/initrd.XXXXXX")
	vm_stage_root "$dir"
	install -m 0755 "$HARDINIT_SRC/build/probe/testinit" "$dir/init"
	kdir=$(vm_kernel_dir "$version")
	kver=$(cat "$kdir/kver")
	mkdir -p "$dir/modules"
	for ko in virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
		local f
		f=$(find "$kdir/lib/modules/$kver" -name "$ko.ko*" | head -n 1)
		[[ -n $f ]] || continue # built in on this kernel
		case $f in
		*.xz) xz -dc "$f" >"$dir/modules/$ko.ko" ;;
		*) cp "$f" "$dir/modules/$ko.ko" ;;
		esac
	done
	vm_probe_script "$dir" "$probe"
	vm_cpio "$out" "$dir"
}

DISK_PROBE='
echo "=== BEGIN DISK ==="
for m in virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	[ -f /modules/$m.ko ] && insmod /modules/$m.ko
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
echo "by_label=$(findfs LABEL='"$ROOT_LABEL"')"
echo "by_uuid=$(findfs UUID='"$ROOT_UUID"')"
mkdir -p /mnt && mount -t ext4 -o ro /dev/vda /mnt && echo mounted=yes
cmp /mnt/sbin/init /init && echo init_is_testinit=yes
grep "^alice:" /mnt/etc/passwd
stat -c "home_bob=%u:%g:%a" /mnt/home/bob
cat /mnt/marker
echo "=== END DISK ==="
echo "=== BEGIN SU ==="
su alice -c id
su bob -c id
echo "=== END SU ==="
'

setup_file() {
	local cache root
	cache=$(vm_cache_dir)
	export H_LOG=$BATS_FILE_TMPDIR/boot612.log H_RC=$BATS_FILE_TMPDIR/boot612.rc

	root=$BATS_FILE_TMPDIR/root
	vm_stage_root "$root"
	echo "made by vm_rootfs" >"$root/marker"
	vm_rootfs "$cache/harness-root.img" "$root" -L "$ROOT_LABEL" -U "$ROOT_UUID"
	build_probe_initrd "$cache/harness-612.cpio" 6.12 "$DISK_PROBE"

	local rc=0
	vm_boot "$H_LOG" --initrd "$cache/harness-612.cpio" --disk "$cache/harness-root.img" \
		--append 'foo single FOO=bar -- x y' --timeout 120 || rc=$?
	echo "$rc" >"$H_RC"
}

@test "harness: 6.12 boot of testinit exits by itself and powers off" {
	run cat "$H_RC"
	[ "$output" = 0 ]
	vm_assert_done "$H_LOG"
	[ "$(vm_exit_reason "$H_LOG")" = poweroff ]
}

@test "harness: testinit writes its first-instruction mark to kmsg after the kernel runs /init" {
	vm_assert_log_contains "$H_LOG" "Run /init as init process"
	run grep -aE 'testinit: first instruction boottime_ns=[0-9]+' "$H_LOG"
	[ "$status" -eq 0 ]
}

@test "harness: argv reaches init as the kernel passes it (words, single, after --)" {
	run vm_section "$H_LOG" ARGV
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "argv[0]=/init" ]
	[ "${lines[1]}" = "argv[1]=foo" ]
	[ "${lines[2]}" = "argv[2]=single" ]
	[ "${lines[3]}" = "argv[3]=x" ]
	[ "${lines[4]}" = "argv[4]=y" ]
	[ "${#lines[@]}" -eq 5 ]
}

@test "harness: environment reaches init (kernel defaults plus FOO=bar)" {
	vm_assert_section_line "$H_LOG" ENV "HOME=/"
	vm_assert_section_line "$H_LOG" ENV "TERM=linux"
	vm_assert_section_line "$H_LOG" ENV "FOO=bar"
	vm_assert_section_lacks "$H_LOG" ENV "console="
}

@test "harness: PID, MOUNTINFO, STATUS and CMDLINE sections are complete" {
	vm_assert_section_line "$H_LOG" PID "pid=1"
	vm_assert_section_contains "$H_LOG" PID "fd0=open /dev/console"
	vm_assert_section_contains "$H_LOG" PID "fd1=open /dev/console"
	vm_assert_section_contains "$H_LOG" PID "fd2=open /dev/console"
	vm_assert_section_lacks "$H_LOG" PID "other_fd="
	vm_assert_section_contains "$H_LOG" MOUNTINFO " / / "
	vm_assert_section_contains "$H_LOG" MOUNTINFO " /proc "
	vm_assert_section_contains "$H_LOG" STATUS "CapBnd:"
	vm_assert_section_line "$H_LOG" CMDLINE "console=ttyS0 panic=-1 foo single FOO=bar -- x y"
	# No hardinit ran: no report section.
	run vm_section "$H_LOG" REPORT
	[ "$status" -ne 0 ]
}

@test "harness: vm_rootfs image is found by LABEL and UUID and keeps the staged tree" {
	vm_assert_section_line "$H_LOG" DISK "by_label=/dev/vda"
	vm_assert_section_line "$H_LOG" DISK "by_uuid=/dev/vda"
	vm_assert_section_line "$H_LOG" DISK "mounted=yes"
	vm_assert_section_line "$H_LOG" DISK "init_is_testinit=yes"
	vm_assert_section_line "$H_LOG" DISK "alice:x:1001:1001:alice:/home/alice:/bin/sh"
	vm_assert_section_line "$H_LOG" DISK "home_bob=1002:1002:700"
	vm_assert_section_line "$H_LOG" DISK "made by vm_rootfs"
}

@test "harness: the staged users exist in the guest (su works for alice and bob)" {
	vm_assert_section_contains "$H_LOG" SU "uid=1001(alice) gid=1001(alice)"
	vm_assert_section_contains "$H_LOG" SU "uid=1002(bob) gid=1002(bob)"
	vm_assert_log_contains "$H_LOG" "testinit: /probe/run exited with status 0"
}

@test "harness: the 6.1 kernel boots testinit too" {
	local cache log initrd
	cache=$(vm_cache_dir)
	log=$BATS_TEST_TMPDIR/boot61.log
	initrd=$cache/harness-61.cpio
	build_probe_initrd "$initrd" 6.1 'echo "=== BEGIN UNAME ==="; uname -r; echo "=== END UNAME ==="'
	run vm_boot "$log" --kernel 6.1 --initrd "$initrd" --timeout 120
	[ "$status" -eq 0 ]
	vm_assert_done "$log"
	vm_assert_section_line "$log" UNAME "$(vm_kver 6.1)"
}

@test "harness: vm_boot kills a hung guest and fails within its bound" {
	local log=$BATS_TEST_TMPDIR/hang.log initrd=$BATS_TEST_TMPDIR/hang.cpio start elapsed bound=25
	build_probe_initrd "$initrd" 6.12 'echo "probe: hanging now"; while :; do sleep 1; done'
	start=$SECONDS
	run vm_boot "$log" --initrd "$initrd" --timeout "$bound"
	elapsed=$((SECONDS - start))
	[ "$status" -ne 0 ]
	[ "$elapsed" -le $((bound + 10)) ]
	# The guest really ran (the hang is the probe's, not a failed start).
	vm_assert_log_contains "$log" "probe: hanging now"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	run vm_assert_done "$log"
	[ "$status" -ne 0 ]
}

@test "harness: a guest without init panics; QEMU exits and vm_exit_reason says panic" {
	local log=$BATS_TEST_TMPDIR/panic.log dir=$BATS_TEST_TMPDIR/noinit initrd=$BATS_TEST_TMPDIR/noinit.cpio
	mkdir -p "$dir/dev"
	mknod -m 0600 "$dir/dev/console" c 5 1
	vm_cpio "$initrd" "$dir"
	run vm_boot "$log" --initrd "$initrd" --timeout 120
	[ "$status" -eq 0 ]
	[ "$(vm_exit_reason "$log")" = panic ]
	run vm_assert_done "$log"
	[ "$status" -ne 0 ]
	[[ $output == *"FAILED: expected the log to contain: === TESTINIT DONE ==="* ]]
	[[ $output == *"Kernel panic"* ]]
}

# ---- host-side checks of the library (no boot) ----

@test "harness: vm_section strips \\r, drops kernel records, rejoins lines they split, fails on absent or unclosed sections" {
	local log=$BATS_TEST_TMPDIR/fake.log
	# As on the serial console: firmware text without a newline before the
	# kernel's first record, then records landing inside testinit's lines.
	printf '%s\r\n' "Booting... ok[    0.000000] Linux version 6.12" "=== BEGIN A ===" "a1" \
		"a2 first[    1.234567] random: crng init done" "[    1.234568] second record" \
		" half" "[    1.300000] between lines" "a3" "=== END A ===" "=== BEGIN B ===" "b1" >"$log"
	run vm_section "$log" A
	[ "$status" -eq 0 ]
	[ "$output" = $'a1\na2 first half\na3' ]
	VM_SECTION_RAW=1 run vm_section "$log" A
	[ "${lines[1]}" = "a2 first[    1.234567] random: crng init done" ]
	run vm_section "$log" C
	[ "$status" -ne 0 ]
	run vm_section "$log" B
	[ "$status" -ne 0 ]
	vm_assert_log_contains "$log" "a2 first half"
	vm_assert_log_contains "$log" "random: crng init done"
	run vm_assert_section_line "$log" A "a4"
	[ "$status" -ne 0 ]
	[[ $output == *"expected section A to have the line: a4"* ]]
	[[ $output == *"--- last 40 lines of $log ---"* ]]
}

@test "harness: a console's erase-line before a probe's line is dropped; vm_section_value reads a key, its assertion names what it read" {
	local log=$BATS_TEST_TMPDIR/fake.log
	# systemd's status line cleared (ESC [ K) where the probe's line starts.
	printf '%s\r\n' $'\e[K=== BEGIN S ===' "state=running" " pushed=1" "state=late" "=== END S ===" >"$log"
	[ "$(vm_section_value "$log" S state)" = running ]
	[ "$(vm_section_value "$log" S pushed)" = 1 ]
	[ -z "$(vm_section_value "$log" S absent)" ]
	vm_assert_section_value "$log" S state running
	run vm_assert_section_value "$log" S state degraded
	[ "$status" -ne 0 ]
	[[ $output == *"state: guest reads 'running', expected 'degraded'"* ]]
	[ "$(vm_capbnd_without 17 38 39 40)" = 0000003ffffdffff ]
}

@test "harness: vm_eventlog_events lists one PCR's extended events of a crypto-agile log; vm_pcr_replay extends them as the TPM does" {
	local ev d1 d2 want
	d1=$(printf a | sha256sum | cut -d' ' -f1)
	d2=$(printf b | sha256sum | cut -d' ' -f1)
	# The Spec ID event (SHA-1 format, sha256 only), then PCR 7: one event,
	# an EV_NO_ACTION; PCR 8: one event; PCR 7: one more.
	ev=$(python3 - "$d1" "$d2" <<-'PY'
		import struct, sys
		spec = b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 0, 2, 1) + struct.pack("<HH", 0xB, 32) + b"\0"
		out = struct.pack("<II20sI", 0, 3, bytes(20), len(spec)) + spec
		def event(pcr, etype, digest):
		    return struct.pack("<III", pcr, etype, 1) + struct.pack("<H", 0xB) + digest + struct.pack("<I", 1) + b"x"
		d1, d2 = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
		out += event(7, 0x80000001, d1) + event(7, 3, d2) + event(8, 0xd, d2) + event(7, 4, d2)
		print(out.hex())
	PY
	)
	run vm_eventlog_events 7 <<<"$ev"
	[ "$output" = "80000001 sha256=$d1"$'\n'"00000004 sha256=$d2" ]
	want=$({ printf '%064d' 0; echo "$d1"; } | xxd -r -p | sha256sum | cut -d' ' -f1)
	want=$({ echo "$want$d2"; } | xxd -r -p | sha256sum | cut -d' ' -f1)
	[ "$(vm_pcr_replay sha256 <<<"$output")" = "$want" ]
	# A word after the events: its SHA-256 extended last, as systemd does.
	want=$({ echo "$want$(printf w | sha256sum | cut -d' ' -f1)"; } | xxd -r -p | sha256sum | cut -d' ' -f1)
	[ "$(vm_pcr_replay sha256 w <<<"$output")" = "$want" ]
}

@test "harness: vm_kernel, vm_kver and vm_kernel_dir agree with the unpacked package" {
	local v dir
	for v in 6.12 6.1; do
		dir=$(vm_kernel_dir "$v")
		[ -f "$(vm_kernel "$v")" ]
		[ "$(vm_kernel "$v")" = "$dir/boot/vmlinuz-$(vm_kver "$v")" ]
		[ -s "$dir/lib/modules/$(vm_kver "$v")/modules.dep" ]
	done
	[[ $(vm_kver 6.12) == 6.12.* ]]
	[[ $(vm_kver 6.1) == 6.1.* ]]
}

@test "harness: vm_boot rejects an unknown option without starting QEMU" {
	run vm_boot "$BATS_TEST_TMPDIR/x.log" --bogus
	[ "$status" -eq 2 ]
	[[ $output == *"unknown option '--bogus'"* ]]
}

# A stand-in for QEMU that writes the serial log (-serial file:LOG) the way
# a kernel whose timer check failed does, N times, then a good boot.
fake_qemu() {
	local q=$BATS_TEST_TMPDIR/qemu
	cat >"$q" <<-EOF
		#!/bin/bash
		log=
		while [ \$# -gt 0 ]; do
			case \$1 in -serial) log=\${2#file:}; shift ;; esac
			shift
		done
		n=\$(cat "$BATS_TEST_TMPDIR/runs" 2>/dev/null || echo 0)
		echo \$((n + 1)) >"$BATS_TEST_TMPDIR/runs"
		if [ "\$n" -lt "$1" ]; then
			printf 'Kernel panic - not syncing: IO-APIC + timer doesn%st work!\\n' "'" >"\$log"
			exit 0
		fi
		printf 'Run /init as init process\\n=== TESTINIT DONE ===\\n' >"\$log"
	EOF
	chmod +x "$q"
	echo "$q"
}

@test "harness: a kernel whose timer check failed on a busy host is booted once more, never twice more" {
	local log=$BATS_TEST_TMPDIR/t.log
	VM_QEMU=$(fake_qemu 1) vm_boot "$log" --append "root=/dev/vda"
	[ "$(cat "$BATS_TEST_TMPDIR/runs")" -eq 2 ]
	grep -q 'TESTINIT DONE' "$log"
	grep -q 'IO-APIC' "$log.timer-check"
	rm -f "$BATS_TEST_TMPDIR/runs"
	VM_QEMU=$(fake_qemu 5) vm_boot "$log" --append "root=/dev/vda"
	# Twice, then the failed boot's log stands for the test to read.
	[ "$(cat "$BATS_TEST_TMPDIR/runs")" -eq 2 ]
	grep -q 'IO-APIC' "$log"
}

@test "harness: vm_build_once builds once and reports a command that creates nothing" {
	local p=$BATS_TEST_TMPDIR/once/thing
	vm_build_once "$p" sh -c "echo built >>'$BATS_TEST_TMPDIR/count'; touch '$p'"
	vm_build_once "$p" sh -c "echo built >>'$BATS_TEST_TMPDIR/count'; touch '$p'"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/count")" -eq 1 ]
	run vm_build_once "$BATS_TEST_TMPDIR/once/never" true
	[ "$status" -ne 0 ]
	[[ $output == *"did not create"* ]]
}
