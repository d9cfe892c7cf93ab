# shellcheck shell=bash
# The host-only guests' shared parts, for tests/vm/hostonly.bats (the
# virtio, NVMe and virtio-scsi disks) and tests/vm/hostonly_lvm.bats (the
# LVM root): the guest's step script, its cached base disk, the setup both
# files run (the .deb on a copy of that disk, the bootstrap image), the
# boot and its checks. Two files so that make check's two VM lanes can run
# them side by side; each has its own disk. Load after lib and images.

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

# _ho_debs NAME PACKAGE...: the Debian 12 packages a layout's guest lacks
# (lvm2, mdadm, btrfs-progs...), as the guest's own apt would fetch them,
# downloaded by apt once into the shared cache under debs/NAME; prints
# that directory.
_ho_debs() {
	local dir=${HARDINIT_CACHE:-/var/cache/hardinit}/debs/$1
	shift
	if [[ ! -f $dir/done ]]; then
		(
			flock 9
			[[ -f $dir/done ]] && exit 0
			rm -f "$dir"/*.deb
			cd "$dir" && apt-get download -q "$@" >&2 && touch "$dir/done"
		) 9>"$(mkdir -p "$dir" && echo "$dir/.lock")" || { echo "apt-get download of $* failed" >&2; return 1; }
	fi
	printf '%s\n' "$dir"
}

_ho_setup() {
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

# _ho_exported_image LOG STEP OUT MODULE...: the image the guest's
# postinst built in step STEP and wrote to the EXPORT disk (the host maps
# no array or LV), copied to OUT by the size the step printed; it must hold
# every MODULE. A step that builds two images prints the second's lines
# as TAG-install-exit= and TAG-image-size= and writes it SEEK 64 KiB
# blocks in: HO_TAG and HO_SEEK say which.
_ho_exported_image() {
	local log=$1 step=$2 out=$3 size list m tag=${HO_TAG:+$HO_TAG-}
	shift 3
	vm_assert_section_line "$log" "$step" "${tag}install-exit=0"
	vm_assert_section_contains "$log" "$step" "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	size=$(vm_section "$log" "$step" | sed -n "s/^${tag}image-size=//p")
	[[ $size =~ ^[0-9]+$ ]] || { echo "no ${tag}image-size= in step $step" >&2; return 1; }
	dd if="$EXPORT" of="$out" bs=64k skip="${HO_SEEK:-0}" status=none
	truncate -s "$size" "$out"
	list=$(_ho_image_modules "$out") || return 1
	echo "$list"
	for m in "$@"; do
		grep -qx "$m" <<<"$list" || { echo "not in the image $step built: $m" >&2; return 1; }
	done
}

# _ho_start LOG INITRD ROOT BUS STEP SNAPSHOT [QEMU ARGS]: one boot of the
# guest. BUS: the bus of $DISK (virtio, nvme, scsi), or none (the disks
# are in QEMU ARGS); STEP: hostonly.step=STEP, or nothing; SNAPSHOT:
# snapshot (nothing written) or persist. Extra words on the kernel command
# line: HO_EXTRA. HO_PASS: a LUKS passphrase, typed on the serial console
# when hardinit's prompt appears there.
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
	local -a boot=(--kernel "$GKERNEL" --initrd "$initrd" --mem 1024 --timeout "$HO_TIMEOUT"
		--append "root=$root $HO_APPEND${HO_EXTRA:+ $HO_EXTRA}${step:+ hostonly.step=$step}")
	if [[ -z ${HO_PASS:-} ]]; then
		vm_boot "$log" "${boot[@]}" -- "${q[@]}"
		return
	fi
	{
		vm_wait_serial "$log" "try 1 of" 300 && sleep 0.3 && printf '%s\n' "$HO_PASS"
		vm_wait_serial "$log" "reboot: Power down" "$HO_TIMEOUT"
	} | vm_boot "$log" --console "${boot[@]}" -- "${q[@]}" >/dev/null
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
