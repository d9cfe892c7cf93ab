#!/usr/bin/env bats
# Host-only images as a Debian user gets them: a Debian 12 guest
# on Debian's generic 6.1 kernel (linux-image-amd64: virtio_blk, nvme and
# ext4 are modules) installs hardinit's .deb with the package's own
# default config (this file never sets TARGET); the postinst's
# update-hardinit detects the guest's root and writes
# /boot/hardinit.img-KVER there; then the guest boots that image to
# multi-user.target. The same disk is then moved to an NVMe controller,
# update-hardinit rebuilds there, and that image boots from NVMe; then the
# same on a virtio-scsi disk (/dev/sda).
#
# LVM: the guest installs Debian's lvm2 and makes a VG over two
# more disks with pvcreate/vgcreate/lvcreate (a striped root LV, two swap
# LVs, a thin LV), copies its root onto the striped LV; booted with root
# there, installing the .deb builds a host-only image with dm-mod; the
# kernel hook run where / is the thin LV refuses and keeps the last good
# image; the guest's image boots the striped LV to multi-user.target with
# resume= on a swap LV checked, and refuses resume= on one that holds a
# hibernated system. No dm or loop device is ever made on the host.
#
# Runs in file order on one disk file. The builds run in a guest booted
# with a hardinit image made for the test on the host (virtio_blk, nvme,
# ext4), so the detection reads a real kernel's /sys and /proc. The image
# the guest wrote is read from the disk with debugfs and unpacked on the
# host; the boots are checked by the guest's own reads of /proc.

# budget: 400 s

bats_require_minimum_version 1.5.0

load lib
load images

HO_TIMEOUT=${DEBIAN_TIMEOUT:-600}
HO_APPEND="security=selinux systemd.show_status=error hardinit.boot.failure_action=poweroff"

# The guest's step script: prints what the tests read on ttyS0 in
# sections; with hostonly.step=build on the command line it installs the
# .deb (first time) or runs update-hardinit -k all; then it powers off.
_ho_guest_script() {
	cat <<'STEP'
#!/bin/bash
exec >/dev/ttyS0 2>&1 </dev/null
PATH=/usr/sbin:/usr/bin:/sbin:/bin
begin() { echo "=== BEGIN $1 ==="; }
end() { echo "=== END $1 ==="; }
state=$(timeout 300 systemctl is-system-running --wait 2>/dev/null)
begin STATE
echo "comm=$(cat /proc/1/comm)"
echo "state=$state"
echo "multi-user=$(systemctl is-active multi-user.target)"
echo "root=$(findmnt -rn -o SOURCE,FSTYPE /)"
echo "kernel=$(uname -r)"
end STATE
begin MODULES
cut -d' ' -f1 /proc/modules | sort
end MODULES
begin REPORT
cat /run/hardinit/report.txt 2>&1
end REPORT
case " $(cat /proc/cmdline) " in
*" hostonly.step=build "*)
	begin BUILD
	if dpkg-query -W -f='${Status}' hardinit 2>/dev/null | grep -q 'ok installed'; then
		update-hardinit -k all
		echo "update-exit=$?"
	else
		dpkg -i /root/hardinit.deb
		echo "install-exit=$?"
	fi
	end BUILD
	;;
*" hostonly.step="*)
	# A test's own step, written onto the disk by the test.
	step=$(sed -n 's/.*hostonly\.step=\([a-z]*\).*/\1/p' /proc/cmdline)
	begin "$step"
	bash /root/hostonly-steps "$step"
	echo "step-exit=$?"
	end "$step"
	;;
esac
echo "=== STEP DONE ==="
sync
systemctl poweroff --no-block
STEP
}

