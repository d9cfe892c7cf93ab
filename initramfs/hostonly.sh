# shellcheck shell=bash
# Host-only detection for hardinit-mkinitramfs (sourced by it; not run on
# its own): the modules this machine needs to reach its root, for the
# kernel version being built, which need not be the running one.
#
# From the running system (every path under HO_SYS and HO_PROC, so tests
# point them at fake trees): the mount at --root-of (default /) in
# PROC/self/mountinfo gives the root's MAJ:MIN and file system type;
# SYS/dev/block/MAJ:MIN leads to the device's sysfs directory; from there
# up to SYS/devices, each device's `modalias` is resolved against the
# TARGET kernel's modules.alias (and its built-ins' aliases in
# modules.builtin.modinfo), and a bound `driver` whose `module` is loadable
# on this kernel must be built into or loadable by the target too.
# Device-mapper devices are followed through slaves/ (their target types
# from `dmsetup table`, which only reads); so are md arrays, whose level
# (SYS/block/mdN/md/level) names the personality module the md stage
# needs; an md array of another level or with external (firmware RAID)
# metadata, loop devices and dm targets hardinit cannot activate are refused. A LUKS2 dm-crypt device
# under the root (root on LUKS, LVM on LUKS) is known by its dm uuid (its
# LUKS UUID) and slaves/ (its backing device); its table's cipher spec
# (never the key field) names the crypto modules it needs; its line of
# the root's /etc/crypttab (HARDINIT_CRYPTTAB for tests), checked against
# that UUID, is embedded as the builder's --crypttab would. The file system's module
# comes from its fs-TYPE alias; the console's driver from SYS/class/tty.
#
# Each requirement is recorded in HO_NEEDS ("what|module module ...": any
# one of the modules satisfies it) and every loadable candidate joins
# REQUESTED; ho_self_check proves after resolution, before anything is
# written, that each requirement is built in or in the image.

HO_SYS=/sys
HO_PROC=/proc
HO_ROOT_OF=/
HO_DMSETUP=${HARDINIT_DMSETUP:-dmsetup}
HO_CRYPTTAB=${HARDINIT_CRYPTTAB:-}   # default: ROOT_OF/etc/crypttab
HO_FSTAB=${HARDINIT_FSTAB:-}         # default: ROOT_OF/etc/fstab
readonly HO_MAX_DEPTH=16       # nesting of block devices (dm on dm on ...)
readonly HO_MAX_DEVICES=64     # block devices visited under the root
readonly HO_MAX_WALK=32        # sysfs directories from a device up to SYS/devices
readonly HO_MAX_ATTR=4096      # bytes read from one sysfs or proc attribute

# dm target types hardinit activates, and the module each needs
# (dm-linear and dm-stripe are part of dm-mod).
declare -gA HO_DM_TARGETS=([linear]=dm_mod [striped]=dm_mod [verity]="dm_mod dm_verity" [crypt]="dm_mod dm_crypt")
# md levels the md stage assembles, and each one's personality module.
declare -gA HO_MD_LEVELS=([linear]=linear [raid0]=raid0 [raid1]=raid1 [raid10]=raid10
	[raid4]=raid456 [raid5]=raid456 [raid6]=raid456)
readonly HO_MAX_CRYPTTAB=256   # lines read from crypttab
readonly HO_MAX_FSTAB=1024     # lines read from fstab
readonly HO_MAX_BLOCK=4096     # entries of /sys/dev/block looked at for resume='s device

HO_NEEDS=()
HO_CRYPT_NAMES=()
HO_MD=""   # the md arrays under the root: the builder then tells the boot to assemble
HO_MD_UUIDS=()      # their UUIDs as mdadm prints them: the boot assembles only these
HO_MD_UUID_UNKNOWN="" # an array whose UUID sysfs does not show: the boot assembles every array
declare -gA HO_CRYPT_UUID=() HO_CRYPT_BACK=()
HO_ROOT_FS=""
HO_ROOT_DEVS=()
HO_ROOT_SUBVOL=""   # a btrfs root's subvolume: the builder puts it in the image
HO_M_DEV="" HO_M_FS="" HO_M_SRC="" HO_M_FSROOT="" HO_M_SOPTS=""
HO_M_DEVS=()
HO_NDEV=0
declare -gA HO_SEEN=()

# One attribute's first line, bounded.
ho_attr() {
	local v
	[[ -f $1 && -r $1 ]] || return 1
	IFS= read -r -n "$HO_MAX_ATTR" v <"$1" || [[ -n $v ]] || return 1
	printf '%s' "$v"
}

ho_rel() {
	printf '%s' "${1#"$HO_SYS"}"
}

# Ask for module M when the target kernel has it as a module.
ho_want() {
	local m=$1
	[[ -n ${MODPATH[$m]:-} && -z ${BUILTIN[$m]:-} ]] || return 0
	[[ " ${REQUESTED[*]:-} " == *" $m "* ]] || REQUESTED+=("$m")
}

# Record a requirement: WHAT is satisfied by any of the modules given;
# each one the target kernel has as a module is asked for.
ho_need() {
	local what=$1 m
	shift
	HO_NEEDS+=("$what|$*")
	for m in "$@"; do ho_want "$m"; done
}

