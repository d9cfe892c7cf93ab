#!/usr/bin/env bats
# Host-only images for the file systems Debian's installer offers beyond
# ext4, as a Debian user gets them: a Debian 12 guest on Debian's generic
# 6.1 kernel (tests/vm/hostonly.bash, shared with tests/vm/hostonly.bats).
#
# One maker boot installs Debian's own btrfs-progs and xfsprogs and makes
# two layouts on four more disks: a btrfs over two disks (raid1) with the
# root on the subvolume @rootfs, as the installer names it; an XFS root
# with a separate /usr (ext4) on another disk, listed in its fstab.
# Into each it copies the guest's root, then installs the .deb with its
# shipped config in a chroot of it, whose /proc/self/mountinfo shows that
# layout at / (and /usr): the postinst builds the host-only image there.
# Each image then boots its layout to multi-user.target: the btrfs with
# rootflags=subvol=@rootfs (as GRUB passes it) and both members
# registered before the mount; the XFS root with /usr mounted from the
# fstab before the switch (Debian 12 is merged-/usr: its init lives on
# /usr). One more boot of the btrfs image with one member missing stops
# at the root's bounded wait with one line naming the missing devid.
#
# Runs in file order. No btrfs, XFS or loop device is ever made on the
# host: the layouts are made and read inside the guest.

# budget: 640 s

bats_require_minimum_version 1.5.0

load lib
load images
load hostonly

setup_file() {
	_ho_setup
}