# The guest's disk without the .deb: the debian-systemd tree with the
# generic kernel unpacked as its package would install it, the step
# service instead of the probe, / by label. Cached by its inputs.
_ho_base_image() {
	local tree dir key out stage used
	tree=$(img_tree debian-systemd) || return 1
	dir=$(dirname "$tree")
	key=$({
		declare -f _ho_base_image _ho_guest_script _img_configure_debian _img_debian_probe _img_label
		echo "$GKVER"
	} | _img_hash)
	out=$dir/hostonly-$key.img
	if [[ ! -f $out ]]; then
		(
			flock 9
			[[ -f $out ]] && exit 0
			# Images of older keys are dead weight (as images.bash prunes).
			find "$dir" -maxdepth 1 -name 'hostonly-*.img' ! -name "hostonly-$key.img" \
				-mmin +"$IMG_PRUNE_MINUTES" -delete
			stage=$dir/hostonly-stage.$$
			trap 'rm -rf "$stage" "$out.new"' EXIT
			rm -rf "$stage"
			cp -a "$tree" "$stage" || exit 1
			_img_configure_debian "$stage" systemd || exit 1
			printf 'LABEL=debian-root\t/\text4\tdefaults\t0\t0\n' >"$stage/etc/fstab"
			rm -f "$stage/etc/systemd/system/multi-user.target.wants/hardinit-test-probe.service"
			_ho_guest_script >"$stage/usr/local/sbin/hostonly-step"
			chmod 0755 "$stage/usr/local/sbin/hostonly-step"
			cat >"$stage/etc/systemd/system/hostonly-step.service" <<-'EOF'
				[Unit]
				Description=hardinit host-only test step (ttyS0, then power off)
				After=multi-user.target
				[Service]
				Type=simple
				ExecStart=/usr/local/sbin/hostonly-step
				[Install]
				WantedBy=multi-user.target
			EOF
			ln -sf /etc/systemd/system/hostonly-step.service \
				"$stage/etc/systemd/system/multi-user.target.wants/hostonly-step.service"
			# What linux-image-KVER installs: the kernel, its config, its modules.
			cp "$GKDIR/boot/vmlinuz-$GKVER" "$GKDIR/boot/config-$GKVER" "$stage/boot/"
			mkdir -p "$stage/usr/lib/modules"
			cp -a "$GKDIR/lib/modules/$GKVER" "$stage/usr/lib/modules/"
			rm -f "$stage/usr/lib/modules/$GKVER/build" "$stage/usr/lib/modules/$GKVER/source"
			_img_label "$stage" || exit 1
			used=$(du -sk "$stage" | cut -f1)
			rm -f "$out.new"
			truncate -s $((used * 14 / 10 + 262144))K "$out.new"
			mke2fs -q -t ext4 -L debian-root -d "$stage" "$out.new" || exit 1
			rm -rf "$stage"
			mv "$out.new" "$out"
		) 9>"$dir/.hostonly.lock" || return 1
	fi
	printf '%s\n' "$out"
}

setup_file() {
	DEB=$(vm_deb) || return 1
	GKDIR=$(vm_kernel_dir 6.1-generic) || return 1
	GKVER=$(cat "$GKDIR/kver")
	GKERNEL=$GKDIR/boot/vmlinuz-$GKVER
	export DEB GKDIR GKVER GKERNEL
	local base
	base=$(_ho_base_image) || return 1
	DISK=$BATS_FILE_TMPDIR/disk.img
	cp --sparse=always "$base" "$DISK"
	debugfs -w -R "write $DEB /root/hardinit.deb" "$DISK" >/dev/null 2>&1
	debugfs -R "stat /root/hardinit.deb" "$DISK" 2>/dev/null | grep -q 'Size:' ||
		{ echo "debugfs could not copy $DEB into $DISK" >&2; return 1; }
	# The test's own image that boots the guest for the builds: virtio,
	# NVMe and virtio-scsi disks, ext4, device-mapper (an LV root).
	BOOTSTRAP=$BATS_FILE_TMPDIR/bootstrap.img
	"$HARDINIT_SRC/initramfs/hardinit-mkinitramfs" --moddir "$GKDIR" --target virtio \
		--modules "nvme virtio_scsi sd_mod ext4 dm-mod" -o "$BOOTSTRAP" >/dev/null
	export DISK BOOTSTRAP
}

