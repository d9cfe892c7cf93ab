#!/usr/bin/env bats
# Host-only detection (hardinit-mkinitramfs --host-only, initramfs/hostonly.sh)
# against fake /sys and /proc trees shaped as Linux lays them out
# (virtio-blk, NVMe, AHCI+sd, virtio-scsi, xen-blkfront, a partition on
# each, device-mapper and md RAID on top), resolved against Debian's real
# kernels unpacked by scripts/fetch-kernel: the generic 6.1 (its disk
# drivers and ext4 are modules) and the 6.1 and 6.12 cloud kernels, none
# of them the kernel this host runs. The image is checked by unpacking it
# with GNU cpio, never by the builder's own words alone.

# stderr is set by bats' run --separate-stderr.
# shellcheck disable=SC2154

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO
	export BUILDER="$REPO/initramfs/hardinit-mkinitramfs"
	make -s -C "$REPO" build/mkcpio build/hardinit >&2
	local v
	for v in 6.1-generic 6.1 6.12; do
		"$REPO/scripts/fetch-kernel" "$v" >/dev/null ||
			{ echo "scripts/fetch-kernel $v failed (scripts/install-deps fetches it)" >&2; return 1; }
	done
	CACHE=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels
	export GENERIC=$CACHE/6.1-generic CLOUD61=$CACHE/6.1 CLOUD612=$CACHE/6.12
	GKVER=$(cat "$GENERIC/kver")
	export GKVER
}

setup() {
	T=$BATS_TEST_TMPDIR
	S=$T/sys
	P=$T/proc
	mkdir -p "$S/dev/block" "$S/devices/platform" "$S/class/tty/console" "$P/self"
	OUT=$T/out.img
	# Serial console on the 8250 platform device, built into every kernel here.
	fk_dev platform/serial8250 platform:serial8250 serial8250 ""
	mkdir -p "$S/class/tty/ttyS0"
	ln -s "$S/devices/platform/serial8250" "$S/class/tty/ttyS0/device"
	echo ttyS0 >"$S/class/tty/console/active"
	# No dmsetup unless a test provides one.
	export HARDINIT_DMSETUP=$T/no-dmsetup
}

# fk_dev REL MODALIAS DRIVER MODULE: a device under SYS/devices; DRIVER
# bound to it when not empty, its module MODULE (empty: built in).
fk_dev() {
	local alias=$2 drv=$3 mod=$4 d=$S/devices/$1
	mkdir -p "$d"
	[[ -z $alias ]] || echo "$alias" >"$d/modalias"
	[[ -n $drv ]] || return 0
	mkdir -p "$S/bus/any/drivers/$drv"
	ln -sfn "$S/bus/any/drivers/$drv" "$d/driver"
	if [[ -n $mod ]]; then
		mkdir -p "$S/module/$mod"
		ln -sfn "$S/module/$mod" "$S/bus/any/drivers/$drv/module"
	fi
}

# fk_blk REL MAJ:MIN [partition]: a block device directory and its
# SYS/dev/block link.
fk_blk() {
	local d=$S/devices/$1
	mkdir -p "$d"
	echo "$2" >"$d/dev"
	[[ ${3:-} != partition ]] || echo 1 >"$d/partition"
	ln -sfn "$d" "$S/dev/block/$2"
}

# fk_root MAJ:MIN FSTYPE SOURCE: the root mount; a tmpfs on /run around it.
fk_root() {
	cat >"$P/self/mountinfo" <<-EOF
		22 28 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw
		28 1 $1 / / ro,relatime shared:1 - $2 $3 rw
		25 28 0:23 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,mode=755
	EOF
}

fk_virtio_blk() {
	fk_dev pci0000:00 "" "" ""
	fk_dev pci0000:00/0000:00:04.0 pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00 virtio-pci virtio_pci
	fk_dev pci0000:00/0000:00:04.0/virtio1 virtio:d00000002v00001AF4 virtio_blk virtio_blk
	fk_blk pci0000:00/0000:00:04.0/virtio1/block/vda 254:0
	fk_blk pci0000:00/0000:00:04.0/virtio1/block/vda/vda1 254:1 partition
	fk_blk pci0000:00/0000:00:04.0/virtio1/block/vda/vda2 254:2 partition
}

fk_nvme() {
	fk_dev pci0000:00/0000:00:05.0 pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02 nvme nvme
	fk_dev pci0000:00/0000:00:05.0/nvme/nvme0 "" "" ""
	fk_blk pci0000:00/0000:00:05.0/nvme/nvme0/nvme0n1 259:0
	fk_blk pci0000:00/0000:00:05.0/nvme/nvme0/nvme0n1/nvme0n1p2 259:2 partition
}

fk_ahci() {
	local h=pci0000:00/0000:00:1f.2
	fk_dev $h pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01 ahci ahci
	fk_dev $h/ata1/host0/target0:0:0 "" "" ""
	fk_dev $h/ata1/host0/target0:0:0/0:0:0:0 scsi:t-0x00 sd sd_mod
	fk_blk $h/ata1/host0/target0:0:0/0:0:0:0/block/sda 8:0
	fk_blk $h/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1 8:1 partition
}

fk_virtio_scsi() {
	local h=pci0000:00/0000:00:03.0
	fk_dev $h pci:v00001AF4d00001004sv00001AF4sd00000008bc01sc00i00 virtio-pci virtio_pci
	fk_dev $h/virtio0 virtio:d00000008v00001AF4 virtio_scsi virtio_scsi
	fk_dev $h/virtio0/host0/target0:0:0/0:0:0:0 scsi:t-0x00 sd sd_mod
	fk_blk $h/virtio0/host0/target0:0:0/0:0:0:0/block/sda 8:0
	fk_blk $h/virtio0/host0/target0:0:0/0:0:0:0/block/sda/sda1 8:1 partition
}