# Debian 12's btrfs-progs and xfsprogs and the libraries mkfs.btrfs and
# mkfs.xfs need beyond the guest's packages, downloaded by apt once into
# the shared cache.
_ho_fs_debs() {
	local dir=${HARDINIT_CACHE:-/var/cache/hardinit}/debs/fs-tools
	if [[ ! -f $dir/done ]]; then
		(
			flock 9
			[[ -f $dir/done ]] && exit 0
			rm -f "$dir"/*.deb
			cd "$dir" && apt-get download -q btrfs-progs liblzo2-2 xfsprogs libinih1 liburcu8 >&2 &&
				touch "$dir/done"
		) 9>"$(mkdir -p "$dir" && echo "$dir/.lock")" || { echo "apt-get download of btrfs-progs and xfsprogs failed" >&2; return 1; }
	fi
	printf '%s\n' "$dir"
}

# The maker's step script, and the run boots' probe (fsrun).
_ho_fs_steps() {
	cat <<STEP
KVER=$GKVER
STEP
	cat <<'STEP'
set -u
run() { echo "+ $*"; "$@" 2>&1 || echo "step-failed: $*"; }
# build DIR TAG SEEK: the .deb installed in a chroot of DIR (its
# mountinfo shows DIR's mounts at / and below), the image the postinst
# wrote copied onto the export disk at SEEK 64 KiB blocks.
build() {
	local dir=$1 tag=$2 seek=$3 d img
	for d in proc sys dev run; do mount --bind "/$d" "$dir/$d"; done
	echo "$tag-root=$(chroot "$dir" findmnt -rn -o SOURCE,FSTYPE /)"
	echo "$tag-usr=$(chroot "$dir" findmnt -rn -o SOURCE,FSTYPE /usr)"
	echo "install $tag at $(cut -d' ' -f1 /proc/uptime) s"
	chroot "$dir" dpkg -i /root/hardinit.deb
	echo "$tag-install-exit=$?"
	echo "installed $tag at $(cut -d' ' -f1 /proc/uptime) s"
	img=$dir/boot/hardinit.img-$KVER
	echo "$tag-image-size=$(stat -c %s "$img")"
	dd if="$img" of=/dev/vdg bs=64k seek="$seek" conv=fsync status=none
	for d in run dev sys proc; do umount "$dir/$d"; done
}
# The guest's root onto DIR, without the debs, the documentation and the
# kernel's module trees nothing here needs (only file systems, block
# devices, virtio, the crypto and library modules they pull in): each
# byte costs under TCG.
copy_root() {
	local m=./usr/lib/modules/$KVER k
	echo "copy $1 at $(cut -d' ' -f1 /proc/uptime) s"
	{
		tar -C /src --exclude=./root/fs --exclude=./usr/share/doc --exclude=./usr/share/man \
			--exclude=./usr/share/locale --exclude="$m" -cf - . | tar -C "$1" -xpf - &&
			mkdir -p "$1/${m#./}/kernel" && cp -p /src/"${m#./}"/modules.* "$1/${m#./}/" &&
			for k in fs lib crypto arch drivers/block drivers/virtio drivers/char drivers/md drivers/scsi drivers/ata; do
				mkdir -p "$1/${m#./}/kernel/$(dirname "$k")" &&
					cp -a "/src/${m#./}/kernel/$k" "$1/${m#./}/kernel/$(dirname "$k")/" ||
					echo "step-failed: copy modules $k"
			done
	} || echo "step-failed: copy to $1"
	echo "copied $1 at $(cut -d' ' -f1 /proc/uptime) s"
}
case $1 in
fsmake)
	mkdir -p /src /mnt/top /mnt/a /mnt/b
	mount -o ro /dev/vdf /src || echo "step-failed: mount src"
	# Unpacked, not installed: dpkg's triggers cost minutes under TCG, and
	# nothing but the tools is wanted.
	for f in /src/root/fs/*.deb; do dpkg-deb -x "$f" / || echo "step-failed: dpkg-deb -x $f"; done
	ldconfig
	echo "mkfs-tools=$(command -v mkfs.btrfs) $(command -v mkfs.xfs)"
	run modprobe btrfs
	run modprobe xfs
	# btrfs over vdb and vdc, / on its subvolume @rootfs.
	run mkfs.btrfs -q -f -d raid1 -m raid1 -L hbtrfs /dev/vdb /dev/vdc
	udevadm settle
	run btrfs device scan
	echo "btrfs-uuid=$(blkid -s UUID -o value /dev/vdb)"
	run mount /dev/vdb /mnt/top
	run btrfs subvolume create /mnt/top/@rootfs
	umount /mnt/top
	run mount -o subvol=@rootfs /dev/vdb /mnt/a
	copy_root /mnt/a
	printf 'UUID=%s / btrfs defaults,subvol=@rootfs 0 0\n' "$(blkid -s UUID -o value /dev/vdb)" >/mnt/a/etc/fstab
	build /mnt/a btrfs 0
	umount /mnt/a
	# vdd: an XFS root, and vde its /usr, on ext4 (whole disks: Debian
	# 12's sfdisk is in the fdisk package, which the guest lacks).
	run mkfs.xfs -q -f -L hxfs /dev/vdd
	run mkfs.ext4 -q -F -L husr /dev/vde
	udevadm settle
	echo "xfs-uuid=$(blkid -s UUID -o value /dev/vdd)"
	run mount /dev/vdd /mnt/b
	mkdir -p /mnt/b/usr
	run mount /dev/vde /mnt/b/usr
	copy_root /mnt/b
	printf 'UUID=%s / xfs defaults 0 1\nUUID=%s /usr ext4 defaults 0 2\n' \
		"$(blkid -s UUID -o value /dev/vdd)" "$(blkid -s UUID -o value /dev/vde)" >/mnt/b/etc/fstab
	build /mnt/b xfs 512
	umount /mnt/b/usr /mnt/b
	sync
	;;
fsrun)
	echo "root-options=$(findmnt -rn -o OPTIONS /)"
	echo "usr=$(findmnt -rn -o SOURCE,FSTYPE /usr)"
	for f in /sys/fs/btrfs/*/devices; do [ -d "$f" ] && echo "btrfs-devices=$(cd "$f" && echo *)"; done
	echo "init=$(readlink -f /proc/1/exe)"
	;;
esac
STEP
}

# Once per file (each test is its own process: a file marks it done).
_ho_fs_setup() {
	local base debs blocks bsize mb
	SRC=$BATS_FILE_TMPDIR/fs-src.img EXPORT=$BATS_FILE_TMPDIR/fs-export.img
	B1=$BATS_FILE_TMPDIR/btrfs1.img B2=$BATS_FILE_TMPDIR/btrfs2.img
	XD=$BATS_FILE_TMPDIR/xfs.img UD=$BATS_FILE_TMPDIR/usr.img
	[[ ! -f $BATS_FILE_TMPDIR/fs.ready ]] || return 0
	base=$(_ho_base_image) || return 1
	debs=$(_ho_fs_debs) || return 1
	cp --sparse=always "$base" "$SRC"
	# As small as it gets, plus room for the packages.
	e2fsck -fy "$SRC" >/dev/null 2>&1
	resize2fs -M "$SRC" >/dev/null 2>&1 || { echo "resize2fs -M $SRC failed" >&2; return 1; }
	blocks=$(dumpe2fs -h "$SRC" 2>/dev/null | sed -n 's/^Block count: *//p')
	bsize=$(dumpe2fs -h "$SRC" 2>/dev/null | sed -n 's/^Block size: *//p')
	mb=$(((blocks * bsize >> 20) + 128))
	truncate -s "${mb}M" "$SRC"
	resize2fs "$SRC" >/dev/null 2>&1 || { echo "resize2fs $SRC failed" >&2; return 1; }
	{
		echo "mkdir /root/fs"
		for f in "$debs"/*.deb; do echo "write $f /root/fs/${f##*/}"; done
		echo "write $DEB /root/hardinit.deb"
	} | debugfs -w -f - "$SRC" >/dev/null 2>&1
	_ho_fs_steps >"$BATS_FILE_TMPDIR/steps"
	debugfs -w -R "rm /root/hostonly-steps" "$SRC" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$SRC" >/dev/null 2>&1
	debugfs -w -R "rm /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -w -R "write $BATS_FILE_TMPDIR/steps /root/hostonly-steps" "$DISK" >/dev/null 2>&1
	debugfs -R "cat /root/hostonly-steps" "$SRC" 2>/dev/null | grep -qx "KVER=$GKVER" ||
		{ echo "debugfs could not write the steps into $SRC" >&2; return 1; }
	rm -f "$B1" "$B2" "$XD" "$UD" "$EXPORT"
	# raid1 keeps a copy on each; the XFS root without /usr fits XFS's
	# smallest, 300 MB.
	truncate -s "$((mb + 256))M" "$B1" "$B2"
	truncate -s 400M "$XD"
	truncate -s "$((mb + 64))M" "$UD"
	truncate -s 64M "$EXPORT"
	touch "$BATS_FILE_TMPDIR/fs.ready"
}