# Copy the guest's /boot/hardinit.img-KVER out of the disk and print its
# load list, module names one a line.
# With an argument: the image file to read instead.
_ho_image_modules() {
	local img=${1:-$BATS_FILE_TMPDIR/guest.img} dir=$BATS_FILE_TMPDIR/guest line m
	rm -rf "$dir"
	if [[ -z ${1:-} ]]; then
		rm -f "$img"
		debugfs -R "dump /boot/hardinit.img-$GKVER $img" "$DISK" >/dev/null 2>&1
	fi
	[[ -s $img ]] || { echo "no /boot/hardinit.img-$GKVER on the guest's disk" >&2; return 1; }
	mkdir -p "$dir"
	zstd -dcq "$img" | (cd "$dir" && cpio -idm --quiet --no-absolute-filenames) || return 1
	while read -r line _; do
		[[ -f $dir$line ]] || { echo "listed but not in the image: $line" >&2; return 1; }
		m=${line##*/}
		m=${m%.ko*}
		echo "${m//-/_}"
	done <"$dir/etc/hardinit/modules"
}

# _ho_start LOG INITRD ROOT BUS STEP SNAPSHOT [QEMU ARGS]: one boot of the
# guest. BUS: the bus of $DISK (virtio, nvme, scsi), or none (the disks
# are in QEMU ARGS); STEP: hostonly.step=STEP, or nothing; SNAPSHOT:
# snapshot (nothing written) or persist. Extra words on the kernel command
# line: HO_EXTRA.
_ho_start() {
	local log=$1 initrd=$2 root=$3 bus=$4 step=$5 snapshot=$6
	shift 6
	local -a q=()
	case $bus in
	virtio) q=(-drive "file=$DISK,if=virtio,format=raw") ;;
	nvme) q=(-drive "file=$DISK,if=none,id=d0,format=raw" -device "nvme,drive=d0,serial=hardinit0") ;;
	scsi) q=(-device "virtio-scsi-pci,id=scsi0" -drive "file=$DISK,if=none,id=d0,format=raw"
		-device "scsi-hd,drive=d0,bus=scsi0.0") ;;
	esac
	q+=("$@")
	[[ $snapshot == snapshot ]] && q+=(-snapshot)
	vm_boot "$log" --kernel "$GKERNEL" --initrd "$initrd" --mem 1024 --timeout "$HO_TIMEOUT" \
		--append "root=$root $HO_APPEND${HO_EXTRA:+ $HO_EXTRA}${step:+ hostonly.step=$step}" -- "${q[@]}"
}

# _ho_boot: _ho_start, and the guest reached multi-user.target on the
# generic kernel and ran its step.
_ho_boot() {
	local log=$1
	_ho_start "$@"
	vm_assert_log_contains "$log" "=== STEP DONE ==="
	[[ $(vm_exit_reason "$log") == poweroff ]] || _vm_fail "$log" "expected a poweroff"
	vm_assert_section_line "$log" STATE "comm=systemd"
	vm_assert_section_line "$log" STATE "multi-user=active"
	vm_assert_section_line "$log" STATE "kernel=$GKVER"
}

@test "hostonly: installing the .deb on a Debian 12 guest (generic kernel, virtio disk) builds a host-only image there" {
	_ho_boot "$BATS_FILE_TMPDIR/install.log" "$BOOTSTRAP" /dev/vda virtio build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/install.log" BUILD "install-exit=0"
	vm_assert_section_contains "$BATS_FILE_TMPDIR/install.log" BUILD "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	# The package's own conffile, as shipped.
	debugfs -R "cat /etc/hardinit/mkinitramfs.conf" "$DISK" 2>/dev/null | grep -qx 'TARGET=auto'
	list=$(_ho_image_modules)
	echo "$list"
	for m in virtio_blk virtio_pci ext4 jbd2 crc32c_generic; do
		grep -qx "$m" <<<"$list" || { echo "not in the guest's image: $m" >&2; return 1; }
	done
	# Host-only: nothing for disks this guest does not have.
	for m in nvme ahci sd_mod virtio_scsi; do
		! grep -qx "$m" <<<"$list" || { echo "in the guest's image: $m" >&2; return 1; }
	done
}

@test "hostonly: the image the guest built boots it from virtio-blk to multi-user.target" {
	log=$BATS_FILE_TMPDIR/boot-virtio.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-virtio.img" "$DISK" >/dev/null 2>&1
	[[ -s $BATS_FILE_TMPDIR/hostonly-virtio.img ]]
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-virtio.img" /dev/vda virtio "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/vda ext4"
	# The drivers came from the image (none are built into this kernel).
	vm_assert_section_line "$log" MODULES virtio_blk
	vm_assert_section_line "$log" MODULES ext4
	echo "# host-only image $(stat -c %s "$BATS_FILE_TMPDIR/hostonly-virtio.img") bytes" >&3
}

