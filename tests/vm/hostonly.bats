#!/usr/bin/env bats
# Host-only images as a Debian user gets them (issue 25): a Debian 12 guest
# on Debian's generic 6.1 kernel (linux-image-amd64: virtio_blk, nvme and
# ext4 are modules) installs hardinit's .deb with the package's own
# default config (this file never sets TARGET); the postinst's
# update-hardinit detects the guest's root and writes
# /boot/hardinit.img-KVER there; then the guest boots that image to
# multi-user.target. The same disk is then moved to an NVMe controller,
# update-hardinit rebuilds there, and that image boots from NVMe.
#
# Runs in file order on one disk file. The builds run in a guest booted
# with a hardinit image made for the test on the host (virtio_blk, nvme,
# ext4), so the detection reads a real kernel's /sys and /proc. The image
# the guest wrote is read from the disk with debugfs and unpacked on the
# host; the boots are checked by the guest's own reads of /proc.

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
	make -C "$HARDINIT_SRC" -s deb >&2
	local version
	version=$(cd "$HARDINIT_SRC" && dpkg-parsechangelog -S Version)
	DEB=$HARDINIT_SRC/build/deb/hardinit_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
	[[ -f $DEB ]] || { echo "make deb made no $DEB" >&2; return 1; }
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
	# The test's own image that boots the guest for the builds: virtio and
	# NVMe disks, ext4.
	BOOTSTRAP=$BATS_FILE_TMPDIR/bootstrap.img
	"$HARDINIT_SRC/initramfs/hardinit-mkinitramfs" --moddir "$GKDIR" --target virtio \
		--modules "nvme ext4" -o "$BOOTSTRAP" >/dev/null
	export DISK BOOTSTRAP
}

# Copy the guest's /boot/hardinit.img-KVER out of the disk and print its
# load list, module names one a line.
_ho_image_modules() {
	local img=$BATS_FILE_TMPDIR/guest.img dir=$BATS_FILE_TMPDIR/guest line m
	rm -rf "$img" "$dir"
	debugfs -R "dump /boot/hardinit.img-$GKVER $img" "$DISK" >/dev/null 2>&1
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

_ho_boot() {
	local log=$1 initrd=$2 root=$3 bus=$4 step=$5 snapshot=$6
	local -a q=()
	case $bus in
	virtio) q=(-drive "file=$DISK,if=virtio,format=raw") ;;
	nvme) q=(-drive "file=$DISK,if=none,id=d0,format=raw" -device "nvme,drive=d0,serial=hardinit0") ;;
	esac
	[[ $snapshot == snapshot ]] && q+=(-snapshot)
	vm_boot "$log" --kernel "$GKERNEL" --initrd "$initrd" --mem 1024 --timeout "$HO_TIMEOUT" \
		--append "root=$root $HO_APPEND${step:+ hostonly.step=$step}" -- "${q[@]}"
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
