#!/usr/bin/env bats
# dm-verity root: hardinit creates the verity device with raw
# device-mapper ioctls and mounts it as /. The root is made with mke2fs -d
# and veritysetup format on the host; the guest's truth comes from
# /proc/self/mountinfo, /sys/dev/block/MAJ:MIN/dm/, the kernel log and
# tests/probe/dmtable (its own DM_TABLE_STATUS), not from hardinit's report.
#
# The appliance images are appliance.conf with require_signature = no (a
# signed root hash: verity_sig.bats).
# Boots (Debian 6.12): embedded hash (appliance, hash on vdb); root hash on
# the command line (systemd's names); tree appended to the data device
# (hash offset); a tree without a superblock; then one per kernel-facing
# failure: a flipped data block (eio), the same with appliance's restart,
# a wrong root hash (eio, then restart: the reboot action), no dm-mod, a
# missing hash device; and Debian 12 with systemd on a verity root (its
# cached image, /etc/fstab made read-only, /var a tmpfs by
# systemd.volatile=state). What hardinit decides from the config, the
# command line and the images' bytes alone (a refused word, a root hash of
# the wrong length, a bad or truncated superblock, ext4 blocks smaller than
# the verity blocks) is tested on the host: tests/bats/verity.bats, with
# hardinit dry-run.

# budget: 145 s

load lib
load images

# The measurement PCR: hardinit's default (appliance.conf sets no [tpm] pcr).
PCR=$("$HARDINIT_SRC/build/hardinit" limits | sed -n 's/^TPM_PCR_DEFAULT=//p')

# The guest's probe; @PCR@ is the measurement PCR.
PROBE='
echo "=== BEGIN ROOTDEV ==="
dn=$(awk "\$5 == \"/\" { print \$3 }" /proc/self/mountinfo | tail -n 1)
echo "devnum=$dn"
awk "\$5 == \"/\" { for (i = 7; i <= NF; i++) if (\$i == \"-\") { print \"fstype=\" \$(i+1); print \"source=\" \$(i+2) } ; print \"mount_opts=\" \$6 }" /proc/self/mountinfo | tail -n 3
echo "dm_name=$(cat /sys/dev/block/$dn/dm/name 2>&1)"
echo "ro=$(cat /sys/dev/block/$dn/ro 2>&1)"
echo "slaves=$(ls /sys/dev/block/$dn/slaves 2>&1 | tr "\n" " ")"
echo "=== END ROOTDEV ==="
echo "=== BEGIN DMTABLE ==="
/probe/dmtable root
echo "=== END DMTABLE ==="
echo "=== BEGIN WORKS ==="
sha256sum /data/hello.txt 2>&1
echo "read_hello=$(cat /data/hello.txt >/dev/null 2>&1 && echo ok || echo failed)"
echo "etc_files=$(cat /etc/passwd /etc/group | wc -l)"
echo "busybox_runs=$(/bin/busybox echo yes)"
if touch /written-on-root 2>/dev/null; then echo root_write=yes; else echo root_write=refused; fi
echo "=== END WORKS ==="
echo "=== BEGIN DMTABLE_AFTER ==="
/probe/dmtable root | grep status=
echo "=== END DMTABLE_AFTER ==="
echo "=== BEGIN AUDIT ==="
/probe/hardinit audit | grep -i verity | sed "s/^/live: /"
sed "s/^roothash = .*/roothash = 0000000000000000000000000000000000000000000000000000000000000000/" /run/hardinit/config >/run/drift.conf
/probe/hardinit audit --config /run/drift.conf | grep "verity root hash" | sed "s/^/drifted: /"
echo "=== END AUDIT ==="
echo "=== BEGIN MEASURE ==="
grep "verity-root-hash" /run/hardinit/measurements 2>&1 | cut -d" " -f3
echo "pcr=$(cat /sys/class/tpm/tpm0/pcr-sha256/@PCR@ 2>/dev/null || echo none)"
/probe/hardinit audit | grep "tpm pcr"
echo "=== END MEASURE ==="
echo "=== BEGIN KLOG ==="
dmesg | grep -i -e verity -e device-mapper
echo "=== END KLOG ==="
'