@test "hostonly: moved to NVMe, update-hardinit rebuilds for nvme and that image boots from NVMe to multi-user.target" {
	_ho_boot "$BATS_FILE_TMPDIR/rebuild.log" "$BOOTSTRAP" /dev/nvme0n1 nvme build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/rebuild.log" BUILD "update-exit=0"
	list=$(_ho_image_modules)
	echo "$list"
	grep -qx nvme <<<"$list"
	grep -qx nvme_core <<<"$list"
	grep -qx ext4 <<<"$list"
	if grep -qx virtio_blk <<<"$list"; then echo "virtio_blk in the NVMe guest's image" >&2; return 1; fi
	log=$BATS_FILE_TMPDIR/boot-nvme.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-nvme.img" "$DISK" >/dev/null 2>&1
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-nvme.img" /dev/nvme0n1 nvme "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/nvme0n1 ext4"
	vm_assert_section_line "$log" MODULES nvme
}

@test "hostonly: moved to virtio-scsi, update-hardinit rebuilds for it and that image boots from /dev/sda to multi-user.target" {
	_ho_boot "$BATS_FILE_TMPDIR/rebuild-scsi.log" "$BOOTSTRAP" /dev/sda scsi build persist
	vm_assert_section_line "$BATS_FILE_TMPDIR/rebuild-scsi.log" BUILD "update-exit=0"
	list=$(_ho_image_modules)
	echo "$list"
	for m in virtio_scsi sd_mod virtio_pci ext4; do
		grep -qx "$m" <<<"$list" || { echo "not in the guest's image: $m" >&2; return 1; }
	done
	for m in virtio_blk nvme; do
		! grep -qx "$m" <<<"$list" || { echo "in the virtio-scsi guest's image: $m" >&2; return 1; }
	done
	log=$BATS_FILE_TMPDIR/boot-scsi.log
	debugfs -R "dump /boot/hardinit.img-$GKVER $BATS_FILE_TMPDIR/hostonly-scsi.img" "$DISK" >/dev/null 2>&1
	_ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-scsi.img" /dev/sda scsi "" snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_section_line "$log" STATE "root=/dev/sda ext4"
	vm_assert_section_line "$log" MODULES virtio_scsi
	vm_assert_section_line "$log" MODULES sd_mod
}

# ---- LVM root, made by Debian's lvm2 inside the guest ----------------------
# Disks: PV1 and PV2 (sparse files; the VG "hvg" spans both), LROOT (the
# guest's root file system with lvm2's packages and the .deb in /root,
# copied by the maker onto the striped LV), EXPORT (where the LV guest
# puts the image it built, since the host never maps the LV).
# The steps: lvmmake (root on $DISK, unchanged: lvm2 installed from
# LROOT, pvcreate/vgcreate/lvcreate, LROOT copied onto hvg/root, swap LVs),
# lvmbuild (root on hvg/root: lvm2 and the .deb installed, the hook's
# host-only build; then the hook in a chroot whose / is the thin LV).

