#!/usr/bin/env bats
# The Debian package, installed into a Debian 12 chroot made with
# debootstrap (tests/vm/deb-chroot.bash): apt pulls its dependencies, a
# kernel package's hooks build and remove the hardinit image, update-hardinit
# rebuilds, a broken conffile fails cleanly and keeps the last good image,
# purge removes everything; then the image the hooks built boots the
# Debian/systemd test root in QEMU to multi-user.target.
#
# The tests share one chroot and run in file order: each starts from the
# state the one before left (package installed, kernel installed, ...).
# Every check reads the chroot's files from the host (raw bytes, the
# unpacked image), not update-hardinit's own words; the boot is checked by
# the guest's probe (tests/vm/images.bash).

# budget: 105 s
# cold: 45 s images/deb-chroot-*/tree.done

bats_require_minimum_version 1.5.0

load lib
load images
load deb-chroot

DEB_BOOT_TIMEOUT=${DEBIAN_TIMEOUT:-600}
# As tests/vm/debian.bats boots the same root.
DEB_BOOT_APPEND="root=/dev/vda security=selinux systemd.show_status=error hardinit.boot.failure_action=poweroff"
CONF_PATH=etc/hardinit/mkinitramfs.conf

setup_file() {
	DEB=$(vm_deb) || return 1
	PKG_VERSION=$(cd "$HARDINIT_SRC" && dpkg-parsechangelog -S Version)
	KVER=$(vm_kver 6.12)
	ROOT=$BATS_FILE_TMPDIR/root
	export DEB KVER ROOT PKG_VERSION
	debc_fresh "$ROOT"
	debc_dummy_kernel "$BATS_FILE_TMPDIR/kernel.deb" "$KVER"
	cp "$DEB" "$BATS_FILE_TMPDIR/kernel.deb" "$ROOT/tmp/"
	# initramfs-tools' image of the kernel: no step may write or remove it.
	echo "initramfs-tools' image, not hardinit's" >"$ROOT/boot/initrd.img-$KVER"
}

teardown_file() {
	# Every mount was made in a namespace that ended with its command.
	[[ -z ${ROOT:-} ]] || rm -rf "$ROOT"
}

in_root() {
	debc_run "$ROOT" "$@"
}

conf_set() {
	local key=$1 val=$2
	grep -q "^$key=" "$ROOT/$CONF_PATH" || { echo "no $key in the conffile" >&2; return 1; }
	sed -i "s|^$key=.*|$key=\"$val\"|" "$ROOT/$CONF_PATH"
}

# Unpack image FILE (zstd, or not compressed) into DIR, as the kernel would see it.
unpack_image() {
	local img=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	{ zstd -dcq -- "$img" 2>/dev/null || cat -- "$img"; } |
		(cd "$dir" && cpio -idm --quiet --no-absolute-filenames)
}

pkg_status() {
	in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null || :
}

assert_initrd_untouched() {
	[[ $(cat "$ROOT/boot/initrd.img-$KVER") == "initramfs-tools' image, not hardinit's" ]] ||
		{ echo "/boot/initrd.img-$KVER changed or vanished" >&2; return 1; }
}

@test "deb: apt-get install ./hardinit_*.deb in a Debian 12 chroot pulls its dependencies" {
	# minbase has neither: apt must fetch them.
	[[ $(pkg_status zstd) != "install ok installed" ]]
	[[ $(pkg_status kmod) != "install ok installed" ]]
	run in_root sh -c 'cd /tmp && apt-get install -y -q ./hardinit_*.deb'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(pkg_status hardinit) == "install ok installed" ]]
	[[ $(pkg_status zstd) == "install ok installed" ]]
	[[ $(pkg_status kmod) == "install ok installed" ]]
	# No kernel yet: the postinst has nothing to build and says so.
	[[ $output == *"no installed kernels"* ]]
	run in_root /usr/sbin/hardinit --version
	[ "$output" = "hardinit $PKG_VERSION" ]
	grep -qx /etc/hardinit/mkinitramfs.conf "$ROOT/var/lib/dpkg/info/hardinit.conffiles"
}