# fk_dm NAME UUID MAJ:MIN SLAVE-MAJ:MIN...: a dm device over the slaves.
fk_dm() {
	local name=$1 uuid=$2 majmin=$3 s d
	shift 3
	d=$S/devices/virtual/block/dm-${majmin#*:}
	fk_blk "virtual/block/dm-${majmin#*:}" "$majmin"
	mkdir -p "$d/dm" "$d/slaves"
	echo "$name" >"$d/dm/name"
	echo "$uuid" >"$d/dm/uuid"
	for s in "$@"; do
		ln -s "$(readlink -f "$S/dev/block/$s")" "$d/slaves/$(basename "$(readlink -f "$S/dev/block/$s")")"
	done
}

# A dmsetup that prints TABLE for `dmsetup table -j MAJ -m MIN`, as the
# real one does (the key of a crypt table shown as zeros).
fk_dmsetup() {
	# shellcheck disable=SC2016 # the script's own $1
	printf '#!/bin/sh\n[ "$1" = table ] || exit 1\ncat <<"EOF"\n%s\nEOF\n' "$1" >"$T/dmsetup"
	chmod 0755 "$T/dmsetup"
	export HARDINIT_DMSETUP=$T/dmsetup
}

# The tests here read what the image holds, not how it is packed: built
# with --compress none, since zstd -19 is most of a build's time. The
# default compression is tests/bats/builder.bats's to check.
build() {
	run --separate-stderr "$BUILDER" --host-only --sysfs "$S" --proc "$P" --profile baseline --compress none "$@"
	echo "$output"
	echo "$stderr" >&2
}

# FILE's cpio archive, zstd or plain, on stdout.
image_cpio() {
	if [[ $(od -An -tx1 -N4 "$1" | tr -d ' ') == 28b52ffd ]]; then zstd -dcq "$1"; else cat "$1"; fi
}

# The image's load list, module names one a line (from the unpacked archive).
load_list() {
	local dir=$T/unpacked
	rm -rf "$dir"
	mkdir -p "$dir"
	image_cpio "$OUT" | (cd "$dir" && cpio -idm --quiet --no-absolute-filenames)
	local line m
	while read -r line _; do
		[[ -f $dir$line ]] || { echo "listed but not in the image: $line" >&2; return 1; }
		m=${line##*/}
		m=${m%.ko*}
		echo "${m//-/_}"
	done <"$dir/etc/hardinit/modules"
}

has() {
	grep -qxF "$1" <<<"$LIST" || { echo "not in the load list: $1 (list: $(echo $LIST))" >&2; return 1; }
}

lacks() {
	! grep -qxF "$1" <<<"$LIST" || { echo "in the load list: $1" >&2; return 1; }
}

@test "host-only: the target kernel is not the running one" {
	[[ $GKVER != "$(uname -r)" ]]
	[[ $(cat "$CLOUD612/kver") != "$(uname -r)" ]]
}

@test "host-only: virtio-blk partition, generic 6.1: virtio_blk, virtio_pci, ext4 and ext4's soft dependency crc32c, each once" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: / is ext4 on /dev/vda1 (254:1)"* ]]
	LIST=$(load_list)
	has virtio_blk; has virtio_pci; has virtio; has virtio_ring
	has ext4; has jbd2; has mbcache; has crc16; has crc32c_generic
	# Each module once; dependencies before what needs them.
	[[ -z $(sort <<<"$LIST" | uniq -d) ]]
	awk '$0 == "jbd2" { j = NR } $0 == "ext4" { e = NR } $0 == "crc32c_generic" { c = NR } END { exit !(j < e && c < e) }' <<<"$LIST"
	lacks nvme; lacks ahci; lacks sd_mod
	[[ $output == *"host-only: checked: each of the 3 drivers and file systems the root needs"* ]]
}

@test "host-only: NVMe partition: nvme and nvme_core for the generic kernel; built into the 6.12 cloud kernel" {
	fk_nvme
	fk_root 259:2 ext4 /dev/nvme0n1p2
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has nvme; has nvme_core; has ext4
	lacks virtio_blk
	# 6.12 cloud: nvme and ext4 are built in, so nothing is needed.
	build --moddir "$CLOUD612" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	lacks nvme; lacks ext4
	[[ $output == *"checked: each of the 2 drivers"* ]]
}

@test "host-only: AHCI with sd: ahci, libahci, libata, sd_mod, scsi_mod" {
	fk_ahci
	fk_root 8:1 ext4 /dev/sda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has ahci; has libahci; has libata; has sd_mod; has scsi_mod; has ext4
}

@test "host-only: the self-check refuses a kernel without the root's controller driver (6.1 cloud has no ahci) and writes nothing" {
	fk_ahci
	fk_root 8:1 ext4 /dev/sda1
	build --moddir "$CLOUD61" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: the root needs device /devices/pci0000:00/0000:00:1f.2 (pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01), driver ahci: kernel $(cat "$CLOUD61/kver") has no module ahci and does not build it in; build for a kernel that has it" ]]
	[[ ! -e $OUT ]]
	[[ -z $(find "$T" -maxdepth 1 -name '.out.img.*') ]]
}

@test "host-only: the self-check refuses a file system the kernel lacks, naming it" {
	fk_virtio_blk
	fk_root 254:1 nosuchfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: the root needs file system nosuchfs, but kernel $GKVER has no driver for it"* ]]
	[[ ! -e $OUT ]]
}

@test "host-only: virtio-scsi: virtio_scsi, sd_mod, virtio_pci" {
	fk_virtio_scsi
	fk_root 8:1 ext4 /dev/sda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has virtio_scsi; has sd_mod; has virtio_pci; has scsi_mod
	lacks virtio_blk
}

@test "host-only: xen-blkfront partition on a Xen guest with the hvc0 console" {
	fk_dev vbd-51712 xen:vbd vbd xen_blkfront
	fk_blk vbd-51712/block/xvda 202:0
	fk_blk vbd-51712/block/xvda/xvda1 202:1 partition
	fk_root 202:1 ext4 /dev/xvda1
	mkdir -p "$S/hypervisor" "$S/class/tty/hvc0"
	echo xen >"$S/hypervisor/type"
	echo hvc0 >"$S/class/tty/console/active"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: platform: xen guest"* ]]
	LIST=$(load_list)
	has xen_blkfront; has ext4
	lacks virtio_console
}

@test "host-only: the console's driver: virtio_console for hvc0 on a virtio console" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	fk_dev pci0000:00/0000:00:06.0/virtio3 virtio:d00000003v00001AF4 virtio_console virtio_console
	mkdir -p "$S/bus/virtio/devices" "$S/class/tty/hvc0"
	ln -s "$S/devices/pci0000:00/0000:00:06.0/virtio3" "$S/bus/virtio/devices/virtio3"
	echo "ttyS0 hvc0" >"$S/class/tty/console/active"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has virtio_console; has virtio_blk
}

@test "host-only: LVM linear and striped over a virtio partition and a SATA disk: dm_mod and both controllers" {
	fk_virtio_blk
	fk_ahci
	fk_dm vg0-root LVM-abcdefghijklmnopqrstuvwxyz012345abcdefghijklmnopqrstuvwxyz012345 253:0 254:2 8:1
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup "0 2097152 linear 254:2 2048
2097152 2097152 striped 2 128 254:2 2099200 8:1 2048"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: vg0-root is device-mapper (linear striped) over sda1 vda2"* ]]
	LIST=$(load_list)
	has dm_mod; has virtio_blk; has ahci; has sd_mod; has ext4
	lacks dm_crypt; lacks dm_verity
}

@test "host-only: a thin LV is refused, naming the device and its target type" {
	fk_virtio_blk
	fk_dm vg0-thinroot LVM-x 253:3 254:2
	fk_root 253:3 ext4 /dev/mapper/vg0-thinroot
	fk_dmsetup "0 2097152 thin 253:2 1"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: the root's device-mapper device vg0-thinroot (LVM-x) has a 'thin' target, which hardinit cannot activate (it activates linear, striped and verity); keep initramfs-tools for this machine" ]]
	[[ ! -e $OUT ]]
}

@test "host-only: an LVM root without dmsetup to read its table is refused" {
	fk_virtio_blk
	fk_dm vg0-root LVM-x 253:0 254:2
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"its target types need 'dmsetup table': install dmsetup"* ]]
}

