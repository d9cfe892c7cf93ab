#!/usr/bin/env bats
# TPM2 unlock on the host, interoperable with systemd: a LUKS2 volume made
# by Debian's cryptsetup, a systemd-tpm2 token enrolled by Debian 12's own
# systemd-cryptenroll (252) against a swtpm (its socket, through tpm2-tss's
# swtpm TCTI), then unsealed by hardinit's code (block/ reads the token,
# tpm/ speaks TPM2 to the same swtpm, stages/luks_tpm2.c opens the keyslot:
# build/tools/luks2-tool tpm2-open) and the volume key compared with
# cryptsetup's. Then what must be refused: a PCR extended after the
# enrollment, a wrong PIN. The session is salted and encrypted: what
# crosses the socket is recorded and holds no secret, and an RSA primary's
# salt works as the ECC one's. /dev/tpmrm0 and the stage's fallback to the
# passphrase prompt are the VM's (tests/vm/luks.bats). Last, Debian 13's
# systemd-cryptenroll 257 (tests/tools/trixie-cryptenroll): its salted PIN
# and persistent SRK, and the TPM's lockout counter read before and after.

bats_require_minimum_version 1.5.0

load lib/host

setup_file() {
	repo_make build/tools/luks2-tool
	export TOOL=$REPO/build/tools/luks2-tool
}

# A fresh swtpm (swtpm_start) and a LUKS2 volume with a passphrase keyslot.
setup() {
	T=$BATS_TEST_TMPDIR
	swtpm_start "$T"
	truncate -s 20M "$T/v.img"
	printf pass >"$T/pass"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$T/pass" "$T/v.img"
}

teardown() {
	swtpm_stop "$BATS_TEST_TMPDIR"
}

enroll() {
	timeout 120 systemd-cryptenroll --unlock-key-file="$T/pass" --tpm2-device="swtpm:path=$T/sock" "$@" "$T/v.img"
}

# hardinit's unseal of the volume's token with this test's swtpm, the PIN
# typed if one is given: status and output in bats' $status and $output,
# the output also printed.
tpm2_open() {
	run "$TOOL" tpm2-open "$T/v.img" "$T/sock" "$@"
	echo "$output"
}

cryptsetup_key() {
	cryptsetup luksDump --dump-volume-key -q --key-file "$T/pass" "$T/v.img" |
		sed -n '/MK dump:/,/^[^[:space:]]/p' | sed 's/MK dump://' | tr -d ' \t\n' | grep -o '^[0-9a-f]*'
}

