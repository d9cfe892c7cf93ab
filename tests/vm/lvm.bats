#!/usr/bin/env bats
# LVM root: hardinit activates the logical volume root= names
# from the PVs' metadata with its own device-mapper ioctls, no lvm2 in the
# image. The volumes are made by Debian's lvm2 itself, inside a "maker"
# guest (never on the host): a busybox root holding /sbin/lvm and dmsetup
# with their libraries runs pvcreate/vgcreate/lvcreate on two raw disks,
# writes the test root onto the LVs and prints lvm2's own dm tables and
# uuids. The two disks are cached in $HARDINIT_CACHE/lvm/KEY (KEY: this
# maker script, lvm2's version and the test root's contents).
#
# VG "test-vg" over both disks: "lin-root" linear, 32 extents at the end of
# the first PV then 8 at the start of the second; "striped" (-i2 -I64k);
# a thin pool and the thin LV "thin". Boots (Debian 6.12, -snapshot):
# root=/dev/mapper/test--vg-lin--root; root=/dev/test-vg/striped;
# root=/dev/test-vg/thin (refused); the linear root with its second PV
# missing. The guest's truth: /proc/self/mountinfo, /sys/dev/block/*/dm/,
# tests/probe/dmtable (its own DM_TABLE_STATUS), compared with the
# tables lvm2's dmsetup printed in the maker.

# budget: 40 s
# cold: 45 s lvm/*/ready

load lib

LVM_CONF='devices{obtain_device_list_from_udev=0} activation{udev_sync=0 udev_rules=0 monitoring=0} global{thin_check_executable=""}'

# Runs in the maker guest (/probe/run); vdb and vdc are the PVs to be,
# vdd the test root's ext4 image.
MAKER='
L="/sbin/lvm"
C="--config=$LVM_CONF"
mkdir -p /run/lock/lvm /run/lvm /etc/lvm/backup /etc/lvm/archive
step() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
echo "=== BEGIN MAKE ==="
step $L pvcreate "$C" -y /dev/vdb /dev/vdc
step $L vgcreate "$C" -s 1m test-vg /dev/vdb /dev/vdc
step $L lvcreate "$C" -y -n lin-root -L 40m test-vg /dev/vdb:30-61 /dev/vdc:0-7
step $L lvcreate "$C" -y -i2 -I64k -n striped -L 40m test-vg /dev/vdb:0-19 /dev/vdc:8-27
step $L lvcreate "$C" -y --type thin-pool -L 8m -n pool test-vg
step $L lvcreate "$C" -y -V 16m -T test-vg/pool -n thin
size=$(cat /sys/block/vdd/size)
for lv in lin--root striped; do
	step dd if=/dev/vdd of=/dev/mapper/test--vg-$lv bs=512 count=$size
done
echo "=== END MAKE ==="
echo "=== BEGIN FACTS ==="
echo "pv1=$(cat /sys/block/vdb/dev)"
echo "pv2=$(cat /sys/block/vdc/dev)"
$L lvs "$C" --noheadings --separator " " -o lv_name,vg_uuid,lv_uuid test-vg 2>&1 | sed "s/^ */uuid /"
$L pvs "$C" --noheadings --separator " " -o pv_name,pv_uuid 2>&1 | sed "s/^ */pvuuid /"
/sbin/dmsetup table 2>&1 | sed "s/^/table /"
echo "=== END FACTS ==="
step $L vgchange "$C" -an test-vg
sync
echo "made=done"
'