# A dmsetup that prints each device's table by its minor: fk_dmsetup_minor
# MIN TABLE [MIN TABLE]... (`dmsetup table -j MAJ -m MIN`).
# shellcheck disable=SC2016 # the fake script's own $1 and $5
fk_dmsetup_minor() {
	{
		echo '#!/bin/sh'
		echo '[ "$1" = table ] || exit 1'
		echo 'case $5 in'
		while (($#)); do
			printf '%s) echo "%s" ;;\n' "$1" "$2"
			shift 2
		done
		echo '*) exit 1 ;;'
		echo 'esac'
	} >"$T/dmsetup"
	chmod 0755 "$T/dmsetup"
	export HARDINIT_DMSETUP=$T/dmsetup
}

LUKS_UUID=CRYPT-LUKS2-0d3c3f3bb1a64ab4a2a3b6f0c7e1d2a9-luks-0d3c3f3b
CRYPT_TABLE="0 2097152 crypt aes-xts-plain64 :64:logon:cryptsetup:0d3c3f3b-d0 0 254:2 32768"

# The root's crypttab as Debian's installer writes it, with other lines.
fk_crypttab() {
	cat >"$T/crypttab" <<-'EOF'
		# <target name> <source device> <key file> <options>
		vda3_crypt UUID=11111111-2222-3333-4444-555555555555 none luks,discard
		swap_crypt /dev/vda4 /dev/urandom swap,cipher=aes-xts-plain64,size=256
	EOF
	export HARDINIT_CRYPTTAB=$T/crypttab
}

# The image's /etc/crypttab, or nothing.
image_crypttab() {
	image_cpio "$OUT" | (cd "$T" && rm -rf ct && mkdir ct && cd ct && cpio -idm --quiet --no-absolute-filenames etc/crypttab 2>/dev/null)
	cat "$T/ct/etc/crypttab" 2>/dev/null
}

@test "host-only: root on LUKS2: its crypttab line embedded as /etc/crypttab, dm_crypt and the AF_ALG cipher modules in the image" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	echo "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,discard" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: LUKS2 device vda2_crypt from UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9: $T/crypttab line 4"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,discard" ]
	# The volume and its backing device, from the dm uuid and slaves/.
	[[ $output == *"host-only: vda2_crypt is LUKS2 UUID 0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 on vda2"* ]]
	[[ $output == *"host-only: vda2_crypt: cipher aes-xts-plain64 needs aes xts"* ]]
	LIST=$(load_list)
	has dm_crypt; has dm_mod; has algif_skcipher; has xts; has virtio_blk; has ext4
	# xts's soft dependency: on the generic 6.1 kernel ecb is a module,
	# and the kernel's xts(aes) cannot be made without it.
	has ecb
}

# The root's crypttab line is copied into the image as it is; the builder
# runs the boot's own parser over it (hardinit check-crypttab) and writes
# no image when the boot would refuse it, so the last image stays.
# refused_line NAME OPTION WANT: the root on NAME, its line with OPTION.
# The root on the LUKS2 volume NAME (dm 253:1 over vda2), its dm table and
# the host's crypttab: what each crypttab test starts from.
fk_luks_root() {
	fk_dm "$1" "$LUKS_UUID" 253:1 254:2
	fk_root 253:1 ext4 "/dev/mapper/$1"
	fk_dmsetup "$CRYPT_TABLE"
	fk_crypttab
}

refused_line() {
	fk_virtio_blk
	fk_luks_root "$1"
	echo "$1 UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,$2" >>"$T/crypttab"
	echo "last good image" >"$OUT"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"invalid the crypttab lines of $T/crypttab for the root's volumes ($1): crypttab line 1: $3"* ]]
	[[ $stderr == *"no image written (the last one is kept)"* ]]
	[ "$(cat "$OUT")" = "last good image" ]
}

@test "host-only: a crypttab line with tries=20 (the boot takes 0 to 10) writes no image and keeps the last one" {
	refused_line vda2_crypt tries=20 "tries=20: hardinit takes 0 to 10"
}

@test "host-only: a crypttab line with keyslot=1 (the boot refuses it) writes no image and keeps the last one" {
	refused_line vda2_crypt keyslot=1 "option keyslot is not supported"
}

@test "host-only: a crypttab name with ':' (the boot refuses it) writes no image and keeps the last one" {
	refused_line vda2:crypt discard "bad name 'vda2:crypt'"
}

@test "host-only: crypttab options the boot ignores (as systemd-cryptsetup does) are named, the image is written" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	echo "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,password-echo=no" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"warning: the crypttab lines of $T/crypttab for the root's volumes (vda2_crypt): vda2_crypt: options hardinit ignores at boot (as systemd-cryptsetup ignores unknown ones): password-echo"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,password-echo=no" ]
}

@test "host-only: the crypto modules come from the dm table's cipher spec (essiv, capi:), never its key" {
	fk_virtio_blk
	fk_dm vda2_crypt "$LUKS_UUID" 253:1 254:2
	fk_root 253:1 ext4 /dev/mapper/vda2_crypt
	fk_crypttab
	echo "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" >>"$T/crypttab"
	# A table as `dmsetup table --showkeys` prints a hex key: never kept.
	key=$(printf '5a%.0s' {1..32})
	fk_dmsetup "0 2097152 crypt aes-cbc-essiv:sha256 $key 0 254:2 4096"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: vda2_crypt: cipher aes-cbc-essiv:sha256 needs aes cbc essiv sha256"* ]]
	LIST=$(load_list)
	has essiv; has dm_crypt
	[[ $output != *"$key"* && $stderr != *"$key"* ]]
	run ! grep -rqF "$key" "$T/unpacked"
	# capi: form: each algorithm of the template.
	fk_dmsetup "0 2097152 crypt capi:xts(aes)-plain64 :64:logon:cryptsetup:0d3c3f3b-d0 0 254:2 32768"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"cipher capi:xts(aes)-plain64 needs xts aes"* ]]
	LIST=$(load_list)
	has xts; has ecb
	# A cipher the target kernel has no module for: refused, naming it.
	fk_dmsetup "0 2097152 crypt nosuchcipher-xts-plain64 :64:logon:cryptsetup:0d3c3f3b-d0 0 254:2 32768"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: the root needs crypto algorithm nosuchcipher of vda2_crypt (nosuchcipher-xts-plain64), but kernel $GKVER has no driver for it"* ]]
	# No dmsetup: the cipher cannot be read, so the build stops.
	export HARDINIT_DMSETUP=$T/no-dmsetup
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: the root is on dm-crypt device vda2_crypt (uuid '$LUKS_UUID'); its cipher spec needs 'dmsetup table': install dmsetup"* ]]
}

@test "host-only: the crypttab line must name the live LUKS2 volume: a stale UUID is refused; a device path becomes UUID= in the image" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	echo "vda2_crypt UUID=99999999-2222-3333-4444-555555555555 none luks" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hardinit-mkinitramfs: host-only: $T/crypttab line 4 opens vda2_crypt from UUID=99999999-2222-3333-4444-555555555555, but the live vda2_crypt is LUKS2 UUID 0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 on vda2; correct the line (cryptsetup luksUUID prints the UUID)" ]
	[[ ! -e $OUT ]]
	fk_crypttab
	echo "vda2_crypt /dev/disk/by-uuid/0D3C3F3B-B1A6-4AB4-A2A3-B6F0C7E1D2A9 none luks" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(image_crypttab)" = "vda2_crypt /dev/disk/by-uuid/0D3C3F3B-B1A6-4AB4-A2A3-B6F0C7E1D2A9 none luks" ]
	fk_crypttab
	printf 'vda2_crypt	/dev/vda2  none luks,discard
