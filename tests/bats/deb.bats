#!/usr/bin/env bats
# The Debian package, on the host: built from a clean copy of the
# tree with Debian's tools, checked by lintian, its contents and versions
# read from the .deb itself (dpkg-deb), and update-hardinit's conffile
# parser. Installing it, the kernel hooks and a boot of the image they
# build are in tests/vm/deb.bats (a Debian 12 chroot, then QEMU).

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	local version
	version=$(cd "$REPO" && dpkg-parsechangelog -S Version)
	if [[ -n ${HARDINIT_DEB_DIR:-} ]]; then
		# make check built the package once for every suite (make deb, whose
		# inputs are every file of the tree): read that build.
		OUT=$HARDINIT_DEB_DIR
		DEB=$OUT/hardinit_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
	else
		# Alone: the same script make deb runs, into a directory of this
		# run's own, never one left in build/deb.
		OUT=$BATS_FILE_TMPDIR/out
		(cd "$REPO" && scripts/build-deb "$OUT") >"$BATS_FILE_TMPDIR/build-deb.out" 2>&1 || {
			cat "$BATS_FILE_TMPDIR/build-deb.out" >&2
			return 1
		}
		DEB=$(tail -n 1 "$BATS_FILE_TMPDIR/build-deb.out")
	fi
	PKG=$BATS_FILE_TMPDIR/pkg
	dpkg-deb -R "$DEB" "$PKG"
	export REPO OUT DEB PKG
}

@test "deb: make deb's build gives hardinit_VERSION_ARCH.deb from a copy of the tree without build/" {
	[[ -f $DEB ]]
	[[ $DEB == "$OUT/hardinit_$(cd "$REPO" && dpkg-parsechangelog -S Version)_$(dpkg-architecture -qDEB_HOST_ARCH).deb" ]]
	local version
	version=$(cd "$REPO" && dpkg-parsechangelog -S Version)
	grep -qxF "build-deb: dpkg-buildpackage -us -uc -b in $OUT/src/hardinit-$version" "$OUT/build.log"
	grep -q '^dpkg-buildpackage: info: binary-only upload' "$OUT/build.log"
	# The copy had no build/: hardinit and mkcpio were compiled in it.
	grep -q '^musl-gcc .* -o build/hardinit ' "$OUT/build.log"
	grep -q '^gcc .* initramfs/mkcpio.c -o build/mkcpio' "$OUT/build.log"
	# The copy it was built from is removed.
	[[ ! -e $OUT/src ]]
}

@test "deb: the package holds the binaries, the builder's helper and profiles, the hooks, man pages and docs" {
	local f
	for f in usr/sbin/hardinit usr/sbin/hardinit-mkinitramfs usr/sbin/update-hardinit \
		usr/lib/hardinit/mkcpio usr/lib/hardinit/facts.sh \
		usr/share/hardinit/profiles/baseline.conf usr/share/hardinit/profiles/strict.conf \
		usr/share/hardinit/profiles/appliance.conf usr/share/hardinit/profiles/xen.conf \
		etc/hardinit/mkinitramfs.conf etc/kernel/postinst.d/hardinit etc/kernel/postrm.d/hardinit \
		usr/lib/kernel/install.d/50-hardinit.install etc/grub.d/15_hardinit \
		usr/share/man/man8/hardinit.8.gz usr/share/man/man8/hardinit-mkinitramfs.8.gz \
		usr/share/man/man8/update-hardinit.8.gz usr/share/man/man5/hardinit.conf.5.gz \
		usr/share/doc/hardinit/copyright usr/share/doc/hardinit/changelog.gz \
		usr/share/doc/hardinit/README.md.gz; do
		[[ -f $PKG/$f ]] || { echo "missing in the package: /$f" >&2; return 1; }
	done
	for f in usr/sbin/hardinit usr/sbin/hardinit-mkinitramfs usr/sbin/update-hardinit \
		usr/lib/hardinit/mkcpio etc/kernel/postinst.d/hardinit etc/kernel/postrm.d/hardinit \
		usr/lib/kernel/install.d/50-hardinit.install etc/grub.d/15_hardinit; do
		[[ -x $PKG/$f ]] || { echo "not executable: /$f" >&2; return 1; }
	done
	# The packaged hardinit is the static PID 1.
	run readelf -l "$PKG/usr/sbin/hardinit"
	[ "$status" -eq 0 ]
	[[ $output != *"Requesting program interpreter"* ]]
	# Every file under /etc is a conffile.
	run bash -c "cd '$PKG' && find etc -type f | sed 's|^|/|' | sort"
	[ "$output" = "$(sort "$PKG/DEBIAN/conffiles")" ]
}