# The image the maker's TAG build wrote at SEEK 64 KiB blocks of EXPORT.
_ho_fs_image() {
	local tag=$1 seek=$2 out=$BATS_FILE_TMPDIR/hostonly-$1.img size
	size=$(vm_section "$BATS_FILE_TMPDIR/fs-make.log" fsmake | sed -n "s/^$tag-image-size=//p")
	[[ $size =~ ^[0-9]+$ ]] || { echo "the maker wrote no $tag image" >&2; return 1; }
	dd if="$EXPORT" of="$out" bs=64k skip="$seek" status=none
	truncate -s "$size" "$out"
	printf '%s\n' "$out"
}

_ho_fs_value() {
	vm_section "$BATS_FILE_TMPDIR/fs-make.log" fsmake | sed -n "s/^$1=//p"
}

@test "hostonly: Debian's btrfs-progs and xfsprogs make a two-disk btrfs with / on @rootfs and an XFS root with a separate /usr; the .deb's postinst builds each image" {
	_ho_fs_setup
	log=$BATS_FILE_TMPDIR/fs-make.log
	# $DISK unchanged (snapshot=on); the layouts and the export written.
	# Two roots copied and two host-only builds in one boot: twice the
	# bound of one.
	HO_TIMEOUT=$((HO_TIMEOUT * 2)) _ho_boot "$log" "$BOOTSTRAP" /dev/vda none fsmake persist \
		-drive "file=$DISK,if=virtio,format=raw,snapshot=on" \
		-drive "file=$B1,if=virtio,format=raw" -drive "file=$B2,if=virtio,format=raw" \
		-drive "file=$XD,if=virtio,format=raw" -drive "file=$UD,if=virtio,format=raw" \
		-drive "file=$SRC,if=virtio,format=raw,readonly=on" \
		-drive "file=$EXPORT,if=virtio,format=raw"
	vm_assert_section_line "$log" fsmake "mkfs-tools=/usr/sbin/mkfs.btrfs /usr/sbin/mkfs.xfs"
	vm_assert_section_line "$log" fsmake "step-exit=0"
	if vm_section "$log" fsmake | grep 'step-failed'; then return 1; fi
	vm_section "$log" fsmake | grep -qx 'btrfs-root=/dev/vdb\[/@rootfs\] btrfs'
	vm_assert_section_line "$log" fsmake "xfs-root=/dev/vdd xfs"
	vm_assert_section_line "$log" fsmake "xfs-usr=/dev/vde ext4"
	vm_assert_section_line "$log" fsmake "btrfs-install-exit=0"
	vm_assert_section_line "$log" fsmake "xfs-install-exit=0"
	vm_assert_section_contains "$log" fsmake "update-hardinit: kernel $GKVER: built /boot/hardinit.img-$GKVER"
	# The builder followed the btrfs's anonymous device to its disks, and
	# the separate /usr to its own.
	list=$(_ho_image_modules "$(_ho_fs_image btrfs 0)")
	for m in btrfs virtio_blk libcrc32c; do
		grep -qx "$m" <<<"$list" || { echo "not in the btrfs image: $m" >&2; return 1; }
	done
	list=$(_ho_image_modules "$(_ho_fs_image xfs 512)")
	for m in xfs ext4 virtio_blk; do
		grep -qx "$m" <<<"$list" || { echo "not in the XFS image: $m" >&2; return 1; }
	done
}