' >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: $T/crypttab line 4 names vda2_crypt's device as /dev/vda2; the image's line has UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9, the live volume's (on vda2)"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks,discard" ]
}

@test "host-only: LVM on LUKS2 (Debian's guided encrypted LVM): the LV over the crypt device over the partition" {
	fk_virtio_blk
	fk_dm vda2_crypt "$LUKS_UUID" 253:1 254:2
	fk_dm vg0-root LVM-abcdefghijklmnopqrstuvwxyz012345abcdefghijklmnopqrstuvwxyz012345 253:0 253:1
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup_minor 0 "0 2097152 linear 253:1 2048" 1 "$CRYPT_TABLE"
	fk_crypttab
	echo "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: vg0-root is device-mapper (linear) over dm-1"* ]]
	[[ $output == *"host-only: vda2_crypt is device-mapper (crypt) over vda2"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" ]
	LIST=$(load_list)
	has dm_crypt; has dm_mod; has virtio_blk
}

@test "host-only: resume= names a swap on a second LUKS2 volume: its crypttab line is embedded too; a random-key swap is not followed" {
	fk_virtio_blk
	fk_blk pci0000:00/0000:00:04.0/virtio1/block/vda/vda3 254:3 partition
	fk_dm vda2_crypt "$LUKS_UUID" 253:1 254:2
	fk_dm vda3_crypt CRYPT-LUKS2-11111111222233334444555555555555-vda3_crypt 253:2 254:3
	fk_root 253:1 ext4 /dev/mapper/vda2_crypt
	fk_dmsetup_minor 1 "$CRYPT_TABLE" 2 "0 65536 crypt aes-xts-plain64 :64:logon:cryptsetup:11111111-d0 0 254:3 32768"
	cat >"$T/crypttab" <<-'EOF'
		vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks
		vda3_crypt UUID=11111111-2222-3333-4444-555555555555 none luks
		vdb_crypt UUID=22222222-2222-3333-4444-555555555555 none luks
	EOF
	export HARDINIT_CRYPTTAB=$T/crypttab
	# Without resume=, the root's line only.
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" ]
	echo "BOOT_IMAGE=/vmlinuz root=/dev/mapper/vda2_crypt ro resume=/dev/mapper/vda3_crypt quiet" >"$P/cmdline"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: resume=/dev/mapper/vda3_crypt is 253:2"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks
vda3_crypt UUID=11111111-2222-3333-4444-555555555555 none luks" ]
	# The same swap by its dm-N name.
	echo "root=/dev/mapper/vda2_crypt resume=/dev/dm-2" >"$P/cmdline"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $(image_crypttab) == *"vda3_crypt UUID=11111111-2222-3333-4444-555555555555 none luks" ]]
	# A swap opened with a random key each boot: nothing to resume from.
	echo CRYPT-PLAIN-vda3_crypt >"$S/devices/virtual/block/dm-2/dm/uuid"
	echo "root=/dev/mapper/vda2_crypt resume=/dev/mapper/vda3_crypt" >"$P/cmdline"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: resume=/dev/mapper/vda3_crypt is dm-crypt PLAIN, not LUKS2; a swap with a random key holds no hibernated system: not followed"* ]]
	[ "$(image_crypttab)" = "vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" ]
}

@test "host-only: a LUKS2 root that crypttab does not name is refused, nothing written" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: the root is on LUKS2 device vda2_crypt, which $T/crypttab does not name; add its line (crypttab(5): vda2_crypt UUID=... none luks) or pass --crypttab FILE" ]]
	[[ ! -e $OUT ]]
	HARDINIT_CRYPTTAB=$T/none build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"but $T/none is missing or unreadable"* ]]
}

@test "host-only: a LUKS2 root opened by a key file is refused: hardinit asks for a passphrase" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	echo "vda2_crypt /dev/vda2 /etc/keys/root.key luks" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"$T/crypttab line 4: LUKS2 device vda2_crypt opens with key file /etc/keys/root.key; hardinit asks for a passphrase only"* ]]
}

@test "host-only: LUKS1 and plain dm-crypt under the root are refused by name" {
	fk_virtio_blk
	fk_dm old_crypt CRYPT-LUKS1-0d3c3f3bb1a64ab4a2a3b6f0c7e1d2a9-old_crypt 253:1 254:2
	fk_root 253:1 ext4 /dev/mapper/old_crypt
	fk_dmsetup "$CRYPT_TABLE"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: the root is on LUKS1 device old_crypt; hardinit opens LUKS2 only"* ]]
	echo CRYPT-PLAIN-plain_crypt >"$S/devices/virtual/block/dm-1/dm/uuid"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"(uuid 'CRYPT-PLAIN-plain_crypt'), not LUKS2"* ]]
}