@test "systemd-cryptenroll --tpm2-pcrs=7: hardinit unseals the token and opens its keyslot with cryptsetup's key" {
	enroll --tpm2-pcrs=7
	cryptsetup token export --token-id 0 "$T/v.img" | grep -q '"tpm2-primary-alg":"ecc"'
	tpm2_open
	[ "$status" -eq 0 ]
	grep -qx 'token 0' <<<"$output"
	grep -qx 'keyslot 1' <<<"$output"
	grep -qx 'pcrs 0x80' <<<"$output"
	want=$(cryptsetup_key)
	[ ${#want} -eq 128 ]
	grep -qx "volume key $want" <<<"$output"
	# Twice: every handle was flushed (a TPM holds only a few transient objects).
	for _ in 1 2 3; do "$TOOL" tpm2-open "$T/v.img" "$T/sock" | grep -qx "volume key $want"; done
}

@test "PCR 7 extended after the enrollment: the unseal is refused and says a PCR changed" {
	enroll --tpm2-pcrs=7
	"$TOOL" pcr-extend "$T/sock" 7
	tpm2_open
	[ "$status" -eq 1 ]
	grep -q 'refused token 0: the policy of PCR 7 (sha256 bank) is not the one the key was sealed to: a PCR changed' <<<"$output"
	[[ $output != *'volume key'* ]]
	# A PCR the token is not bound to changes nothing.
	enroll --tpm2-pcrs=7 --wipe-slot=tpm2
	"$TOOL" pcr-extend "$T/sock" 8
	tpm2_open
	[ "$status" -eq 0 ]
}

@test "--tpm2-with-pin: the right PIN unseals (PolicyAuthValue, the session's HMAC), a wrong one is refused" {
	PIN=1234 NEWPIN=1234 enroll --tpm2-pcrs=0+7 --tpm2-with-pin=yes
	cryptsetup token export --token-id 0 "$T/v.img" | grep -q '"tpm2-pin":true'
	tpm2_open 1234
	[ "$status" -eq 0 ]
	grep -qx "volume key $(cryptsetup_key)" <<<"$output"
	tpm2_open 4321
	[ "$status" -eq 1 ]
	grep -q 'the TPM refused the PIN' <<<"$output"
}

@test "a token sealed by another TPM: a clear error, no key" {
	enroll --tpm2-pcrs=7
	kill "$(cat "$T/swtpm.pid")"
	rm -rf "$T/tpm" "$T/sock" "$T/swtpm.pid"
	setup_other=$T/other
	mkdir -p "$setup_other"
	swtpm socket --tpm2 --tpmstate dir="$setup_other" --server type=unixio,path="$T/sock" \
		--ctrl type=unixio,path="$T/sock.ctrl" --flags not-need-init,startup-clear \
		--daemon --pid file="$T/swtpm.pid" --log file="$T/swtpm.log"
	for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
	tpm2_open
	[ "$status" -eq 2 ]
	grep -q "refused token 0: Load (the sealed key is not this TPM's, or the TPM was cleared)" <<<"$output"
}

# What a bus sniffer sees (the tool records every command and response in
# hex): the secret swtpm unsealed, proven real by cryptsetup opening the
# keyslot with its base64, appears nowhere; the session is salted with the
# primary key (StartAuthSession's tpmKey is the transient primary, its
# encryptedSalt an ECC point) and asks for AES-128-CFB, and the Unseal's
# response carries a session (its HMAC, which hardinit checks).
@test "the unseal's session is salted and encrypted: the secret swtpm released is not on the bus" {
	enroll --tpm2-pcrs=7
	run "$TOOL" tpm2-unseal "$T/v.img" "$T/sock" "$T/trace"
	echo "$output"
	[ "$status" -eq 0 ]
	secret=$(sed -n 's/^secret //p' <<<"$output")
	[ ${#secret} -ge 32 ]
	xxd -r -p <<<"$secret" | base64 -w0 | cryptsetup open --test-passphrase --key-file=- "$T/v.img"
	[ -s "$T/trace" ]
	run ! grep -qi "${secret:0:16}" "$T/trace"
	# StartAuthSession (0x176): tpmKey 0x80xxxxxx, bind TPM_RH_NULL, a 32-byte nonce, a
	# 68-byte encryptedSalt (x and y of 32 bytes), a policy session, AES 128 CFB, SHA-256.
	grep -Eq '^> 8001[0-9a-f]{8}0000017680[0-9a-f]{6}400000070020[0-9a-f]{64}00440020[0-9a-f]{64}0020[0-9a-f]{64}01000600800043000b$' "$T/trace"
	# The Unseal (0x15e) asks for response encryption (attributes 0x40) with an HMAC ...
	grep -Eq '^> 8002[0-9a-f]{8}0000015e80[0-9a-f]{6}[0-9a-f]{8}03[0-9a-f]{6}0020[0-9a-f]{64}400020[0-9a-f]{64}$' "$T/trace"
	# ... and its response (the line after it) carries a session: tag 0x8002, success.
	grep -A1 '^> 8002[0-9a-f]\{8\}0000015e' "$T/trace" | grep -Eq '^< 8002[0-9a-f]{8}00000000'
}

# systemd 252 enrolls under an ECC primary whenever the TPM has P-256, so
# the RSA primary (the token's tpm2-primary-alg "rsa", from TPMs without
# ECC) is reached here by sealing under it directly: the salt goes to swtpm
# by RSA-OAEP, and the secret comes back through the same salted session.
@test "an RSA primary: the salt by RSA-OAEP, swtpm takes it, the secret comes back; ECC the same way" {
	run "$TOOL" tpm2-seal-unseal "$T/sock" rsa
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "secret hardinit-salt-test" ]
	run "$TOOL" tpm2-seal-unseal "$T/sock" ecc
	[ "$status" -eq 0 ]
	[ "$output" = "secret hardinit-salt-test" ]
}

# The luks stage's TPM warm-up (tpm/tpm2_warmup.c) on its thread, against
# the same swtpm: systemd-cryptenroll's ECC token unseals from the
# warm-up's primary and salted session; an RSA token's primary does not match it,
# so that unseal takes its whole path (its own CreatePrimary) and still
# opens. Either way nothing is left in the TPM once the warm-up's primary
# is flushed: GetCapability's transient handles, counted by the tool's
# own bytes.
@test "the TPM warm-up: the ECC token unseals from its primary; an RSA one takes the whole path; nothing is left loaded" {
	enroll --tpm2-pcrs=7
	run "$TOOL" tpm2-warm-open "$T/v.img" "$T/sock"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'warm-up da yes session yes' <<<"$output"
	grep -qx 'warm used yes' <<<"$output"
	grep -qx "volume key $(cryptsetup_key)" <<<"$output"
	grep -qx 'transient 0' <<<"$output"
	run "$TOOL" tpm2-warm-seal-unseal "$T/sock" rsa
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'warm used no' <<<"$output"
	grep -qx 'secret hardinit-salt-test' <<<"$output"
	grep -qx 'transient 0' <<<"$output"
	run "$TOOL" tpm2-warm-seal-unseal "$T/sock" ecc
	[ "$status" -eq 0 ]
	grep -qx 'warm used yes' <<<"$output"
	grep -qx 'secret hardinit-salt-test' <<<"$output"
	grep -qx 'transient 0' <<<"$output"
}

# The TPM's dictionary-attack counter, as a user would read it.
lockout_counter() {
	tpm2_getcap -T "swtpm:path=$T/sock" properties-variable | sed -n 's/^TPM2_PT_LOCKOUT_COUNTER: //p'
}

# Debian 13's systemd-cryptenroll (257, tests/tools/trixie-cryptenroll:
# trixie's packages fetched once into the cache) seals under its SRK,
# persisted at 0x81000001 with noDA (the token's tpm2_srk), and derives the
# PIN through PBKDF2 with the token's tpm2_salt. The right PIN opens the
# volume and leaves the TPM's lockout counter where it was; no PIN sends
# nothing; the SRK evicted is made again from systemd's template; a key
# planted at its handle is refused before anything is loaded under it; a
# wrong PIN is refused (and is the one thing the counter counts).
@test "systemd-cryptenroll 257 --tpm2-with-pin: tpm2_salt and tpm2_srk honoured, the right PIN opens without a lockout try" {
	PIN=1234 NEWPIN=1234 timeout 300 "$REPO/tests/tools/trixie-cryptenroll" --unlock-key-file="$T/pass" \
		--tpm2-device="swtpm:path=$T/sock" --tpm2-pcrs=7 --tpm2-with-pin=yes "$T/v.img"
	token=$(cryptsetup token export --token-id 0 "$T/v.img")
	echo "$token"
	grep -q '"tpm2-pin":true' <<<"$token"
	grep -q '"tpm2_salt":"' <<<"$token"
	grep -q '"tpm2_srk":"' <<<"$token"
	want=$(cryptsetup_key)
	before=$(lockout_counter)
	[ -n "$before" ]
	tpm2_open 1234
	[ "$status" -eq 0 ]
	grep -qx "volume key $want" <<<"$output"
	[ "$(lockout_counter)" = "$before" ]
	tpm2_open
	[ "$status" -ne 0 ]
	grep -q 'it wants a PIN and none was typed' <<<"$output"
	[ "$(lockout_counter)" = "$before" ]
	# No SRK persisted: the same template under the same seed, the same key.
	tpm2_evictcontrol -T "swtpm:path=$T/sock" -C o -c 0x81000001
	tpm2_open 1234
	[ "$status" -eq 0 ]
	grep -qx "volume key $want" <<<"$output"
	# Another key at the SRK's handle.
	tpm2_createprimary -T "swtpm:path=$T/sock" -C o -G rsa -c "$T/planted.ctx" >/dev/null
	tpm2_evictcontrol -T "swtpm:path=$T/sock" -C o -c "$T/planted.ctx" 0x81000001
	tpm2_flushcontext -T "swtpm:path=$T/sock" -t      # its transient copy (no resource manager here)
	tpm2_open 1234
	[ "$status" -ne 0 ]
	grep -q "the key at the SRK's persistent handle 0x81000001 is not the token's tpm2_srk" <<<"$output"
	[[ $output != *'volume key'* ]]
	[ "$(lockout_counter)" = "$before" ]
	tpm2_evictcontrol -T "swtpm:path=$T/sock" -C o -c 0x81000001
	tpm2_open 4321
	[ "$status" -eq 1 ]
	grep -q 'the TPM refused the PIN' <<<"$output"
	[ "$(lockout_counter)" != "$before" ]
}

# A token naming a keyslot whose digest covers no segment (cryptsetup's
# --unbound keyslot: its key is not the volume's, though its own digest
# verifies it), made here by moving the token's passphrase (the unsealed
# secret's base64) to an unbound keyslot: the token is skipped before any
# TPM command, and no key comes out for the volume.
@test "a token whose keyslot segment 0's digest does not name: skipped, no key for the volume" {
	enroll --tpm2-pcrs=7
	secret=$("$TOOL" tpm2-unseal "$T/v.img" "$T/sock" "$T/trace" | sed -n 's/^secret //p')
	[ ${#secret} -ge 32 ]
	cryptsetup token export --token-id 0 "$T/v.img" >"$T/token.json"
	cryptsetup luksKillSlot -q --key-file "$T/pass" "$T/v.img" 1
	xxd -r -p <<<"$secret" | base64 -w0 >"$T/secret.b64"
	cryptsetup luksAddKey -q --unbound --key-size 512 --key-slot 1 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		"$T/v.img" "$T/secret.b64"
	cryptsetup token import --token-id 0 --token-replace --json-file "$T/token.json" "$T/v.img"
	tpm2_open
	[ "$status" -ne 0 ]
	grep -q "refused token 0: skipped: none of its keyslots is one segment 0's digest names" <<<"$output"
	[[ $output != *'volume key'* ]]
}