@test "deb: installing a kernel package builds /boot/hardinit.img-KVER, a hardinit initramfs with the conffile's profile" {
	conf_set PROFILE strict
	# A chroot is not the machine the image boots: TARGET=auto builds a
	# generic image there (the last test below); this one builds for QEMU.
	conf_set TARGET virtio
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run in_root dpkg -i /tmp/kernel.deb
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"/etc/kernel/postinst.d/hardinit"* ]]
	[[ -s $ROOT/boot/hardinit.img-$KVER ]]
	unpack_image "$ROOT/boot/hardinit.img-$KVER" "$BATS_TEST_TMPDIR/img"
	cmp "$BATS_TEST_TMPDIR/img/init" "$ROOT/usr/sbin/hardinit"
	cmp "$BATS_TEST_TMPDIR/img/etc/hardinit.conf" "$ROOT/usr/share/hardinit/profiles/strict.conf"
	[[ -c $BATS_TEST_TMPDIR/img/dev/console ]] || [[ -e $BATS_TEST_TMPDIR/img/dev/console ]]
	assert_initrd_untouched
	# No temporary file is left next to the image.
	[[ -z $(find "$ROOT/boot" -name '.*') ]]
}

@test "deb: update-hardinit -k all rebuilds every kernel's image from the changed conffile" {
	conf_set PROFILE baseline
	conf_set TARGET virtio
	before=$(sha256sum <"$ROOT/boot/hardinit.img-$KVER")
	run in_root update-hardinit -k all
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(sha256sum <"$ROOT/boot/hardinit.img-$KVER") != "$before" ]]
	unpack_image "$ROOT/boot/hardinit.img-$KVER" "$BATS_TEST_TMPDIR/img"
	cmp "$BATS_TEST_TMPDIR/img/etc/hardinit.conf" "$ROOT/usr/share/hardinit/profiles/baseline.conf"
	grep -q "/lib/modules/$KVER/.*/virtio_blk\.ko" "$BATS_TEST_TMPDIR/img/etc/hardinit/modules"
	[[ -f $(find "$BATS_TEST_TMPDIR/img/lib/modules/$KVER" -name 'virtio_blk.ko*' | head -n 1) ]]
	# The boot test below boots this very file.
	cp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/hook.img"
	assert_initrd_untouched
}

@test "deb: a broken conffile makes the hook fail with a clear message and keeps the previous image" {
	good=$(sha256sum <"$ROOT/boot/hardinit.img-$KVER")
	cp "$ROOT/$CONF_PATH" "$BATS_FILE_TMPDIR/conf.good"
	echo "COMPRESSION=xz" >>"$ROOT/$CONF_PATH"
	line=$(wc -l <"$ROOT/$CONF_PATH")
	# The kernel's postinst calls the hooks so: by default a failed build
	# does not fail the kernel's installation.
	run in_root run-parts --report --exit-on-error --arg="$KVER" --arg="/boot/vmlinuz-$KVER" /etc/kernel/postinst.d
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"mkinitramfs.conf:$line: unknown setting COMPRESSION"* ]]
	[[ $output == *"every existing image is kept"* ]]
	[[ $(sha256sum <"$ROOT/boot/hardinit.img-$KVER") == "$good" ]]
	# The admin's command fails.
	run in_root update-hardinit -k "$KVER"
	[ "$status" -eq 1 ]
	[[ $output == *"unknown setting COMPRESSION"* ]]
	# With FAIL_KERNEL_POSTINST=yes the kernel's postinst fails too.
	conf_set FAIL_KERNEL_POSTINST yes
	run in_root run-parts --report --exit-on-error --arg="$KVER" --arg="/boot/vmlinuz-$KVER" /etc/kernel/postinst.d
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $(sha256sum <"$ROOT/boot/hardinit.img-$KVER") == "$good" ]]
	assert_initrd_untouched
	cp "$BATS_FILE_TMPDIR/conf.good" "$ROOT/$CONF_PATH"
}

@test "deb: a failed build (unknown module) keeps the previous image and leaves no temporary file" {
	good=$(sha256sum <"$ROOT/boot/hardinit.img-$KVER")
	cp "$ROOT/$CONF_PATH" "$BATS_FILE_TMPDIR/conf.good"
	conf_set MODULES "no_such_module"
	run in_root update-hardinit -k "$KVER"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"module no_such_module not found"* ]]
	[[ $output == *"the previous image is kept"* ]]
	[[ $(sha256sum <"$ROOT/boot/hardinit.img-$KVER") == "$good" ]]
	[[ -z $(find "$ROOT/boot" -name '.*') ]]
	cp "$BATS_FILE_TMPDIR/conf.good" "$ROOT/$CONF_PATH"
}