@test "host-only: with --crypttab FILE, that file is embedded and must name the root's LUKS2 device" {
	fk_virtio_blk
	fk_luks_root vda2_crypt
	printf 'vda2_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks\nother UUID=11111111-2222-3333-4444-555555555555 none luks\n' >"$T/given"
	build --moddir "$GENERIC" -o "$OUT" --crypttab "$T/given"
	[ "$status" -eq 0 ]
	[ "$(image_crypttab)" = "$(cat "$T/given")" ]
	# Embedded as it is, so a line hardinit cannot read is refused here.
	printf 'vda2_crypt /dev/vda2 none luks\n' >"$T/given"
	build --moddir "$GENERIC" -o "$OUT" --crypttab "$T/given"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: $T/given line 1 opens vda2_crypt from /dev/vda2; hardinit finds LUKS2 volumes by UUID: write UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 (the live vda2_crypt's, on vda2)"* ]]
	printf 'other /dev/vdb1 none luks\n' >"$T/given"
	build --moddir "$GENERIC" -o "$OUT" --crypttab "$T/given"
	[ "$status" -eq 1 ]
	[[ $stderr == *"LUKS2 device vda2_crypt, which $T/given does not name"* ]]
}

@test "host-only: a dm-verity root needs --verity-roothash; with it, dm_verity and dm_mod are in the image" {
	fk_virtio_blk
	fk_dm root CRYPT-VERITY-0123-root 253:0 254:1 254:2
	fk_root 253:0 ext4 /dev/mapper/root
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: the root is on dm-verity device root; pass its root hash with --verity-roothash HEX"* ]]
	build --moddir "$GENERIC" -o "$OUT" --verity-roothash "$(printf 'ab%.0s' {1..32})" --verity-data /dev/vda1 --verity-hash /dev/vda2
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has dm_verity; has dm_mod; has virtio_blk
}

# fk_md NAME MAJ:MIN LEVEL METADATA SLAVE-MAJ:MIN...: an md array over the
# slaves, as the kernel shows one (md/level, md/metadata_version, slaves/).
fk_md() {
	local name=$1 majmin=$2 level=$3 meta=$4 s d
	shift 4
	d=$S/devices/virtual/block/$name
	fk_blk "virtual/block/$name" "$majmin"
	mkdir -p "$d/md" "$d/slaves"
	echo "$level" >"$d/md/level"
	echo "$meta" >"$d/md/metadata_version"
	for s in "$@"; do
		s=$(readlink -f "$S/dev/block/$s")
		ln -sfn "$s" "$d/slaves/${s##*/}"
	done
}

# The image's md marker (the md stage runs only when it is there).
image_has_md_marker() {
	image_cpio "$OUT" | cpio -t --quiet 2>/dev/null | grep -qxF etc/hardinit/md
}

@test "host-only: an ext4 root on md RAID1: md_mod, raid1 and the members' drivers in the image, with the md marker" {
	fk_virtio_blk
	fk_md md0 9:0 raid1 1.2 254:1 254:2
	fk_root 9:0 ext4 /dev/md0
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: md0 is md raid1 (metadata 1.2) over vda1 vda2"* ]]
	LIST=$(load_list)
	has md_mod; has raid1; has virtio_blk; has ext4
	lacks raid456
	image_has_md_marker
}

@test "host-only: each md level names its personality module (raid5 is raid456), LVM on RAID1 too" {
	fk_virtio_blk
	fk_md md1 9:1 raid5 1.2 254:1 254:2
	fk_root 9:1 ext4 /dev/md1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has raid456; has md_mod; lacks raid1
	fk_md md0 9:0 raid1 1.2 254:1 254:2
	fk_dm vg0-root LVM-x 253:0 9:0
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup "0 100 linear 9:0 2048"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has raid1; has md_mod; has dm_mod
	image_has_md_marker
}

# The marker's content, the arrays the boot assembles.
md_marker_text() {
	image_cpio "$OUT" | (cd "$T" && rm -rf mdx && mkdir mdx && cd mdx && cpio -id --quiet etc/hardinit/md 2>/dev/null)
	cat "$T/mdx/etc/hardinit/md"
}

@test "host-only: the md marker names the root's arrays by UUID (mdadm's form, 0.90's words as mdadm reads them), so the boot leaves foreign arrays alone" {
	fk_virtio_blk
	fk_md md0 9:0 raid1 1.2 254:1 254:2
	echo 5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9 >"$S/devices/virtual/block/md0/md/uuid"
	fk_root 9:0 ext4 /dev/md0
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $(md_marker_text) == "5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9" ]]
	[[ $output == *"; only 5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9)"* ]]
	# LVM over two arrays, one of them 0.90: both, each once.
	fk_md md1 9:1 raid1 0.90 254:1 254:2
	echo 01020304-0506-0708-090a-0b0c0d0e0f10 >"$S/devices/virtual/block/md1/md/uuid"
	fk_dm vg0-root LVM-x 253:0 9:0 9:1
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup "0 100 linear 9:0 2048"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $(md_marker_text | sort) == $'04030201:08070605:0c0b0a09:100f0e0d\n5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9' ]]
	# A kernel without md/uuid: an empty marker, every array assembled.
	rm "$S/devices/virtual/block/md0/md/uuid"
	fk_root 9:0 ext4 /dev/md0
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ -z $(md_marker_text) ]]
	[[ $output == *"note: md0 shows no md/uuid"*"the boot assembles every md array it finds"* ]]
}

@test "host-only: LVM on LUKS2 on md RAID1 (the installer's encrypted LVM on RAID): every layer's modules, the md marker and the crypttab line" {
	fk_virtio_blk
	fk_md md0 9:0 raid1 1.0 254:1 254:2
	echo 5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9 >"$S/devices/virtual/block/md0/md/uuid"
	fk_dm md0_crypt "$LUKS_UUID" 253:1 9:0
	fk_dm vg0-root LVM-abcdefghijklmnopqrstuvwxyz012345abcdefghijklmnopqrstuvwxyz012345 253:0 253:1
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup_minor 0 "0 2097152 linear 253:1 2048" 1 "${CRYPT_TABLE/254:2/9:0}"
	fk_crypttab
	echo "md0_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" >>"$T/crypttab"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: vg0-root is device-mapper (linear) over dm-1"* ]]
	[[ $output == *"host-only: md0_crypt is device-mapper (crypt) over md0"* ]]
	[[ $output == *"host-only: md0 is md raid1 (metadata 1.0) over vda1 vda2"* ]]
	[ "$(image_crypttab)" = "md0_crypt UUID=0d3c3f3b-b1a6-4ab4-a2a3-b6f0c7e1d2a9 none luks" ]
	[[ $(md_marker_text) == "5a1b2c3d:4e5f6071:8293a4b5:c6d7e8f9" ]]
	LIST=$(load_list)
	has md_mod; has raid1; has dm_crypt; has dm_mod; has virtio_blk; has ext4
	lacks raid456
}

@test "host-only: a root without md has no md marker; --modules raid1 gives one" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	run ! image_has_md_marker
	build --moddir "$GENERIC" -o "$OUT" --modules raid1
	[ "$status" -eq 0 ]
	image_has_md_marker
}

@test "host-only: md arrays hardinit cannot assemble are refused by level and metadata (also below LVM)" {
	fk_virtio_blk
	fk_md md0 9:0 multipath 1.2 254:1
	fk_root 9:0 ext4 /dev/md0
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: the root is on md array md0 of level 'multipath'; hardinit assembles linear, raid0, raid1, raid10 and raid4/5/6 arrays: keep initramfs-tools for this machine" ]]
	echo raid1 >"$S/devices/virtual/block/md0/md/level"
	echo external:imsm >"$S/devices/virtual/block/md0/md/metadata_version"
	fk_dm vg0-root LVM-x 253:0 9:0
	fk_root 253:0 ext4 /dev/mapper/vg0-root
	fk_dmsetup "0 100 linear 9:0 2048"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"the root is on md array md0 with metadata 'external:imsm' (external metadata is firmware RAID: IMSM, DDF)"* ]]
	[[ ! -e $OUT ]]
}

# fk_btrfs FSID MEMBER...: a btrfs file system's SYS/fs/btrfs entry, its
# devices/ linking to the members' block directories, as the kernel lists
# them.
fk_btrfs() {
	local fsid=$1 m
	shift
	mkdir -p "$S/fs/btrfs/$fsid/devices"
	for m in "$@"; do
		ln -s "$(readlink -f "$S/dev/block/$m")" "$S/fs/btrfs/$fsid/devices/$(basename "$(readlink -f "$S/dev/block/$m")")"
	done
}

# fk_mount LINE: one more mountinfo line (after the root's).
fk_mount() {
	printf '%s\n' "$1" >>"$P/self/mountinfo"
}

