#!/usr/bin/env bats
# The boot path in QEMU with Debian's 6.12 cloud kernel: finding root by
# each kind of root=, ro/rw, init= and its fallback, what reaches the real
# init, the bounded wait with its device listing, the failure action, and
# the init= mode on a root the kernel mounted itself. Every check reads
# what the test init (tests/probe/testinit.c) saw, not hardinit's claims.
# A malformed command line is decided from it alone: tests/bats/cli.bats
# checks it with hardinit dry-run.

# budget: 170 s

load lib

UUID=5c0ffee0-1234-4abc-8def-0123456789ab
LABEL=hardroot
FAIL="hardinit.boot.failure_action=poweroff"
PARTUUID=0b1e2c3d-4f50-4a6b-8c7d-9e0f1a2b3c4d
PARTLABEL=hardroot-part

setup_file() {
	local dir
	dir=$(vm_cache_dir)/boot
	mkdir -p "$dir"
	export BOOT_DIR=$dir
	rm -f "$dir/default.log" "$dir/default.log.rc"
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	cp "$HARDINIT_SRC/build/probe/testinit" "$dir/root/sbin/otherinit"
	vm_rootfs "$dir/root.img" "$dir/root" -L "$LABEL" -U "$UUID"
	vm_initramfs "$dir/initrd.img"

	# The init= mode: hardinit on the root itself, no initramfs.
	rm -rf "$dir/onroot" && mkdir -p "$dir/onroot"
	vm_stage_root "$dir/onroot"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$dir/onroot/sbin/hardinit"
	install -D -m 0644 "$HARDINIT_SRC/config/baseline.conf" "$dir/onroot/etc/hardinit.conf"
	vm_rootfs "$dir/onroot.img" "$dir/onroot"

	# A GPT disk whose first partition holds the same root: ext4 written at
	# the partition's offset (mke2fs -E offset), no loop mount.
	local fs_bytes
	fs_bytes=$(stat -c %s "$dir/root.img")
	truncate -s $((fs_bytes + 4 * 1024 * 1024)) "$dir/gpt.img"
	printf 'label: gpt\nstart=2048, size=%d, type=linux, uuid=%s, name=%s\n' \
		$((fs_bytes / 512)) "$PARTUUID" "$PARTLABEL" | sfdisk -q "$dir/gpt.img"
	dd if="$dir/root.img" of="$dir/gpt.img" bs=1M seek=1 conv=notrunc status=none

	# A root with no init at all.
	rm -rf "$dir/noinit" && mkdir -p "$dir/noinit"/{dev,proc,sys,run}
	vm_rootfs "$dir/noinit.img" "$dir/noinit"
}

boot() {
	local log=$1
	shift
	vm_boot "$log" --initrd "$BOOT_DIR/initrd.img" --disk "$BOOT_DIR/root.img" "$@"
}

# The default boot (root=/dev/vda, nothing else): one boot, made by the
# first test that reads it, read by every test that checks what a default
# boot leaves (the root, the session and fds, the moved mounts, the report).
# Its QEMU status is kept beside the log, so each of those tests fails as
# its own boot would have.
default_boot() {
	local log=$BOOT_DIR/default.log rc=0
	if [[ ! -f $log.rc ]]; then
		boot "$log" --append "root=/dev/vda $FAIL" || rc=$?
		echo "$rc" >"$log.rc"
	fi
	DEFAULT_LOG=$log
	return "$(cat "$log.rc")"
}

# The mount line of / as the test init saw it: "fields... - fstype source opts".
root_mount() {
	vm_section "$1" MOUNTINFO | awk '$5 == "/"'
}

@test "root=/dev/vda: the real init runs as PID 1 on a read-only root" {
	default_boot
	log=$DEFAULT_LOG
	vm_assert_done "$log"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/init"
	run root_mount "$log"
	[[ $output == *" - ext4 /dev/vda ro"* ]] || { echo "root mount: $output"; false; }
	vm_assert_section_line "$log" PID "pid=1"
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
}

@test "root=UUID= finds the disk by its ext4 UUID" {
	log=$BATS_TEST_TMPDIR/uuid.log
	boot "$log" --append "root=UUID=${UUID^^} $FAIL"
	vm_assert_done "$log"
	run root_mount "$log"
	[[ $output == *" - ext4 /dev/vda "* ]] || { echo "root mount: $output"; false; }
}