@test "deb: the kernel-install plugin removes and builds the image" {
	plugin=/usr/lib/kernel/install.d/50-hardinit.install
	run in_root "$plugin" remove "$KVER" /tmp/entry
	[ "$status" -eq 0 ]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run in_root "$plugin" add "$KVER" /tmp/entry "/boot/vmlinuz-$KVER"
	echo "$output"
	[ "$status" -eq 0 ]
	# Reproducible: the same bytes as the hook's build.
	cmp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/hook.img"
	assert_initrd_untouched
}

# The builder's UKI interface (hardinit-mkinitramfs --uki OUT --kernel
# VMLINUZ [--cmdline WORDS] [--sign-key KEY --sign-cert CERT]): a stand-in
# that records its arguments checks how update-hardinit calls it; the real
# builder is tested below.
@test "deb: UKI=yes calls the builder's --uki interface and writes ESP/EFI/Linux/hardinit-KVER.efi" {
	cp "$ROOT/$CONF_PATH" "$BATS_FILE_TMPDIR/conf.good"
	initrd_before=$(sha256sum <"$ROOT/boot/hardinit.img-$KVER")
	cat >"$ROOT/tmp/uki-builder" <<-'EOF'
		#!/bin/sh
		if [ "$1" = --help ]; then echo "  --uki OUT.efi  a unified kernel image"; exit 0; fi
		printf '%s\n' "$@" >/tmp/uki-builder.args
		while [ $# -gt 0 ]; do
			[ "$1" = --uki ] && printf 'MZ stand-in UKI\n' >"$2"
			shift
		done
	EOF
	chmod 0755 "$ROOT/tmp/uki-builder"
	conf_set UKI yes
	conf_set UKI_CMDLINE "root=/dev/vda ro"
	conf_set UKI_SIGN_KEY /etc/keys/db.key
	conf_set UKI_SIGN_CERT /etc/keys/db.crt
	# The db key is root's alone (update-hardinit refuses any other).
	mkdir -m 0700 "$ROOT/etc/keys"
	echo "stand-in key" >"$ROOT/etc/keys/db.key"
	echo "stand-in certificate" >"$ROOT/etc/keys/db.crt"
	chmod 0644 "$ROOT/etc/keys/db.key"
	run in_root env HARDINIT_MKINITRAMFS=/tmp/uki-builder update-hardinit -k "$KVER"
	[ "$status" -eq 1 ]
	[[ $output == *"UKI_SIGN_KEY /etc/keys/db.key: mode 0644"* ]]
	chmod 0600 "$ROOT/etc/keys/db.key"
	# No ESP yet: a clear error, nothing written.
	run in_root env HARDINIT_MKINITRAMFS=/tmp/uki-builder update-hardinit -k "$KVER"
	[ "$status" -eq 1 ]
	[[ $output == *"UKI=yes but no ESP found"* ]]
	mkdir -p "$ROOT/boot/efi/EFI"
	run in_root env HARDINIT_MKINITRAMFS=/tmp/uki-builder update-hardinit -k "$KVER"
	echo "$output"
	[ "$status" -eq 0 ]
	uki=$ROOT/boot/efi/EFI/Linux/hardinit-$KVER.efi
	[[ $(cat "$uki") == "MZ stand-in UKI" ]]
	args=$(cat "$ROOT/tmp/uki-builder.args")
	echo "$args"
	grep -qxF -- --uki <<<"$args"
	grep -A1 -xF -- --uki <<<"$args" | tail -n 1 | grep -q "^/boot/efi/EFI/Linux/\.hardinit-$KVER\.efi\.new\."
	grep -A1 -xF -- --kernel <<<"$args" | tail -n 1 | grep -qxF "/boot/vmlinuz-$KVER"
	grep -A1 -xF -- --cmdline <<<"$args" | tail -n 1 | grep -qxF "root=/dev/vda ro"
	grep -A1 -xF -- --sign-key <<<"$args" | tail -n 1 | grep -qxF /etc/keys/db.key
	grep -A1 -xF -- --sign-cert <<<"$args" | tail -n 1 | grep -qxF /etc/keys/db.crt
	run ! grep -qxF -- -o <<<"$args"
	# The initramfs of UKI=no is left as it was; delete removes both.
	[[ $(sha256sum <"$ROOT/boot/hardinit.img-$KVER") == "$initrd_before" ]]
	run in_root env HARDINIT_MKINITRAMFS=/tmp/uki-builder update-hardinit -d -k "$KVER"
	[ "$status" -eq 0 ]
	[[ ! -e $uki ]]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	# A builder without --uki: the error says so.
	printf '#!/bin/sh\necho "  -o OUT"\n' >"$ROOT/tmp/old-builder"
	chmod 0755 "$ROOT/tmp/old-builder"
	run in_root env HARDINIT_MKINITRAMFS=/tmp/old-builder update-hardinit -k "$KVER"
	[ "$status" -eq 1 ]
	[[ $output == *"has no --uki option; set UKI=no"* ]]
	cp "$BATS_FILE_TMPDIR/conf.good" "$ROOT/$CONF_PATH"
	rm -rf "$ROOT/boot/efi" "$ROOT/etc/keys"
	run in_root update-hardinit -k "$KVER"
	[ "$status" -eq 0 ]
	cmp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/hook.img"
}

@test "deb: UKI=yes with the real builder writes a PE image to ESP/EFI/Linux/" {
	# The packaged builder has --uki: without it this is a regression, a
	# failure, never a skip.
	in_root /usr/sbin/hardinit-mkinitramfs --help | grep -q -- '--uki' ||
		{ echo "the packaged hardinit-mkinitramfs lost --uki (its --help does not name it)" >&2; return 1; }
	cp "$ROOT/$CONF_PATH" "$BATS_FILE_TMPDIR/conf.good"
	# What a UKI build needs beyond the package (the EFI stub, objcopy).
	run in_root apt-get install -y -q systemd-boot-efi binutils
	[ "$status" -eq 0 ]
	mkdir -p "$ROOT/boot/efi/EFI"
	conf_set UKI yes
	conf_set UKI_CMDLINE "root=/dev/vda ro"
	run in_root update-hardinit -v -k "$KVER"
	echo "$output"
	[ "$status" -eq 0 ]
	uki=$ROOT/boot/efi/EFI/Linux/hardinit-$KVER.efi
	[ "$(head -c 2 "$uki")" = MZ ]
	objdump -h "$uki" | grep -q '\.linux'
	objdump -h "$uki" | grep -q '\.initrd'
	cp "$BATS_FILE_TMPDIR/conf.good" "$ROOT/$CONF_PATH"
	rm -rf "$ROOT/boot/efi"
}

@test "deb: the GRUB snippet adds a hardinit entry per kernel only with GRUB=yes" {
	run in_root env GRUB_DEVICE=/dev/vda /etc/grub.d/15_hardinit
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	conf_set GRUB yes
	conf_set GRUB_CMDLINE "security=selinux"
	run in_root env GRUB_DEVICE=/dev/vda /etc/grub.d/15_hardinit
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"menuentry 'Debian GNU/Linux, with Linux $KVER (hardinit)'"*"'hardinit-$KVER'"* ]]
	grep -qxF "	linux	/boot/vmlinuz-$KVER root=/dev/vda ro security=selinux" <<<"$output"
	grep -qxF "	initrd	/boot/hardinit.img-$KVER" <<<"$output"
	conf_set GRUB no
}