@test "host-only: a btrfs root on subvolume @rootfs: the partition behind the anonymous 0:NN, btrfs and its soft dependencies" {
	fk_virtio_blk
	fk_btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f 254:1
	printf '28 1 0:27 /@rootfs / ro,relatime shared:1 - btrfs /dev/vda1 rw,space_cache=v2,subvolid=256,subvol=/@rootfs\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: / is btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f over vda1, subvolume /@rootfs"* ]]
	[[ $output == *"host-only: the boot mounts btrfs subvolume /@rootfs as / unless the command line names one"* ]]
	[[ $output == *"host-only: vda at /devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1"* ]]
	LIST=$(load_list)
	has btrfs; has raid6_pq; has libcrc32c; has crc32c_generic; has virtio_blk; has virtio_pci
	lacks ext4
	[[ $(image_root_subvol) == /@rootfs ]]
}

# The image's etc/hardinit/root-subvol (the builder's btrfs subvolume of
# /), empty when it has none.
image_root_subvol() {
	image_cpio "$OUT" | (cd "$T" && rm -rf sv && mkdir sv && cd sv && cpio -id --quiet etc/hardinit/root-subvol 2>/dev/null)
	cat "$T/sv/etc/hardinit/root-subvol" 2>/dev/null || true
}

@test "host-only: the image carries the root's btrfs subvolume as the file system names it, the top level too, and no other root's" {
	fk_virtio_blk
	fk_btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f 254:1
	# A name with a space: mountinfo's octal escape undone.
	printf '28 1 0:27 /@root\\040fs / rw,relatime shared:1 - btrfs /dev/vda1 rw,subvolid=257,subvol=/@root\\040fs\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"add /etc/hardinit/root-subvol (/ is btrfs subvolume /@root fs)"* ]]
	[[ $(image_root_subvol) == "/@root fs" ]]
	# The top level: carried too, so that a locked boot refuses another.
	fk_root 0:27 btrfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $(image_root_subvol) == / ]]
	# / a directory inside the subvolume (a bind mount): no subvol= mounts it.
	printf '28 1 0:27 /@rootfs/srv / rw shared:1 - btrfs /dev/vda1 rw,subvolid=256,subvol=/@rootfs\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: / is the directory /@rootfs/srv of btrfs subvolume /@rootfs (a bind mount?); the boot mounts a subvolume as /: build on the system booted from it, or use --target or --modules" ]]
	# A comma in the name: no mount option can carry it.
	printf '28 1 0:27 /@a\\054b / rw shared:1 - btrfs /dev/vda1 rw,subvol=/@a\\054b\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"/ is btrfs subvolume '/@a,b', which no rootflags=subvol= can name"* ]]
	# Not btrfs: nothing carried.
	fk_root 254:1 ext4 /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ -z $(image_root_subvol) ]]
}

@test "host-only: the image's btrfs subvolume at boot (dry-run): mounted without rootflags; under the lock another subvol=, a subvolid= or a device= is refused with one line" {
	fk_virtio_blk
	fk_btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f 254:1
	printf '28 1 0:27 /@rootfs / ro,relatime shared:1 - btrfs /dev/vda1 rw,space_cache=v2,subvolid=256,subvol=/@rootfs\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $(image_root_subvol) == /@rootfs ]]
	local sv=$T/sv/etc/hardinit/root-subvol root=UUID=2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f
	dry() {
		run --separate-stderr "$REPO/build/hardinit" dry-run --config "$REPO/config/baseline.conf" \
			--root-subvol "$sv" --cmdline "root=$root $*"
		echo "$stderr" >&2
	}
	dry ""
	[ "$status" -eq 0 ]
	[[ $stderr == *"a btrfs root is mounted with subvol=/@rootfs (the image's subvolume is /@rootfs)"* ]]
	dry "rootflags=subvol=@rootfs hardinit.boot.lock_cmdline=yes"
	[ "$status" -eq 0 ]
	[[ $stderr == *"a btrfs root is mounted with subvol=@rootfs (the image's"* ]]
	# Unlocked, the command line's subvolume is the boot's.
	dry "rootflags=subvol=/"
	[ "$status" -eq 0 ]
	[[ $stderr == *"a btrfs root is mounted with subvol=/ (the image's subvolume is /@rootfs)"* ]]
	# Locked: the top level (the system before @rootfs's updates) is a downgrade.
	dry "rootflags=subvol=/ hardinit.boot.lock_cmdline=yes"
	[ "$status" -eq 1 ]
	[[ $stderr == *"hardinit: error: rootflags=subvol=/ names another btrfs subvolume than the image's /@rootfs, refused under the lock (lock_cmdline = yes): an older snapshot there can be a weaker system; remove the word, or rebuild the image on the system booted from that subvolume"* ]]
	[[ $stderr == *"at boot this would take the failure action: reboot (from the config)"* ]]
	[[ $stderr != *"would wait up to"* ]]
	dry "rootflags=subvolid=5 hardinit.boot.lock_cmdline=yes"
	[ "$status" -eq 1 ]
	[[ $stderr == *"rootflags=subvolid=5 is refused under the lock"* ]]
	dry "rootflags=device=/dev/sdz1 hardinit.boot.lock_cmdline=yes"
	[ "$status" -eq 1 ]
	[[ $stderr == *"rootflags=device=/dev/sdz1 is refused under the lock"* ]]
}

@test "host-only: btrfs over two disks: every member's controller (virtio and AHCI) is in the image" {
	fk_virtio_blk
	fk_ahci
	fk_btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f 254:1 8:1
	fk_root 0:27 btrfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: / is btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f over sda1 vda1"* ]]
	LIST=$(load_list)
	has btrfs; has virtio_blk; has ahci; has sd_mod
	# The mount's source need not be the first member.
	fk_root 0:27 btrfs /dev/sda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has virtio_blk; has ahci
}