@test "root=LABEL= finds the disk by its label, and rw mounts it read-write" {
	log=$BATS_TEST_TMPDIR/label.log
	boot "$log" --append "root=LABEL=$LABEL rw $FAIL"
	vm_assert_done "$log"
	run root_mount "$log"
	[[ $output == *" - ext4 /dev/vda rw"* ]] || { echo "root mount: $output"; false; }
}

@test "root=MAJ:MIN finds the disk by device number" {
	log=$BATS_TEST_TMPDIR/devnum.log
	boot "$log" --append "root=254:0 $FAIL"
	vm_assert_done "$log"
	run root_mount "$log"
	[[ $output == *" /dev/vda "* ]] || { echo "root mount: $output"; false; }
}

@test "init= runs a custom init; runlevel words, -- arguments and the environment reach it" {
	log=$BATS_TEST_TMPDIR/init.log
	boot "$log" --append "root=/dev/vda init=/sbin/otherinit single 3 FOO=bar $FAIL -- one two=2"
	vm_assert_done "$log"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/otherinit"
	vm_assert_section_contains "$log" ARGV "=single"
	vm_assert_section_contains "$log" ARGV "=3"
	vm_assert_section_contains "$log" ARGV "=one"
	vm_assert_section_contains "$log" ARGV "=two=2"
	vm_assert_section_line "$log" ENV "FOO=bar"
	vm_assert_section_line "$log" ENV "TERM=linux"
	vm_assert_section_line "$log" ENV "HOME=/"
	# The kernel's own options and hardinit's never reach init.
	vm_assert_section_lacks "$log" ARGV "hardinit."
	vm_assert_section_lacks "$log" ARGV "root="
}

@test "a missing init= falls back to /sbin/init with a warning" {
	log=$BATS_TEST_TMPDIR/fallback.log
	boot "$log" --append "root=/dev/vda init=/sbin/nonexistent $FAIL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/init"
	vm_assert_log_contains "$log" "init /sbin/nonexistent is missing or not executable"
}

@test "the real init starts in a fresh session with fds 0-2 on the console and no stray fds" {
	default_boot
	log=$DEFAULT_LOG
	vm_assert_done "$log"
	vm_assert_section_line "$log" PID "sid=1"
	vm_assert_section_line "$log" PID "fd0=open /dev/console"
	vm_assert_section_line "$log" PID "fd2=open /dev/console"
	vm_assert_section_lacks "$log" PID "other_fd="
}

@test "the initramfs is freed and the API mounts moved into the new root" {
	default_boot
	log=$DEFAULT_LOG
	vm_assert_done "$log"
	for m in /proc /sys /dev /run; do
		vm_section "$log" MOUNTINFO | awk -v m="$m" '$5 == m {found=1} END {exit !found}' ||
			{ echo "$m not mounted in the new root"; vm_section "$log" MOUNTINFO; false; }
	done
	vm_assert_section_contains "$log" REPORT "switchroot initramfs_freed ok"
}

@test "the boot report is written to /run/hardinit in the new root" {
	default_boot
	log=$DEFAULT_LOG
	vm_assert_done "$log"
	vm_assert_section_contains "$log" REPORT "stage early"
	vm_assert_section_contains "$log" REPORT "stage switchroot"
	vm_assert_section_contains "$log" REPORT "root device ok /dev/vda"
}

@test "a wrong UUID: clear message listing the devices seen, then the failure action within the bound" {
	log=$BATS_TEST_TMPDIR/wrong.log
	boot "$log" --timeout 90 --append "root=UUID=00000000-0000-0000-0000-000000000000 hardinit.boot.root_timeout=3 $FAIL"
	vm_assert_log_contains "$log" "did not appear within 3 s"
	vm_assert_log_contains "$log" "seen vda: TYPE=ext4 UUID=$UUID LABEL=$LABEL"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[ "$(vm_exit_reason "$log")" = poweroff ]
	vm_assert_log_lacks "$log" "=== BEGIN ARGV ==="
}