@test "deb: the image the kernel hook built boots Debian/systemd to multi-user.target" {
	[[ -f $BATS_FILE_TMPDIR/hook.img ]] || skip "no image from the update-hardinit test"
	img=$(img_debian_systemd permissive)
	log=$BATS_FILE_TMPDIR/boot.log
	vm_boot "$log" --initrd "$BATS_FILE_TMPDIR/hook.img" --disk "$img" --mem 1024 \
		--timeout "$DEB_BOOT_TIMEOUT" --append "$DEB_BOOT_APPEND" -- -snapshot
	vm_assert_log_contains "$log" "hardinit: handing off to /sbin/init"
	vm_assert_log_contains "$log" "=== PROBE DONE ==="
	[[ $(vm_exit_reason "$log") == poweroff ]] || _vm_fail "$log" "expected a poweroff"
	vm_assert_section_line "$log" INIT "comm=systemd"
	vm_assert_section_line "$log" SYSTEMD "multi-user=active"
	vm_assert_section_line "$log" SYSTEMD "state=running"
	# The root is the virtio disk: virtio_blk (a module of this kernel) came
	# from the image's load list.
	vm_assert_section_contains "$log" MOUNTS " - ext4 /dev/vda "
}

@test "deb: installing the same kernel package again keeps the image in between and rebuilds it" {
	run in_root dpkg -i /tmp/kernel.deb
	echo "$output"
	[ "$status" -eq 0 ]
	# The old package's postrm ran the postrm.d hooks with "upgrade".
	[[ $output != *"removed /boot/hardinit.img-$KVER"* ]]
	[[ $output == *"built /boot/hardinit.img-$KVER"* ]]
	cmp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/hook.img"
	# The postrm.d hook as the old package's postrm calls it on an upgrade.
	run in_root env DEB_MAINT_PARAMS="upgrade 1" /etc/kernel/postrm.d/hardinit "$KVER" "/boot/vmlinuz-$KVER"
	[ "$status" -eq 0 ]
	[[ -s $ROOT/boot/hardinit.img-$KVER ]]
	# And on a kernel's postinst run for anything but configure, nothing is built.
	rm "$ROOT/boot/hardinit.img-$KVER"
	run in_root env DEB_MAINT_PARAMS="abort-upgrade 1" /etc/kernel/postinst.d/hardinit "$KVER" "/boot/vmlinuz-$KVER"
	[ "$status" -eq 0 ]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run in_root env DEB_MAINT_PARAMS="configure 1" /etc/kernel/postinst.d/hardinit "$KVER" "/boot/vmlinuz-$KVER"
	[ "$status" -eq 0 ]
	cmp "$ROOT/boot/hardinit.img-$KVER" "$BATS_FILE_TMPDIR/hook.img"
}