# The lvm2 packages the guest lacks (Debian 12's, as the guest's own apt
# would fetch them), downloaded by apt once into the shared cache.
_ho_lvm_debs() {
	local dir=${HARDINIT_CACHE:-/var/cache/hardinit}/debs/lvm2
	if [[ ! -f $dir/done ]]; then
		(
			flock 9
			[[ -f $dir/done ]] && exit 0
			rm -f "$dir"/*.deb
			cd "$dir" && apt-get download -q lvm2 dmeventd libdevmapper-event1.02.1 liblvm2cmd2.03 \
				libaio1 libedit2 libbsd0 >&2 && touch "$dir/done"
		) 9>"$(mkdir -p "$dir" && echo "$dir/.lock")" || { echo "apt-get download of lvm2 failed" >&2; return 1; }
	fi
	printf '%s\n' "$dir"
}

# The step script for both LVM boots; LMB is the root LV's size in MiB.
_ho_lvm_steps() {
	cat <<STEP
LMB=$1
KVER=$GKVER
STEP
	cat <<'STEP'
set -u
# thin_check (thin-provisioning-tools) is not installed.
LC='--config=global{thin_check_executable=""}'
run() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
case $1 in
lvmmake)
	mount -o ro /dev/vdd /mnt && dpkg -i /mnt/root/lvm/*.deb >/tmp/dpkg.log 2>&1
	echo "dpkg-lvm=$?"
	umount /mnt
	run pvcreate -y /dev/vdb /dev/vdc
	run vgcreate hvg /dev/vdb /dev/vdc
	run lvcreate -y -i2 -I64k -n root -L "${LMB}m" hvg
	run lvcreate -y -n swap -L 16m hvg
	run lvcreate -y -n hib -L 16m hvg
	run lvcreate -y "$LC" --type thin-pool -L 64m -n pool hvg
	run lvcreate -y "$LC" -V 128m -T hvg/pool -n thin
	udevadm settle
	run mkswap /dev/hvg/swap
	run mkswap /dev/hvg/hib
	# What the kernel's hibernation leaves in the swap header.
	printf S1SUSPEND | dd of=/dev/hvg/hib bs=1 seek=4086 conv=notrunc status=none
	run dd if=/dev/vdd of=/dev/hvg/root bs=4M conv=fsync status=none
	run mkfs.ext4 -q /dev/hvg/thin
	dmsetup table | sed 's/^/table /'
	sync
	run vgchange -an "$LC" hvg
	;;
lvmbuild)
	echo "root-source=$(findmnt -rn -o SOURCE /)"
	dpkg -i /root/lvm/*.deb >/tmp/dpkg.log 2>&1
	echo "dpkg-lvm=$?"
	dpkg -i /root/hardinit.deb
	echo "install-exit=$?"
	img=/boot/hardinit.img-$KVER
	echo "image-size=$(stat -c %s "$img")"
	dd if="$img" of=/dev/vdc bs=64k conv=fsync status=none
	# A thin root: the kernel hook run in a chroot whose / is the thin
	# LV (/proc/self/mountinfo there shows it at /), holding a copy of
	# this /boot; the rest of the system bound in.
	run lvchange -ay "$LC" hvg/thin
	udevadm settle
	mount /dev/hvg/thin /mnt || echo "step-failed: mount thin"
	mkdir -p /mnt/usr /mnt/etc /mnt/var /mnt/boot /mnt/proc /mnt/sys /mnt/dev /mnt/run /mnt/root
	mkdir -p -m 1777 /mnt/tmp
	for l in bin sbin lib lib64; do ln -s "usr/$l" "/mnt/$l"; done
	for d in usr etc var proc sys dev run; do mount --bind "/$d" "/mnt/$d"; done
	cp -a /boot/. /mnt/boot/
	before=$(sha256sum <"/mnt$img")
	echo "thin-root=$(chroot /mnt findmnt -rn -o SOURCE /)"
	chroot /mnt /etc/kernel/postinst.d/hardinit "$KVER" "/boot/vmlinuz-$KVER"
	echo "thin-hook-exit=$?"
	after=$(sha256sum <"/mnt$img")
	[ "$before" = "$after" ] && echo "thin-image-kept=yes" || echo "thin-image-kept=no"
	for d in run dev sys proc var etc usr; do umount "/mnt/$d"; done
	umount /mnt
	;;
lvmrun)
	# What the real root's udev and systemd made of hardinit's LVs.
	echo "root-unit=$(systemctl is-active 'dev-mapper-hvg\x2droot.device')"
	echo "swap-unit=$(systemctl is-active 'dev-mapper-hvg\x2dswap.device')"
	echo "by-id=$(readlink -f /dev/disk/by-id/dm-name-hvg-root)"
	echo "fsck-root=$(systemctl show -p Result --value systemd-fsck-root.service)"
	;;
esac
STEP
}

# Once per file (each test is its own process: a file marks it done).
_ho_lvm_setup() {
	local base debs blocks bsize mb
	LROOT=$BATS_FILE_TMPDIR/lroot.img
	PV1=$BATS_FILE_TMPDIR/pv1.img PV2=$BATS_FILE_TMPDIR/pv2.img EXPORT=$BATS_FILE_TMPDIR/export.img
	[[ ! -f $BATS_FILE_TMPDIR/lvm.ready ]] || return 0
	base=$(_ho_base_image) || return 1
	debs=$(_ho_lvm_debs) || return 1
	cp --sparse=always "$base" "$LROOT"
	# As small as it gets, plus room for the packages and the image.
	e2fsck -fy "$LROOT" >/dev/null 2>&1
	resize2fs -M "$LROOT" >/dev/null 2>&1 || { echo "resize2fs -M $LROOT failed" >&2; return 1; }
	blocks=$(dumpe2fs -h "$LROOT" 2>/dev/null | sed -n 's/^Block count: *//p')
	bsize=$(dumpe2fs -h "$LROOT" 2>/dev/null | sed -n 's/^Block size: *//p')
	mb=$(((blocks * bsize >> 20) + 256))
	mb=$(((mb + 7) / 8 * 8))   # two stripes of 4 MiB extents
	truncate -s "${mb}M" "$LROOT"
	resize2fs "$LROOT" >/dev/null 2>&1 || { echo "resize2fs $LROOT failed" >&2; return 1; }
	{
		echo "mkdir /root/lvm"
		for f in "$debs"/*.deb; do echo "write $f /root/lvm/${f##*/}"; done
		echo "write $DEB /root/hardinit.deb"
		echo "rm /etc/fstab"
	} | debugfs -w -f - "$LROOT" >/dev/null 2>&1
	printf '/dev/mapper/hvg-root\t/\text4\tdefaults\t0\t1\n' >"$BATS_FILE_TMPDIR/fstab"
	_ho_lvm_steps "$mb" >"$BATS_FILE_TMPDIR/steps"
	debugfs -w -R "write $BATS_FILE_TMPDIR/fstab /etc/fstab" "$LROOT" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$LROOT" >/dev/null 2>&1
	debugfs -w -R "rm /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -R "cat /root/hostonly-steps" "$LROOT" 2>/dev/null | grep -qx "LMB=$mb" ||
		{ echo "debugfs could not write the steps into $LROOT" >&2; return 1; }
	rm -f "$PV1" "$PV2" "$EXPORT"
	truncate -s "$((mb / 2 + 80))M" "$PV1" "$PV2"
	truncate -s 64M "$EXPORT"
	touch "$BATS_FILE_TMPDIR/lvm.ready"
}