@test "a root without any init: clear message naming what was tried, then the failure action" {
	log=$BATS_TEST_TMPDIR/noinit.log
	vm_boot "$log" --initrd "$BOOT_DIR/initrd.img" --disk "$BOOT_DIR/noinit.img" --append "root=/dev/vda $FAIL"
	vm_assert_log_contains "$log" "no init could be executed (tried /sbin/init, /etc/init, /bin/init, /bin/sh)"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "init=/sbin/hardinit on a root the kernel mounted: hardens, then execs the real init" {
	log=$BATS_TEST_TMPDIR/onroot.log
	vm_boot "$log" --append "root=/dev/nvme0n1 rootwait init=/sbin/hardinit $FAIL" -- \
		-drive "file=$BOOT_DIR/onroot.img,if=none,id=nv0,format=raw" -device nvme,drive=nv0,serial=hardinit0
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "hardinit: hardinit"
	vm_assert_log_contains "$log" "(on root)"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/init"
	vm_assert_section_line "$log" PID "pid=1"
	vm_assert_section_contains "$log" REPORT "stage sysctl"
	vm_assert_section_lacks "$log" REPORT "stage switchroot"
}

@test "hardinit started with fds 0-2 closed (no console): the real init still gets them on the console" {
	log=$BATS_TEST_TMPDIR/nocons.log
	vm_build_once "$BOOT_DIR/closefds.img" \
		vm_initramfs "$BOOT_DIR/closefds.img" --add "$HARDINIT_SRC/build/probe/closefds:/closefds"
	vm_boot "$log" --initrd "$BOOT_DIR/closefds.img" --disk "$BOOT_DIR/root.img" \
		--append "rdinit=/closefds root=/dev/vda $FAIL"
	vm_assert_done "$log"
	vm_assert_section_line "$log" PID "fd0=open /dev/console"
	vm_assert_section_line "$log" PID "fd1=open /dev/console"
	vm_assert_section_line "$log" PID "fd2=open /dev/console"
	vm_assert_log_contains "$log" "handing off to /sbin/init"
}

@test "root=PARTUUID= and root=PARTLABEL= find a GPT partition" {
	command -v sfdisk >/dev/null || skip "sfdisk missing (apt-get install fdisk)"
	for spec in "PARTUUID=${PARTUUID^^}" "PARTLABEL=$PARTLABEL"; do
		log=$BATS_TEST_TMPDIR/part.log
		vm_boot "$log" --initrd "$BOOT_DIR/initrd.img" --disk "$BOOT_DIR/gpt.img" --append "root=$spec $FAIL"
		vm_assert_done "$log"
		run root_mount "$log"
		[[ $output == *" - ext4 /dev/vda1 "* ]] || { echo "$spec: root mount: $output"; false; }
	done
}

@test "rootwait: a longer, still bounded wait with progress lines" {
	log=$BATS_TEST_TMPDIR/rootwait.log
	boot "$log" --timeout 90 --append "root=LABEL=nosuchlabel rootwait hardinit.boot.rootwait_timeout=12 $FAIL"
	vm_assert_log_contains "$log" "waiting for root device LABEL=nosuchlabel"
	vm_assert_log_contains "$log" "did not appear within 12 s"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "failure_action=halt: the message, then the machine stays halted (never exits PID 1)" {
	log=$BATS_TEST_TMPDIR/halt.log
	run boot "$log" --timeout 30 --append "root=LABEL=nosuchlabel hardinit.boot.root_timeout=1 hardinit.boot.failure_action=halt"
	[ "$status" -ne 0 ]   # QEMU had to be killed: the guest stayed halted
	vm_assert_log_contains "$log" "system halted; power it off or reset it"
	grep -aq "Kernel panic" "$log" && { echo "PID 1 exited"; false; }
	true
}

@test "devices that cannot hold a root are skipped, not probed: unconfigured loop devices" {
	vm_build_once "$BOOT_DIR/loop.img" vm_initramfs "$BOOT_DIR/loop.img" --modules loop
	log=$BATS_TEST_TMPDIR/loop.log
	vm_boot "$log" --initrd "$BOOT_DIR/loop.img" --disk "$BOOT_DIR/root.img" --timeout 90 \
		--append "root=LABEL=nosuchlabel hardinit.boot.root_timeout=2 $FAIL"
	# The loop devices exist in the guest (the driver made loop0-7) ...
	grep -aq "loop: module loaded" "$log" || { echo "the loop driver did not load"; false; }
	vm_assert_log_contains "$log" "seen vda: TYPE=ext4"
	# ... but are never listed as probed.
	vm_assert_log_lacks "$log" "seen loop"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}
