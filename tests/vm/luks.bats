#!/usr/bin/env bats
# LUKS2 root (the passphrase path): hardinit opens a volume made
# by Debian's cryptsetup with a passphrase typed on the serial console, and
# mounts /dev/mapper/NAME as /. The volume is made on the host without
# opening it: cryptsetup luksFormat with a known volume key
# (--volume-key-file), then an ext4 image (mke2fs -d) encrypted in user space
# (build/tools/luks2-tool encrypt: OpenSSL's AES-XTS, plain64, 512-byte
# sectors) and written at the data offset. So the guest's kernel (dm-crypt)
# decrypting it is the independent check that hardinit found the right key,
# segment and table. The guest's truth: /proc/self/mountinfo,
# /sys/dev/block/MAJ:MIN/dm/{name,uuid}, tests/probe/dmtable (its own
# DM_TABLE_STATUS), the file's checksum.
#
# Boots (Debian 6.12, seven): rd.luks.uuid= with a wrong then the right
# passphrase; three wrong passphrases (the failure action, poweroff); the
# builder's crypttab naming the volume, with the primary header damaged;
# the TPM2 token with swtpm, a passphrase unlock with swtpm, without a TPM
# and with a TPM that stops answering (below).

# budget: 85 s

load lib

PASS='c0rrect horse battery'
UUID=6a0e4d1c-2b3f-4c5d-8e9f-0a1b2c3d4e5f

PROBE='
echo "=== BEGIN ROOTDEV ==="
dn=$(awk "\$5 == \"/\" { print \$3 }" /proc/self/mountinfo | tail -n 1)
awk "\$5 == \"/\" { for (i = 7; i <= NF; i++) if (\$i == \"-\") { print \"fstype=\" \$(i+1); print \"source=\" \$(i+2) } }" /proc/self/mountinfo | tail -n 2
echo "dm_name=$(cat /sys/dev/block/$dn/dm/name 2>&1)"
echo "dm_uuid=$(cat /sys/dev/block/$dn/dm/uuid 2>&1)"
echo "udev_db=$(tr "\n" " " </run/udev/data/b$dn 2>&1)"
echo "slaves=$(ls /sys/dev/block/$dn/slaves 2>&1 | tr "\n" " ")"
echo "=== END ROOTDEV ==="
echo "=== BEGIN DMTABLE ==="
/probe/dmtable "$(cat /sys/dev/block/$dn/dm/name)"
echo "=== END DMTABLE ==="
echo "=== BEGIN WORKS ==="
sha256sum /data/hello.txt 2>&1
echo "=== END WORKS ==="
echo "=== BEGIN TPMH ==="
/probe/tpm_handles 2>&1
echo "pcr15=$(cat /sys/class/tpm/tpm0/pcr-sha256/15 2>&1)"
echo "=== END TPMH ==="
'