@test "hostonly: the btrfs image boots / from @rootfs over both disks to multi-user.target, each member registered first" {
	_ho_fs_setup
	img=$BATS_FILE_TMPDIR/hostonly-btrfs.img
	[[ -s $img ]] || { echo "the maker test runs first (file order)" >&2; false; }
	uuid=$(_ho_fs_value btrfs-uuid)
	log=$BATS_FILE_TMPDIR/boot-btrfs.log
	HO_EXTRA="rootflags=subvol=@rootfs" _ho_boot "$log" "$img" "UUID=$uuid" none fsrun snapshot \
		-drive "file=$B1,if=virtio,format=raw" -drive "file=$B2,if=virtio,format=raw"
	vm_assert_log_contains "$log" "btrfs root $uuid: all 2 devices registered (devid 1 on /dev/vda, devid 2 on /dev/vdb)"
	vm_assert_section_line "$log" REPORT "root btrfs_devices ok 2: devid 1 on /dev/vda, devid 2 on /dev/vdb"
	vm_assert_section_line "$log" STATE "root=/dev/vda[/@rootfs] btrfs"
	vm_assert_section_line "$log" MODULES btrfs
	vm_section "$log" fsrun | grep -q '^root-options=.*subvol=/@rootfs'
	vm_assert_section_line "$log" fsrun "btrfs-devices=vda vdb"
	echo "# host-only btrfs image $(stat -c %s "$img") bytes" >&3
}

@test "hostonly: the btrfs image with one of its two disks missing stops at the bounded wait, naming the missing devid" {
	img=$BATS_FILE_TMPDIR/hostonly-btrfs.img
	[[ -s $img ]] || { echo "the maker test runs first (file order)" >&2; false; }
	uuid=$(_ho_fs_value btrfs-uuid)
	log=$BATS_FILE_TMPDIR/boot-btrfs-missing.log
	HO_EXTRA="rootflags=subvol=@rootfs hardinit.boot.root_timeout=2" _ho_start "$log" "$img" "UUID=$uuid" \
		none "" snapshot -drive "file=$B2,if=virtio,format=raw" || true
	vm_assert_log_contains "$log" "the btrfs root $uuid (UUID=$uuid) has 2 devices; within 2 s only devid 2 on /dev/vda appeared, not devid 1"
	vm_assert_log_lacks "$log" "hardinit: handing off"
	[[ $(vm_exit_reason "$log") == poweroff ]]
}

@test "hostonly: the XFS image boots the XFS root with /usr mounted from its fstab before the switch, to multi-user.target" {
	_ho_fs_setup
	img=$BATS_FILE_TMPDIR/hostonly-xfs.img
	[[ -s $img ]] || { echo "the maker test runs first (file order)" >&2; false; }
	log=$BATS_FILE_TMPDIR/boot-xfs.log
	_ho_boot "$log" "$img" "UUID=$(_ho_fs_value xfs-uuid)" none fsrun snapshot \
		-drive "file=$XD,if=virtio,format=raw" -drive "file=$UD,if=virtio,format=raw"
	vm_assert_log_contains "$log" "mounted /usr /dev/vdb (ext4) on /root/usr read-only"
	vm_assert_section_line "$log" REPORT "usr device ok /dev/vdb"
	vm_assert_section_line "$log" REPORT "usr mode ok ro"
	vm_assert_section_line "$log" STATE "root=/dev/vda xfs"
	vm_assert_section_line "$log" fsrun "usr=/dev/vdb ext4"
	vm_assert_section_line "$log" fsrun "init=/usr/lib/systemd/systemd"
	for m in xfs ext4; do vm_assert_section_line "$log" MODULES "$m"; done
	echo "# host-only XFS image $(stat -c %s "$img") bytes" >&3
}
