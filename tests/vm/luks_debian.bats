#!/usr/bin/env bats
# Debian 12 with systemd on an encrypted disk, as Debian's installer lays it
# out: hardinit opens the LUKS2 volume with the passphrase typed
# on the serial console and hands off to systemd, which reaches
# multi-user.target on the root's own /etc/crypttab and /etc/fstab.
#
# Two disks, made by one "maker" guest (never on the host's device-mapper).
# The disk files are partitioned on the host by sfdisk as the installer
# does (vda1 a small /boot, left empty; vda2 extended; vda5 the volume);
# the maker, a busybox root holding Debian's cryptsetup, lvm2 and dmsetup
# (the host's binaries and libraries), runs cryptsetup luksFormat (LUKS2,
# Debian's defaults but a KDF cost TCG can pay) on vda5 of each and copies
# a Debian root in (tests/vm/images.bash, img_debian_crypt):
#   luks: "guided, use entire disk, encrypted" without LVM: vda5_crypt
#         holds the ext4 root; crypttab `vda5_crypt UUID=... none
#         luks,discard`, fstab / on /dev/mapper/vda5_crypt;
#   lvm:  "guided, use entire disk and set up encrypted LVM": vda5_crypt is
#         the PV of VG debian-vg with LVs root and swap_1; fstab / on
#         /dev/mapper/debian--vg-root and swap on debian--vg-swap_1.
# The disks, the volume keys and the maker's facts (cryptsetup's and lvm2's
# dm tables and uuids) are cached under $HARDINIT_CACHE/luks-debian/KEY
# (KEY: the maker script, the tools' versions, the root images' keys).
#
# Two boots per layout, on Debian 12's generic kernel (linux-image-amd64:
# virtio_blk, ext4, dm-mod, dm-crypt, xts and ecb are modules):
#   build:    the guest, booted with an image made on the host with
#             --crypttab (the root's own /etc/crypttab, read out with
#             debugfs), installs the kernel's files (its modules bound from a
#             disk, as linux-image-KVER would put them) and zstd, then
#             hardinit's .deb with the package's default config (this file
#             never sets TARGET): the postinst's update-hardinit detects the
#             live encrypted root and writes /boot/hardinit.img-KVER, which
#             the step copies to an export disk (the crypt disk itself is
#             -snapshot). On the luks layout the hook is also run with a
#             crypttab that does not name the root: refused, image kept.
#   hostonly: the image the guest built boots the same disk to
#             multi-user.target; the assertions below about what systemd
#             made of the volume read this boot.
# The guest's truth comes from the root's probe (images.bash,
# _img_crypt_probe): systemctl, journalctl, cryptsetup status, dmsetup,
# udevadm, /sys.

# budget: 380 s
# cold: 250 s luks-debian/*/ready

load lib
load images

PASS='debian encrypted 12'
UUID_LUKS=3d4b1c70-5e2a-4f8b-9c1d-2e3f4a5b6c7d
UUID_LVM=4e5c2d81-6f3b-4a9c-8d2e-3f4a5b6c7d8e
NAME=vda5_crypt
LV_ROOT=debian--vg-root
CRYPT_TIMEOUT=${DEBIAN_TIMEOUT:-600}
# No security=selinux: the encrypted installs carry no SELinux policy.
CRYPT_APPEND="systemd.show_status=error hardinit.boot.failure_action=poweroff"

LVM_CONF='devices{obtain_device_list_from_udev=0} activation{udev_sync=0 udev_rules=0 monitoring=0}'