@test "deb: removing the kernel package removes its hardinit image, not initramfs-tools' one" {
	run in_root dpkg -r "linux-image-$KVER"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"/etc/kernel/postrm.d/hardinit"* ]]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run ! grep -q "hardinit.img-$KVER" "$ROOT/var/lib/hardinit/images"
	assert_initrd_untouched
}

@test "deb: purge removes every image it built (also under an old OUTPUT) and the conffile" {
	run in_root dpkg -i /tmp/kernel.deb
	[ "$status" -eq 0 ]
	[[ -s $ROOT/boot/hardinit.img-$KVER ]]
	# An image under another OUTPUT, then back to the default.
	mkdir -p "$ROOT/boot/old"
	conf_set OUTPUT "/boot/old/hi-%v"
	run in_root update-hardinit -k all
	[ "$status" -eq 0 ]
	[[ -s $ROOT/boot/old/hi-$KVER ]]
	run in_root apt-get purge -y -q hardinit
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(pkg_status hardinit) != "install ok installed" ]]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	[[ ! -e $ROOT/boot/old/hi-$KVER ]]
	[[ ! -e $ROOT/etc/hardinit/mkinitramfs.conf ]]
	[[ ! -e $ROOT/var/lib/hardinit ]]
	assert_initrd_untouched
}

@test "deb: installing the package on a system with a kernel builds that kernel's image in its postinst" {
	[[ $(pkg_status "linux-image-$KVER") == "install ok installed" ]]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run in_root sh -c 'cd /tmp && apt-get install -y -q ./hardinit_*.deb'
	echo "$output"
	[ "$status" -eq 0 ]
	# The default TARGET=auto finds no machine in a chroot (no mount at /):
	# the postinst builds a generic image and says why (tests/vm/chroot.bats
	# boots one).
	[[ $output == *"generic image: no live root seen (nothing is mounted at / "*": a chroot)"* ]]
	[[ -s $ROOT/boot/hardinit.img-$KVER ]]
	unpack_image "$ROOT/boot/hardinit.img-$KVER" "$BATS_TEST_TMPDIR/img"
	grep -q ' virtio_blk$' "$BATS_TEST_TMPDIR/img/etc/hardinit/modules.devices"
	conf_set TARGET virtio
	run in_root update-hardinit -k all
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"built /boot/hardinit.img-$KVER"* ]]
	unpack_image "$ROOT/boot/hardinit.img-$KVER" "$BATS_TEST_TMPDIR/img"
	cmp "$BATS_TEST_TMPDIR/img/init" "$ROOT/usr/sbin/hardinit"
	cmp "$BATS_TEST_TMPDIR/img/etc/hardinit.conf" "$ROOT/usr/share/hardinit/profiles/baseline.conf"
	# Then the kernel goes, and its image with it.
	run in_root dpkg -r "linux-image-$KVER"
	[ "$status" -eq 0 ]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	assert_initrd_untouched
}

@test "deb: after apt remove (not purge) the hooks left as conffiles let kernels install and go" {
	run in_root apt-get remove -y -q hardinit
	[ "$status" -eq 0 ]
	[[ -x $ROOT/etc/kernel/postinst.d/hardinit && ! -e $ROOT/usr/sbin/update-hardinit ]]
	run in_root dpkg -i /tmp/kernel.deb
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ! -e $ROOT/boot/hardinit.img-$KVER ]]
	run in_root dpkg -r "linux-image-$KVER"
	[ "$status" -eq 0 ]
	assert_initrd_untouched
}
