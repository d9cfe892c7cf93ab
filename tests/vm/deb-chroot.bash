# shellcheck shell=bash
# A Debian 12 chroot for the package tests (tests/vm/deb.bats). Load after
# lib.bash and images.bash.
#
#   debc_base_tree        echo the cached minbase tree (debootstrap), building
#                         it when missing; never changed once built
#   debc_fresh ROOT       copy the base tree to ROOT (a new directory) and give
#                         it the host's resolver, so apt in it reaches the mirror
#   debc_run ROOT CMD...  run CMD in ROOT, with /proc and /dev mounted inside a
#                         private mount namespace (gone when CMD ends), no
#                         service started (policy-rc.d), apt non-interactive
#   debc_dummy_kernel OUT.deb KVER
#                         a small kernel package: /boot/vmlinuz-KVER and
#                         /lib/modules/KVER from the cached 6.12 kernel, whose
#                         maintainer scripts call the kernel hooks the way
#                         Debian's linux-image packages do
#
# The base tree lives under ${HARDINIT_CACHE}/images/deb-chroot-KEY/tree,
# KEY hashing the code below that debootstraps it, serialised by flock like
# the other roots (images.bash).

DEBC_PKGS=""   # minbase only: installing the package must pull the rest

_debc_build_tree() {
	local staging=$1 mirror log=$1.log
	mirror=$(img_apt_mirror) || return 1
	echo "deb-chroot: debootstrap $IMG_SUITE from $mirror into $staging (log $log)" >&2
	if ! unshare --mount --propagation private \
		debootstrap --variant=minbase ${DEBC_PKGS:+--include="$DEBC_PKGS"} \
		"$IMG_SUITE" "$staging" "$mirror" >"$log" 2>&1; then
		_img_err "debootstrap failed; last lines of $log:"
		tail -n 15 "$log" >&2
		return 1
	fi
	rm -rf "$staging/var/cache/apt/archives/"*.deb
	# No service may start in the chroot: the tests install packages only.
	printf '#!/bin/sh\nexit 101\n' >"$staging/usr/sbin/policy-rc.d"
	chmod 0755 "$staging/usr/sbin/policy-rc.d"
}

debc_base_tree() {
	local key dir
	key=$({
		declare -f _debc_build_tree
		echo "$IMG_SUITE $DEBC_PKGS"
	} | _img_hash)
	dir=$IMG_CACHE/deb-chroot-$key
	if [[ ! -f $dir/tree.done ]]; then
		mkdir -p "$dir" || { _img_err "cannot create $dir; run as root or set HARDINIT_CACHE"; return 1; }
		(
			flock 9
			[[ -f $dir/tree.done ]] && exit 0
			rm -rf "$dir/tree.new" "$dir/tree"
			_debc_build_tree "$dir/tree.new" || { rm -rf "$dir/tree.new"; exit 1; }
			mv "$dir/tree.new" "$dir/tree" && touch "$dir/tree.done"
		) 9>"$dir/.lock" || return 1
		find "$IMG_CACHE" -maxdepth 1 -name 'deb-chroot-*' ! -path "$dir" \
			-mmin +"$IMG_PRUNE_MINUTES" -exec rm -rf {} +
	fi
	touch "$dir"
	printf '%s\n' "$dir/tree"
}

debc_fresh() {
	local root=${1:?usage: debc_fresh ROOT} base
	base=$(debc_base_tree) || return 1
	[[ ! -e $root ]] || { _img_err "debc_fresh: $root exists"; return 1; }
	cp -a "$base" "$root" || return 1
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
}

debc_run() {
	local root=${1:?usage: debc_run ROOT CMD...}
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private bash -c '
		root=$1; shift
		mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" || exit 1
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
			LC_ALL=C.UTF-8 HOME=/root chroot "$root" "$@"
	' debc-run "$root" "$@"
}

debc_dummy_kernel() {
	local out=${1:?usage: debc_dummy_kernel OUT.deb KVER} kver=${2:?} kdir pkg
	kdir=$(vm_kernel_dir 6.12) || return 1
	pkg=$(mktemp -d "${TMPDIR:-/tmp}/debc-kernel.XXXXXX") || return 1
	mkdir -p "$pkg/DEBIAN" "$pkg/boot" "$pkg/lib/modules"
	cp "$(vm_kernel 6.12)" "$pkg/boot/vmlinuz-$kver"
	cp -a "$kdir/lib/modules/$(cat "$kdir/kver")" "$pkg/lib/modules/$kver"
	rm -f "$pkg/lib/modules/$kver/build" "$pkg/lib/modules/$kver/source"
	cat >"$pkg/DEBIAN/control" <<-EOF
		Package: linux-image-$kver
		Version: 1
		Architecture: amd64
		Maintainer: hardinit tests <tests@localhost>
		Depends: kmod
		Description: dummy kernel $kver for hardinit's package tests
	EOF
	# What linux-image-*'s maintainer scripts do (linux/debian/templates):
	# depmod, then the hooks with the version and the image path.
	cat >"$pkg/DEBIAN/postinst" <<-EOF
		#!/bin/sh
		set -e
		[ "\$1" = configure ] || exit 0
		depmod -a $kver
		if [ -d /etc/kernel/postinst.d ]; then
			DEB_MAINT_PARAMS="\$*" run-parts --report --exit-on-error --arg=$kver \\
				--arg=/boot/vmlinuz-$kver /etc/kernel/postinst.d
		fi
	EOF
	cat >"$pkg/DEBIAN/postrm" <<-EOF
		#!/bin/sh
		set -e
		case "\$1" in remove | purge) rm -f /lib/modules/$kver/modules.* ;; esac
		if [ -d /etc/kernel/postrm.d ]; then
			DEB_MAINT_PARAMS="\$*" run-parts --report --exit-on-error --arg=$kver \\
				--arg=/boot/vmlinuz-$kver /etc/kernel/postrm.d
		fi
	EOF
	chmod 0755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/postrm"
	dpkg-deb --root-owner-group -Zgzip -z1 -b "$pkg" "$out" >/dev/null
	local rc=$?
	rm -rf "$pkg"
	return $rc
}