PROBE='
dn=$(awk "\$5 == \"/\" { print \$3 }" /proc/self/mountinfo | tail -n 1)
name=$(cat /sys/dev/block/$dn/dm/name 2>&1)
echo "=== BEGIN LVROOT ==="
echo "devnum=$dn"
awk "\$5 == \"/\" { for (i = 7; i <= NF; i++) if (\$i == \"-\") { print \"fstype=\" \$(i+1); print \"source=\" \$(i+2) } }" /proc/self/mountinfo | tail -n 2
echo "dm_name=$name"
echo "dm_uuid=$(cat /sys/dev/block/$dn/dm/uuid 2>&1)"
echo "slaves=$(ls /sys/dev/block/$dn/slaves 2>&1 | tr "\n" " ")"
echo "pv1=$(cat /sys/block/vda/dev) pv2=$(cat /sys/block/vdb/dev)"
t=$(stat -L -c "%t %T" "/dev/mapper/$name" 2>&1)
echo "mapper_node=$(printf "%d:%d" 0x${t% *} 0x${t#* })"
for l in /dev/test-vg/*; do echo "vg_link=$l -> $(readlink "$l")"; done
echo "=== END LVROOT ==="
echo "=== BEGIN DMTABLE ==="
/probe/dmtable "$name"
echo "=== END DMTABLE ==="
'

setup_file() {
	command -v lvm >/dev/null || skip "lvm2 missing (scripts/install-deps)"
	local dir root key
	dir=$(vm_cache_dir)/lvm
	export LDIR=$dir
	mkdir -p "$dir"
	[[ -f $dir/ready ]] && return 0
	rm -f "$dir"/*.log "$dir"/*.log.done

	# The test root that goes onto the LVs.
	root=$dir/root
	rm -rf "$root" && mkdir -p "$root"
	vm_stage_root "$root"
	vm_probe_script "$root" "$PROBE"
	vm_rootfs "$dir/root.img" "$root" -L lvroot || return 1

	key=$( {
		printf '%s\n%s\n' "$MAKER" "$LVM_CONF"
		dpkg-query -W lvm2 dmsetup
		tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$root" .
	} | sha256sum | cut -c1-16)
	export LVM_IMAGES=${HARDINIT_CACHE:-/var/cache/hardinit}/lvm/$key
	vm_build_once "$LVM_IMAGES/ready" make_pvs "$LVM_IMAGES" || return 1

	cat >"$dir/test.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 3
		lock_cmdline = no
	EOF
	vm_initramfs "$dir/initrd.img" --config "$dir/test.conf" --modules dm-mod >"$dir/initrd.build" || return 1
	touch "$dir/ready"
}

# The maker guest: lvm2's own tools make the PVs, VG and LVs.
make_pvs() {
	local out=$1 mroot=$LDIR/maker f
	local -a files
	mkdir -p "$out"
	rm -rf "$mroot" && mkdir -p "$mroot"
	vm_stage_root "$mroot"
	mapfile -t files < <(ldd /sbin/lvm /sbin/dmsetup | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | sort -u)
	for f in /sbin/lvm /sbin/dmsetup "${files[@]}"; do
		mkdir -p "$mroot$(dirname "$f")"
		cp -L "$f" "$mroot$f"
	done
	mkdir -p "$mroot/etc/lvm"
	cp /etc/lvm/lvm.conf "$mroot/etc/lvm/"
	vm_probe_script "$mroot" "LVM_CONF='$LVM_CONF'
$MAKER"
	vm_rootfs "$LDIR/maker.img" "$mroot" -L maker || return 1
	vm_initramfs "$LDIR/maker-initrd.img" --modules "dm-mod dm-thin-pool" >/dev/null || return 1
	truncate -s 0 "$out/pv1.img" "$out/pv2.img"
	truncate -s 64M "$out/pv1.img" "$out/pv2.img"
	vm_boot "$out/maker.log" --timeout 300 --initrd "$LDIR/maker-initrd.img" --disk "$LDIR/maker.img" \
		--disk "$out/pv1.img" --disk "$out/pv2.img" --disk "$LDIR/root.img" \
		--append "root=/dev/vda rw hardinit.boot.failure_action=poweroff" || true
	if ! grep -q '^made=done' <(vm_clean_log "$out/maker.log") ||
		vm_section "$out/maker.log" MAKE | grep -q 'step-failed'; then
		echo "lvm maker guest failed; its log: $out/maker.log" >&2
		vm_log_tail "$out/maker.log" 60 >&2
		return 1
	fi
	vm_section "$out/maker.log" FACTS >"$out/facts"
	touch "$out/ready"
}

# boot_once NAME vm_boot-args...: one boot per NAME for every test that reads it.
boot_once() {
	local log=$LDIR/$1.log
	shift
	if [[ ! -f $log.done ]]; then
		vm_boot "$log" --timeout 240 --initrd "$LDIR/initrd.img" "$@" -- -snapshot || true
		touch "$log.done"
	fi
	echo "$log"
}

both_pvs() { echo --disk "$LVM_IMAGES/pv1.img" --disk "$LVM_IMAGES/pv2.img"; }
# shellcheck disable=SC2046 # the disk options are words on purpose
linear_log() { boot_once linear $(both_pvs) --append "root=/dev/mapper/test--vg-lin--root"; }
# shellcheck disable=SC2046
striped_log() { boot_once striped $(both_pvs) --append "root=/dev/test-vg/striped rw"; }
# shellcheck disable=SC2046
thin_log() { boot_once thin $(both_pvs) --append "root=/dev/test-vg/thin"; }
missing_log() { boot_once missing --disk "$LVM_IMAGES/pv1.img" --append "root=/dev/mapper/test--vg-lin--root"; }

# lvm2's table of DMNAME as dmsetup printed it in the maker, with the PVs'
# device numbers replaced by PV1 and PV2.
lvm2_table() {
	local pv1 pv2
	pv1=$(sed -n 's/^pv1=//p' "$LVM_IMAGES/facts")
	pv2=$(sed -n 's/^pv2=//p' "$LVM_IMAGES/facts")
	sed -n "s/^table $1: //p" "$LVM_IMAGES/facts" | sed "s/ $pv1 / PV1 /g; s/ $pv2 / PV2 /g; s/ $pv1\$/ PV1/; s/ $pv2\$/ PV2/"
}

# The live table in the guest, as dmtable read it, in the same words.
live_table() {
	local log=$1 pv1 pv2
	pv1=$(vm_section "$log" LVROOT | sed -n 's/^pv1=\([^ ]*\) pv2=.*/\1/p')
	pv2=$(vm_section "$log" LVROOT | sed -n 's/.* pv2=//p')
	vm_section "$log" DMTABLE | sed -n 's/^target\.[0-9]*=//p' |
		sed "s/ $pv1 / PV1 /g; s/ $pv2 / PV2 /g; s/ $pv1\$/ PV1/; s/ $pv2\$/ PV2/"
}

