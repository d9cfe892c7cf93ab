#!/usr/bin/env bats
# The Debian package (issue 15), on the host: built from a clean copy of the
# tree with Debian's tools, checked by lintian, its contents and versions
# read from the .deb itself (dpkg-deb), and update-hardinit's conffile
# parser. Installing it, the kernel hooks and a boot of the image they
# build are in tests/vm/deb.bats (a Debian 12 chroot, then QEMU).

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	OUT=$BATS_FILE_TMPDIR/out
	# The same script make deb runs, into a directory of this run's own:
	# a fresh build every time, never one left in build/deb.
	(cd "$REPO" && scripts/build-deb "$OUT") >"$BATS_FILE_TMPDIR/build-deb.out" 2>&1 || {
		cat "$BATS_FILE_TMPDIR/build-deb.out" >&2
		return 1
	}
	DEB=$(tail -n 1 "$BATS_FILE_TMPDIR/build-deb.out")
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
		usr/lib/hardinit/mkcpio \
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

@test "deb: the hook scripts and update-hardinit pass shellcheck" {
	command -v shellcheck >/dev/null || skip "shellcheck missing; scripts/install-deps installs it"
	cd "$REPO"
	shellcheck hooks/update-hardinit hooks/postinst.d/hardinit hooks/postrm.d/hardinit \
		hooks/install.d/50-hardinit.install hooks/grub.d/15_hardinit scripts/build-deb \
		debian/postinst debian/postrm tests/vm/deb-chroot.bash
}
