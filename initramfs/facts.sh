# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the files that source it
# facts.sh: the facts hardinit-mkinitramfs and update-hardinit share that
# the hardinit binary does not know (what it knows, they ask it with
# `hardinit limits`). Sourced by both: beside them in the tree
# (initramfs/, hooks/../initramfs/), PREFIX/lib/hardinit/facts.sh once
# installed. debian/rules writes HI_FOREIGN_NAMES into debian/postrm, which
# runs when this file is already gone. Definitions only: sourcing it runs
# nothing.

# --target / TARGET: the machine the image is for.
readonly HI_TARGETS="auto generic virtio xen none"
# --compress / COMPRESS: how the archive is compressed. The default for
# each target is the builder's (hardinit_default_compress).
readonly HI_COMPRESSORS="zstd gzip none"

# A profile's name (config/NAME.conf, PREFIX/share/hardinit/profiles).
readonly HI_PROFILE_NAME_RE='^[A-Za-z0-9_-]{1,64}$'

# File names in /boot that belong to others: the kernel packages,
# initramfs-tools, dracut. Nothing of hardinit's is written under such a
# name, and no such file is ever deleted.
readonly HI_FOREIGN_NAMES="vmlinuz- vmlinux- System.map- config- initrd.img- initramfs-"

# Is WORD one of the words of LIST ("a b c")?
hi_one_of() {
	[[ " $2 " == *" $1 "* && $1 != *" "* && -n $1 ]]
}

# "a, b or c" for a message, from the words "a b c".
hi_choices() {
	local s=${1// /, }
	printf '%s or %s' "${s%, *}" "${s##*, }"
}

# The compression an image for TARGET gets when none is asked for: none
# for virtio and xen (the hypervisor loads the image from the host, so
# only the kernel's unpack time counts), zstd otherwise (a boot loader
# reads it from disk).
hi_default_compress() {
	case $1 in
	virtio | xen) echo none ;;
	*) echo zstd ;;
	esac
}

# A kernel version as /lib/modules/VERSION and uname -r name it.
hi_valid_kver() {
	[[ $1 =~ ^[A-Za-z0-9._+~-]+$ && $1 != . && $1 != .. ]]
}

# Whose file a /boot name starting with FAMILY (one of HI_FOREIGN_NAMES) is.
hi_foreign_owner() {
	case $1 in
	vmlinuz- | vmlinux-) echo "a kernel" ;;
	System.map-) echo "a kernel's System.map" ;;
	config-) echo "a kernel's config" ;;
	initrd.img-) echo "initramfs-tools' image" ;;
	initramfs-) echo "dracut's image" ;;
	esac
}