# Runs in the maker guest (/probe/run): vdb and vdc are the two disks
# (vdb5, vdc5 the volumes to be), vdd and vde the luks and lvm roots' ext4
# images, /keys/ the volume keys and the passphrase.
MAKER='
export DM_DISABLE_UDEV=1
CS=/sbin/cryptsetup
L=/sbin/lvm
C="--config=$LVM_CONF"
mkdir -p /run/cryptsetup /run/lock/lvm /run/lvm /etc/lvm/backup /etc/lvm/archive
step() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
fmt() {
	$CS luksFormat -q --type luks2 --uuid "$2" --volume-key-file "$3" --key-size 512 \
		--pbkdf argon2id --pbkdf-force-iterations 4 --pbkdf-memory 8192 --pbkdf-parallel 2 \
		--key-file /keys/pass "$1"
}
echo "=== BEGIN MAKE ==="
step fmt /dev/vdb5 "$UUID_LUKS" /keys/luks.key
step $CS open --allow-discards --key-file /keys/pass /dev/vdb5 luks_crypt
step dd if=/dev/vdd of=/dev/mapper/luks_crypt bs=1M
echo "uptime $(cat /proc/uptime)"
step fmt /dev/vdc5 "$UUID_LVM" /keys/lvm.key
step $CS open --allow-discards --key-file /keys/pass /dev/vdc5 lvm_crypt
step $L pvcreate "$C" -y /dev/mapper/lvm_crypt
step $L vgcreate "$C" debian-vg /dev/mapper/lvm_crypt
step $L lvcreate "$C" -y -n root -L "$(($(cat /sys/block/vde/size) / 2048 + 1))m" debian-vg
step $L lvcreate "$C" -y -n swap_1 -L 32m debian-vg
step mkswap /dev/mapper/debian--vg-swap_1
step dd if=/dev/vde of=/dev/mapper/debian--vg-root bs=1M
echo "uptime $(cat /proc/uptime)"
echo "=== END MAKE ==="
echo "=== BEGIN FACTS ==="
echo "luks_dev=$(cat /sys/class/block/vdb5/dev)"
echo "lvm_crypt_dev=$(/sbin/dmsetup info -c --noheadings -o major,minor --separator : lvm_crypt)"
/sbin/dmsetup table 2>&1 | sed "s/^/table /"
/sbin/dmsetup info -c --noheadings -o name,uuid --separator " " 2>&1 | sed "s/^/uuid /"
$CS luksDump /dev/vdb5 2>&1 | sed "s/^/dump luks /"
echo "=== END FACTS ==="
step $L vgchange "$C" -an debian-vg
step $CS close lvm_crypt
step $CS close luks_crypt
sync
echo "made=done"
'

