#!/usr/bin/env bash
# systemd-pcrlock (systemd 255 and later) for a Debian 12 guest, whose own
# systemd (252) has none, and systemd-pcrextend, the tool that appends to
# the userspace event log (252's pcrphase writes none): Debian 13's
# (systemd 257, both from the systemd package) with the few trixie
# libraries they need that bookworm's are too old for (libc, libcrypto,
# libsystemd-shared, the TPM2 software stack it dlopens), on an ext4 image
# labelled "pcrlock" (bin/systemd-pcrlock, bin/systemd-pcrextend, lib/)
# that the guest mounts and runs through trixie's dynamic loader. The rest
# (libacl, libmount, libpam, ...) is the guest's own. Fetched with apt
# from Debian's archive under a private apt configuration (the host's apt
# state is not touched), built once into /var/cache/hardinit/pcrlock,
# keyed by the package list and the build function.
#
# pcrlock_image: prints the image's path; 1 with one line when apt cannot
# fetch trixie's packages.

PCRLOCK_SUITE=${PCRLOCK_SUITE:-trixie}
PCRLOCK_PACKAGES=(systemd libsystemd-shared libc6 libssl3t64 libtss2-esys-3.0.2-0t64 libtss2-mu-4.0.1-0t64
	libtss2-rc0t64 libtss2-sys1t64 libtss2-tctildr0t64 libtss2-tcti-device0t64)
PCRLOCK_CACHE=${PCRLOCK_CACHE:-/var/cache/hardinit/pcrlock}

_pcrlock_build() {
	local out=$1 tmp tree deb
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcrlock.XXXXXX") || return 1
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs" "$tmp/x"
	printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$(img_apt_mirror)" "$PCRLOCK_SUITE" >"$tmp/sources.list"
	cat >"$tmp/apt.conf" <<-CONF
		Dir::Etc::SourceList "$tmp/sources.list";
		Dir::Etc::SourceParts "/dev/null";
		Dir::State::Lists "$tmp/lists";
		Dir::Cache "$tmp/cache";
		Dir::Etc::Preferences "/dev/null";
		Dir::Etc::PreferencesParts "/dev/null";
		APT::Sandbox::User "root";
		Debug::NoLocking "true";
	CONF
	if ! (cd "$tmp/debs" && APT_CONFIG=$tmp/apt.conf apt-get -q update >"$tmp/apt.log" 2>&1 &&
		APT_CONFIG=$tmp/apt.conf apt-get -q download "${PCRLOCK_PACKAGES[@]}" >>"$tmp/apt.log" 2>&1); then
		printf 'pcrlock: apt could not fetch %s packages: %s\n' "$PCRLOCK_SUITE" "$(tail -n 2 "$tmp/apt.log")" >&2
		rm -rf "$tmp"
		return 1
	fi
	for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; return 1; }; done
	# Only what pcrlock and pcrextend load: their binaries, trixie's
	# loader and libraries.
	tree=$tmp/tree
	mkdir -p "$tree/lib" "$tree/bin"
	cp "$tmp/x/usr/lib/systemd/systemd-pcrlock" "$tmp/x/usr/lib/systemd/systemd-pcrextend" "$tree/bin/" ||
		{ rm -rf "$tmp"; return 1; }
	cp -a "$tmp"/x/usr/lib/x86_64-linux-gnu/{ld-linux-x86-64.so.2,libc.so.6,libm.so.6,libcrypto.so.3} "$tree/lib/"
	cp -a "$tmp"/x/usr/lib/x86_64-linux-gnu/libtss2-* "$tree/lib/"
	cp -a "$tmp"/x/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-*.so "$tree/lib/"
	ls "$tmp/debs" >"$tree/PACKAGES"
	vm_rootfs "$out.new" "$tree" -L pcrlock >&2 && mv "$out.new" "$out"
	local rc=$?
	rm -rf "$tmp"
	return "$rc"
}

pcrlock_image() {
	local key out
	key=$(printf '%s\n' "$PCRLOCK_SUITE" "${PCRLOCK_PACKAGES[@]}" "$(declare -f _pcrlock_build)" | sha256sum | cut -c1-16)
	out=$PCRLOCK_CACHE/pcrlock-$key.img
	mkdir -p "$PCRLOCK_CACHE"
	if [[ ! -f $out ]]; then
		(
			flock 9
			[[ -f $out ]] && exit 0
			_pcrlock_build "$out"
		) 9>"$PCRLOCK_CACHE/.lock" || return 1
	fi
	printf '%s\n' "$out"
}