lvm2_uuid() {
	local ids
	ids=$(sed -n "s/^uuid $1 //p" "$LVM_IMAGES/facts" | tr -d '-')
	echo "LVM-${ids% *}${ids#* }"
}

@test "maker: Debian's lvm2 made the VG over two disks, a linear LV across them and a striped LV" {
	grep -q '^table test--vg-lin--root: 0 65536 linear ' "$LVM_IMAGES/facts"
	grep -q '^table test--vg-lin--root: 65536 16384 linear ' "$LVM_IMAGES/facts"
	grep -q '^table test--vg-striped: 0 81920 striped 2 128 ' "$LVM_IMAGES/facts"
	grep -q '^table test--vg-thin: 0 32768 thin ' "$LVM_IMAGES/facts"
}

@test "root=/dev/mapper/VG-LV: / is the linear LV, lvm2's table across both PVs, name and uuid" {
	local log want got
	log=$(linear_log)
	vm_assert_done "$log"
	vm_assert_section_line "$log" LVROOT "dm_name=test--vg-lin--root"
	vm_assert_section_line "$log" LVROOT "fstype=ext4"
	vm_assert_section_line "$log" LVROOT "dm_uuid=$(lvm2_uuid lin-root)"
	vm_assert_section_contains "$log" LVROOT "slaves=vda vdb"
	vm_assert_section_line "$log" DMTABLE "targets=2"
	want=$(lvm2_table test--vg-lin--root)
	got=$(live_table "$log")
	[[ -n $want && $got == "$want" ]] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; false; }
	vm_assert_section_line "$log" DMTABLE "readonly=0"
}

@test "root=/dev/mapper/VG-LV: /dev/mapper/VG-LV is the root's device, /dev/VG/LV points at it" {
	local log dn
	log=$(linear_log)
	dn=$(vm_section "$log" LVROOT | sed -n 's/^devnum=//p')
	vm_assert_section_line "$log" LVROOT "mapper_node=$dn"
	vm_assert_section_line "$log" LVROOT "vg_link=/dev/test-vg/lin-root -> ../mapper/test--vg-lin--root"
	vm_assert_log_contains "$log" "lvm: activated test-vg/lin-root as /dev/mapper/test--vg-lin--root (2 targets over 2 PVs"
}

@test "root=/dev/VG/LV: / is the striped LV with lvm2's striped table, mounted read-write on rw" {
	local log want got
	log=$(striped_log)
	vm_assert_done "$log"
	vm_assert_section_line "$log" LVROOT "dm_name=test--vg-striped"
	vm_assert_section_line "$log" LVROOT "dm_uuid=$(lvm2_uuid striped)"
	vm_assert_section_line "$log" DMTABLE "targets=1"
	want=$(lvm2_table test--vg-striped)
	got=$(live_table "$log")
	[[ -n $want && $got == "$want" ]] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; false; }
	vm_assert_section_contains "$log" MOUNTINFO " / rw,"
}

@test "a thin LV is refused with one line naming the LV and its type, and the failure action is taken" {
	local log
	log=$(thin_log)
	vm_assert_log_contains "$log" "lvm: LV test-vg/thin: segment type thin is not supported (hardinit activates linear and striped LVs)"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "a VG with a PV missing is refused naming the missing PV's uuid" {
	local log pv2
	log=$(missing_log)
	pv2=$(sed -n 's|^pvuuid /dev/vdc ||p' "$LVM_IMAGES/facts")
	[ -n "$pv2" ]
	vm_assert_log_contains "$log" "lvm: volume group test-vg is missing PV $pv2 (pv1 of 2"
	vm_assert_log_lacks "$log" "=== TESTINIT DONE ==="
	[ "$(vm_exit_reason "$log")" = poweroff ]
}