setup_file() {
	[[ $PCR =~ ^[0-9]+$ ]] || { echo "build/hardinit limits gave no TPM_PCR_DEFAULT: make first" >&2; return 1; }
	command -v veritysetup >/dev/null || skip "veritysetup missing (cryptsetup-bin; scripts/install-deps)"
	local dir root size blk
	dir=$(vm_cache_dir)/verity
	export VDIR=$dir
	mkdir -p "$dir"
	[[ -f $dir/ready ]] && return 0
	rm -f "$dir"/*.log "$dir"/*.log.done "$dir"/nosb.roothash
	root=$dir/root
	rm -rf "$root" && mkdir -p "$root"
	vm_stage_root "$root"
	mkdir -p "$root/data"
	head -c 65536 /dev/urandom >"$root/data/hello.txt"
	sha256sum "$root/data/hello.txt" | cut -d' ' -f1 >"$dir/hello.sha256"
	vm_probe_script "$root" "${PROBE//@PCR@/$PCR}"
	install -m 0755 "$HARDINIT_SRC/build/hardinit" "$root/probe/hardinit"
	# 4096-byte file system blocks are the verity data blocks, so a flipped
	# fs block is one corrupted verity block.
	vm_rootfs "$dir/root.img" "$root" -b 4096 -L vroot
	size=$(stat -c %s "$dir/root.img")
	size=$(((size + 4095) / 4096 * 4096))
	truncate -s "$size" "$dir/root.img"
	echo "$size" >"$dir/data.size"
	veritysetup format "$dir/root.img" "$dir/hash.img" | awk '/^Root hash:/ { print $3 }' >"$dir/roothash"
	cp "$dir/root.img" "$dir/both.img"
	veritysetup format --hash-offset="$size" --data-blocks=$((size / 4096)) "$dir/both.img" "$dir/both.img" |
		awk '/^Root hash:/ { print $3 }' >"$dir/roothash.both"
	# One flipped byte in the first block of /data/hello.txt.
	blk=$(debugfs -R "bmap /data/hello.txt 0" "$dir/root.img" 2>/dev/null)
	echo "$blk" >"$dir/flip.block"
	cp "$dir/root.img" "$dir/flip.img"
	printf '\x5a' | dd of="$dir/flip.img" bs=1 seek=$((blk * 4096 + 100)) conv=notrunc status=none
	cat >"$dir/eio.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 3
		lock_cmdline = no
		[verity]
		on_corruption = eio
	EOF
	# The appliance profile without its require_signature: these boots are
	# about the unsigned hash's checks (the signed ones: verity_sig.bats).
	sed 's/^require_signature = yes$/require_signature = no/' "$HARDINIT_SRC/config/appliance.conf" >"$dir/appliance.conf"
	grep -qx "require_signature = no" "$dir/appliance.conf" || return 1
	# With the measurement PCR's value the embedded boot below must reach.
	vm_initramfs "$dir/app.img" --config "$dir/appliance.conf" --verity-roothash "$(cat "$dir/roothash")" \
		--verity-data LABEL=vroot --verity-hash /dev/vdb --predict "$dir/app.json" \
		--predict-cmdline "hardinit.boot.failure_delay=0 roothash=$(cat "$dir/roothash") systemd.verity=1 root=/dev/vda" \
		--predict-verity-data-image "$dir/root.img" --predict-verity-hash-image "$dir/hash.img" >"$dir/app.build" || return 1
	vm_initramfs "$dir/both-initrd.img" --config "$dir/appliance.conf" --verity-roothash "$(cat "$dir/roothash.both")" \
		--verity-data /dev/vda --verity-hash-offset "$size" >/dev/null || return 1
	vm_initramfs "$dir/eio.img" --config "$dir/eio.conf" --modules "dm-mod dm-verity" >/dev/null || return 1
	vm_initramfs "$dir/app-wrong.img" --config "$dir/appliance.conf" --verity-roothash "$(tr '0-9a-f' '1-9a-f0' <"$dir/roothash")" \
		--verity-data /dev/vda --verity-hash /dev/vdb >/dev/null || return 1
	vm_initramfs "$dir/nodm.img" --config "$dir/eio.conf" >/dev/null || return 1
	touch "$dir/ready"
}

roothash() { cat "$VDIR/roothash"; }

# boot_once NAME vm_boot-args...: one boot per NAME for every test that reads it.
boot_once() {
	local log=$VDIR/$1.log
	shift
	if [[ ! -f $log.done ]]; then
		vm_boot "$log" --timeout 300 "$@" || true
		touch "$log.done"
	fi
	echo "$log"
}

# swtpm (vm_swtpm_start in lib.bash) is the test's child; teardown stops it,
# so it is never left running.
teardown() {
	vm_swtpm_stop
}

# The embedded hash's boot, with a TPM (appliance measures into the PCR) and
# the command-line words that only say what the initramfs embeds.
embedded_log() {
	if [[ ! -f $VDIR/embedded.log.done ]]; then
		vm_swtpm_start "$BATS_TEST_TMPDIR/swtpm" >&2 || return 1
		boot_once embedded --initrd "$VDIR/app.img" --disk "$VDIR/root.img" --disk "$VDIR/hash.img" \
			--append "hardinit.boot.failure_delay=0 roothash=$(roothash) systemd.verity=1 root=/dev/vda" \
			-- "${VM_TPM_ARGS[@]}" >/dev/null
		vm_swtpm_stop
	fi
	echo "$VDIR/embedded.log"
}

# panic-on-corruption wins over eio.conf's on_corruption = eio (unlocked,
# no embedded hash): audit must compare what the boot set up.
cmdline_log() {
	boot_once cmdline --initrd "$VDIR/eio.img" --disk "$VDIR/root.img" --disk "$VDIR/hash.img" \
		--append "roothash=$(roothash) systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=panic-on-corruption"
}

# ---- embedded root hash (appliance.conf via the builder) ---------------------------

@test "builder: --verity-roothash writes [verity] and adds dm-mod, dm-verity and their dependencies" {
	grep -q "load list: .*dm_mod.*dm_bufio.*dm_verity" "$VDIR/app.build"
	grep -q "verity: / on dm-verity, data LABEL=vroot, hash /dev/vdb, root hash $(roothash)" "$VDIR/app.build"
}

@test "embedded hash: / is mounted read-only from the dm device 'root' over vda and vdb" {
	local log
	log=$(embedded_log)
	vm_assert_done "$log"
	vm_assert_section_line "$log" ROOTDEV "dm_name=root"
	vm_assert_section_line "$log" ROOTDEV "ro=1"
	vm_assert_section_line "$log" ROOTDEV "fstype=ext4"
	vm_assert_section_contains "$log" ROOTDEV "source=/dev/dm-"
	vm_assert_section_contains "$log" ROOTDEV "mount_opts=ro"
	vm_assert_section_line "$log" ROOTDEV "slaves=vda vdb "
}

@test "embedded hash: the live table (DM_TABLE_STATUS) is verity with the expected root hash, restart, status V" {
	local log
	log=$(embedded_log)
	vm_assert_section_line "$log" DMTABLE "target=verity"
	vm_assert_section_line "$log" DMTABLE "readonly=1"
	vm_assert_section_contains "$log" DMTABLE " sha256 $(roothash) "
	vm_assert_section_contains "$log" DMTABLE "4096 4096 $(( $(cat "$VDIR/data.size") / 4096 )) 1 sha256"
	vm_assert_section_contains "$log" DMTABLE " 1 restart_on_corruption"
	vm_assert_section_line "$log" DMTABLE "status=V"
	vm_assert_section_line "$log" DMTABLE "sectors=$(( $(cat "$VDIR/data.size") / 512 ))"
}

@test "embedded hash: the system works on the verified root, and the root cannot be written" {
	local log
	log=$(embedded_log)
	vm_assert_section_contains "$log" WORKS "$(cat "$VDIR/hello.sha256")  /data/hello.txt"
	vm_assert_section_line "$log" WORKS "read_hello=ok"
	vm_assert_section_line "$log" WORKS "busybox_runs=yes"
	vm_assert_section_line "$log" WORKS "root_write=refused"
	vm_assert_section_line "$log" DMTABLE_AFTER "status=V"
}

@test "embedded hash: the report says / is on verity with the root hash and status V" {
	local log
	log=$(embedded_log)
	vm_assert_section_contains "$log" REPORT "$(roothash)"
	vm_assert_section_contains "$log" REPORT "verity"
	vm_assert_log_contains "$log" "verity: / is /dev/dm-"
	vm_assert_log_contains "$log" "root hash from the config"
}

@test "embedded hash: the command line's words that say what is embedded are taken, root= is ignored" {
	local log
	log=$(embedded_log)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "root=/dev/vda on the command line is ignored: / is the verity device"
	vm_assert_log_contains "$log" "the command line was judged against the embedded root hash"
	vm_assert_log_lacks "$log" "verity: refused"
	vm_assert_log_lacks "$log" "hardinit.verity"
}

@test "embedded hash: the measurement describes the setup (devices, layout, options, corruption mode) and audit replays it" {
	local log size hsize
	log=$(embedded_log)
	size=$(cat "$VDIR/data.size")
	hsize=$(stat -c %s "$VDIR/hash.img")
	vm_assert_section_line "$log" MEASURE "hardinit:verity-root-hash:$(roothash);data=LABEL=vroot,$size;hash=/dev/vdb,$hsize;hash_offset=0;format=1;alg=sha256;blocks=4096/4096;data_blocks=$((size / 4096));options=restart_on_corruption;on_corruption=restart"
	vm_assert_section_contains "$log" MEASURE "ok    tpm pcr $PCR"
}

@test "embedded hash: the appliance boot's measurement PCR is the value the builder predicted from the images" {
	local log got want
	log=$(embedded_log)
	got=$(vm_section "$log" MEASURE | sed -n 's/^pcr=//p' | tr 'A-F' 'a-f')
	want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["value"])' "$VDIR/app.json")
	echo "pcr from sysfs: $got; predicted: $want"
	[ -n "$got" ] && [ "$got" = "$want" ]
}

@test "embedded hash: hardinit audit checks / on verity, the live root hash and status, and reports drift" {
	local log
	log=$(embedded_log)
	vm_assert_section_contains "$log" AUDIT "live: ok    / on the verity device"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity target of root"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity root hash"
	vm_assert_section_contains "$log" AUDIT "actual $(roothash)"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity on corruption"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity options"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity status (V verified, C corrupted)"
	vm_assert_section_lacks "$log" AUDIT "live: drift"
	vm_assert_section_contains "$log" AUDIT "drifted: drift verity root hash"
}

# ---- root hash on the command line ------------------------------------------------

@test "command line: roothash= and systemd.verity_root_data=/_hash= put / on verity" {
	local log
	log=$(cmdline_log)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "root hash from the command line"
	vm_assert_section_line "$log" ROOTDEV "dm_name=root"
	vm_assert_section_contains "$log" DMTABLE " sha256 $(roothash) "
	vm_assert_section_contains "$log" DMTABLE " 1 panic_on_corruption"
	vm_assert_section_line "$log" DMTABLE "status=V"
	vm_assert_section_contains "$log" WORKS "$(cat "$VDIR/hello.sha256")  /data/hello.txt"
}

@test "command line: audit compares the live table with what the boot set up (panic won over eio): no false drift" {
	local log
	log=$(cmdline_log)
	vm_assert_section_contains "$log" AUDIT "live: ok    verity on corruption"
	vm_assert_section_contains "$log" AUDIT "expected panic"
	vm_assert_section_contains "$log" AUDIT "live: ok    verity options"
	vm_assert_section_lacks "$log" AUDIT "live: drift"
}

@test "hash offset: the tree appended to the data device verifies" {
	local log
	log=$(boot_once both --initrd "$VDIR/both-initrd.img" --disk "$VDIR/both.img" \
		--append "hardinit.boot.failure_delay=0")
	vm_assert_done "$log"
	vm_assert_section_line "$log" ROOTDEV "slaves=vda "
	vm_assert_section_contains "$log" DMTABLE " $(( $(cat "$VDIR/data.size") / 4096 + 1 )) sha256 $(cat "$VDIR/roothash.both") "
	vm_assert_section_line "$log" DMTABLE "status=V"
	vm_assert_section_line "$log" WORKS "read_hello=ok"
}

@test "no superblock: an image made with --no-superblock boots with its parameters in the options" {
	local log salt blocks
	salt=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	blocks=$(( $(cat "$VDIR/data.size") / 4096 ))
	if [[ ! -s $VDIR/nosb.roothash ]]; then
		veritysetup format --no-superblock --salt="$salt" "$VDIR/root.img" "$VDIR/hash-nosb.img" |
			awk '/^Root hash:/ { print $3 }' >"$VDIR/nosb.roothash"
	fi
	log=$(boot_once nosb-ok --initrd "$VDIR/eio.img" --disk "$VDIR/root.img" --disk "$VDIR/hash-nosb.img" \
		--append "roothash=$(cat "$VDIR/nosb.roothash") systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb systemd.verity_root_options=superblock=no,data-blocks=$blocks,salt=$salt,hash=sha256")
	vm_assert_done "$log"
	vm_assert_section_contains "$log" DMTABLE "4096 4096 $blocks 0 sha256 $(cat "$VDIR/nosb.roothash") $salt"
	vm_assert_section_line "$log" DMTABLE "status=V"
	vm_assert_section_line "$log" WORKS "read_hello=ok"
}

# ---- faults: a boot each --------------------------------------------------------------

@test "flipped data block, eio: reading that file gives EIO, the kernel logs it, status turns C" {
	local log
	log=$(boot_once flip --initrd "$VDIR/eio.img" --disk "$VDIR/flip.img" --disk "$VDIR/hash.img" \
		--append "roothash=$(roothash) systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb")
	vm_assert_done "$log"
	vm_assert_section_line "$log" WORKS "read_hello=failed"
	vm_assert_section_contains "$log" WORKS "Input/output error"
	vm_assert_section_line "$log" WORKS "busybox_runs=yes"
	# dmesg in the guest: kernel records, so the section is read raw.
	VM_SECTION_RAW=1 vm_assert_section_contains "$log" KLOG "data block $(cat "$VDIR/flip.block") is corrupted"
	vm_assert_section_line "$log" DMTABLE_AFTER "status=C"
	vm_assert_section_contains "$log" AUDIT "live: drift verity status (V verified, C corrupted)"
}

@test "flipped data block, appliance (restart): the kernel restarts on reading it" {
	local log
	log=$(boot_once flip-restart --initrd "$VDIR/app.img" --disk "$VDIR/flip.img" --disk "$VDIR/hash.img" \
		--append "hardinit.boot.failure_delay=0")
	vm_assert_log_contains "$log" "data block $(cat "$VDIR/flip.block") is corrupted"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[ "$(vm_exit_reason "$log")" = reboot ]
}

@test "wrong root hash: activation fails with a clear message and the failure action" {
	local log wrong
	wrong=$(roothash | tr '0-9a-f' '1-9a-f0')
	log=$(boot_once wrong --initrd "$VDIR/eio.img" --disk "$VDIR/root.img" --disk "$VDIR/hash.img" \
		--append "roothash=$wrong systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb")
	vm_assert_log_contains "$log" "the root hash does not match the hash tree"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "=== BEGIN ROOTDEV ==="
	vm_assert_log_lacks "$log" "mounted root"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "wrong embedded root hash under restart-on-corruption: the clear message, not a restart loop" {
	local log
	log=$(boot_once wrong-app --initrd "$VDIR/app-wrong.img" --disk "$VDIR/root.img" --disk "$VDIR/hash.img" \
		--append "hardinit.boot.failure_delay=0")
	vm_assert_log_contains "$log" "the root hash does not match the hash tree"
	vm_assert_log_contains "$log" "taking the failure action: reboot"
	vm_assert_log_lacks "$log" "mounted root"
	[ "$(vm_exit_reason "$log")" = reboot ]
}

@test "missing modules: no dm-mod in the initramfs is a clear message and the failure action" {
	local log
	log=$(boot_once nodm --initrd "$VDIR/nodm.img" --disk "$VDIR/root.img" --disk "$VDIR/hash.img" \
		--append "roothash=$(roothash) systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb")
	vm_assert_log_contains "$log" "dm-mod is not loaded"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "mounted root"
}

@test "missing hash device: the bounded wait ends with a clear message and the failure action" {
	local log
	log=$(boot_once nohash --initrd "$VDIR/eio.img" --disk "$VDIR/root.img" \
		--append "roothash=$(roothash) systemd.verity_root_data=/dev/vda systemd.verity_root_hash=/dev/vdb")
	vm_assert_log_contains "$log" "verity hash device: root device /dev/vdb did not appear within 3 s"
	vm_assert_log_contains "$log" "taking the failure action: poweroff"
	vm_assert_log_lacks "$log" "mounted root"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

# ---- Debian 12 with systemd on a verity root -----------------------------------------

# The cached Debian/systemd image (tests/vm/images.bash), copied: its
# /etc/fstab says "/dev/vda / ext4 defaults", which systemd-remount-fs would
# remount read-write (EROFS on a verity device, a failed unit), so the copy
# gets "/dev/dm-0 / ext4 ro" (debugfs, no loop mount) before the tree is
# hashed, and its tree is made with 1024-byte data blocks like its ext4's
# (a larger verity block would make the kernel refuse the file system;
# tests/bats/verity.bats checks hardinit says so). /var becomes a tmpfs by systemd.volatile=state (systemd's own
# switch, systemd.volatile(7)): journald, random-seed and utmp write there.
_boot_debian_verity() {
	local log=$1 img dir=$VDIR hash size
	img=$(img_debian_systemd permissive) || return 1
	cp --sparse=always "$img" "$dir/deb.img"
	size=$(stat -c %s "$dir/deb.img")
	truncate -s $(((size + 4095) / 4096 * 4096)) "$dir/deb.img"
	printf '/dev/dm-0\t/\text4\tro\t0\t0\n' >"$dir/deb.fstab"
	debugfs -w -R "rm /etc/fstab" "$dir/deb.img" >/dev/null 2>&1
	debugfs -w -R "write $dir/deb.fstab /etc/fstab" "$dir/deb.img" >/dev/null 2>&1 || return 1
	# The image's ext4 has 1024-byte blocks (mke2fs's choice for its size):
	# the verity data blocks must not be larger.
	hash=$(veritysetup format --data-block-size=1024 "$dir/deb.img" "$dir/deb-hash.img" | awk '/^Root hash:/ { print $3 }')
	echo "$hash" >"$dir/deb.roothash"
	vm_initramfs "$dir/deb-initrd.img" --profile baseline --verity-roothash "$hash" \
		--verity-data /dev/vda --verity-hash /dev/vdb >/dev/null || return 1
	vm_boot "$log" --initrd "$dir/deb-initrd.img" --disk "$dir/deb.img" --disk "$dir/deb-hash.img" \
		--mem 1024 --timeout "${DEBIAN_TIMEOUT:-900}" \
		--append "security=selinux systemd.show_status=error systemd.volatile=state hardinit.boot.failure_action=poweroff"
}

@test "debian/systemd on a verity root: multi-user.target, no failed unit, / from dm root, audit sees verity" {
	local log=$VDIR/debian.log
	[[ -f $log.done ]] || { _boot_debian_verity "$log" || true; touch "$log.done"; }
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	vm_assert_section_line "$log" SYSTEMD "state=running"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_lacks "$log" SYSTEMD "failed:"
	vm_assert_section_contains "$log" MOUNTS " / / ro,"
	vm_assert_section_contains "$log" MOUNTS "- ext4 /dev/dm-0 ro"
	vm_assert_section_contains "$log" MOUNTS " /var rw"
	vm_assert_section_contains "$log" AUDIT "ok    verity root hash"
	vm_assert_section_contains "$log" AUDIT "actual $(cat "$VDIR/deb.roothash")"
	vm_assert_section_contains "$log" AUDIT "ok    verity status (V verified, C corrupted)"
}