setup_file() {
	command -v cryptsetup >/dev/null || skip "cryptsetup missing (cryptsetup-bin; scripts/install-deps)"
	command -v lvm >/dev/null || skip "lvm2 missing (scripts/install-deps)"
	local dir luks_img lvm_img key
	dir=$(vm_cache_dir)/luks-debian
	export CDIR=$dir
	mkdir -p "$dir"
	[[ -f $dir/ready ]] && return 0
	DEB=$(vm_deb) || return 1
	GKDIR=$(vm_kernel_dir 6.1-generic) || return 1
	GKVER=$(cat "$GKDIR/kver")
	GKERNEL=$GKDIR/boot/vmlinuz-$GKVER
	export DEB GKDIR GKVER GKERNEL
	rm -f "$dir"/*.log "$dir"/*.log.done
	luks_img=$(img_debian_crypt luks "$UUID_LUKS") || return 1
	lvm_img=$(img_debian_crypt lvm "$UUID_LVM") || return 1
	key=$( {
		printf '%s\n%s\n%s\n' "$MAKER" "$LVM_CONF" "$PASS"
		declare -f make_disks _partition
		dpkg-query -W cryptsetup-bin lvm2 dmsetup
		basename "$luks_img"
		basename "$lvm_img"
	} | sha256sum | cut -c1-16)
	export CRYPT_DISKS=${HARDINIT_CACHE:-/var/cache/hardinit}/luks-debian/$key
	vm_build_once "$CRYPT_DISKS/ready" make_disks "$CRYPT_DISKS" "$luks_img" "$lvm_img" || return 1
	touch "$CRYPT_DISKS"
	# Disks of other keys (an older maker or root) are dead weight.
	find "$(dirname "$CRYPT_DISKS")" -mindepth 1 -maxdepth 1 -type d ! -path "$CRYPT_DISKS" \
		-mmin +"$IMG_PRUNE_MINUTES" -exec rm -rf {} +

	# The build boots' image, made on the host as a user would with
	# --crypttab: the root's own crypttab.
	debugfs -R 'cat /etc/crypttab' "$luks_img" >"$dir/luks.crypttab" 2>/dev/null
	debugfs -R 'cat /etc/crypttab' "$lvm_img" >"$dir/lvm.crypttab" 2>/dev/null
	grep -q "^$NAME UUID=$UUID_LUKS none luks,discard\$" "$dir/luks.crypttab" || return 1
	grep -q "^$NAME UUID=$UUID_LVM none luks,discard\$" "$dir/lvm.crypttab" || return 1
	local layout
	for layout in luks lvm; do
		"$HARDINIT_SRC/initramfs/hardinit-mkinitramfs" --hardinit "$_VM_BUILD/hardinit" \
			--moddir "$GKDIR" --kver "$GKVER" --target virtio --modules ext4 \
			--crypttab "$dir/$layout.crypttab" -o "$dir/$layout-build.img" >/dev/null || return 1
	done
	# The kernel's disk, the .deb and zstd (hardinit's Depends the
	# debootstrap root lacks), the step.
	KDISK=$(crypt_kernel_disk) || return 1
	export KDISK
	crypt_step_disk "$dir" || return 1
	touch "$dir/ready"
}

# The generic kernel's files as linux-image-KVER installs them, on an ext4
# disk labelled hardinit-kernel (cached by the kernel version).
crypt_kernel_disk() {
	local out=${HARDINIT_CACHE:-/var/cache/hardinit}/luks-debian/kernel-$GKVER.img stage
	if [[ ! -f $out ]]; then
		(
			flock 9
			[[ -f $out ]] && exit 0
			stage=$out.stage
			trap 'rm -rf "$stage" "$out.new"' EXIT
			rm -rf "$stage" && mkdir -p "$stage/boot"
			cp "$GKDIR/boot/vmlinuz-$GKVER" "$GKDIR/boot/config-$GKVER" "$stage/boot/"
			cp -a "$GKDIR/lib/modules/$GKVER" "$stage/modules"
			rm -f "$stage/modules/build" "$stage/modules/source"
			truncate -s $(($(du -sk "$stage" | cut -f1) * 12 / 10 + 65536))K "$out.new"
			mke2fs -q -t ext4 -L hardinit-kernel -d "$stage" "$out.new" || exit 1
			mv "$out.new" "$out"
		) 9>"$out.lock" || { echo "making $out failed" >&2; return 1; }
	fi
	printf '%s\n' "$out"
}

# Debian 12's zstd, as apt would fetch it with the .deb (once, cached).
crypt_zstd_deb() {
	local dir=${HARDINIT_CACHE:-/var/cache/hardinit}/debs/zstd
	if [[ ! -f $dir/done ]]; then
		(
			flock 9
			[[ -f $dir/done ]] && exit 0
			rm -f "$dir"/*.deb
			cd "$dir" && apt-get download -q zstd >&2 && touch "$dir/done"
		) 9>"$(mkdir -p "$dir" && echo "$dir/.lock")" || { echo "apt-get download zstd failed" >&2; return 1; }
	fi
	printf '%s\n' "$dir"
}

# What the build boot does after the probe (run by it from the step disk):
# the kernel's files in place, zstd and hardinit's .deb installed (the
# postinst builds the image), the image copied to the export disk (vdd).
crypt_step_script() {
	echo "KVER=$GKVER"
	cat <<'STEP'
exec 2>&1
S=/run/hardinit-step
echo "=== BEGIN BUILD ==="
run() { echo "+ $*"; "$@" || echo "step-failed: $*"; }
mkdir -p /run/kernel "/usr/lib/modules/$KVER"
run mount -o ro LABEL=hardinit-kernel /run/kernel
run mount --bind /run/kernel/modules "/usr/lib/modules/$KVER"
run cp /run/kernel/boot/vmlinuz-$KVER /run/kernel/boot/config-$KVER /boot/
echo "root-source=$(findmnt -rn -o SOURCE /)"
dpkg -i "$S"/debs/*.deb
echo "install-exit=$?"
grep -x 'TARGET=auto' /etc/hardinit/mkinitramfs.conf | sed 's/^/conf: /'
img=/boot/hardinit.img-$KVER
echo "image-size=$(stat -c %s "$img")"
run dd if="$img" of=/dev/vdd bs=64k conv=fsync status=none
if [ -f "$S/refuse" ]; then
	# A crypttab without the root's line: the hook refuses, the image stays.
	before=$(sha256sum <"$img")
	mv /etc/crypttab /etc/crypttab.orig
	grep -v "^$(cat "$S/refuse") " /etc/crypttab.orig >/etc/crypttab
	update-hardinit -k "$KVER" 2>&1 | sed 's/^/refuse: /'
	echo "refuse-exit=${PIPESTATUS[0]}"
	[ "$before" = "$(sha256sum <"$img")" ] && echo "refuse-image-kept=yes" || echo "refuse-image-kept=no"
	mv /etc/crypttab.orig /etc/crypttab
fi
echo "=== END BUILD ==="
STEP
}

# The step disks (one per layout: luks also runs the refusal).
crypt_step_disk() {
	local dir=$1 zdir layout stage
	zdir=$(crypt_zstd_deb) || return 1
	for layout in luks lvm; do
		stage=$dir/step-$layout
		rm -rf "$stage" && mkdir -p "$stage/debs"
		cp "$DEB" "$zdir"/*.deb "$stage/debs/"
		crypt_step_script >"$stage/step"
		[[ $layout != luks ]] || echo "$NAME" >"$stage/refuse"
		rm -f "$dir/step-$layout.img"
		truncate -s 64M "$dir/step-$layout.img"
		mke2fs -q -t ext4 -L hardinit-step -d "$stage" "$dir/step-$layout.img" || return 1
	done
}

# _partition DISK MIB: Debian's "use entire disk" layout on DISK (a file):
# vda1 8 MiB /boot at 1 MiB, vda2 extended, vda5 the rest.
_partition() {
	rm -f "$1"
	truncate -s "$2M" "$1"
	printf 'label: dos\nlabel-id: 0x26c0ffee\nstart=2048, size=16384, type=83, bootable\nstart=18432, type=5\nstart=20480, type=83\n' |
		sfdisk -q "$1"
}

# The maker guest: Debian's cryptsetup and lvm2 make both disks.
make_disks() {
	local out=$1 luks_img=$2 lvm_img=$3 mroot=$CDIR/maker f mib
	local -a files
	mkdir -p "$out"
	rm -rf "$mroot" && mkdir -p "$mroot/keys"
	vm_stage_root "$mroot"
	mapfile -t files < <(ldd /sbin/cryptsetup /sbin/lvm /sbin/dmsetup |
		awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' | sort -u)
	for f in /sbin/cryptsetup /sbin/lvm /sbin/dmsetup "${files[@]}"; do
		mkdir -p "$mroot$(dirname "$f")"
		cp -L "$f" "$mroot$f"
	done
	mkdir -p "$mroot/etc/lvm"
	cp /etc/lvm/lvm.conf "$mroot/etc/lvm/"
	head -c 64 /dev/urandom >"$out/luks.key"
	head -c 64 /dev/urandom >"$out/lvm.key"
	cp "$out/luks.key" "$out/lvm.key" "$mroot/keys/"
	printf %s "$PASS" >"$mroot/keys/pass"
	vm_probe_script "$mroot" "LVM_CONF='$LVM_CONF' UUID_LUKS=$UUID_LUKS UUID_LVM=$UUID_LVM
$MAKER"
	# Copying two roots through dm-crypt under TCG outlasts testinit's
	# 120 s for /probe/run: the maker's init runs it unbounded (vm_boot's
	# timeout bounds the guest), then powers off.
	printf '#!/bin/sh\nexport PATH=/sbin:/bin:/usr/sbin:/usr/bin\n/bin/sh /probe/run\nsync\n/bin/poweroff -f\necho o >/proc/sysrq-trigger\n' >"$mroot/sbin/init"
	vm_rootfs "$CDIR/maker.img" "$mroot" -L maker || return 1
	vm_initramfs "$CDIR/maker-initrd.img" --luks >/dev/null || return 1
	# The root image, the LUKS2 header (16 MiB), the partitions before vda5
	# (10 MiB); for LVM also lvm2's metadata area, the swap LV, slack.
	mib=$(($(stat -c %s "$luks_img") / 1048576 + 1))
	_partition "$out/luks.img" $((mib + 16 + 12)) || return 1
	mib=$(($(stat -c %s "$lvm_img") / 1048576 + 1))
	_partition "$out/lvm.img" $((mib + 16 + 12 + 4 + 32 + 8)) || return 1
	vm_boot "$out/maker.log" --timeout 900 --initrd "$CDIR/maker-initrd.img" --disk "$CDIR/maker.img" \
		--disk "$out/luks.img" --disk "$out/lvm.img" --disk "$luks_img" --disk "$lvm_img" \
		--append "root=/dev/vda rw hardinit.boot.failure_action=poweroff" || true
	if ! grep -q '^made=done' <(vm_clean_log "$out/maker.log") ||
		vm_section "$out/maker.log" MAKE | grep -q 'step-failed'; then
		echo "crypt maker guest failed; its log: $out/maker.log" >&2
		vm_log_tail "$out/maker.log" 60 >&2
		return 1
	fi
	vm_section "$out/maker.log" FACTS >"$out/facts"
	touch "$out/ready"
}

# crypt_boot LAYOUT [build]: one boot per layout and kind, the passphrase
# typed when hardinit's prompt is on the console; every test of the layout
# reads it. build: the host's image, the step and kernel disks, the export
# disk written; else the image the build boot exported.
crypt_boot() {
	local layout=$1 kind=${2:-hostonly} log=$CDIR/$1-${2:-hostonly}.log root initrd extra="" timeout=$CRYPT_TIMEOUT
	local -a q=(-drive "file=$CRYPT_DISKS/$layout.img,if=virtio,format=raw,snapshot=on")
	case $layout in
	luks) root=/dev/mapper/$NAME ;;
	lvm) root=/dev/mapper/$LV_ROOT extra=" resume=/dev/mapper/debian--vg-swap_1" ;;
	esac
	if [[ ! -f $log.done ]]; then
		if [[ $kind == build ]]; then
			initrd=$CDIR/$layout-build.img
			rm -f "$CDIR/$layout-export.img"
			truncate -s 64M "$CDIR/$layout-export.img"
			# dpkg and the image's build under TCG come on top of the boot.
			timeout=$((CRYPT_TIMEOUT + 300))
			q+=(-drive "file=$KDISK,if=virtio,format=raw,readonly=on"
				-drive "file=$CDIR/step-$layout.img,if=virtio,format=raw,readonly=on"
				-drive "file=$CDIR/$layout-export.img,if=virtio,format=raw")
		else
			initrd=$(crypt_guest_image "$layout") || return 1
		fi
		{
			vm_wait_serial "$log" "try 1 of" 300 && sleep 0.3 && printf '%s\n' "$PASS"
			vm_wait_serial "$log" "reboot: Power down" "$timeout"
		} | vm_boot "$log" --console --timeout "$timeout" --mem 1024 --kernel "$GKERNEL" \
			--initrd "$initrd" --append "root=$root $CRYPT_APPEND$extra" -- "${q[@]}" >/dev/null || true
		touch "$log.done"
	fi
	echo "$log"
}

# The image the build boot of LAYOUT wrote, cut from its export disk.
crypt_guest_image() {
	local layout=$1 log size out=$CDIR/$1-guest.img
	if [[ ! -s $out ]]; then
		log=$(crypt_boot "$layout" build) || return 1
		size=$(vm_section "$log" BUILD | sed -n 's/^image-size=//p')
		[[ $size =~ ^[0-9]+$ ]] || { echo "the $layout build boot wrote no image; its log: $log" >&2; return 1; }
		head -c "$size" "$CDIR/$layout-export.img" >"$out"
	fi
	echo "$out"
}

# The guest-built image's load list (module names one a line) and its
# /etc/crypttab, unpacked from the archive.
crypt_image_unpack() {
	local img dir=$CDIR/$1-unpacked
	img=$(crypt_guest_image "$1") || return 1
	rm -rf "$dir" && mkdir -p "$dir"
	zstd -dcq "$img" | (cd "$dir" && cpio -idm --quiet --no-absolute-filenames) || return 1
	echo "$dir"
}

crypt_image_modules() {
	local dir=$1 line m
	while read -r line _; do
		[[ -f $dir$line ]] || { echo "listed but not in the image: $line" >&2; return 1; }
		m=${line##*/}
		m=${m%.ko*}
		echo "${m//-/_}"
	done <"$dir/etc/hardinit/modules"
}

