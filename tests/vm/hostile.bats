#!/usr/bin/env bats
# A hostile or broken root in QEMU: links where directories
# should be, FIFOs where files should be, a #! init without its
# interpreter, two disks with one label, no console at all, a damaged
# journal, a byte-order mark, a malformed command line. hardinit must say
# one clear line and go on, or take the config's failure action: never
# hang, never follow the link. The truth is read in the guest (mountinfo,
# stat, readlink of testinit's fds), not only from hardinit's log. An empty
# root= and a root whose /run is a link are decided from the command line,
# the config and the root's files alone: tests/bats/hostile.bats checks
# them with hardinit dry-run.

# budget: 55 s

load lib

BOOT_TIMEOUT=240

setup_file() {
	local dir
	dir=$(vm_cache_dir)/hostile
	mkdir -p "$dir"
	export HDIR=$dir

	# The hostile root: /tmp -> /etc, /var/tmp -> ../etc, a FIFO as
	# namespace.conf, a #! init whose interpreter does not exist.
	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	rmdir "$dir/root/tmp" "$dir/root/var/tmp"
	ln -s /etc "$dir/root/tmp"
	ln -s ../etc "$dir/root/var/tmp"
	echo keep >"$dir/root/etc/marker"
	chmod 755 "$dir/root/etc"
	mkdir -p "$dir/root/etc/security"
	mkfifo "$dir/root/etc/security/namespace.conf"
	printf '#!/bin/no-such-interpreter\necho never\n' >"$dir/root/sbin/myinit"
	chmod 755 "$dir/root/sbin/myinit"
	vm_probe_script "$dir/root" <<-'EOF2'
		echo "=== BEGIN HOSTILE ==="
		echo "etc_mounts=$(awk '$5 == "/etc"' /proc/self/mountinfo | wc -l)"
		echo "tmp_link=$(readlink /tmp)"
		echo "marker=$(cat /etc/marker)"
		stat -c 'etc_mode=%a' /etc
		if [ -e /etc/tmp-inst ]; then echo "etc_tmp_inst=present"; else echo "etc_tmp_inst=absent"; fi
		echo "root_source=$(awk '$5 == "/" { for (i = 7; i <= NF; i++) if ($i == "-") print $(i + 2) }' /proc/self/mountinfo | tail -n 1)"
		echo "=== END HOSTILE ==="
	EOF2
	vm_rootfs "$dir/root.img" "$dir/root" -L hostroot

	# A second disk with the same label, and something else on it.
	rm -rf "$dir/dup" && mkdir -p "$dir/dup"
	echo dup >"$dir/dup/marker-dup"
	vm_rootfs "$dir/dup.img" "$dir/dup" -L hostroot

	printf '%s\n' '[boot]' 'failure_action = poweroff' 'failure_delay = 0' 'root_timeout = 10' \
		'[mounts]' 'tmp_size = 16m' 'polyinstantiate = yes' 'polydirs = /tmp /var/tmp' >"$dir/hostile.conf"
	sed 's/^root_timeout = 10$/&\nroot_duplicates = warn/' "$dir/hostile.conf" >"$dir/warn.conf"
	sed 's/^root_timeout = 10$/&\nread_root_config = yes/' "$dir/hostile.conf" >"$dir/rootconf.conf"
	"$HARDINIT_SRC/build/hardinit" check-config "$dir/warn.conf" >&2
	vm_initramfs "$dir/hostile.img" --config "$dir/hostile.conf"
	vm_initramfs "$dir/warn.img" --config "$dir/warn.conf"
	vm_initramfs "$dir/rootconf.img" --config "$dir/rootconf.conf"

	boot "$dir/hostile.log" hostile.img "root=/dev/vda init=/sbin/myinit"
}

# boot LOG INITRD APPEND [more vm_boot options]
boot() {
	local log=$1 initrd=$2 append=$3
	shift 3
	vm_boot "$log" --timeout "$BOOT_TIMEOUT" --initrd "$HDIR/$initrd" --disk "$HDIR/root.img" \
		--append "$append" "$@" || true
}

@test "/tmp a link to /etc: no tmpfs over /etc, one line naming the link and its target" {
	local log=$HDIR/hostile.log
	vm_assert_done "$log"
	vm_assert_section_line "$log" HOSTILE "etc_mounts=0"
	vm_assert_section_line "$log" HOSTILE "tmp_link=/etc"
	vm_assert_section_line "$log" HOSTILE "marker=keep"
	vm_assert_section_line "$log" HOSTILE "etc_mode=755"
	vm_assert_log_contains "$log" "/tmp -> /etc is a symbolic link; hardinit does not follow links"
	vm_assert_section_contains "$log" REPORT "/tmp refused symbolic link /tmp -> /etc"
}

@test "/var/tmp a link: no instance parent made through it, and no chmod advice for it" {
	local log=$HDIR/hostile.log
	vm_assert_section_line "$log" HOSTILE "etc_tmp_inst=absent"
	vm_assert_log_contains "$log" "instance parent /var/tmp/tmp-inst: a symbolic link on the way (/var/tmp -> ../etc)"
	vm_assert_log_lacks "$log" "chmod 000 /var/tmp/tmp-inst"
}

@test "a FIFO as namespace.conf is refused at once, not waited on" {
	local log=$HDIR/hostile.log
	vm_assert_log_contains "$log" "namespace.conf: not read (not a regular file"
	vm_assert_done "$log"
}