@test "host-only: a btrfs root whose source no SYS/fs/btrfs entry lists is refused with one line, nothing written" {
	fk_virtio_blk
	fk_btrfs 2b4c9f6e-0d2c-4d8e-9a57-3f0b1c2d3e4f 254:2
	fk_root 0:27 btrfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: / is btrfs on /dev/vda1, but no $S/fs/btrfs/*/devices/ lists vda1; run on the machine itself with /sys mounted, or use --target or --modules" ]]
	[[ ! -e $OUT ]]
}

@test "host-only: XFS and JFS roots: their modules (and xfs's libcrc32c) from the fs- aliases" {
	fk_virtio_blk
	fk_root 254:1 xfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has xfs; has libcrc32c; has virtio_blk; lacks ext4
	fk_root 254:1 jfs /dev/vda1
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has jfs; lacks xfs
}

@test "host-only: a separate /usr (XFS on vda2) listed in the root's fstab: its file system joins the root's" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	fk_mount '30 28 254:2 / /usr ro,relatime shared:2 - xfs /dev/vda2 rw,attr2,inode64'
	printf '# /etc/fstab\nUUID=0a1b / ext4 errors=remount-ro 0 1\nUUID=5e6f7a8b-0000-4000-8000-000000000001 /usr xfs defaults 0 2\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"host-only: /usr is xfs on /dev/vda2 (254:2)"* ]]
	[[ $output == *"host-only: /usr is mounted by the boot from $T/fstab (UUID=5e6f7a8b-0000-4000-8000-000000000001, xfs)"* ]]
	LIST=$(load_list)
	has xfs; has ext4; has virtio_blk
}

@test "host-only: a separate /usr beside --verity-roothash is refused: the hash covers / alone, /usr holds the real init" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	fk_mount '30 28 254:2 / /usr ro,relatime shared:2 - xfs /dev/vda2 rw,attr2,inode64'
	printf 'UUID=0a1b / ext4 errors=remount-ro 0 1\nUUID=5e6f7a8b-0000-4000-8000-000000000001 /usr xfs defaults 0 2\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT" --verity-roothash "$(printf "%064d" 0)" --verity-data /dev/vda1 --verity-hash /dev/vda3
	[ "$status" -ne 0 ]
	[[ $stderr == *"host-only: /usr is a separate mount (xfs on /dev/vda2), but --verity-roothash covers / alone: the real init would run from an unchecked device; move /usr onto the verity root" ]]
	[ ! -e "$OUT" ]
}

@test "host-only: a separate /usr the boot cannot mount is refused with one line, nothing written" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	fk_mount '30 28 254:2 / /usr ro,relatime shared:2 - xfs /dev/vda2 rw'
	# No /usr line in the fstab.
	printf 'UUID=0a1b / ext4 defaults 0 1\n# UUID=5e6f /usr xfs defaults 0 2\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: /usr is a separate mount (xfs on /dev/vda2), but $T/fstab has no /usr line; the boot mounts /usr from it: add one (fstab(5))" ]]
	# A device name only udev makes.
	printf '/dev/disk/by-id/virtio-usr-part2 /usr xfs defaults 0 2\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"names the device of /usr as /dev/disk/by-id/virtio-usr-part2, which the boot cannot find without udev"* ]]
	# /usr on an LV.
	fk_dm vg0-usr LVM-x 253:0 254:2
	fk_root 254:1 ext4 /dev/vda1
	fk_mount '30 28 253:0 / /usr ro,relatime shared:2 - ext4 /dev/mapper/vg0-usr rw'
	printf '/dev/mapper/vg0-usr /usr ext4 defaults 0 2\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: host-only: /usr is on dm-0, a device-mapper, md or loop device; hardinit mounts a separate /usr from a partition or btrfs only: keep initramfs-tools for this machine, or move /usr onto the root's file system" ]]
	[[ ! -e $OUT ]]
}

@test "host-only: a root without a block device (an overlay) is refused, not taken for a chroot" {
	# A running machine (/ mounted, /sys there) whose root is unusual: the
	# layer is named, no generic image is made.
	fk_root 0:32 overlay overlay
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: / is overlay on overlay, without a block device (0:32)"* ]]
	[[ $output != *"generic image"* ]]
	[[ ! -e $OUT ]]
}

# The unpacked image's device table (after load_list).
devices() {
	cat "$T/unpacked/etc/hardinit/modules.devices"
}

# NAME is on demand: a device alias or a needs line names it.
on_demand() {
	devices | awk -v m="$1" '($1 == "alias" && $3 == m) || ($1 == "needs" && index(" " $0 " ", " " m " ")) { f = 1 } END { exit !f }' ||
		{ echo "not on demand: $1" >&2; return 1; }
}

# NAME is in the image and the device table names it nowhere.
always_loads() {
	has "$1" || return 1
	! devices | awk -v m="$1" '($1 == "alias" && $3 == m) || ($1 == "needs" && index(" " $0 " ", " " m " ")) { f = 1 } END { exit !f }' ||
		{ echo "on demand, expected always: $1" >&2; return 1; }
}

@test "host-only: in a chroot (nothing mounted at /) the image is generic: every storage and file system driver, one line saying why" {
	printf '22 28 0:21 / /proc rw - proc proc rw\n' >"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT" --compress zstd
	[ "$status" -eq 0 ]
	[[ $output == *"generic image: no live root seen (nothing is mounted at / in $P/self/mountinfo: a chroot): every storage and file system driver of kernel $GKVER goes in"* ]]
	[[ $(grep -c '^generic image: no live root' <<<"$output") -eq 1 ]]
	LIST=$(load_list)
	# Controllers of QEMU and of real machines, buses, file systems, md, dm.
	has virtio_pci; has virtio_blk; has virtio_scsi; has nvme; has ahci; has ata_piix
	has megaraid_sas; has mpt3sas; has sdhci_pci; has mmc_block; has xhci_pci; has usb_storage; has uas
	has sd_mod; has ext4; has xfs; has btrfs; has jfs; has raid1; has raid456; has dm_mod; has dm_crypt
	has dm_verity; has algif_skcipher
	# Not a way to a root: a fake disk, network block, ISA probing.
	lacks scsi_debug; lacks nbd; lacks floppy; lacks pata_legacy; lacks iscsi_tcp
	# The controller drivers load only for a device, with the libraries
	# only they need; class drivers, file systems and dm always load.
	on_demand ahci; on_demand nvme; on_demand virtio_pci; on_demand virtio_blk; on_demand libata
	on_demand megaraid_sas
	devices | grep -qx 'alias virtio:d00000002v\* virtio_blk'
	devices | grep -qx 'needs ahci libata libahci\|needs ahci libahci libata'
	always_loads sd_mod; always_loads ext4; always_loads dm_crypt; always_loads usb_storage
	always_loads dm_mod; always_loads raid1
	# A sane size: the modules are uncompressed in this kernel, the image
	# is zstd (as the package builds it; build's --compress none overridden
	# above); under 16 MiB.
	(($(stat -c %s "$OUT") < 16 * 1024 * 1024))
}

@test "host-only: no /proc, or no /sys, is no live root either; a --root-of with nothing mounted is refused" {
	fk_virtio_blk
	rm -f "$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"generic image: no live root seen ($P/self/mountinfo is unreadable: no /proc)"* ]]
	fk_root 254:1 ext4 /dev/vda1
	rm -rf "$S/dev/block"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"generic image: no live root seen ($S/dev/block is missing: no /sys"* ]]
	# The user named the mount: no guess.
	build --moddir "$GENERIC" -o "$OUT.2" --root-of /mnt/target
	[ "$status" -eq 1 ]
	[[ $stderr == *"host-only: nothing is mounted at /mnt/target"* ]]
	[[ ! -e $OUT.2 ]]
}

@test "host-only: a generic image still refuses what the root's own fstab names and the kernel lacks" {
	printf '22 28 0:21 / /proc rw - proc proc rw\n' >"$P/self/mountinfo"
	printf '# <file system> <mount point> <type>\nUUID=1234 / jfs defaults 0 1\n' >"$T/fstab"
	HARDINIT_FSTAB=$T/fstab build --moddir "$CLOUD61" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $output == *"generic image: $T/fstab mounts / as jfs"* ]]
	[[ $stderr == *"the root needs file system jfs"*"kernel $(cat "$CLOUD61/kver")"* ]]
	[[ ! -e $OUT ]]
	# The generic kernel has it: built.
	HARDINIT_FSTAB=$T/fstab build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has jfs
}

@test "builder: --target generic makes the generic image on a running machine too" {
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	run --separate-stderr "$BUILDER" --target generic --profile baseline --moddir "$CLOUD612" -o "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"no live root"* ]]
	LIST=$(load_list)
	has virtio_blk; has sd_mod
	on_demand virtio_blk
}

@test "host-only: --root-of picks another mount point; the last mount at a point wins" {
	fk_virtio_blk
	fk_nvme
	fk_root 254:1 ext4 /dev/vda1
	printf '40 28 259:2 / /mnt/new\\040root rw - ext4 /dev/nvme0n1p2 rw\n' >>"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT" --root-of "/mnt/new root/"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has nvme; lacks virtio_blk
	# / mounted again over the first: the upper one is the root.
	printf '41 28 259:2 / / rw - ext4 /dev/nvme0n1p2 rw\n' >>"$P/self/mountinfo"
	build --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has nvme; lacks virtio_blk
}

@test "host-only: --sysfs, --proc and --root-of need --host-only; --target auto is --host-only" {
	run --separate-stderr "$BUILDER" --target virtio --sysfs "$S" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ $stderr == "hardinit-mkinitramfs: --sysfs needs --host-only (or --target auto)" ]]
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	HARDINIT_SYSFS=$S HARDINIT_PROC=$P run "$BUILDER" --target auto --moddir "$GENERIC" -o "$OUT"
	[ "$status" -eq 0 ]
	LIST=$(load_list)
	has virtio_blk; has ext4
}

@test "host-only: update-hardinit's default and the shipped conffile are TARGET=auto" {
	run "$REPO/hooks/update-hardinit" --show-config -c "$T/none.conf"
	[ "$status" -eq 0 ]
	grep -qx TARGET=auto <<<"$output"
	run "$REPO/hooks/update-hardinit" --show-config -c "$REPO/hooks/mkinitramfs.conf"
	[ "$status" -eq 0 ]
	grep -qx TARGET=auto <<<"$output"
	printf 'TARGET=host\n' >"$T/bad.conf"
	run "$REPO/hooks/update-hardinit" --show-config -c "$T/bad.conf"
	[ "$status" -eq 1 ]
	[[ $output == *"TARGET 'host': use auto, generic, virtio, xen or none"* ]]
}

# ---- early microcode (--microcode) ------------------------------------------

fk_firmware() {
	F=$T/firmware
	mkdir -p "$F/intel-ucode" "$F/amd-ucode"
	printf 'INTEL-06-8e-0a.' >"$F/intel-ucode/06-8e-0a"
	printf 'INTEL-06-9e-0d.' >"$F/intel-ucode/06-9e-0d"
	printf 'AMD-fam17h.' >"$F/amd-ucode/microcode_amd_fam17h.bin"
	printf 'AMD-fam19h.' >"$F/amd-ucode/microcode_amd_fam19h.bin"
	printf 'AMD-old.' >"$F/amd-ucode/microcode_amd.bin"
	printf 'signature' >"$F/amd-ucode/microcode_amd_fam19h.bin.asc"
}

# fk_cpu VENDOR FAMILY MODEL STEPPING: PROC/cpuinfo of two processors.
fk_cpu() {
	local i
	: >"$P/cpuinfo"
	for i in 0 1; do
		printf 'processor\t: %s\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: test\nstepping\t: %s\n\n' \
			"$i" "$1" "$2" "$3" "$4" >>"$P/cpuinfo"
	done
}

# The early archive's member (cpio reads the first archive only), and the
# main archive after it (the byte count the builder printed).
early_member() {
	(cd "$T" && cpio -i --quiet --to-stdout "kernel/x86/microcode/$1" <"$OUT")
}

main_after_early() {
	local n
	n=$(sed -n 's/^early microcode: .*uncompressed first (\([0-9]*\) bytes)$/\1/p' <<<"$output")
	[[ -n $n ]] || { echo "no early microcode line" >&2; return 1; }
	tail -c +$((n + 1)) "$OUT" >"$T/main.cpio"
	image_cpio "$T/main.cpio" | cpio -it --quiet
}

@test "microcode: --microcode all puts every Intel and AMD file, uncompressed, first; the main archive follows" {
	fk_firmware
	run --separate-stderr "$BUILDER" --profile baseline --firmware "$F" --microcode all -o "$OUT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(head -c 6 "$OUT")" = 070701 ]
	listing=$(cpio -it --quiet <"$OUT")
	[ "$listing" = "kernel
kernel/x86
kernel/x86/microcode
kernel/x86/microcode/AuthenticAMD.bin
kernel/x86/microcode/GenuineIntel.bin" ]
	[ "$(early_member GenuineIntel.bin)" = "INTEL-06-8e-0a.INTEL-06-9e-0d." ]
	[ "$(early_member AuthenticAMD.bin)" = "AMD-old.AMD-fam17h.AMD-fam19h." ]
	main=$(main_after_early)
	grep -qx init <<<"$main"
	grep -qx etc/hardinit.conf <<<"$main"
	# The default without --host-only is all.
	cp "$OUT" "$T/all.img"
	run "$BUILDER" --profile baseline --firmware "$F" -o "$OUT"
	cmp "$OUT" "$T/all.img"
}

@test "microcode: host mode takes this CPU's file only (Intel family-model-stepping, AMD family)" {
	fk_firmware
	fk_cpu GenuineIntel 6 142 10
	run --separate-stderr "$BUILDER" --profile baseline --firmware "$F" --microcode host --proc "$P" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(early_member GenuineIntel.bin)" = "INTEL-06-8e-0a." ]
	run ! grep -q "AuthenticAMD.bin" <<<"$(cpio -it --quiet <"$OUT")"
	fk_cpu AuthenticAMD 25 33 0
	run --separate-stderr "$BUILDER" --profile baseline --firmware "$F" --microcode host --proc "$P" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(early_member AuthenticAMD.bin)" = "AMD-fam19h." ]
	run ! grep -q "GenuineIntel.bin" <<<"$(cpio -it --quiet <"$OUT")"
	# --host-only defaults to host.
	fk_virtio_blk
	fk_root 254:1 ext4 /dev/vda1
	fk_cpu AuthenticAMD 23 49 0
	build --moddir "$GENERIC" --firmware "$F" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(early_member AuthenticAMD.bin)" = "AMD-fam17h." ]
	grep -qx init <<<"$(main_after_early)"
}

@test "microcode: none, or no microcode package installed: the image starts with the compressed archive" {
	fk_firmware
	run "$BUILDER" --profile baseline --firmware "$F" --microcode none -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ]
	run "$BUILDER" --profile baseline --firmware "$T/no-firmware" -o "$OUT"
	[ "$status" -eq 0 ]
	[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ]
	# A CPU without its file: nothing, and a note naming what to install.
	fk_cpu GenuineIntel 6 85 7
	run "$BUILDER" --profile baseline --firmware "$F" --microcode host --proc "$P" -o "$OUT"
	[ "$status" -eq 0 ]
	[[ $output == *"note: no early microcode ($F/intel-ucode or amd-ucode with 06-55-07); install intel-microcode or amd64-microcode"* ]]
	[ "$(od -An -tx1 -N4 "$OUT" | tr -d ' ')" = 28b52ffd ]
	run --separate-stderr "$BUILDER" --profile baseline --microcode sometimes -o "$OUT"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hardinit-mkinitramfs: unknown --microcode 'sometimes'; use host, all or none" ]
}