@test "deb: the packaged hardinit looks for its profiles where the package installs them" {
	# Built with the package's PREFIX, not make's default /usr/local:
	# otherwise hardinit audit names no profile ("unknown") on Debian.
	run "$PKG/usr/sbin/hardinit" limits
	[ "$status" -eq 0 ]
	local dir
	dir=$(sed -n 's/^PROFILE_DIR=//p' <<<"$output")
	[ "$dir" = /usr/share/hardinit/profiles ]
	[[ -f $PKG$dir/baseline.conf ]]
}

@test "deb: lintian finds no error and no warning" {
	command -v lintian >/dev/null || skip "lintian missing; scripts/install-deps installs it"
	run lintian --fail-on error,warning "$DEB"
	echo "$output"
	[ "$status" -eq 0 ]
	run ! grep -q '^[EW]: ' <<<"$output"
}

@test "deb: the copyright file is machine-readable and names the license of LICENSE" {
	local c=$PKG/usr/share/doc/hardinit/copyright
	head -n 1 "$c" | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'
	grep -q '^License: Expat$' "$c"
	grep -q '^MIT License$' "$REPO/LICENSE"
	# The license text is the same in both (the words, not the layout).
	diff <(sed -n '/^Permission is hereby granted/,$p' "$REPO/LICENSE" | tr -s ' \n' '  ') \
		<(sed -n '/^ Permission is hereby granted/,$p' "$c" | sed 's/^ \.$//; s/^ //' | tr -s ' \n' '  ')
}