_ho_pvs() { echo -drive "file=$PV1,if=virtio,format=raw" -drive "file=$PV2,if=virtio,format=raw"; }

@test "hostonly: Debian's lvm2 in the guest makes a VG over two disks with a striped root LV, a swap LV and a thin LV" {
	_ho_lvm_setup
	log=$BATS_FILE_TMPDIR/lvm-make.log
	# $DISK unchanged (snapshot=on); the PVs written; LROOT read.
	# shellcheck disable=SC2046 # the drive options are words on purpose
	_ho_boot "$log" "$BOOTSTRAP" /dev/vda none lvmmake persist \
		-drive "file=$DISK,if=virtio,format=raw,snapshot=on" $(_ho_pvs) \
		-drive "file=$LROOT,if=virtio,format=raw,readonly=on"
	vm_assert_section_line "$log" lvmmake "dpkg-lvm=0"
	vm_assert_section_line "$log" lvmmake "step-exit=0"
	if vm_section "$log" lvmmake | grep 'step-failed'; then return 1; fi
	vm_assert_section_contains "$log" lvmmake "table hvg-root: 0 "
	vm_section "$log" lvmmake | grep -q '^table hvg-root: 0 [0-9]* striped 2 128 '
	vm_assert_section_contains "$log" lvmmake "table hvg-thin: 0 262144 thin "
}

@test "hostonly: root on the striped LV, installing the .deb builds a host-only image with dm-mod there" {
	_ho_lvm_setup
	log=$BATS_FILE_TMPDIR/lvm-build.log
	# shellcheck disable=SC2046
	_ho_boot "$log" "$BOOTSTRAP" /dev/mapper/hvg-root none lvmbuild persist \
		$(_ho_pvs) -drive "file=$EXPORT,if=virtio,format=raw"
	# hardinit mounts the dm device by its kernel name; both name hvg-root.
	vm_section "$log" STATE | grep -qxE 'root=(/dev/mapper/hvg-root|/dev/dm-[0-9]+) ext4'
	vm_assert_section_line "$log" lvmbuild "dpkg-lvm=0"
	vm_assert_section_line "$log" lvmbuild "install-exit=0"
	vm_assert_section_contains "$log" lvmbuild "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	size=$(vm_section "$log" lvmbuild | sed -n 's/^image-size=//p')
	[[ $size =~ ^[0-9]+$ ]]
	head -c "$size" "$EXPORT" >"$BATS_FILE_TMPDIR/hostonly-lvm.img"
	list=$(_ho_image_modules "$BATS_FILE_TMPDIR/hostonly-lvm.img")
	echo "$list"
	for m in dm_mod virtio_blk ext4; do
		grep -qx "$m" <<<"$list" || { echo "not in the LV guest's image: $m" >&2; return 1; }
	done
}