# One device: its modalias resolved against the target, and the module its
# driver is on this kernel. MODE strict (the root's devices): a bound
# driver becomes a requirement; loose (the console): matches are added,
# nothing is required.
ho_device() {
	local d=$1 mode=$2 alias="" drv="" mod="" cands=() what m
	[[ -f $d/modalias ]] && alias=$(ho_attr "$d/modalias" || true)
	if [[ -e $d/driver ]]; then
		drv=$(readlink -f -- "$d/driver")
		[[ -e $drv/module ]] && mod=$(readlink -f -- "$drv/module") && mod=${mod##*/}
		drv=${drv##*/}
	fi
	# An unbound device (a bus, a bridge, a port) needs nothing.
	[[ -n $drv ]] || return 0
	if [[ -n $alias ]]; then
		alias_match "$alias"
		cands+=("${ALIAS_MATCH[@]}" "${ALIAS_BMATCH[@]}")
	fi
	if [[ -n $mod ]]; then
		modname "$mod"
		[[ " ${cands[*]:-} " == *" $MODNAME "* ]] || cands+=("$MODNAME")
	fi
	if [[ $mode != strict ]]; then
		for m in "${cands[@]}"; do ho_want "$m"; done
		return 0
	fi
	what="device $(ho_rel "$d")${alias:+ ($alias)}, driver $drv"
	if ((${#cands[@]} == 0)); then
		# This kernel's driver is built in and nothing in the target
		# matches: built into the target too, most likely.
		say "host-only: $what: built into this kernel, no module of kernel $KVER matches; assumed built in"
		return 0
	fi
	ho_need "$what" "${cands[@]}"
}

# Every device from DIR up to SYS/devices.
ho_walk_up() {
	local d=$1 mode=$2 n=0
	while [[ $d == "$HO_SYS"/devices/* ]]; do
		n=$((n + 1))
		((n <= HO_MAX_WALK)) ||
			die "host-only: $(ho_rel "$1") is more than HO_MAX_WALK ($HO_MAX_WALK) directories below /sys/devices; is $HO_SYS a sysfs?"
		ho_device "$d" "$mode"
		d=${d%/*}
	done
}

# The target types of the dm device, one a line; a crypt target's line
# also carries its cipher spec ("crypt aes-xts-plain64").
ho_dm_types() {
	local disk=$1 majmin=$2 name=$3 uuid=$4 out
	if command -v "$HO_DMSETUP" >/dev/null 2>&1; then
		# Only the third word of each line, and a crypt line's fourth (its
		# cipher spec): the fifth, a crypt table's key (a keyring
		# reference, or hidden without --showkeys), is never kept.
		out=$("$HO_DMSETUP" table -j "${majmin%%:*}" -m "${majmin#*:}" 2>/dev/null |
			awk '{ print $3 ($3 == "crypt" ? " " $4 : "") }' | sort -u | head -n 64) ||
			die "host-only: '$HO_DMSETUP table' failed for the root's device-mapper device $name; run it as root"
		[[ -n $out ]] || die "host-only: '$HO_DMSETUP table' printed no table for $name ($majmin)"
		printf '%s\n' "$out"
		return 0
	fi
	case $uuid in
	CRYPT-VERITY-*) echo verity ;;
	CRYPT-*) die "host-only: the root is on dm-crypt device $name (uuid '$uuid'); its cipher spec needs 'dmsetup table': install dmsetup" ;;
	*) die "host-only: the root is on device-mapper device $name (uuid '${uuid:-none}'); its target types need 'dmsetup table': install dmsetup" ;;
	esac
}

# The kernel crypto modules a dm-crypt cipher spec needs, as the kernel
# asks for them (request_module "crypto-NAME"): the cipher and chain mode
# of "cipher[:keycount]-chainmode-ivmode[:ivopts]", or each algorithm of
# "capi:template(cipher)-ivmode"; essiv's hash. The iv modes plain,
# plain64, plain64be, benbi, null, random and eboiv are dm-crypt's own.
# Soft dependencies (xts's "pre: ecb") come with the resolution.
ho_crypt_cipher() {
	local name=$1 spec=$2 head iv ivopts w words=()
	[[ $spec =~ ^[A-Za-z0-9_:(),.-]{1,128}$ ]] ||
		die "host-only: the cipher spec of $name in its dm table is not one dm-crypt writes ('${spec:0:64}')"
	if [[ $spec == capi:* ]]; then
		head=${spec#capi:}
		iv=${head##*)}
		head=${head%"$iv"}
		iv=${iv#-}
		read -r -a words <<<"${head//[(),]/ }"
	else
		IFS=- read -r head w iv _ <<<"$spec"
		# The old "aes-plain": chain mode cbc.
		[[ -n $iv || $w != plain* ]] || { iv=$w w=cbc; }
		words=("${head%%:*}")
		[[ -z $w ]] || words+=("$w")
	fi
	ivopts=""
	[[ $iv != *:* ]] || ivopts=${iv#*:}
	iv=${iv%%:*}
	case $iv in
	'' | plain | plain64 | plain64be | benbi | null | random | eboiv) ;;
	essiv) words+=(essiv "${ivopts:-sha256}") ;;
	lmk) words+=(md5) ;;
	tcw) words+=(crc32) ;;
	elephant) words+=(ecb) ;;
	*) die "host-only: the cipher spec $spec of $name has iv mode '$iv', which dm-crypt does not name" ;;
	esac
	for w in "${words[@]}"; do
		[[ $w =~ ^[a-z0-9_.-]{1,32}$ ]] ||
			die "host-only: the cipher spec $spec of $name names '$w', not a kernel crypto algorithm"
		alias_match "crypto-$w"
		ho_need "crypto algorithm $w of $name ($spec)" "${ALIAS_MATCH[@]}" "${ALIAS_BMATCH[@]}"
	done
	say "host-only: $name: cipher $spec needs ${words[*]}"
}

# A LUKS2 dm-crypt device: its LUKS UUID from the dm uuid cryptsetup gives
# it (CRYPT-LUKS2-<the UUID's 32 hex digits>-NAME) and its backing devices
# (slaves/), for the crypttab line that must name it.
ho_luks_uuid() {
	local name=$1 uuid=$2 disk=$3 hex back
	hex=${uuid#CRYPT-LUKS2-}
	hex=${hex%%-*}
	[[ $hex =~ ^[0-9a-fA-F]{32}$ ]] ||
		die "host-only: the dm uuid '$uuid' of $name is not cryptsetup's (CRYPT-LUKS2-UUID-NAME); open it with cryptsetup"
	hex=${hex,,}
	HO_CRYPT_UUID[$name]=${hex:0:8}-${hex:8:4}-${hex:12:4}-${hex:16:4}-${hex:20:12}
	back=$(cd "$disk/slaves" 2>/dev/null && echo *)
	[[ -n $back && $back != '*' ]] ||
		die "host-only: LUKS2 device $name has no backing device in $(ho_rel "$disk")/slaves; is $HO_SYS a sysfs?"
	HO_CRYPT_BACK[$name]=$back
	HO_CRYPT_NAMES+=("$name")
	say "host-only: $name is LUKS2 UUID ${HO_CRYPT_UUID[$name]} on $back"
}

# A stacked device's layers below it (device-mapper's or md's slaves in
# sysfs), each walked as the next depth of the root's stack.
ho_walk_slaves() {
	local disk=$1 depth=$2 slave majmin
	for slave in "$disk"/slaves/*; do
		[[ -e $slave ]] || continue
		majmin=$(ho_attr "$slave/dev") || die "host-only: $(ho_rel "$slave")/dev is unreadable"
		ho_block "$majmin" $((depth + 1))
	done
}

ho_dm() {
	local disk=$1 depth=$2 name uuid majmin types t spec m
	name=$(ho_attr "$disk/dm/name" || echo "${disk##*/}")
	uuid=$(ho_attr "$disk/dm/uuid" || true)
	majmin=$(ho_attr "$disk/dev") || die "host-only: $(ho_rel "$disk")/dev is unreadable"
	types=$(ho_dm_types "$disk" "$majmin" "$name" "$uuid")
	while read -r t spec; do
		[[ -n $t ]] || continue
		case $t in
		crypt)
			case $uuid in
			CRYPT-LUKS2-*)
				ho_luks_uuid "$name" "$uuid" "$disk"
				ho_crypt_cipher "$name" "$spec" ;;
			CRYPT-LUKS1-*)
				die "host-only: the root is on LUKS1 device $name; hardinit opens LUKS2 only: convert it (cryptsetup convert --type luks2, from a rescue system) or keep initramfs-tools for this machine" ;;
			*)
				die "host-only: the root is on dm-crypt device $name (uuid '${uuid:-none}'), not LUKS2; hardinit opens LUKS2 only: keep initramfs-tools for this machine" ;;
			esac ;;
		verity)
			[[ -n ${VERITY_ROOTHASH:-} ]] ||
				die "host-only: the root is on dm-verity device $name; pass its root hash with --verity-roothash HEX (and --verity-data, --verity-hash)" ;;
		esac
		[[ -n ${HO_DM_TARGETS[$t]:-} ]] ||
			die "host-only: the root's device-mapper device $name${uuid:+ ($uuid)} has a '$t' target, which hardinit cannot activate (it activates linear, striped and verity); keep initramfs-tools for this machine"
		for m in ${HO_DM_TARGETS[$t]}; do
			ho_need "device-mapper $t target of $name" "$m"
		done
	done <<<"$types"
	types=$(cut -d' ' -f1 <<<"$types" | sort -u)
	say "host-only: $name is device-mapper (${types//$'\n'/ }) over $(cd "$disk/slaves" 2>/dev/null && echo * || echo nothing)"
	ho_walk_slaves "$disk" "$depth"
}

# The array's UUID (md/uuid, the kernel's 8-4-4-4-12 of its bytes) as
# mdadm prints it, the form the md stage reads from the marker. 0.90 keeps
# the UUID as four host-endian words the kernel copies as bytes, while
# mdadm prints each word's value: on a little-endian host each word's
# bytes are swapped back. Without md/uuid (an older kernel) the boot
# assembles every array it finds, as before the marker named any.
ho_md_uuid() {
	local disk=$1 meta=$2 raw hex out="" w i u swap=""
	raw=$(ho_attr "$disk/md/uuid") || raw=""
	hex=${raw//-/}
	if [[ ! $hex =~ ^[0-9a-fA-F]{32}$ ]]; then
		# shellcheck disable=SC2034 # the builder's, for the marker
		HO_MD_UUID_UNKNOWN=${disk##*/}
		return 0
	fi
	hex=${hex,,}
	[[ $meta == 0.90 && $(printf '\1\0' | od -An -tx2 | tr -d ' ') == 0001 ]] && swap=1
	for ((i = 0; i < 32; i += 8)); do
		w=${hex:i:8}
		[[ -z $swap ]] || w=${w:6:2}${w:4:2}${w:2:2}${w:0:2}
		out+=${out:+:}$w
	done
	for u in "${HO_MD_UUIDS[@]}"; do
		[[ $u != "$out" ]] || return 0
	done
	HO_MD_UUIDS+=("$out")
}

# An md array: its personality module and md-mod, then its members.
ho_md() {
	local disk=$1 depth=$2 dname=${1##*/} level meta
	level=$(ho_attr "$disk/md/level" || echo unknown)
	meta=$(ho_attr "$disk/md/metadata_version" || echo unknown)
	case $meta in
	1.0 | 1.1 | 1.2 | 0.90) ;;
	*) die "host-only: the root is on md array $dname with metadata '$meta' (external metadata is firmware RAID: IMSM, DDF); hardinit assembles md 1.x and 0.90 arrays only: keep initramfs-tools for this machine" ;;
	esac
	[[ -n ${HO_MD_LEVELS[$level]:-} ]] ||
		die "host-only: the root is on md array $dname of level '$level'; hardinit assembles linear, raid0, raid1, raid10 and raid4/5/6 arrays: keep initramfs-tools for this machine"
	ho_need "md array $dname" md_mod
	ho_need "md $level personality of $dname" "${HO_MD_LEVELS[$level]}"
	HO_MD+="${HO_MD:+ }$dname"
	ho_md_uuid "$disk" "$meta"
	say "host-only: $dname is md $level (metadata $meta) over $(cd "$disk/slaves" 2>/dev/null && echo * || echo nothing)"
	ho_walk_slaves "$disk" "$depth"
}

# The block device MAJ:MIN and everything under it.
ho_block() {
	local majmin=$1 depth=$2 link path disk dname level
	((depth <= HO_MAX_DEPTH)) ||
		die "host-only: block devices under the root nest deeper than HO_MAX_DEPTH ($HO_MAX_DEPTH)"
	[[ -z ${HO_SEEN[$majmin]:-} ]] || return 0
	HO_SEEN[$majmin]=1
	HO_NDEV=$((HO_NDEV + 1))
	((HO_NDEV <= HO_MAX_DEVICES)) ||
		die "host-only: more than HO_MAX_DEVICES ($HO_MAX_DEVICES) block devices under the root"
	link=$HO_SYS/dev/block/$majmin
	[[ -e $link ]] ||
		die "host-only: block device $majmin has no $link; run on the machine itself with /sys mounted, or use --target or --modules"
	path=$(readlink -f -- "$link")
	[[ $path == "$HO_SYS"/devices/* ]] ||
		die "host-only: $link leads outside $HO_SYS/devices ($path); is $HO_SYS a sysfs?"
	disk=$path
	[[ -f $path/partition ]] && disk=${path%/*}
	dname=${disk##*/}
	if [[ -d $disk/md ]]; then
		ho_md "$disk" "$depth"
		return 0
	fi
	[[ ! -d $disk/loop ]] ||
		die "host-only: the root is on loop device $dname; hardinit cannot set up loop devices; use --target or --modules for the disk that holds its file"
	if [[ -d $disk/dm ]]; then
		ho_dm "$disk" "$depth"
		return 0
	fi
	[[ $disk == "$HO_SYS"/devices/virtual/* ]] &&
		die "host-only: the root is on virtual block device $dname (not a disk, dm, md or loop) that hardinit cannot set up"
	say "host-only: $dname at $(ho_rel "$path")"
	ho_walk_up "$path" strict
}

# mountinfo escapes space, tab, newline and backslash as octal.
ho_escape() {
	local s=${1//\\/\\134}
	s=${s// /\\040}
	s=${s//$'\t'/\\011}
	printf '%s' "${s//$'\n'/\\012}"
}

# The mount at POINT (the last one: it hides those below it) into
# HO_M_DEV, HO_M_FS, HO_M_SRC, HO_M_FSROOT (the directory of the file
# system mounted there: a btrfs subvolume's path) and HO_M_SOPTS (the file
# system's own options: btrfs's subvol=). Returns 1 when nothing is
# mounted there.
ho_mount_at() {
	local f=$HO_PROC/self/mountinfo want line rest mp majmin fsroot fstype src sopts n=0
	want=$(ho_escape "$1")
	[[ -r $f ]] || die "host-only: $f is unreadable; run on the machine itself with /proc mounted"
	HO_M_DEV="" HO_M_FS="" HO_M_SRC="" HO_M_FSROOT="" HO_M_SOPTS=""
	while IFS= read -r -n "$HO_MAX_ATTR" line; do
		n=$((n + 1))
		((n <= 100000)) || break
		read -r _ _ majmin fsroot mp _ <<<"$line"
		[[ $mp == "$want" ]] || continue
		rest=${line#* - }
		read -r fstype src sopts _ <<<"$rest"
		HO_M_DEV=$majmin HO_M_FS=$fstype HO_M_SRC=$src HO_M_FSROOT=$fsroot HO_M_SOPTS=$sopts
	done <"$f"
	[[ -n $HO_M_DEV ]] || return 1
	[[ $HO_M_DEV =~ ^[0-9]+:[0-9]+$ ]] || die "host-only: bad device '$HO_M_DEV' for $1 in $f"
}

# A btrfs mount shows an anonymous device (0:NN, one per subvolume), not
# its disks: those are the members listed in SYS/fs/btrfs/FSID/devices/
# (links to their block directories), FSID the file system one of whose
# members is the mount's source (/dev/vda1; a link such as /dev/mapper/NAME
# is followed to its kernel name). Every member's MAJ:MIN goes into
# HO_M_DEVS.
ho_btrfs_members() {
	local point=$1 src=$2 name fsid found="" d n=0 majmin names=()
	HO_M_DEVS=()
	name=${src##*/}
	if ! compgen -G "$HO_SYS/fs/btrfs/*/devices/$name" >/dev/null && [[ -e $src ]]; then
		name=$(readlink -f -- "$src")
		name=${name##*/}
	fi
	for fsid in "$HO_SYS"/fs/btrfs/*/; do
		fsid=${fsid%/}
		[[ -e $fsid/devices/$name ]] || continue
		[[ -z $found ]] ||
			die "host-only: $point is btrfs on $src, and $name is a member of two btrfs file systems in $HO_SYS/fs/btrfs (${found##*/}, ${fsid##*/}); is $HO_SYS a sysfs?"
		found=$fsid
	done
	[[ -n $found ]] ||
		die "host-only: $point is btrfs on $src, but no $HO_SYS/fs/btrfs/*/devices/ lists $name; run on the machine itself with /sys mounted, or use --target or --modules"
	for d in "$found"/devices/*; do
		[[ -e $d ]] || continue
		n=$((n + 1))
		((n <= HO_MAX_DEVICES)) ||
			die "host-only: btrfs ${found##*/} has more than HO_MAX_DEVICES ($HO_MAX_DEVICES) devices"
		majmin=$(ho_attr "$d/dev") || die "host-only: $(ho_rel "$d")/dev is unreadable; is $HO_SYS a sysfs?"
		HO_M_DEVS+=("$majmin")
		names+=("${d##*/}")
	done
	((n)) || die "host-only: btrfs ${found##*/} lists no devices in $(ho_rel "$found")/devices; is $HO_SYS a sysfs?"
	say "host-only: $point is btrfs ${found##*/} over ${names[*]}${HO_M_FSROOT:+, subvolume $HO_M_FSROOT}"
}

# The block devices behind the mount at POINT found by ho_mount_at, into
# HO_M_DEVS.
ho_mount_devices() {
	local point=$1
	HO_M_DEVS=("$HO_M_DEV")
	if [[ ${HO_M_DEV%%:*} == 0 && $HO_M_FS == btrfs ]]; then
		ho_btrfs_members "$point" "$HO_M_SRC"
		return 0
	fi
	[[ ${HO_M_DEV%%:*} != 0 ]] ||
		die "host-only: $point is $HO_M_FS on $HO_M_SRC, without a block device ($HO_M_DEV); hardinit mounts a root from a block device: use --target or --modules"
	say "host-only: $point is $HO_M_FS on $HO_M_SRC ($HO_M_DEV)"
}

# The mount at HO_ROOT_OF and the block devices under it.
ho_root_mount() {
	ho_mount_at "$HO_ROOT_OF" ||
		die "host-only: nothing is mounted at $HO_ROOT_OF in $HO_PROC/self/mountinfo (a chroot?); build on the machine itself, or use --target or --modules"
	HO_ROOT_FS=$HO_M_FS
	ho_mount_devices "$HO_ROOT_OF"
	HO_ROOT_DEVS=("${HO_M_DEVS[@]}")
	HO_ROOT_SUBVOL=""
	[[ $HO_ROOT_FS != btrfs ]] || ho_root_subvol
}

# mountinfo's octal escapes (\040 for a space) undone.
ho_unescape() {
	printf '%b' "${1//\\/\\0}"
}

# A btrfs root's subvolume into HO_ROOT_SUBVOL ("/@rootfs", "/" for the
# top level): the image carries it and the boot mounts it when the command
# line names none (under lock_cmdline, whatever the command line names).
# The file system's subvol= option names it; the mount's FSROOT is the
# same unless / is a directory inside it (a bind mount), which no
# subvol= can mount.
ho_root_subvol() {
	local opt words subvol="" fsroot
	fsroot=$(ho_unescape "$HO_M_FSROOT")
	IFS=, read -r -a words <<<"$HO_M_SOPTS"
	for opt in "${words[@]}"; do
		[[ $opt != subvol=* ]] || subvol=$(ho_unescape "${opt#subvol=}")
	done
	[[ -n $subvol ]] || subvol=$fsroot
	[[ $fsroot == "$subvol" ]] ||
		die "host-only: / is the directory $fsroot of btrfs subvolume $subvol (a bind mount?); the boot mounts a subvolume as /: build on the system booted from it, or use --target or --modules"
	[[ $subvol == /* && $subvol != *[,$'\n']* ]] ||
		die "host-only: / is btrfs subvolume '$subvol', which no rootflags=subvol= can name (a comma, a newline, or not from the top level); rename it (btrfs subvolume snapshot and boot from the copy)"
	# shellcheck disable=SC2034 # the builder's, for the image's file
	HO_ROOT_SUBVOL=$subvol
	say "host-only: the boot mounts btrfs subvolume $subvol as / unless the command line names one (rootflags=subvol=; refused under lock_cmdline = yes)"
}

# A separate /usr (Debian 12 is merged-/usr: /sbin/init lives there): the
# usr stage mounts it from the root's /etc/fstab before the hand-off, so
# its line must be there and name the device as the boot finds it without
# udev; its devices' drivers and its file system go in as the root's do.
# A partition or btrfs only: the boot activates device-mapper (LVM,
# LUKS) for the root alone, and md and loop not at all.
ho_usr() {
	local point=${HO_ROOT_OF%/}/usr tab=${HO_FSTAB:-${HO_ROOT_OF%/}/etc/fstab} line n=0 f1 f2 spec="" majmin path disk
	ho_mount_at "$point" || return 0
	# The image's verity root hash covers / alone; the boot refuses an
	# unchecked /usr holding the real init.
	[[ -z ${VERITY_ROOTHASH:-} ]] ||
		die "host-only: /usr is a separate mount ($HO_M_FS on $HO_M_SRC), but --verity-roothash covers / alone: the real init would run from an unchecked device; move /usr onto the verity root"
	ho_mount_devices "$point"
	for majmin in "${HO_M_DEVS[@]}"; do
		path=$(readlink -f -- "$HO_SYS/dev/block/$majmin")
		disk=$path
		[[ ! -f $path/partition ]] || disk=${path%/*}
		[[ ! -d $disk/dm && ! -d $disk/md && ! -d $disk/loop ]] ||
			die "host-only: /usr is on ${disk##*/}, a device-mapper, md or loop device; hardinit mounts a separate /usr from a partition or btrfs only: keep initramfs-tools for this machine, or move /usr onto the root's file system"
		ho_block "$majmin" 0
	done
	[[ -f $tab && -r $tab ]] ||
		die "host-only: /usr is a separate mount ($HO_M_FS on $HO_M_SRC), but $tab is missing or unreadable; the boot mounts /usr from its line there: add one (fstab(5))"
	while IFS= read -r -n "$HO_MAX_ATTR" line || [[ -n $line ]]; do
		n=$((n + 1))
		((n <= HO_MAX_FSTAB)) || die "host-only: $tab has more than HO_MAX_FSTAB ($HO_MAX_FSTAB) lines"
		read -r f1 f2 _ <<<"$line"
		[[ $f1 != \#* && ($f2 == /usr || $f2 == /usr/) ]] && spec=$f1
	done <"$tab"
	[[ -n $spec ]] ||
		die "host-only: /usr is a separate mount ($HO_M_FS on $HO_M_SRC), but $tab has no /usr line; the boot mounts /usr from it: add one (fstab(5))"
	case $spec in
	UUID=* | LABEL=* | PARTUUID=* | PARTLABEL=* | /dev/disk/by-uuid/* | /dev/disk/by-label/* | \
		/dev/disk/by-partuuid/* | /dev/disk/by-partlabel/*) ;;
	/dev/disk/* | /dev/mapper/* | /dev/*/*/* | [!/]*)
		die "host-only: $tab names the device of /usr as $spec, which the boot cannot find without udev; write UUID=... there (blkid prints it)" ;;
	esac
	ho_fs "$HO_M_FS"
	say "host-only: /usr is mounted by the boot from $tab ($spec, $HO_M_FS)"
}

# Whether this is a running machine whose root can be read, or a tree
# being built for another (an image builder's chroot); the builder then
# makes a generic image. No live root, and HO_NO_LIVE_ROOT says why, when:
# PROC/self/mountinfo is unreadable (no /proc in the chroot); nothing is
# mounted at ROOT_OF there (a chroot's / is a directory of the builder's
# file system, which mountinfo does not show from inside); or
# SYS/dev/block is missing (no /sys: the root's device cannot be found).
# A running machine has all three, whatever its root is on, so an
# unusual root (no block device, md, loop) is still refused by the
# detection, naming the layer.
HO_NO_LIVE_ROOT=""
# shellcheck disable=SC2034 # HO_NO_LIVE_ROOT is the builder's, for its line
ho_live_root() {
	local root_of=$1 sys=${2%/} proc=${3%/} f want
	f=$proc/self/mountinfo
	if [[ ! -r $f ]]; then
		HO_NO_LIVE_ROOT="$f is unreadable: no /proc"
		return 1
	fi
	want=$(ho_escape "$root_of")
	if ! head -n 100000 -- "$f" | awk -v w="$want" '$5 == w { found = 1 } END { exit !found }'; then
		HO_NO_LIVE_ROOT="nothing is mounted at $root_of in $f: a chroot"
		return 1
	fi
	if [[ ! -d $sys/dev/block ]]; then
		HO_NO_LIVE_ROOT="$sys/dev/block is missing: no /sys, the root's device cannot be found"
		return 1
	fi
	return 0
}

# The kernel config's CONFIG_NAME value (y, m) or nothing.
ho_kconfig() {
	local f=${OPT_MODDIR:-/}
	f=${f%/}/boot/config-$KVER
	[[ -f $f ]] || return 0
	sed -n "s/^$1=//p" "$f" | head -n 1
}

ho_fs() {
	local fs=$1 cands=() conf
	[[ $fs =~ ^[a-z0-9_.]{1,32}$ ]] || die "host-only: bad file system type '$fs' in mountinfo"
	alias_match "fs-$fs"
	cands=("${ALIAS_MATCH[@]}" "${ALIAS_BMATCH[@]}")
	modname "$fs"
	[[ -n ${MODPATH[$MODNAME]:-} || -n ${BUILTIN[$MODNAME]:-} ]] && cands+=("$MODNAME")
	if ((${#cands[@]} == 0)); then
		conf=$(ho_kconfig "CONFIG_${fs^^}_FS")
		if [[ $conf == y ]]; then
			say "host-only: file system $fs is built into kernel $KVER (CONFIG_${fs^^}_FS=y)"
			return 0
		fi
	fi
	ho_need "file system $fs" "${cands[@]}"
}

# The console's driver: not needed for the root, so nothing is refused.
ho_console() {
	local active name dev v
	active=$(ho_attr "$HO_SYS/class/tty/console/active" || true)
	for name in $active; do
		[[ $name =~ ^[A-Za-z0-9]{1,32}$ ]] || continue
		dev=$HO_SYS/class/tty/$name/device
		if [[ -e $dev ]]; then
			ho_walk_up "$(readlink -f -- "$dev")" loose
		elif [[ $name == hvc* && $(ho_attr "$HO_SYS/hypervisor/type" || true) != xen ]]; then
			# virtio_console's ports are virtual ttys: the driver is the
			# virtio device's (ID 3).
			for v in "$HO_SYS"/bus/virtio/devices/*; do
				[[ -f $v/modalias && $(ho_attr "$v/modalias") == virtio:d00000003v* ]] &&
					ho_walk_up "$(readlink -f -- "$v")" loose
			done
		fi
	done
	say "host-only: console ${active:-unknown}"
}

# The crypttab lines of the LUKS2 devices under the root, embedded as
# /etc/crypttab (the builder's --crypttab path); with --crypttab given,
# that file must name them. Each line must name the live volume: a UUID=
# or /dev/disk/by-uuid/ source its LUKS UUID; another source (/dev/vda5,
# PARTUUID=...) is written into the image as UUID= of the live volume,
# since hardinit finds LUKS2 volumes by UUID (a given file is embedded as
# it is, so there it is refused).
ho_crypttab() {
	local tab=$HO_CRYPTTAB name line n=0 f1 f2 f3 f4 out uuid src
	((${#HO_CRYPT_NAMES[@]})) || return 0
	[[ -n $tab ]] || tab=${HO_ROOT_OF%/}/etc/crypttab
	[[ -z $CRYPTTAB ]] || tab=$CRYPTTAB
	[[ -f $tab && -r $tab ]] ||
		die "host-only: the root is on LUKS2 device ${HO_CRYPT_NAMES[0]}, but $tab is missing or unreadable; hardinit opens it from its crypttab line: add one (crypttab(5)) or pass --crypttab FILE"
	out=$WORK/crypttab
	: >"$out"
	for name in "${HO_CRYPT_NAMES[@]}"; do
		n=0
		while IFS= read -r -n "$HO_MAX_ATTR" line || [[ -n $line ]]; do
			n=$((n + 1))
			((n <= HO_MAX_CRYPTTAB)) || die "host-only: $tab has more than HO_MAX_CRYPTTAB ($HO_MAX_CRYPTTAB) lines"
			read -r f1 f2 f3 f4 _ <<<"$line"
			[[ $f1 == "$name" ]] || continue
			[[ -z $f3 || $f3 == none || $f3 == - ]] ||
				die "host-only: $tab line $n: LUKS2 device $name opens with key file $f3; hardinit asks for a passphrase only: set the key field to none"
			uuid=${HO_CRYPT_UUID[$name]}
			case $f2 in
			UUID=* | /dev/disk/by-uuid/*)
				src=${f2#UUID=}
				src=${src#/dev/disk/by-uuid/}
				[[ ${src,,} == "$uuid" ]] ||
					die "host-only: $tab line $n opens $name from $f2, but the live $name is LUKS2 UUID $uuid on ${HO_CRYPT_BACK[$name]}; correct the line (cryptsetup luksUUID prints the UUID)" ;;
			*)
				[[ -z $CRYPTTAB ]] ||
					die "host-only: $tab line $n opens $name from $f2; hardinit finds LUKS2 volumes by UUID: write UUID=$uuid (the live $name's, on ${HO_CRYPT_BACK[$name]})"
				say "host-only: $tab line $n names $name's device as $f2; the image's line has UUID=$uuid, the live volume's (on ${HO_CRYPT_BACK[$name]})"
				line="$f1 UUID=$uuid ${f3:-none}${f4:+ $f4}" ;;
			esac
			printf '%s\n' "$line" >>"$out"
			say "host-only: LUKS2 device $name from $f2: $tab line $n"
			continue 2
		done <"$tab"
		die "host-only: the root is on LUKS2 device $name, which $tab does not name; add its line (crypttab(5): $name UUID=... none luks) or pass --crypttab FILE"
	done
	if [[ -z $CRYPTTAB ]]; then
		CRYPTTAB=$out
		# shellcheck disable=SC2034 # the builder's, for check_embedded_files
		CRYPTTAB_FROM="the crypttab lines of $tab for the root's volumes (${HO_CRYPT_NAMES[*]})"
		luks_options
	fi
}

# resume= on the running kernel's command line (the boot loader gives it
# again): a device-mapper swap named there (/dev/mapper/NAME, /dev/VG/LV,
# /dev/dm-N) is walked as the root is, so that the crypttab line of a
# LUKS2 volume under it is embedded too (hardinit opens it to look for a
# hibernated system before the root is mounted). Other forms name a plain
# partition, whose disk is the root's in the layouts Debian makes.
ho_resume() {
	local w dev="" name="" d majmin="" n=0 vg lv uuid
	for w in $(ho_attr "$HO_PROC/cmdline" || true); do
		[[ $w != resume=* ]] || dev=${w#resume=}
	done
	[[ -n $dev ]] || return 0
	case $dev in
	/dev/mapper/*) name=${dev#/dev/mapper/} ;;
	/dev/dm-[0-9]*) name="" ;;
	/dev/disk/* | /dev/*/*/*) ;;
	/dev/*/*)
		vg=${dev#/dev/} lv=${vg#*/} vg=${vg%%/*}
		name=${vg//-/--}-${lv//-/--} ;;
	esac
	for d in "$HO_SYS"/dev/block/*; do
		n=$((n + 1))
		((n <= HO_MAX_BLOCK)) || break
		[[ -f $d/dm/name ]] || continue
		if [[ -n $name && $(ho_attr "$d/dm/name") == "$name" ]] ||
			[[ $dev == /dev/dm-* && $(readlink -f -- "$d") == */"${dev#/dev/}" ]]; then
			majmin=${d##*/}
			break
		fi
	done
	if [[ -z $majmin ]]; then
		say "host-only: resume=$dev is not a device-mapper device here; no crypttab line or driver looked for it"
		return 0
	fi
	uuid=$(ho_attr "$d/dm/uuid" || true)
	if [[ $uuid == CRYPT-* && $uuid != CRYPT-LUKS2-* ]]; then
		uuid=${uuid#CRYPT-}
		say "host-only: resume=$dev is dm-crypt ${uuid%%-*}, not LUKS2; a swap with a random key holds no hibernated system: not followed"
		return 0
	fi
	say "host-only: resume=$dev is $majmin"
	ho_block "$majmin" 0
}

# ho_detect ROOT_OF SYSFS PROC
ho_detect() {
	local nreq=${#REQUESTED[@]} platform majmin
	HO_ROOT_OF=$1 HO_SYS=${2%/} HO_PROC=${3%/}
	say "host-only: reading $HO_PROC and $HO_SYS for kernel $KVER"
	ho_root_mount
	for majmin in "${HO_ROOT_DEVS[@]}"; do ho_block "$majmin" 0; done
	ho_resume
	ho_crypttab
	ho_fs "$HO_ROOT_FS"
	ho_usr
	ho_console
	platform=$(ho_attr "$HO_SYS/hypervisor/type" || true)
	[[ -z $platform ]] || say "host-only: platform: $platform guest"
	say "host-only: modules for the root: ${REQUESTED[*]:nreq}"
}

# Before anything is written: each requirement is built in or in the image.
ho_self_check() {
	local need what m ok
	for need in "${HO_NEEDS[@]}"; do
		what=${need%%|*}
		ok=0
		for m in ${need#*|}; do
			if [[ -n ${BUILTIN[$m]:-} || ${STATE[$m]:-} == resolved ]]; then
				ok=1
				break
			fi
		done
		((ok)) && continue
		m=${need#*|}
		[[ -n $m ]] ||
			die "host-only: the root needs $what, but kernel $KVER has no driver for it (none built in, no module); build for a kernel that has one"
		for m in ${need#*|}; do
			[[ -z ${MODPATH[$m]:-} ]] ||
				die "host-only: the root needs $what: module $m is neither built into kernel $KVER nor in the image; add it with --modules $m"
		done
		m=${need#*|}
		die "host-only: the root needs $what: kernel $KVER has no module ${m// / or } and does not build it in; build for a kernel that has it"
	done
	say "host-only: checked: each of the ${#HO_NEEDS[@]} drivers and file systems the root needs is built into kernel $KVER or in the image"
}