key_hex() { od -An -tx1 -v "$CRYPT_DISKS/$1.key" | tr -d ' \n'; }

# The table of DMNAME as dmsetup printed it in the maker.
maker_table() {
	sed -n "s/^table $1: //p" "$CRYPT_DISKS/facts"
}

# The probe finished and the guest powered off after systemd's multi-user.
assert_multi_user() {
	local log=$1
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	vm_assert_section_line "$log" SYSTEMD "comm=systemd"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SYSTEMD "state=running"
	vm_assert_section_lacks "$log" SYSTEMD "failed: "
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

# hardinit asked once; systemd-cryptsetup@NAME found the volume active,
# did not fail and asked nothing (no query reached the console agent).
assert_no_second_prompt() {
	local log=$1 uuid=$2 n
	vm_assert_log_contains "$log" "Please enter passphrase for disk $NAME ($uuid), try 1 of 3"
	n=$(vm_clean_log "$log" | grep -c 'Please enter passphrase')
	[[ $n == 1 ]] || _vm_fail "$log" "expected one passphrase prompt on the console, saw $n"
	vm_assert_section_line "$log" CRYPT "unit: ActiveState=active"
	vm_assert_section_line "$log" CRYPT "unit: Result=success"
	vm_assert_section_line "$log" CRYPT "unit: NRestarts=0"
	vm_assert_section_line "$log" CRYPT "unit: ExecMainStatus=0"
	vm_assert_section_line "$log" CRYPT "journal: Volume $NAME already active."
	vm_assert_section_lacks "$log" CRYPT "asked: "
	vm_assert_section_line "$log" CRYPT "ask-console=0"
	vm_assert_section_line "$log" CRYPT "device-unit=active"
	# The root's udev took the device as libdevmapper's (block/dm_udev.c).
	vm_assert_section_line "$log" CRYPT "udev: DM_UDEV_PRIMARY_SOURCE_FLAG=1"
	vm_assert_section_line "$log" CRYPT "udev: SYSTEMD_READY=1"
}

# The crypt device is cryptsetup's: its dm uuid, the kernel keyring holds
# the key, the live table is the one cryptsetup made in the maker (device
# numbers aside), and no table shows the volume key.
assert_crypt_as_cryptsetup() {
	local log=$1 layout=$2 uuid=$3 key want got
	key=$(key_hex "$layout")
	vm_assert_section_line "$log" CRYPT "dm_uuid=CRYPT-LUKS2-${uuid//-/}-$NAME"
	vm_assert_section_line "$log" CRYPT "slaves=vda5 "
	vm_assert_section_line "$log" CRYPT "status: key location: keyring"
	vm_assert_section_line "$log" CRYPT "status: type:    LUKS2"
	want=$(maker_table "${layout}_crypt" | awk '{ $7 = "DEV"; print }' | sed "s/cryptsetup:$uuid-d0/KEY/")
	got=$(vm_section "$log" DMTABLE | sed -n "s/^$NAME: //p" | awk '{ $7 = "DEV"; print }' | sed "s/cryptsetup:$uuid-d0/KEY/")
	[[ -n $want && $got == "$want" ]] || _vm_fail "$log" "crypt table differs from cryptsetup's: want '$want', got '$got'"
	vm_assert_section_contains "$log" DMTABLE ":64:logon:cryptsetup:$uuid-d0 "
	vm_assert_section_lacks "$log" DMTABLE "$key"
	vm_assert_section_lacks "$log" DMTABLE "${key:0:32}"
	vm_assert_section_lacks "$log" DMTABLE "${key:64:32}"
	vm_assert_log_lacks "$log" "$key"
	vm_assert_log_lacks "$log" "$PASS"
}

@test "maker: Debian's cryptsetup made both LUKS2 volumes, lvm2 the VG with root and swap_1 on one" {
	grep -q "^dump luks Version:.*2" "$CRYPT_DISKS/facts"
	grep -q "^dump luks UUID:.*$UUID_LUKS" "$CRYPT_DISKS/facts"
	grep -q "^table luks_crypt: 0 [0-9]* crypt aes-xts-plain64 :64:logon:cryptsetup:$UUID_LUKS-d0 " "$CRYPT_DISKS/facts"
	grep -q "^table lvm_crypt: 0 [0-9]* crypt aes-xts-plain64 :64:logon:cryptsetup:$UUID_LVM-d0 " "$CRYPT_DISKS/facts"
	grep -q "^table $LV_ROOT: 0 [0-9]* linear " "$CRYPT_DISKS/facts"
	grep -q "^table debian--vg-swap_1: 0 [0-9]* linear " "$CRYPT_DISKS/facts"
}

# The build boot of LAYOUT reached multi-user and installed the .deb, whose
# postinst built the image from the live root with the shipped config.
assert_guest_built() {
	local log=$1 root=$2
	assert_multi_user "$log"
	vm_assert_section_line "$log" BUILD "root-source=$root"
	vm_assert_section_line "$log" BUILD "install-exit=0"
	vm_assert_section_line "$log" BUILD "conf: TARGET=auto"
	vm_assert_section_contains "$log" BUILD "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	if vm_section "$log" BUILD | grep 'step-failed'; then return 1; fi
}

# The guest's image holds what reaches its encrypted root on the generic
# kernel: the disk's drivers, ext4, dm-mod and dm-crypt, the crypto
# modules of the volume's cipher (aes-xts-plain64: xts, and ecb under it),
# the AF_ALG skcipher for the keyslot; and, as /etc/crypttab, the root's
# line only.
assert_guest_image() {
	local layout=$1 uuid=$2 dir list m
	dir=$(crypt_image_unpack "$layout")
	list=$(crypt_image_modules "$dir")
	echo "$list"
	for m in virtio_blk virtio_pci ext4 dm_mod dm_crypt xts ecb algif_skcipher; do
		grep -qx "$m" <<<"$list" || { echo "not in the guest's image: $m" >&2; return 1; }
	done
	for m in nvme ahci sd_mod virtio_scsi dm_verity; do
		! grep -qx "$m" <<<"$list" || { echo "in the guest's image: $m" >&2; return 1; }
	done
	[ "$(cat "$dir/etc/crypttab")" = "$NAME UUID=$uuid none luks,discard" ]
	echo "# $layout: the guest's host-only image $(stat -c %s "$CDIR/$layout-guest.img") bytes" >&3
}

# ---- root on LUKS2 ----------------------------------------------------------------

@test "root on LUKS2: installing the .deb in the guest builds a host-only image from the live encrypted root" {
	local log
	log=$(crypt_boot luks build)
	assert_guest_built "$log" "/dev/mapper/$NAME"
	assert_guest_image luks "$UUID_LUKS"
}

@test "root on LUKS2: the kernel hook refuses a crypttab that does not name the root, and keeps the image" {
	local log
	log=$(crypt_boot luks build)
	# update-hardinit indents the builder's lines.
	vm_assert_section_line "$log" BUILD "refuse:   hardinit-mkinitramfs: host-only: the root is on LUKS2 device $NAME, which /etc/crypttab does not name; add its line (crypttab(5): $NAME UUID=... none luks) or pass --crypttab FILE"
	vm_assert_section_line "$log" BUILD "refuse: update-hardinit: kernel $GKVER: hardinit-mkinitramfs failed (above); /boot/hardinit.img-$GKVER not changed, the previous image is kept"
	vm_assert_section_line "$log" BUILD "refuse-exit=1"
	vm_assert_section_line "$log" BUILD "refuse-image-kept=yes"
}

@test "root on LUKS2 (vda5_crypt): the image the guest built asks the passphrase on the console, systemd reaches multi-user.target" {
	local log
	log=$(crypt_boot luks)
	assert_multi_user "$log"
	# Mounted by its /dev/mapper name, as fstab says (stages/root.c).
	vm_assert_section_line "$log" ROOT "source=/dev/mapper/$NAME"
	vm_assert_section_line "$log" ROOT "dm_name=$NAME"
	vm_assert_section_line "$log" ROOT "slaves=vda5 "
}

@test "root on LUKS2: systemd-cryptsetup@vda5_crypt sees the volume active, does not fail, does not ask again" {
	local log
	log=$(crypt_boot luks)
	assert_no_second_prompt "$log" "$UUID_LUKS"
}

@test "root on LUKS2: / is dm-crypt with cryptsetup's dm uuid and table, the key in the keyring, never in a table" {
	local log
	log=$(crypt_boot luks)
	assert_crypt_as_cryptsetup "$log" luks "$UUID_LUKS"
	vm_assert_section_line "$log" ROOT "dm_uuid=CRYPT-LUKS2-${UUID_LUKS//-/}-$NAME"
}

# ---- LVM on LUKS2 ------------------------------------------------------------------

@test "LVM on LUKS2: installing the .deb in the guest builds a host-only image from the live LV over dm-crypt" {
	local log
	log=$(crypt_boot lvm build)
	assert_guest_built "$log" "/dev/mapper/$LV_ROOT"
	assert_guest_image lvm "$UUID_LVM"
}

@test "LVM on LUKS2 (root=/dev/mapper/debian--vg-root): the image the guest built boots to multi-user.target, swap_1 on" {
	local log
	log=$(crypt_boot lvm)
	assert_multi_user "$log"
	# Mounted by its /dev/mapper name, as fstab says (stages/root.c).
	vm_assert_section_line "$log" ROOT "source=/dev/mapper/$LV_ROOT"
	vm_assert_section_line "$log" ROOT "dm_name=$LV_ROOT"
	# swap_1: hardinit activates it for resume= (below), the root's lvm2
	# finds the VG active, systemd swaps on it.
	vm_assert_section_line "$log" LVM "lv: root active /dev/mapper/$LV_ROOT"
	vm_assert_section_line "$log" LVM "lv: swap_1 active /dev/mapper/debian--vg-swap_1"
	vm_assert_section_line "$log" LVM "swap-target=active"
	vm_assert_section_contains "$log" LVM "swap: "
	# resume= on swap_1: hardinit activates it and finds no hibernated system.
	vm_assert_log_contains "$log" "lvm: activated debian-vg/swap_1 as /dev/mapper/debian--vg-swap_1"
}

@test "LVM on LUKS2: systemd-cryptsetup@vda5_crypt sees the volume active, does not fail, does not ask again" {
	local log
	log=$(crypt_boot lvm)
	assert_no_second_prompt "$log" "$UUID_LVM"
}

@test "LVM on LUKS2: the PV is dm-crypt as cryptsetup makes it; the root LV is lvm2's table over it" {
	local log want got crypt_dev
	log=$(crypt_boot lvm)
	assert_crypt_as_cryptsetup "$log" lvm "$UUID_LVM"
	crypt_dev=$(vm_section "$log" CRYPT | sed -n 's/^devnum=//p')
	vm_assert_section_line "$log" ROOT "slaves=dm-0 "
	vm_assert_section_contains "$log" ROOT "dm_uuid=LVM-"
	want=$(sed -n "s/^uuid $LV_ROOT //p" "$CRYPT_DISKS/facts")
	vm_assert_section_line "$log" ROOT "dm_uuid=$want"
	# lvm2's table in the maker, over its crypt device; here over vda5_crypt.
	want=$(maker_table "$LV_ROOT" | sed "s/ $(sed -n 's/^lvm_crypt_dev=//p' "$CRYPT_DISKS/facts") / CRYPT /")
	got=$(vm_section "$log" DMTABLE | sed -n "s/^$LV_ROOT: //p" | sed "s/ $crypt_dev / CRYPT /")
	[[ -n $want && $got == "$want" && $got == *" CRYPT "* ]] ||
		_vm_fail "$log" "root LV table differs from lvm2's: want '$want', got '$got'"
}