@test "hostonly: a thin LV as root is refused by the kernel hook with one line, and the last good image is kept" {
	log=$BATS_FILE_TMPDIR/lvm-build.log
	[[ -f $log ]] || { echo "the LV build test runs first (file order)" >&2; false; }
	vm_assert_section_line "$log" lvmbuild "thin-root=/dev/mapper/hvg-thin"
	vm_assert_section_contains "$log" lvmbuild "host-only: the root's device-mapper device hvg-thin"
	vm_assert_section_contains "$log" lvmbuild "has a 'thin' target, which hardinit cannot activate"
	vm_assert_section_contains "$log" lvmbuild "not changed, the previous image is kept"
	vm_assert_section_line "$log" lvmbuild "thin-image-kept=yes"
	if vm_section "$log" lvmbuild | grep 'step-failed'; then return 1; fi
}

@test "hostonly: the image the LV guest built boots it from the striped LV to multi-user.target; resume= on a swap LV checked" {
	_ho_lvm_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-lvm.img ]]
	log=$BATS_FILE_TMPDIR/boot-lvm.log
	# shellcheck disable=SC2046
	HO_EXTRA="resume=/dev/hvg/swap" _ho_boot "$log" "$BATS_FILE_TMPDIR/hostonly-lvm.img" \
		/dev/mapper/hvg-root none lvmrun snapshot $(_ho_pvs)
	vm_assert_log_contains "$log" "lvm: activated hvg/root as /dev/mapper/hvg-root (1 target over 2 PVs"
	vm_assert_log_contains "$log" "lvm: activated hvg/swap as /dev/mapper/hvg-swap"
	# hardinit mounts the dm device by its kernel name; both name hvg-root.
	vm_section "$log" STATE | grep -qxE 'root=(/dev/mapper/hvg-root|/dev/dm-[0-9]+) ext4'
	vm_assert_section_line "$log" MODULES dm_mod
	vm_section "$log" REPORT | grep -q '^resume hibernation ok /dev/hvg/swap (/dev/dm-[0-9]*): swap, no hibernated system$' ||
		{ vm_section "$log" REPORT; false; }
	vm_assert_section_line "$log" REPORT "lvm resume_lv ok hvg/swap as hvg-swap"
	# udev took hardinit's dm devices as lvm2's (the database entry
	# hardinit leaves): systemd's device units are active, the links made.
	vm_assert_section_line "$log" lvmrun "root-unit=active"
	vm_assert_section_line "$log" lvmrun "swap-unit=active"
	vm_section "$log" lvmrun | grep -qx 'by-id=/dev/dm-[0-9]*'
	vm_assert_section_line "$log" lvmrun "fsck-root=success"
	echo "# host-only LVM image $(stat -c %s "$BATS_FILE_TMPDIR/hostonly-lvm.img") bytes" >&3
}

@test "hostonly: resume= on a swap LV holding a hibernated system stops the boot with the way out" {
	_ho_lvm_setup
	[[ -s $BATS_FILE_TMPDIR/hostonly-lvm.img ]]
	log=$BATS_FILE_TMPDIR/boot-hib.log
	# shellcheck disable=SC2046
	HO_EXTRA="resume=/dev/mapper/hvg-hib" _ho_start "$log" "$BATS_FILE_TMPDIR/hostonly-lvm.img" \
		/dev/mapper/hvg-root none "" snapshot $(_ho_pvs) || true
	vm_assert_log_contains "$log" "lvm: activated hvg/hib as /dev/mapper/hvg-hib"
	vm_assert_log_contains "$log" "resume=/dev/mapper/hvg-hib (/dev/dm-"
	vm_assert_log_contains "$log" "holds a hibernated system: hardinit does not resume hibernation"
	vm_assert_log_lacks "$log" "hardinit: handing off"
	[[ $(vm_exit_reason "$log") == poweroff ]]
}
