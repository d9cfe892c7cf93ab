#!/usr/bin/env bats
# A signed root hash: the kernel checks a PKCS#7 signature over
# the hex root hash against its trusted keys. OVMF with Secure Boot on and
# Debian's snakeoil-enrolled variables (OVMF_VARS_4M.snakeoil.fd: PK, KEK
# and db hold PkKek-1-snakeoil.pem), so Debian's 6.12 cloud kernel loads
# the db into its platform keyring (CONFIG_LOAD_UEFI_KEYS), which dm-verity
# trusts (CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG_PLATFORM_KEYRING). Each
# image is a UKI signed by the same db key, built by hardinit-mkinitramfs
# with the appliance profile ([verity] require_signature = yes, locked)
# and --verity-roothash-sig; the root is on vda, its tree on vdb.
#
# Boots: a hash signed by the db key (with dm_verity.require_signatures=1
# on the command line too) boots; a hash signed by another key, a
# corrupted signature and no signature are each refused with the failure
# action. The guest's truth: the live table read by tests/probe/dmtable,
# the module parameter in /sys, /proc/keys and the kernel log.

# budget: 85 s

load lib
load images

UEFI_TIMEOUT=${UEFI_TIMEOUT:-300}
CMDLINE="root=LABEL=vroot console=ttyS0 panic=-1 hardinit.boot.failure_delay=0"

PROBE='
echo "=== BEGIN SIG ==="
/probe/dmtable root | grep -e "^target=" -e "^status=" -e "^table="
echo "require_signatures=$(cat /sys/module/dm_verity/parameters/require_signatures 2>&1)"
echo "keys_named_hardinit=$(grep -c hardinit: /proc/keys)"
dn=$(awk "\$5 == \"/\" { print \$3 }" /proc/self/mountinfo | tail -n 1)
echo "root_dm=$(cat /sys/dev/block/$dn/dm/name 2>&1)"
echo "=== END SIG ==="
echo "=== BEGIN KLOG ==="
dmesg | grep -i -e "verity" -e "UEFI:db" -e "X.509" -e "secureboot" | sed "s/^\\[[ 0-9.]*\\] //"
echo "=== END KLOG ==="
'