setup_file() {
	command -v cryptsetup >/dev/null || skip "cryptsetup missing (cryptsetup-bin; scripts/install-deps)"
	make -s -C "$HARDINIT_SRC" build/tools/luks2-tool >&2 || return 1
	local dir root
	dir=$(vm_cache_dir)/luks
	export LDIR=$dir
	mkdir -p "$dir"
	[[ -f $dir/ready ]] && return 0
	root=$dir/root
	rm -rf "$root" "$dir"/*.log && mkdir -p "$root"
	vm_stage_root "$root"
	mkdir -p "$root/data"
	head -c 65536 /dev/urandom >"$root/data/hello.txt"
	sha256sum "$root/data/hello.txt" | cut -d' ' -f1 >"$dir/hello.sha256"
	vm_probe_script "$root" "$PROBE"
	vm_rootfs "$dir/plain.img" "$root" -L lroot
	vm_luks_image "$dir/plain.img" "$dir/key.bin" "$dir/luks.img" "$UUID" "$PASS" || return 1
	cp "$dir/luks.img" "$dir/damaged.img"
	printf 'XXXX' | dd of="$dir/damaged.img" bs=1 seek=5000 conv=notrunc status=none
	cat >"$dir/fail.conf" <<-'EOF'
		[boot]
		failure_action = poweroff
		failure_delay = 0
		root_timeout = 5
		lock_cmdline = no
	EOF
	printf 'cryptroot UUID=%s none luks,discard\n' "$UUID" >"$dir/crypttab"
	vm_initramfs "$dir/luks-initrd.img" --config "$dir/fail.conf" --luks >/dev/null || return 1
	vm_initramfs "$dir/tab-initrd.img" --config "$dir/fail.conf" --crypttab "$dir/crypttab" >/dev/null || return 1
	touch "$dir/ready"
}

# answer_boot NAME ANSWER... -- vm_boot args: boot once per NAME, typing the
# Nth answer on the serial console when the Nth prompt is there.
answer_boot() {
	local log=$LDIR/$1.log
	shift
	local -a answers=()
	while [[ $1 != -- ]]; do answers+=("$1"); shift; done
	shift
	if [[ ! -f $log.done ]]; then
		{
			local i=0 a
			for a in "${answers[@]}"; do
				i=$((i + 1))
				vm_wait_serial "$log" "try $i of" 240 || break
				sleep 0.3
				printf '%s\n' "$a"
			done
			vm_wait_serial "$log" "reboot: Power down" 300
		} | vm_boot "$log" --console --timeout 300 "$@" >/dev/null || true
		touch "$log.done"
	fi
	echo "$log"
}

good_log() {
	answer_boot good 'wrong guess' "$PASS" -- --initrd "$LDIR/luks-initrd.img" --disk "$LDIR/luks.img" \
		--append "rd.luks.uuid=$UUID root=/dev/mapper/luks-$UUID"
}

@test "rd.luks.uuid=: a wrong passphrase is refused, the right one opens it, / is /dev/mapper/luks-UUID" {
	local log
	log=$(good_log)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "Please enter passphrase for disk luks-$UUID ($UUID), try 1 of 3"
	vm_assert_log_contains "$log" "No key available with this passphrase."
	vm_assert_log_contains "$log" "try 2 of 3"
	vm_assert_section_line "$log" ROOTDEV "dm_name=luks-$UUID"
	vm_assert_section_line "$log" ROOTDEV "fstype=ext4"
	vm_assert_section_line "$log" ROOTDEV "slaves=vda "
	vm_assert_section_contains "$log" WORKS "$(cat "$LDIR/hello.sha256")  /data/hello.txt"
}

@test "rd.luks.uuid=: the dm uuid is cryptsetup's (CRYPT-LUKS2-<uuid>-NAME), so systemd on the root agrees" {
	local log
	log=$(good_log)
	vm_assert_section_line "$log" ROOTDEV "dm_uuid=CRYPT-LUKS2-${UUID//-/}-luks-$UUID"
	# The udev database entry libdevmapper's rules leave (block/dm_udev.c),
	# moved with /run: the root's udev then takes the device as cryptsetup's.
	vm_assert_section_line "$log" ROOTDEV "udev_db=E:DM_UDEV_PRIMARY_SOURCE_FLAG=1 E:DM_UDEV_RULES_VSN=2 "
}

@test "rd.luks.uuid=: the live dm-crypt table names the key in the keyring, never the key" {
	local log key
	log=$(good_log)
	key=$(od -An -tx1 -v "$LDIR/key.bin" | tr -d ' \n')
	vm_assert_section_line "$log" DMTABLE "target=crypt"
	vm_assert_section_contains "$log" DMTABLE "table=aes-xts-plain64 :64:logon:cryptsetup:$UUID-d0 0 "
	vm_assert_section_lacks "$log" DMTABLE "$key"
	vm_assert_section_lacks "$log" DMTABLE "${key:0:32}"
	vm_assert_log_lacks "$log" "$key"
}

@test "rd.luks.uuid=: the passphrase is not echoed on the console" {
	local log
	log=$(good_log)
	vm_assert_log_lacks "$log" "$PASS"
	vm_assert_log_lacks "$log" "wrong guess"
}

@test "three wrong passphrases: one clear line, then the failure action (poweroff)" {
	local log
	log=$(answer_boot wrong one two three -- --initrd "$LDIR/luks-initrd.img" --disk "$LDIR/luks.img" \
		--append "rd.luks.uuid=$UUID root=/dev/mapper/luks-$UUID")
	vm_assert_log_contains "$log" "try 3 of 3"
	vm_assert_log_contains "$log" "luks: luks-$UUID (UUID $UUID): no keyslot opened after 3 tries"
	vm_assert_log_lacks "$log" "TESTINIT DONE"
	[ "$(vm_exit_reason "$log")" = poweroff ]
}

@test "crypttab from the builder names the volume; a damaged primary header opens from the secondary copy" {
	local log
	log=$(answer_boot tab "$PASS" -- --initrd "$LDIR/tab-initrd.img" --disk "$LDIR/damaged.img" \
		--append "root=/dev/mapper/cryptroot")
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "Please enter passphrase for disk cryptroot ($UUID)"
	vm_assert_log_contains "$log" "primary copy checksum mismatch (damaged), using the secondary"
	vm_assert_section_line "$log" ROOTDEV "dm_name=cryptroot"
	vm_assert_section_line "$log" ROOTDEV "dm_uuid=CRYPT-LUKS2-${UUID//-/}-cryptroot"
	vm_assert_section_contains "$log" DMTABLE " 1 allow_discards"
	vm_assert_section_contains "$log" WORKS "$(cat "$LDIR/hello.sha256")  /data/hello.txt"
}

# ---- the TPM2 token (stages/luks_tpm2.c) --------------------------------
# The volume above gets a systemd-tpm2 token from Debian 12's
# systemd-cryptenroll, run on the host against swtpm's state (its socket,
# tpm2-tss's swtpm TCTI) before the boot, bound to PCR 15: nothing extends
# PCR 15 before hardinit, so the boot sees the PCR the enrollment saw. A
# second volume (the same header under another UUID) is enrolled the same
# way. Boot 1 (swtpm behind QEMU's tpm-tis): the root volume opens with no
# prompt through /dev/tpm0, from the primary the TPM warm-up made during
# the modules stage; hardinit then extends PCR 15 with the
# volume's identity, so the second volume's token is refused (a second
# unseal in the same boot) and its passphrase is answered on the console.
# Boot 2 (pass, swtpm): a volume with no token under the root's UUID
# opened by its passphrase, then the second volume: PCR 15 extended after
# the passphrase, so the second volume's token is refused.
# Boot 3 (no TPM): one warning, the passphrase prompt.
# Boot 4 (hang: the TPM stops answering): swtpm is stopped (SIGSTOP) once
# the kernel has started /init, so every TPM command hardinit sends is
# taken and never answered; hardinit's own bounds (the warm-up's join,
# each command's TPM_DEV_TIMEOUT_MS on a non-blocking fd) must bring the
# passphrase prompt while it is still stopped; the test then lets swtpm go
# on (SIGCONT) and answers the prompt. With a blocking fd the kernel's own
# command timeout (minutes) would hold PID 1 instead.

UUIDB=7b1f5e2d-3c40-4d6e-9fa0-1b2c3d4e5f60
# How long the hang boot waits for the prompt with swtpm stopped: above
# hardinit's bounds in a row (the warm-up's join, pcrphase's extend and
# the unseal's command, 2 + 10 + 10 s), far below the kernel's own
# command timeouts (120 s, 300 s for CreatePrimary).
HANG_PROMPT_S=90

# The two volumes and the swtpm state they are sealed to, made once:
# TDIR (the TPM boots' directory).
tpm_setup() {
	local dir=$LDIR/tpm
	TDIR=$dir
	[[ -f $dir/ready ]] && return 0
	rm -rf "$dir" && mkdir -p "$dir/state"
	cp "$LDIR/luks.img" "$dir/a.img"
	cp "$LDIR/luks.img" "$dir/b.img"
	cp "$LDIR/luks.img" "$dir/p.img"       # no token: the passphrase alone
	cryptsetup luksUUID -q --uuid "$UUIDB" "$dir/b.img"
	printf %s "$PASS" >"$dir/pass"
	vm_swtpm_serve "$dir/state" "$dir" enroll "$dir" a b >&2 || return 1
	rm -f "$dir/pass"
	touch "$dir/ready"
}

# enroll DIR NAME...: systemd-cryptenroll's token (PCR 15) on each
# DIR/NAME.img, against the TPM vm_swtpm_serve serves on DIR/srv.
enroll() {
	local dir=$1 img
	shift
	for img in "$@"; do
		timeout 120 systemd-cryptenroll --unlock-key-file="$dir/pass" --tpm2-device="swtpm:path=$dir/srv" \
			--tpm2-pcrs=15 "$dir/$img.img" || return 1
	done
}

# tpm_boot NAME tpm|none|hang PROMPT DISKS...: one boot (once per NAME)
# with DISKS (a, b, p: rd.luks.uuid= for each, a or p the root; p is a
# with no token), PROMPT answered with the passphrase when it is on the
# console (PROMPT1|PROMPT2: each in turn); TPM_APPEND, when set, one more
# command-line word. hang: swtpm stopped from
# "Run /init" until PROMPT shows (at most HANG_PROMPT_S); LOG.hang says
# whether PROMPT came while it was stopped.
tpm_boot() {
	tpm_setup >&2 || return 1
	local log=$TDIR/$1.log d=$TDIR/swtpm-$1 pid="" mode=$2 prompt=$3 disk
	local -a qemu=() disks=() append=("root=/dev/mapper/luks-$UUID")
	[[ -z ${TPM_APPEND:-} ]] || append+=("$TPM_APPEND")
	shift 3
	for disk in "$@"; do
		disks+=(--disk "$TDIR/$disk.img")
		if [[ $disk == [ap] ]]; then append+=("rd.luks.uuid=$UUID"); else append+=("rd.luks.uuid=$UUIDB"); fi
	done
	if [[ ! -f $log.done ]]; then
		if [[ $mode == tpm || $mode == hang ]]; then
			vm_swtpm_start "$d" "$TDIR/state" >&2 || return 1
			pid=$SWTPM_PID
			qemu=("${VM_TPM_ARGS[@]}")
		fi
		{
			if [[ $mode == hang ]]; then
				vm_wait_serial "$log" "Run /init as init process" 240 && kill -STOP "$pid"
				if vm_wait_serial "$log" "${prompt%%|*}" "$HANG_PROMPT_S"; then
					echo "prompt while stopped" >"$log.hang"
				else
					echo "no prompt within $HANG_PROMPT_S s while stopped" >"$log.hang"
				fi
				kill -CONT "$pid"
			fi
			local -a prompts
			local one
			IFS='|' read -r -a prompts <<<"$prompt"
			for one in "${prompts[@]}"; do
				vm_wait_serial "$log" "$one" 240 && sleep 0.3 && printf '%s\n' "$PASS"
			done
			vm_wait_serial "$log" "reboot: Power down" 300
		} | vm_boot "$log" --console --timeout 300 --initrd "$LDIR/luks-initrd.img" "${disks[@]}" \
			--append "${append[*]}" -- "${qemu[@]}" >/dev/null || true
		if [[ -n $pid ]]; then
			kill -CONT "$pid" 2>/dev/null || true   # a hang boot's, if it ended stopped
			vm_swtpm_stop
		fi
		touch "$log.done"
	fi
	echo "$log"
}

@test "TPM (swtpm, token by systemd-cryptenroll): systemd-cryptenroll's token opens the root volume with no prompt; PCR 15 extended; the second volume's token is then refused and its passphrase asked" {
	local log
	log=$(tpm_boot tpm tpm "Please enter passphrase for disk luks-$UUIDB" a b)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 1, tpm2 (token 0, PCRs 15)) as /dev/mapper/luks-$UUID"
	vm_assert_log_lacks "$log" "Please enter passphrase for disk luks-$UUID ("
	vm_assert_log_contains "$log" "luks: luks-$UUIDB: the TPM did not unlock it: token 0: the policy of PCR 15 (sha256 bank) is not the one the key was sealed to"
	vm_assert_log_contains "$log" "luks: luks-$UUIDB opened (keyslot 0, passphrase)"
	vm_assert_log_lacks "$log" "extending PCR 15 with the volume's identity failed"
	# The identity went into the banks systemd picks (the report names them).
	vm_assert_section_contains "$log" REPORT "luks pcr15 extended PCR 15 with the identity of luks-$UUID (UUID $UUID), banks sha"
	vm_assert_section_contains "$log" REPORT "luks unlock info luks-$UUID by tpm2, PCR 15"
	# The passphrase unlock of the second volume is measured too.
	vm_assert_section_contains "$log" REPORT "luks unlock info luks-$UUIDB by passphrase, PCR 15"
	vm_assert_section_lacks "$log" TPMH "pcr15=0000000000000000000000000000000000000000000000000000000000000000"
	vm_assert_section_contains "$log" TPMH "pcr15="
	# make bench's figures: the unseal without the KDF, the dm-crypt setup.
	vm_assert_section_contains "$log" REPORT "luks unseal_ms info "
	# Through /dev/tpm0, which the boot has to itself: not the resource
	# manager's tpmrm0, which costs ~5 more round trips a command.
	# The TPM warm-up (stages/luks.c, tpm/tpm2_warmup.c) made the primary,
	# the SRK's first authorization and the salted session on its thread
	# during the modules stage, and the unseal started from them at Load.
	vm_assert_section_contains "$log" REPORT "luks warmup_ms info "
	vm_assert_section_contains "$log" REPORT "off PID 1's path, /dev/tpm0: ECC primary 0x8"
	vm_assert_section_contains "$log" REPORT "(luks-$UUID, through /dev/tpm0, from the warm-up's primary)"
	# Of it, the time inside the TPM's commands (bench/run's breakdown):
	# Load, PolicyPCR, Unseal and the sealed object's flush; no
	# CreatePrimary, no StartAuthSession (the warm-up's), no RETRY, and
	# PolicyGetDigest only after a refused Unseal (the second volume).
	vm_assert_section_contains "$log" REPORT "luks unseal_tpm_ms info "
	vm_assert_section_contains "$log" REPORT "(luks-$UUID, 4 commands at the TPM)"
	vm_assert_section_contains "$log" REPORT "luks dm_ms info "
	# The warm-up's primary flushed at the luks stage's end: the real
	# root finds no transient object of hardinit's in the TPM (counted
	# through /dev/tpm0 by the probe's own bytes).
	vm_assert_section_contains "$log" REPORT "luks warmup_flush_ms info "
	vm_assert_section_line "$log" TPMH "transient=0"
}

# A planted volume: the real UUID, no token, a passphrase its writer
# knows. Opened at the prompt, it extends PCR 15 as a token unlock does,
# so the real volume's token (bound to PCR 15) no longer unseals after it.
@test "TPM, a volume opened by its passphrase: PCR 15 extended with its identity (non-zero in the guest), so a token bound to PCR 15 is refused after it" {
	local log id
	# The second volume's key id (systemd's fixate-volume-key=: HMAC-SHA256
	# of cryptsetup:NAME:UUID under the volume key), computed here.
	id=$(python3 -c 'import hmac, hashlib, sys; print(hmac.new(open(sys.argv[1], "rb").read(), sys.argv[2].encode(), hashlib.sha256).hexdigest())' \
		"$LDIR/key.bin" "cryptsetup:luks-$UUIDB:$UUIDB")
	log=$(TPM_APPEND="rd.luks.options=$UUIDB=fixate-volume-key=$id" \
		tpm_boot pass tpm "Please enter passphrase for disk luks-$UUID (|Please enter passphrase for disk luks-$UUIDB" p b)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 0, passphrase)"
	vm_assert_section_contains "$log" REPORT "luks pcr15 extended PCR 15 with the identity of luks-$UUID (UUID $UUID), banks sha"
	vm_assert_section_contains "$log" REPORT "luks unlock info luks-$UUID by passphrase, PCR 15"
	vm_assert_log_contains "$log" "luks: luks-$UUIDB: the TPM did not unlock it: token 0: the policy of PCR 15 (sha256 bank) is not the one the key was sealed to"
	vm_assert_log_contains "$log" "luks: luks-$UUIDB opened (keyslot 0, passphrase)"
	vm_assert_section_lacks "$log" TPMH "pcr15=0000000000000000000000000000000000000000000000000000000000000000"
	vm_assert_section_contains "$log" TPMH "pcr15="
	# fixate-volume-key= with the right id: taken.
	vm_assert_section_contains "$log" REPORT "luks fixate ok luks-$UUIDB: the volume key's id is fixate-volume-key="
}

@test "TPM token but no TPM: the token cannot be used, one warning, the passphrase prompt opens the volume" {
	local log
	log=$(tpm_boot none none "Please enter passphrase for disk luks-$UUID" a)
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID: it has a TPM2 token but there is no TPM"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 0, passphrase)"
	vm_assert_section_contains "$log" REPORT "luks unlock info luks-$UUID by passphrase, PCR not measured (no TPM)"
	# No warm-up either, and no wait for one.
	vm_assert_section_contains "$log" REPORT "luks warmup_ms skipped no TPM warm-up: /dev/tpm0: "
	vm_assert_section_lacks "$log" REPORT "luks warmup_wait_ms"
}

@test "TPM that stops answering: hardinit's own bounds bring the passphrase prompt while the TPM is still stopped, one warning naming it, the passphrase opens the volume" {
	local log
	log=$(tpm_boot hang hang "Please enter passphrase for disk luks-$UUID" a)
	[ "$(cat "$log.hang")" = "prompt while stopped" ]
	vm_assert_done "$log"
	vm_assert_log_contains "$log" "luks: luks-$UUID: the TPM did not unlock it: "
	vm_assert_log_contains "$log" "no answer within 10000 ms"
	vm_assert_log_contains "$log" "luks: luks-$UUID opened (keyslot 0, passphrase)"
}