@test "deb: the package's version, hardinit --version and every man page agree with debian/changelog" {
	local want page th
	want=$(cd "$REPO" && dpkg-parsechangelog -S Version)
	[ "$(dpkg-deb -f "$DEB" Version)" = "$want" ]
	run "$PKG/usr/sbin/hardinit" --version
	[ "$output" = "hardinit $want" ]
	make -s -C "$REPO" build/hardinit >&2
	run "$REPO/build/hardinit" --version
	[ "$output" = "hardinit $want" ]
	zcat "$PKG/usr/share/doc/hardinit/changelog.gz" | head -n 1 | grep -qF "hardinit ($want)"
	for page in "$PKG"/usr/share/man/man*/*.gz "$REPO"/man/*.[0-9]; do
		if [[ $page == *.gz ]]; then th=$(zcat "$page" | grep -m1 '^\.TH'); else th=$(grep -m1 '^\.TH' "$page"); fi
		[[ $th == *"\"hardinit $want\""* ]] || { echo "$page: $th (want hardinit $want)" >&2; return 1; }
	done
}

@test "deb: every setting of the conffile is commented, known to update-hardinit and at its default" {
	local conf=$PKG/etc/hardinit/mkinitramfs.conf uh=$PKG/usr/sbin/update-hardinit prev="" line keys=""
	while IFS= read -r line; do
		if [[ $line =~ ^([A-Z_]+)= ]]; then
			keys+="${BASH_REMATCH[1]} "
			[[ $prev == \#* || $prev =~ ^[A-Z_]+= ]] ||
				{ echo "setting without a comment: $line" >&2; return 1; }
		fi
		prev=$line
	done <"$conf"
	# The same keys, in the same order, as update-hardinit knows...
	run "$uh" --show-config -c /nonexistent
	[ "$status" -eq 0 ]
	[ "$(cut -d= -f1 <<<"$output" | xargs)" = "$(xargs <<<"$keys")" ]
	# ...and the file as shipped changes nothing from the defaults.
	defaults=$output
	run "$uh" --show-config -c "$conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$defaults" ]
	grep -qx 'FAIL_KERNEL_POSTINST=no' <<<"$output"
	grep -qx 'GRUB=no' <<<"$output"
	grep -qx 'OUTPUT=/boot/hardinit.img-%v' <<<"$output"
}

@test "deb: update-hardinit names the file and line of each broken setting" {
	local uh=$PKG/usr/sbin/update-hardinit c=$BATS_TEST_TMPDIR/bad.conf
	printf '%s\n' '# a comment' 'PROFILE=strict' 'COMPRESS=xz' 'not a setting' 'WHAT=1' \
		'OUTPUT=/boot/initrd.img-%v' 'OUTPUT=/boot/fixed-name' 'GRUB=maybe' 'MODULES=$(reboot)' \
		'UKI_SIGN_KEY=/k' >"$c"
	run "$uh" --show-config -c "$c"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"$c:3: COMPRESS 'xz': use zstd, gzip or none"* ]]
	[[ $output == *"$c:4: not KEY=VALUE: 'not a setting'"* ]]
	[[ $output == *"$c:5: unknown setting WHAT"* ]]
	[[ $output == *"$c:6: OUTPUT '/boot/initrd.img-%v' names initramfs-tools' image"* ]]
	[[ $output == *"$c:7: OUTPUT '/boot/fixed-name': an absolute path without spaces holding %v"* ]]
	[[ $output == *"$c:8: GRUB 'maybe': use yes or no"* ]]
	[[ $output == *"$c:9: MODULES: quote the value"* ]]
	[[ $output == *"UKI_SIGN_KEY and UKI_SIGN_CERT go together"* ]]
	# Quoted values and trailing blanks are fine.
	printf '%s\n' 'PROFILE="strict"  ' 'MODULES="nvme ahci"' >"$c"
	run "$uh" --show-config -c "$c"
	[ "$status" -eq 0 ]
	grep -qx 'PROFILE=strict' <<<"$output"
	grep -qx 'MODULES=nvme ahci' <<<"$output"
}

# ---- update-hardinit against a /boot of its own ----

# Run the bash snippet $1 with the package's update-hardinit against a
# /boot, /var/lib (its manifest) and /lib/modules of the test's own: inside
# a private mount namespace, tmpfs over /boot and /var/lib and an overlay
# over the directory /lib/modules lives in; the host's mounts and files are
# never touched. The snippet has UH (update-hardinit), K1 K2 (two kernels,
# each with vmlinuz, System.map, config, initramfs-tools' initrd.img and
# /lib/modules/KVER) and a stand-in builder (HARDINIT_MKINITRAMFS) that
# writes a zstd-headed image naming its kernel.
in_boot() {
	if [ "$(id -u)" != 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
		skip "needs root and unshare --mount"
	fi
	local t=$BATS_TEST_TMPDIR libdir
	libdir=$(readlink -f /lib)
	mkdir -p "$t/up" "$t/work"
	cat >"$t/builder" <<-'EOF'
		#!/bin/sh
		# hardinit-mkinitramfs's -o and --kver, nothing else; its
		# arguments logged for the test
		echo "$*" >>"$BUILDER_ARGS"
		out="" kver=""
		while [ $# -gt 0 ]; do
			case $1 in -o) out=$2; shift ;; --kver) kver=$2; shift ;; esac
			shift
		done
		printf '\050\265\057\375 stand-in image of %s\n' "$kver" >"$out"
	EOF
	chmod 0755 "$t/builder"
	cat >"$t/run.sh" <<-EOF
		set -eu
		mount -t tmpfs -o mode=755 boot /boot
		mount -t tmpfs -o mode=755 varlib /var/lib
		mount -t overlay -o lowerdir=$libdir,upperdir=$t/up,workdir=$t/work overlay $libdir
		UH=$PKG/usr/sbin/update-hardinit K1=6.1.0-91-test K2=6.1.0-92-test
		export HARDINIT_MKINITRAMFS=$t/builder BUILDER_ARGS=$t/builder.args
		for k in \$K1 \$K2; do
			mkdir -p /lib/modules/\$k
			for f in vmlinuz System.map config initrd.img; do echo "\$f of \$k" >/boot/\$f-\$k; done
		done
		$1
	EOF
	run unshare --mount --propagation private bash "$t/run.sh"
	echo "$output"
}

@test "deb: update-hardinit leaves the compression to the builder's default for the target unless COMPRESS is set" {
	in_boot '
printf "TARGET=virtio\n" >/var/lib/virtio.conf
"$UH" -c /var/lib/virtio.conf -k "$K1" >/dev/null
echo "=== virtio: $(tail -n 1 "$BUILDER_ARGS")"
printf "TARGET=virtio\nCOMPRESS=gzip\n" >/var/lib/gzip.conf
"$UH" -c /var/lib/gzip.conf -k "$K1" >/dev/null
echo "=== gzip: $(tail -n 1 "$BUILDER_ARGS")"
"$UH" -k "$K1" >/dev/null
echo "=== shipped: $(tail -n 1 "$BUILDER_ARGS")"'
	[ "$status" -eq 0 ]
	[[ $output == *"=== virtio: --kver 6.1.0-91-test --moddir / --target virtio --profile baseline -o "* ]]
	[[ $output != *"=== virtio: "*"--compress"*"=== gzip"* ]]
	[[ $output == *"=== gzip: "*"--target virtio "*"--compress gzip"* ]]
	# The shipped conffile asks for no compression of its own either.
	[[ $output == *"=== shipped: "*"--target auto "* && $output != *"=== shipped: "*"--compress"* ]]
	# The builder's default for that target is its own (builder.bats: none for virtio and xen).
	run "$PKG/usr/sbin/update-hardinit" --show-config -c "$PKG/etc/hardinit/mkinitramfs.conf"
	grep -qx 'COMPRESS=' <<<"$output"
}

@test "deb: postrm's list of the /boot names of others is facts.sh's, written in by the build" {
	local names
	# shellcheck source=initramfs/facts.sh
	names=$(. "$PKG/usr/lib/hardinit/facts.sh" && echo "$HI_FOREIGN_NAMES")
	[ -n "$names" ]
	grep -qxF "foreign_names=\"$names\"" "$PKG/DEBIAN/postrm"
	run ! grep -q '#HARDINIT_' "$PKG/DEBIAN/postrm"
	# update-hardinit refuses an OUTPUT starting with each of them.
	local n c=$BATS_TEST_TMPDIR/n.conf
	for n in $names; do
		printf 'OUTPUT=/boot/%s%%v\n' "$n" >"$c"
		run "$PKG/usr/sbin/update-hardinit" --show-config -c "$c"
		[ "$status" -eq 1 ] || { echo "OUTPUT=/boot/$n%v taken"; return 1; }
	done
}

@test "deb: update-hardinit refuses an OUTPUT that can name a kernel, a System.map, a config, another tool's initrd, or leaves /boot" {
	local uh=$PKG/usr/sbin/update-hardinit c=$BATS_TEST_TMPDIR/o.conf o
	for o in /boot/vmlinuz-%v /boot/%v /boot/config-%v /boot/System.map-%v /boot/initrd.img-%v \
		/boot/../etc/x /boot/../etc/x-%v /boot/vmlinux-%v /boot/initramfs-%v.img /boot/v%v /boot/%v.img \
		/etc/hardinit-%v /boot/%v/hardinit.img /boot/./hardinit-%v /boot//hardinit-%v; do
		printf 'OUTPUT=%s\n' "$o" >"$c"
		run "$uh" --show-config -c "$c"
		[ "$status" -eq 1 ] || { echo "OUTPUT=$o accepted: $output" >&2; return 1; }
		[[ $output == *"$c:1: OUTPUT '$o'"* ]] || { echo "$o: $output" >&2; return 1; }
	done
	# Each says why.
	printf 'OUTPUT=/boot/%%v\n' >"$c"
	run "$uh" --show-config -c "$c"
	[[ $output == *"OUTPUT '/boot/%v' can name /boot/vmlinuz-..., the name of a kernel"* ]]
	printf 'OUTPUT=/boot/config-%%v\n' >"$c"
	run "$uh" --show-config -c "$c"
	[[ $output == *"the name of a kernel's config"* ]]
	printf 'OUTPUT=/boot/../etc/x-%%v\n' >"$c"
	run "$uh" --show-config -c "$c"
	[[ $output == *"a path with . or .. or // in it"* ]]
	# hardinit's own names, also in a directory of /boot, are fine.
	for o in /boot/hardinit.img-%v /boot/old/hi-%v /boot/efi/hardinit-%v.img; do
		printf 'OUTPUT=%s\n' "$o" >"$c"
		run "$uh" --show-config -c "$c"
		[ "$status" -eq 0 ] || { echo "OUTPUT=$o refused: $output" >&2; return 1; }
	done
}

@test "deb: the GRUB snippet passes rootflags=subvol= for a root on a btrfs subvolume, as 10_linux does" {
	# grub-common's helpers as they answer for a root on btrfs subvolume
	# @rootfs (grub-probe's file system, paths from the file system's top),
	# over /usr/share in the namespace; the package's update-hardinit and
	# a conffile with GRUB=yes over /usr/sbin and /etc.
	local g=$BATS_TEST_TMPDIR/grub sbin etc share
	sbin=$(readlink -f /usr/sbin) etc=$(readlink -f /etc) share=$(readlink -f /usr/share)
	mkdir -p "$g/etc/hardinit" "$g/share/grub" "$g/sbin" "$g/w1" "$g/w2" "$g/w3"
	echo GRUB=yes >"$g/etc/hardinit/mkinitramfs.conf"
	ln -s "$PKG/usr/sbin/update-hardinit" "$g/sbin/update-hardinit"
	printf '#!/bin/sh\necho "$GRUB_TEST_FS"\n' >"$g/grub-probe"
	chmod 0755 "$g/grub-probe"
	cat >"$g/share/grub/grub-mkconfig_lib" <<-EOF
		grub_probe=$g/grub-probe
		make_system_path_relative_to_its_root() { echo "\${GRUB_TEST_TOP}\${1%/}"; }
	EOF
	in_boot "
mount -t overlay -o lowerdir=$sbin,upperdir=$g/sbin,workdir=$g/w1 overlay $sbin
mount -t overlay -o lowerdir=$etc,upperdir=$g/etc,workdir=$g/w2 overlay $etc
mount -t overlay -o lowerdir=$share,upperdir=$g/share,workdir=$g/w3 overlay $share
echo image >/boot/hardinit.img-\$K1
echo \"=== btrfs: \$(GRUB_TEST_FS=btrfs GRUB_TEST_TOP=/@rootfs GRUB_DEVICE=/dev/vda1 $PKG/etc/grub.d/15_hardinit 2>&1)\"
echo \"=== top: \$(GRUB_TEST_FS=btrfs GRUB_TEST_TOP= GRUB_DEVICE=/dev/vda1 $PKG/etc/grub.d/15_hardinit 2>&1)\"
echo \"=== ext4: \$(GRUB_TEST_FS=ext4 GRUB_TEST_TOP= GRUB_DEVICE=/dev/vda1 $PKG/etc/grub.d/15_hardinit 2>&1)\""
	[ "$status" -eq 0 ]
	grep -qxF "	linux	/@rootfs/boot/vmlinuz-6.1.0-91-test root=/dev/vda1 ro rootflags=subvol=@rootfs" <<<"$output"
	grep -qxF "	initrd	/@rootfs/boot/hardinit.img-6.1.0-91-test" <<<"$output"
	# The top level and another file system: no word (10_linux passes none).
	[[ $(grep -c 'rootflags' <<<"$output") -eq 1 ]]
	[[ $output == *"=== top: "*"	linux	/boot/vmlinuz-6.1.0-91-test root=/dev/vda1 ro"$'\n'* ]]
	[[ $output == *"=== ext4: "*"	linux	/boot/vmlinuz-6.1.0-91-test root=/dev/vda1 ro"$'\n'* ]]
}

@test "deb: update-hardinit writes nothing through a symbolic link in OUTPUT's path" {
	in_boot '
mkdir /var/lib/elsewhere /boot/real
ln -s /var/lib/elsewhere /boot/link
printf "OUTPUT=/boot/link/hardinit.img-%%v\n" >/var/lib/c1
echo "=== link dir: $("$UH" -c /var/lib/c1 -k "$K1" 2>&1; echo "rc=$?")"
echo "=== elsewhere: $(ls -A /var/lib/elsewhere)"
ln -s "vmlinuz-$K1" "/boot/real/hardinit.img-$K1"
printf "OUTPUT=/boot/real/hardinit.img-%%v\n" >/var/lib/c2
echo "=== link file: $("$UH" -c /var/lib/c2 -k "$K1" 2>&1; echo "rc=$?")"
echo "=== still a link: $(readlink "/boot/real/hardinit.img-$K1")"
echo "=== kernel: $(cat "/boot/vmlinuz-$K1")"'
	[ "$status" -eq 0 ]
	[[ $output == *"=== link dir: update-hardinit: kernel 6.1.0-91-test: /boot/link on the way to /boot/link/hardinit.img-6.1.0-91-test is a symbolic link; nothing written"*"rc=1"* ]]
	[[ $output == *"=== elsewhere: "$'\n'* ]]
	[[ $output == *"=== link file: update-hardinit: kernel 6.1.0-91-test: /boot/real/hardinit.img-6.1.0-91-test on the way to"*"is a symbolic link"*"rc=1"* ]]
	[[ $output == *"=== still a link: vmlinuz-6.1.0-91-test"* ]]
	[[ $output == *"=== kernel: vmlinuz of 6.1.0-91-test"* ]]
}

@test "deb: update-hardinit -d deletes only the images it recorded and can recognise, never a kernel's file" {
	in_boot '
"$UH" -k all
echo "=== manifest check: $(sha256sum -c /var/lib/hardinit/images 2>&1 | tr "\n" " ")"
# Not ours: an image changed since, one nobody recorded, a forged record of
# a kernel (with its true digest), an old bare record of a config.
echo changed >>"/boot/hardinit.img-$K2"
echo "by hand" >/boot/hardinit.img-6.1.0-93-test
echo "$(sha256sum "/boot/vmlinuz-$K1")" >>/var/lib/hardinit/images
echo "/boot/config-$K1" >>/var/lib/hardinit/images
# OUTPUT=/boot/%v: refused, nothing deleted.
printf "OUTPUT=/boot/%%v\n" >/var/lib/bare.conf
echo "=== bare: $("$UH" -c /var/lib/bare.conf -k all -d 2>&1; echo "rc=$?")"
echo "=== after bare: $(cd /boot && LC_ALL=C ls | tr "\n" " ")"
echo "=== all: $("$UH" -k all -d 2>&1; echo "rc=$?")"
echo "=== left: $(cd /boot && LC_ALL=C ls | tr "\n" " ")"
echo "=== kernel: $(cat "/boot/vmlinuz-$K1") / $(cat "/boot/config-$K1")"
echo "=== manifest: $(cat /var/lib/hardinit/images 2>&1)"
# One kernel: its image is recorded again by a build, then -d -k removes it;
# an unrecorded one is kept.
"$UH" -k "$K1" >/dev/null
echo "=== one: $("$UH" -d -k "$K1" 2>&1; echo "rc=$?")"
echo "=== unrecorded: $("$UH" -d -k 6.1.0-93-test 2>&1; echo "rc=$?")"
echo "=== left2: $(cd /boot && LC_ALL=C ls | tr "\n" " ")"'
	[ "$status" -eq 0 ]
	[[ $output == *"=== manifest check: /boot/hardinit.img-6.1.0-91-test: OK /boot/hardinit.img-6.1.0-92-test: OK"* ]]
	[[ $output == *"=== bare: "*"OUTPUT '/boot/%v' can name"*"nothing built or deleted"*"rc=1"* ]]
	local k="System.map-6.1.0-91-test System.map-6.1.0-92-test config-6.1.0-91-test config-6.1.0-92-test"
	local i="initrd.img-6.1.0-91-test initrd.img-6.1.0-92-test vmlinuz-6.1.0-91-test vmlinuz-6.1.0-92-test"
	[[ $output == *"=== after bare: $k hardinit.img-6.1.0-91-test hardinit.img-6.1.0-92-test hardinit.img-6.1.0-93-test $i "$'\n'* ]]
	# Only the one image that is what update-hardinit wrote goes.
	[[ $output == *"update-hardinit: removed /boot/hardinit.img-6.1.0-91-test"* ]]
	[[ $output == *"kept /boot/hardinit.img-6.1.0-92-test: changed since update-hardinit wrote it"* ]]
	[[ $output == *"kept /boot/vmlinuz-6.1.0-91-test: named like a kernel"* ]]
	[[ $output == *"kept /boot/config-6.1.0-91-test: named like a kernel's config"* ]]
	[[ $output == *"=== left: $k hardinit.img-6.1.0-92-test hardinit.img-6.1.0-93-test $i "$'\n'* ]]
	[[ $output != *"removed /boot/vmlinuz"* && $output != *"removed /boot/config"* ]]
	[[ $output == *"=== kernel: vmlinuz of 6.1.0-91-test / config of 6.1.0-91-test"* ]]
	[[ $output == *"=== manifest: cat: /var/lib/hardinit/images: No such file"* ]]
	[[ $output == *"=== one: update-hardinit: kernel 6.1.0-91-test: removed /boot/hardinit.img-6.1.0-91-test"*"rc=0"* ]]
	[[ $output == *"=== unrecorded: update-hardinit: kernel 6.1.0-93-test: kept /boot/hardinit.img-6.1.0-93-test: not in /var/lib/hardinit/images"*"rc=0"* ]]
	[[ $output == *"=== left2: $k hardinit.img-6.1.0-92-test hardinit.img-6.1.0-93-test $i " ]]
}

@test "deb: purge removes the recorded images that are still what update-hardinit wrote, nothing else" {
	in_boot '
"$UH" -k all >/dev/null
echo changed >>"/boot/hardinit.img-$K2"
echo "$(sha256sum "/boot/vmlinuz-$K1")" >>/var/lib/hardinit/images
echo "/boot/config-$K1" >>/var/lib/hardinit/images
echo "by hand" >/boot/hardinit.img-6.1.0-93-test
mount -t tmpfs -o mode=755 etc /etc   # the postrm removes an empty /etc/hardinit
echo "=== purge: $(sh "$PKG/DEBIAN/postrm" purge 2>&1; echo "rc=$?")"
echo "=== left: $(cd /boot && LC_ALL=C ls | tr "\n" " ")"
echo "=== state: $(ls -A /var/lib)"'
	[ "$status" -eq 0 ]
	[[ $output == *"=== purge: hardinit: kept /boot/hardinit.img-6.1.0-92-test: changed since update-hardinit wrote it"*"rc=0"* ]]
	local k="System.map-6.1.0-91-test System.map-6.1.0-92-test config-6.1.0-91-test config-6.1.0-92-test"
	local i="initrd.img-6.1.0-91-test initrd.img-6.1.0-92-test vmlinuz-6.1.0-91-test vmlinuz-6.1.0-92-test"
	[[ $output == *"=== left: $k hardinit.img-6.1.0-92-test hardinit.img-6.1.0-93-test $i "$'\n'* ]]
	[[ $output == *"=== state: "$'\n'* || $output == *"=== state: " ]]
}

@test "deb: update-hardinit refuses a UKI_SIGN_KEY that is not root's alone, with one line" {
	local uh=$PKG/usr/sbin/update-hardinit d=$BATS_TEST_TMPDIR/keys c=$BATS_TEST_TMPDIR/k.conf
	mkdir -m 0700 "$d"
	echo "PRIVATE KEY" >"$d/db.key"
	echo "CERT" >"$d/db.crt"
	chmod 0600 "$d/db.key"
	ln -s db.key "$d/link.key"
	key_run() {
		printf 'UKI=yes\nUKI_SIGN_KEY=%s\nUKI_SIGN_CERT=%s\n' "$1" "$d/db.crt" >"$c"
		run env HARDINIT_MKINITRAMFS=/bin/false "$uh" -c "$c" -k 6.1.0-91-test
		echo "$output"
	}
	chmod 0644 "$d/db.key"
	key_run "$d/db.key"
	[ "$status" -eq 1 ]
	[[ $output == "update-hardinit: UKI_SIGN_KEY $d/db.key: mode 0644; the Secure Boot key must be a regular file owned by root with mode 0600 or 0400"*"nothing built" ]]
	chmod 0600 "$d/db.key"
	chown 1000 "$d/db.key"
	key_run "$d/db.key"
	[ "$status" -eq 1 ]
	[[ $output == "update-hardinit: UKI_SIGN_KEY $d/db.key: owned by uid 1000, not root;"*"nothing built" ]]
	chown 0 "$d/db.key"
	key_run "$d/link.key"
	[ "$status" -eq 1 ]
	[[ $output == "update-hardinit: UKI_SIGN_KEY $d/link.key: $d/link.key is a symbolic link;"*"nothing built" ]]
	chmod 0777 "$d"
	key_run "$d/db.key"
	[ "$status" -eq 1 ]
	[[ $output == "update-hardinit: UKI_SIGN_KEY $d/db.key: its directory $d (uid 0, mode 0777) can be written by others than root;"*"nothing built" ]]
	# From a kernel hook the refusal is reported and, by default, does not fail the kernel.
	run env HARDINIT_MKINITRAMFS=/bin/false "$uh" --hook postinst -c "$c" -k 6.1.0-91-test
	[ "$status" -eq 0 ]
	[[ $output == *"its directory $d"*"nothing built"* ]]
	# Root's alone (0600, then 0400): the key passes and the build goes on (to
	# the next thing this host lacks).
	chmod 0700 "$d"
	for m in 0600 0400; do
		chmod "$m" "$d/db.key"
		key_run "$d/db.key"
		[[ $output != *UKI_SIGN_KEY* ]] || return 1
		[[ $output == *"kernel 6.1.0-91-test: /lib/modules/6.1.0-91-test does not exist"* ]]
	done
}

@test "deb: the hook scripts and update-hardinit pass shellcheck" {
	command -v shellcheck >/dev/null || skip "shellcheck missing; scripts/install-deps installs it"
	cd "$REPO"
	# -x: update-hardinit sources initramfs/facts.sh, which is checked with it.
	shellcheck -x hooks/update-hardinit hooks/postinst.d/hardinit hooks/postrm.d/hardinit \
		hooks/install.d/50-hardinit.install hooks/grub.d/15_hardinit scripts/build-deb \
		debian/postinst debian/postrm tests/vm/deb-chroot.bash
}