setup_file() {
	vm_have_ovmf secure || return 0
	command -v veritysetup >/dev/null || return 0
	local dir kdir kver size
	dir=$(vm_cache_dir)/verity_sig
	export SDIR=$dir
	mkdir -p "$dir"
	[[ -f $dir/ready ]] && return 0
	rm -f "$dir"/*.log "$dir"/*.done
	kdir=$(vm_kernel_dir 6.12)
	kver=$(cat "$kdir/kver")
	# The kernel this suite relies on must have the signature check and
	# trust the firmware's db; say so instead of failing obscurely.
	grep -qx CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG_PLATFORM_KEYRING=y "$kdir/boot/config-$kver" || {
		echo "the 6.12 kernel lacks CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG_PLATFORM_KEYRING" >"$dir/nokernel"
		return 0
	}

	rm -rf "$dir/root" && mkdir -p "$dir/root"
	vm_stage_root "$dir/root"
	vm_probe_script "$dir/root" "$PROBE"
	vm_rootfs "$dir/root.img" "$dir/root" -b 4096 -L vroot
	size=$(stat -c %s "$dir/root.img")
	truncate -s $(((size + 4095) / 4096 * 4096)) "$dir/root.img"
	veritysetup format "$dir/root.img" "$dir/hash.img" | awk '/^Root hash:/ { print $3 }' >"$dir/roothash"

	vm_snakeoil_key "$dir/db.key"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/other.key" -out "$dir/other.pem" \
		-subj "/CN=not in db" -days 30 2>/dev/null
	sign "$dir/db.key" "$VM_OVMF_SNAKEOIL.pem" "$dir/good.p7s"
	sign "$dir/other.key" "$dir/other.pem" "$dir/other.p7s"
	# One byte of the RSA signature (the DER's last bytes) changed.
	cp "$dir/good.p7s" "$dir/corrupt.p7s"
	printf '\x5a' | dd of="$dir/corrupt.p7s" bs=1 seek=$(($(stat -c %s "$dir/good.p7s") - 8)) conv=notrunc status=none

	local -a common=(--profile appliance --sign-key "$dir/db.key" --sign-cert "$VM_OVMF_SNAKEOIL.pem"
		--verity-roothash "$(cat "$dir/roothash")" --verity-data LABEL=vroot --verity-hash /dev/vdb)
	local name
	vm_uki "$dir/good.efi" "${common[@]}" \
		--verity-roothash-sig "$dir/good.p7s" --cmdline "$CMDLINE dm_verity.require_signatures=1" >"$dir/good.build"
	for name in other corrupt; do
		vm_uki "$dir/$name.efi" "${common[@]}" \
			--verity-roothash-sig "$dir/$name.p7s" --cmdline "$CMDLINE" >"$dir/$name.build"
	done
	vm_uki "$dir/unsigned.efi" "${common[@]}" \
		--cmdline "$CMDLINE" >"$dir/unsigned.build"
	for name in good other corrupt unsigned; do
		vm_make_esp "$dir/$name.efi" "$dir/$name.esp"
	done
	touch "$dir/ready"
}

# systemd's convention: a detached PKCS#7 over the hex root hash, no
# newline, no certificates, no attributes, DER.
sign() {
	printf '%s' "$(cat "$SDIR/roothash")" |
		openssl smime -sign -nocerts -noattr -binary -inkey "$1" -signer "$2" -outform der -out "$3"
}


# boot_once NAME: Secure Boot with the snakeoil db, the ESP of NAME.efi
# after the root and its tree; one boot per NAME for every test reading it.
boot_once() {
	local name=$1 log=$SDIR/$1.log
	if [[ ! -f $log.done ]]; then
		vm_ovmf_boot "$log" secure "$UEFI_TIMEOUT" "" -drive "file=$SDIR/root.img,if=virtio,format=raw,readonly=on" \
			-drive "file=$SDIR/hash.img,if=virtio,format=raw,readonly=on" \
			-drive "file=$SDIR/$name.esp,if=virtio,format=raw,readonly=on" || true
		touch "$log.done"
	fi
	echo "$log"
}

setup() {
	vm_need_ovmf secure
	command -v veritysetup >/dev/null || skip "veritysetup missing (cryptsetup-bin; scripts/install-deps)"
	[[ ! -f ${SDIR:-}/nokernel ]] || { cat "$SDIR/nokernel"; false; }
	[[ -f ${SDIR:-}/ready ]] || { echo "images not built"; false; }
}

@test "signed by the db key: the appliance boots with require_signature; the kernel checked the signature" {
	local log
	log=$(boot_once good)
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	# The db the kernel loaded into its platform keyring holds the snakeoil cert.
	vm_assert_section_contains "$log" KLOG "UEFI:db"
	vm_assert_section_contains "$log" KLOG "SnakeOil"
	vm_assert_done "$log"
	vm_assert_section_line "$log" SIG "target=verity"
	vm_assert_section_line "$log" SIG "status=V"
	vm_assert_section_contains "$log" SIG " $(cat "$SDIR/roothash") "
	vm_assert_section_contains "$log" SIG "root_hash_sig_key_desc hardinit:verity:root"
	vm_assert_section_line "$log" SIG "root_dm=root"
	# The command line's module word reached dm-verity (the kernel itself
	# would refuse an unsigned table), and the key is gone after the load.
	vm_assert_section_line "$log" SIG "require_signatures=Y"
	vm_assert_section_line "$log" SIG "keys_named_hardinit=0"
	vm_assert_section_line "$log" REPORT "verity signature ok checked by the kernel (key hardinit:verity:root)"
	vm_assert_section_contains "$log" REPORT "verity kernel_require_signatures ok"
}

@test "signed by a key the firmware's db does not hold: refused by the kernel, then the failure action" {
	local log
	log=$(boot_once other)
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	vm_assert_log_contains "$log" "verity: the kernel refused the root hash"
	vm_assert_log_contains "$log" "does not verify against a trusted key"
	vm_assert_log_contains "$log" "Root hash verification failed"
	vm_assert_log_contains "$log" "taking the failure action: reboot"
	vm_assert_log_lacks "$log" "mounted root"
	[ "$(vm_exit_reason "$log")" = reboot ]
}

@test "a corrupted signature (one byte of the db key's): refused by the kernel, then the failure action" {
	local log
	log=$(boot_once corrupt)
	cmp -s "$SDIR/good.p7s" "$SDIR/corrupt.p7s" && { echo "the corrupted copy is unchanged"; false; }
	vm_assert_log_contains "$log" "secureboot: Secure boot enabled"
	vm_assert_log_contains "$log" "verity: the kernel refused the root hash"
	vm_assert_log_contains "$log" "Root hash verification failed"
	vm_assert_log_contains "$log" "taking the failure action: reboot"
	vm_assert_log_lacks "$log" "mounted root"
	[ "$(vm_exit_reason "$log")" = reboot ]
}

@test "no signature under the appliance's require_signature: refused before any table, then the failure action" {
	local log
	log=$(boot_once unsigned)
	vm_assert_log_contains "$log" "has no signature, and [verity] require_signature = yes refuses an unsigned root"
	vm_assert_log_contains "$log" "taking the failure action: reboot"
	vm_assert_log_lacks "$log" "mounted root"
	vm_assert_log_lacks "$log" "device-mapper: verity"
	[ "$(vm_exit_reason "$log")" = reboot ]
}