@test "a #! init with a missing interpreter names the interpreter, and the next init runs" {
	local log=$HDIR/hostile.log
	vm_assert_log_contains "$log" "/sbin/myinit is a script whose interpreter /bin/no-such-interpreter (its #! line) is missing"
	vm_assert_section_line "$log" ARGV "argv[0]=/sbin/init"
}

@test "a FIFO as the root's /etc/hardinit.conf (read_root_config): one line, the config's failure action" {
	local log=$BATS_TEST_TMPDIR/fifo.log root=$BATS_TEST_TMPDIR/root
	cp -a "$HDIR/root" "$root"
	rm -f "$root/etc/security/namespace.conf"
	mkfifo "$root/etc/hardinit.conf"
	vm_rootfs "$BATS_TEST_TMPDIR/fifo.img" "$root" -L fifo
	vm_boot "$log" --timeout "$BOOT_TIMEOUT" --initrd "$HDIR/rootconf.img" --disk "$BATS_TEST_TMPDIR/fifo.img" \
		--append "root=/dev/vda" || true
	vm_assert_log_contains "$log" "/etc/hardinit.conf is a FIFO, not a regular file"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "a UTF-8 byte-order mark at the start of the root's config is named" {
	local log=$BATS_TEST_TMPDIR/bom.log root=$BATS_TEST_TMPDIR/root
	cp -a "$HDIR/root" "$root"
	rm -f "$root/etc/security/namespace.conf"
	printf '\xef\xbb\xbf[boot]\nroot_timeout = 5\n' >"$root/etc/hardinit.conf"
	vm_rootfs "$BATS_TEST_TMPDIR/bom.img" "$root" -L bom
	vm_boot "$log" --timeout "$BOOT_TIMEOUT" --initrd "$HDIR/rootconf.img" --disk "$BATS_TEST_TMPDIR/bom.img" \
		--append "root=/dev/vda" || true
	vm_assert_log_contains "$log" "<UTF-8 byte-order mark>[boot]"
	vm_assert_log_contains "$log" "without a byte-order mark"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "two disks with the same LABEL=: refused, every device named, the config's action" {
	local log=$BATS_TEST_TMPDIR/dup.log
	boot "$log" hostile.img "root=LABEL=hostroot" --disk "$HDIR/dup.img"
	vm_assert_log_contains "$log" "root=LABEL=hostroot matches 2 devices: /dev/vda (TYPE=ext4"
	vm_assert_log_contains "$log" "/dev/vdb (TYPE=ext4"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "two disks with the same LABEL= and root_duplicates = warn: a warning, then vda" {
	local log=$BATS_TEST_TMPDIR/dupwarn.log
	boot "$log" warn.img "root=LABEL=hostroot" --disk "$HDIR/dup.img"
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "taking /dev/vda, the first by name (root_duplicates = warn)"
	vm_assert_section_line "$log" HOSTILE "root_source=/dev/vda"
	vm_assert_section_line "$log" HOSTILE "marker=keep"
}

@test "console=hvc0 without an hvc device: the real init gets /dev/null and /dev/kmsg, no pipe" {
	local log=$BATS_TEST_TMPDIR/hvc.log
	# No UART registered (so no ttyS0 console), the early console kept for
	# the log, /dev/kmsg not rate-limited (testinit's lines reach the log
	# through it); console=hvc0 names a device this machine does not have.
	boot "$log" hostile.img "root=/dev/vda 8250.nr_uarts=0 earlycon=uart8250,io,0x3f8,115200 keep_bootcon printk.devkmsg=on console=hvc0"
	vm_assert_log_contains "$log" "unable to open an initial console"
	vm_assert_log_contains "$log" "fd0=open /dev/null"
	vm_assert_log_contains "$log" "fd1=open /dev/kmsg"
	vm_assert_log_contains "$log" "fd2=open /dev/kmsg"
	vm_assert_log_lacks "$log" "=open pipe:"
	vm_assert_log_contains "$log" "the real init gets /dev/null (input), /dev/kmsg (output): no console"
	vm_assert_log_contains "$log" "=== TESTINIT DONE ==="
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "with a console, the report says fds 0-2 are /dev/console" {
	vm_assert_section_contains "$HDIR/hostile.log" REPORT "early stdio ok /dev/console"
	vm_assert_section_line "$HDIR/hostile.log" PID "fd1=open /dev/console"
}

@test "a root whose journal is damaged: the kernel's reason and fsck, not the mount options" {
	command -v debugfs >/dev/null || skip "debugfs missing (e2fsprogs)"
	local log=$BATS_TEST_TMPDIR/journal.log img=$BATS_TEST_TMPDIR/journal.img
	cp "$HDIR/root.img" "$img"
	# The journal inode (8) cleared while the superblock still says
	# has_journal: ext4 refuses the mount and logs why.
	debugfs -w -R "clri <8>" "$img" >/dev/null 2>&1
	vm_boot "$log" --timeout "$BOOT_TIMEOUT" --initrd "$HDIR/hostile.img" --disk "$img" --append "root=/dev/vda" || true
	vm_assert_log_contains "$log" "the kernel logged: \"EXT4-fs (vda):"
	vm_assert_log_contains "$log" "run fsck on /dev/vda"
	vm_assert_log_lacks "$log" "check rootfstype= and rootflags="
	[ "$(vm_exit_reason "$log")" = poweroff ]
}
