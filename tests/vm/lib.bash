# shellcheck shell=bash
# The VM test harness: kernels, test roots, initramfs images, QEMU boots and
# reading the guest's report. Load it from a bats file with `load lib`
# (tests/vm/*.bats) or `source tests/vm/lib.bash` from any bash script.
# Full guide with examples: tests/vm/README.md.
#
# Kernels (Debian's, unpacked by scripts/fetch-kernel into the cache):
#   vm_kernel_dir [VERSION]   echo the kernel's cache dir (6.12 default; fetches if missing)
#   vm_kernel [VERSION]       echo the path of its vmlinuz
#   vm_kver [VERSION]         echo its KVER (the lib/modules/KVER name)
#
# Test roots and images:
#   vm_stage_root DIR         fill DIR with the minimal test root: /sbin/init = testinit,
#                             /bin/busybox + applet links, /probe/* (every build/probe binary),
#                             /etc/passwd, /etc/group (root, alice 1001, bob 1002), API dirs
#   vm_probe_script DIR [TEXT] write DIR/probe/run (from TEXT or stdin): the script testinit runs
#   vm_rootfs IMG DIR [mke2fs args...]
#                             ext4 image of DIR with `mke2fs -d` (no loop mount); extra args
#                             such as -L LABEL -U UUID go to mke2fs; size = DIR + slack
#   vm_initramfs OUT [--kernel VERSION] [hardinit-mkinitramfs args...]
#                             initramfs with build/hardinit for the 6.12 kernel (or VERSION),
#                             target virtio, built by initramfs/hardinit-mkinitramfs
#   vm_uki OUT [--kernel VERSION] [hardinit-mkinitramfs args...]
#                             the same as a UKI (--uki OUT --kernel that kernel's vmlinuz)
#   vm_cpio OUT DIR           plain newc cpio of DIR (for hardinit-free harness tests)
#   vm_selinux_label DIR [FILE_CONTEXTS]
#                             label DIR for Debian's refpolicy with `setfiles -r`
#
# Booting:
#   vm_boot LOG [--kernel VMLINUZ|6.12|6.1] [--initrd FILE] [--disk IMG]... [--append "..."]
#           [--timeout SECONDS] [--icount] [--mem MIB] [--console] [-- extra qemu args]
#                             boot QEMU (TCG) bounded by `timeout`; serial log in LOG;
#                             0 when QEMU exited by itself, non-zero on timeout or QEMU error
#   vm_exit_reason LOG        echo how the guest ended: poweroff, reboot, halt, panic or unknown
#
# A TPM (swtpm) and UEFI (OVMF):
#   vm_need_swtpm, vm_swtpm_setup DIR BANKS, vm_swtpm_start DIR [STATE], vm_swtpm_stop,
#   vm_swtpm_serve STATE DIR CMD...
#   VM_OVMF_*, vm_have_ovmf / vm_need_ovmf [plain] [secure], vm_snakeoil_key OUT,
#   vm_make_esp EFI IMG, vm_ovmf_boot [--console] LOG plain|secure TIMEOUT STOP_TEXT [qemu args],
#   vm_efi_boot [--console] LOG TIMEOUT STOP_TEXT CODE VARS [qemu args]
#   vm_eventlog_events PCR    the firmware's log (hex, stdin): "TYPE BANK=HEX..." per event of PCR
#   vm_pcr_replay BANK [WORD...]  those events (stdin), then WORDs, extended from zeros
#
# Reading the guest's report:
#   vm_section LOG NAME       print the lines between "=== BEGIN NAME ===" and "=== END NAME ===",
#                             from vm_clean_log (VM_SECTION_RAW=1: only \r stripped); non-zero
#                             when the section is absent or has no END line
#   vm_clean_log LOG          the log without \r and without kernel console records
#                             ("[    1.234567] ..."), rejoining lines a record split
#   vm_section_value LOG NAME KEY
#                             the value of the section's first KEY=VALUE line
#   vm_log_tail LOG [N]       print the last N (40) lines of LOG, \r stripped
#
# Assertions (print what was expected and the log tail on failure, return 1):
#   vm_assert_log_contains LOG TEXT      vm_assert_log_lacks LOG TEXT
#   vm_assert_section_contains LOG NAME TEXT     (substring of some line)
#   vm_assert_section_line LOG NAME LINE         (one whole line equals LINE)
#   vm_assert_section_lacks LOG NAME TEXT
#   vm_assert_section_value LOG NAME KEY VALUE   (the first KEY= line reads VALUE)
#   vm_capbnd_without CAP...  the CapBnd of the full set 0..VM_LAST_CAP without CAPs
#   vm_assert_done LOG        testinit reached "=== TESTINIT DONE ===" and the guest powered off
#
# Sharing work between tests of one run:
#   vm_cache_dir              echo a directory that lives for this test run
#   vm_build_once PATH CMD... run CMD (which must create PATH) unless PATH exists; serialised
#
# Environment: HARDINIT_CACHE (default /var/cache/hardinit), VM_TIMEOUT (default 120),
# VM_QEMU (default qemu-system-x86_64), VM_RUN_DIR (overrides vm_cache_dir).
# VM_ARCH=arm64 (default amd64): build/arm64's hardinit and probes, the arm64 kernel's
# busybox (scripts/fetch-kernel 6.1-arm64), qemu-system-aarch64 -M virt -cpu $VM_CPU
# with console=ttyAMA0; kernels are then named 6.1-arm64 or 6.12-arm64.

HARDINIT_SRC=${HARDINIT_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
HARDINIT_CACHE=${HARDINIT_CACHE:-/var/cache/hardinit}
VM_TIMEOUT=${VM_TIMEOUT:-120}
VM_ARCH=${VM_ARCH:-amd64}
if [[ $VM_ARCH == arm64 ]]; then
	VM_QEMU=${VM_QEMU:-qemu-system-aarch64}
	# TCG: "max" with the cheap implementation-defined PAC hash instead of
	# QARMA: the fastest measured, and it has BTI and PAC (tests/vm/arm64.bats).
	VM_CPU=${VM_CPU:-max,pauth-impdef=on}
	_VM_BUILD=$HARDINIT_SRC/build/arm64
else
	VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
	_VM_BUILD=$HARDINIT_SRC/build
fi
VM_DEFAULT_KERNEL=6.12
# Free space left in a test root image beyond its contents, and the share of
# the contents added for ext4's metadata.
VM_ROOTFS_SLACK_KIB=16384
VM_ROOTFS_OVERHEAD_PCT=30
VM_LOG_TAIL_LINES=40
_VM_SOURCING_PID=${_VM_SOURCING_PID:-$$}

_vm_err() {
	printf 'vm: %s\n' "$*" >&2
}

# ---- kernels --------------------------------------------------------------

vm_kernel_dir() {
	local version=${1:-$VM_DEFAULT_KERNEL} dir
	dir=$HARDINIT_CACHE/kernels/$version
	if [[ -s $dir/kver ]]; then
		vm_cache_note "kernels/$version" hit
		printf '%s\n' "$dir"
		return 0
	fi
	local t0=$SECONDS
	HARDINIT_CACHE=$HARDINIT_CACHE "$HARDINIT_SRC/scripts/fetch-kernel" "$version" || return 1
	vm_cache_note "kernels/$version" miss $((SECONDS - t0))
}

vm_kver() {
	local dir
	dir=$(vm_kernel_dir "${1:-$VM_DEFAULT_KERNEL}") || return 1
	cat "$dir/kver"
}

vm_kernel() {
	local dir kver
	dir=$(vm_kernel_dir "${1:-$VM_DEFAULT_KERNEL}") || return 1
	kver=$(cat "$dir/kver")
	printf '%s\n' "$dir/boot/vmlinuz-$kver"
}

# ---- test roots -------------------------------------------------------------

_vm_host_busybox() {
	local b
	if [[ $VM_ARCH == arm64 ]]; then
		b=$(vm_kernel_dir "${VM_BUSYBOX_KERNEL:-6.1-arm64}")/bin/busybox || return 1
		[[ -x $b ]] || { _vm_err "$b missing; run scripts/fetch-kernel 6.1-arm64"; return 1; }
		printf '%s\n' "$b"
		return 0
	fi
	for b in /usr/bin/busybox /bin/busybox; do
		if [[ -x $b ]] && LC_ALL=C file -L "$b" 2>/dev/null | grep -q 'statically linked'; then
			printf '%s\n' "$b"
			return 0
		fi
	done
	# `file` may be missing: trust busybox-static's own path.
	[[ -x /bin/busybox ]] && { echo /bin/busybox; return 0; }
	_vm_err "no static busybox found; install busybox-static (scripts/install-deps)"
	return 1
}

_vm_write_accounts() {
	local dir=$1
	cat >"$dir/etc/passwd" <<-'EOF'
		root:x:0:0:root:/root:/bin/sh
		alice:x:1001:1001:alice:/home/alice:/bin/sh
		bob:x:1002:1002:bob:/home/bob:/bin/sh
	EOF
	cat >"$dir/etc/group" <<-'EOF'
		root:x:0:
		tty:x:5:
		alice:x:1001:
		bob:x:1002:
	EOF
	chmod 0644 "$dir/etc/passwd" "$dir/etc/group"
	mkdir -p "$dir/home/alice" "$dir/home/bob"
	chown 1001:1001 "$dir/home/alice"
	chown 1002:1002 "$dir/home/bob"
	chmod 0700 "$dir/home/alice" "$dir/home/bob"
}

# Every applet as a link in /bin, except the ones that would stand in for
# an init (/sbin/init is testinit; hardinit's fallback list must not find a
# busybox init by accident).
_vm_link_applets() {
	local dir=$1 busybox=$2 applet
	while read -r applet; do
		case $applet in
		busybox | init | linuxrc) continue ;;
		esac
		ln -sf busybox "$dir/bin/$applet"
	done < <(if [[ $VM_ARCH == arm64 ]]; then qemu-aarch64-static "$busybox" --list; else "$busybox" --list; fi)
}

vm_stage_root() {
	local dir=${1:?usage: vm_stage_root DIR} busybox probe
	local testinit=$_VM_BUILD/probe/testinit
	[[ -x $testinit ]] || { _vm_err "$testinit missing; run 'make' first"; return 1; }
	busybox=$(_vm_host_busybox) || return 1

	mkdir -p "$dir"/{bin,sbin,etc,probe,proc,sys,dev,run,tmp,var/tmp,root,mnt,usr/bin,usr/sbin}
	chmod 1777 "$dir/tmp" "$dir/var/tmp"
	chmod 0700 "$dir/root"
	install -m 0755 "$testinit" "$dir/sbin/init"
	install -m 0755 "$busybox" "$dir/bin/busybox"
	_vm_link_applets "$dir" "$busybox"
	for probe in "$_VM_BUILD"/probe/*; do
		[[ -f $probe && -x $probe ]] && install -m 0755 "$probe" "$dir/probe/"
	done
	_vm_write_accounts "$dir"
	# A kernel-mounted root (init= mode) gets no devtmpfs: Debian's kernels
	# are built without CONFIG_DEVTMPFS_MOUNT, so init needs these nodes.
	[[ -e $dir/dev/console ]] || mknod -m 0600 "$dir/dev/console" c 5 1
	[[ -e $dir/dev/null ]] || mknod -m 0666 "$dir/dev/null" c 1 3
}

vm_probe_script() {
	local dir=${1:?usage: vm_probe_script DIR [TEXT]}
	mkdir -p "$dir/probe"
	if [[ $# -ge 2 ]]; then
		printf '%s\n' "$2" >"$dir/probe/run"
	else
		cat >"$dir/probe/run"
	fi
	chmod 0755 "$dir/probe/run"
}

vm_rootfs() {
	local img=${1:?usage: vm_rootfs IMG DIR [mke2fs args...]} dir=${2:?usage: vm_rootfs IMG DIR}
	shift 2
	local used_kib size_kib
	[[ -d $dir ]] || { _vm_err "vm_rootfs: $dir is not a directory"; return 1; }
	# The larger of the bytes and the host's blocks: many small files take
	# a block each on ext4 too.
	used_kib=$(du -sk --apparent-size "$dir" | cut -f1)
	local blocks_kib
	blocks_kib=$(du -sk "$dir" | cut -f1)
	((blocks_kib > used_kib)) && used_kib=$blocks_kib
	size_kib=$((used_kib + used_kib * VM_ROOTFS_OVERHEAD_PCT / 100 + VM_ROOTFS_SLACK_KIB))
	# An existing file of the right size keeps mke2fs quiet ("Creating
	# regular file") and drops any previous image's blocks.
	rm -f "$img"
	truncate -s "${size_kib}K" "$img" || { _vm_err "cannot create $img"; return 1; }
	mke2fs -q -t ext4 -d "$dir" "$@" "$img" ||
		{ _vm_err "mke2fs -d $dir $* $img failed"; return 1; }
}

vm_selinux_label() {
	local dir=${1:?usage: vm_selinux_label DIR [FILE_CONTEXTS]}
	local fc=${2:-/etc/selinux/default/contexts/files/file_contexts}
	[[ -f $fc ]] || { _vm_err "$fc missing; install selinux-policy-default"; return 1; }
	setfiles -r "$dir" "$fc" "$dir"
}

# ---- initramfs --------------------------------------------------------------

vm_initramfs() {
	local out=${1:?usage: vm_initramfs OUT [--kernel VERSION] [builder args...]}
	shift
	local version=$VM_DEFAULT_KERNEL
	if [[ ${1:-} == --kernel ]]; then
		version=${2:?vm_initramfs: --kernel needs 6.12 or 6.1}
		shift 2
	fi
	_vm_builder "$version" -o "$out" -- "$@"
}

# vm_uki OUT [--kernel VERSION] [builder args...]: a unified kernel image
# (the builder's --uki) of the kernel VERSION (6.12) and the initramfs
# vm_initramfs would build with the same args; pass --cmdline, the profile
# or config, --sign-key and --sign-cert, --pcrpkey ...
vm_uki() {
	local out=${1:?usage: vm_uki OUT [--kernel VERSION] [builder args...]}
	shift
	local version=$VM_DEFAULT_KERNEL vmlinuz
	if [[ ${1:-} == --kernel ]]; then
		version=${2:?vm_uki: --kernel needs 6.12 or 6.1}
		shift 2
	fi
	vmlinuz=$(vm_kernel "$version") || return 1
	_vm_builder "$version" --uki "$out" --kernel "$vmlinuz" -- "$@"
}

# _vm_builder VERSION OUTPUT_ARGS... -- ARGS...: hardinit-mkinitramfs
# with this tree's hardinit and the modules of the kernel VERSION, for
# virtio; ARGS last, so that a caller's word overrides the harness's.
_vm_builder() {
	local version=$1 kdir kver
	local -a head=()
	shift
	while [[ $1 != -- ]]; do head+=("$1"); shift; done
	shift
	local builder=$HARDINIT_SRC/initramfs/hardinit-mkinitramfs
	[[ -x $builder ]] || { _vm_err "$builder missing"; return 1; }
	[[ -x $_VM_BUILD/hardinit ]] || { _vm_err "$_VM_BUILD/hardinit missing; run 'make'"; return 1; }
	kdir=$(vm_kernel_dir "$version") || return 1
	kver=$(cat "$kdir/kver")
	"$builder" "${head[@]}" --hardinit "$_VM_BUILD/hardinit" --moddir "$kdir" --kver "$kver" --target virtio "$@"
}

vm_cpio() {
	local out=${1:?usage: vm_cpio OUT DIR} dir=${2:?usage: vm_cpio OUT DIR} abs
	abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
	(cd "$dir" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible >"$abs")
}

# ---- booting ----------------------------------------------------------------

vm_boot() {
	local log=${1:?usage: vm_boot LOG [options] [-- qemu args]}
	shift
	local kernel=$VM_DEFAULT_KERNEL initrd="" append="" timeout=$VM_TIMEOUT mem=1024
	local icount=0 console=0
	local -a disks=() extra=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernel) kernel=${2:?}; shift 2 ;;
		--initrd) initrd=${2:?}; shift 2 ;;
		--disk) disks+=("${2:?}"); shift 2 ;;
		--append) append=$2; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--mem) mem=${2:?}; shift 2 ;;
		--icount) icount=1; shift ;;
		--console) console=1; shift ;;
		--) shift; extra=("$@"); break ;;
		*) _vm_err "vm_boot: unknown option '$1'"; return 2 ;;
		esac
	done
	case $kernel in
	6.12 | 6.1 | 6.12-arm64 | 6.1-arm64) kernel=$(vm_kernel "$kernel") || return 1 ;;
	esac
	[[ -f $kernel ]] || { _vm_err "vm_boot: kernel $kernel missing"; return 1; }

	local -a cmd=("$VM_QEMU" -accel tcg -m "$mem" -nodefaults -nographic -no-reboot)
	if [[ $VM_ARCH == arm64 ]]; then
		cmd+=(-M virt -cpu "$VM_CPU" -kernel "$kernel" -append "console=ttyAMA0 panic=-1${append:+ $append}")
	else
		cmd+=(-kernel "$kernel" -append "console=ttyS0 panic=-1${append:+ $append}")
	fi
	[[ -n $initrd ]] && cmd+=(-initrd "$initrd")
	local d
	for d in "${disks[@]}"; do
		cmd+=(-drive "file=$d,if=virtio,format=raw")
	done
	# Guest time then advances one ns per instruction: comparable timings on
	# a noisy machine (doc/performance.md, the method).
	((icount)) && cmd+=(-icount "shift=0,sleep=off")
	rm -f "$log"
	if ((console)); then
		# Serial on the terminal (typing reaches the guest), copied to LOG.
		cmd+=(-chardev "stdio,id=ser0,mux=on,signal=off,logfile=$log"
			-serial chardev:ser0 -mon chardev=ser0)
	else
		cmd+=(-serial "file:$log")
	fi
	cmd+=("${extra[@]}")

	local rc=0 try
	for try in 1 2; do
		rc=0
		if ((console)); then
			timeout --foreground -k 5 "$timeout" "${cmd[@]}" || rc=$?
		else
			timeout -k 5 "$timeout" "${cmd[@]}" </dev/null || rc=$?
		fi
		# A host too busy for the emulated timer: the kernel's IO-APIC timer
		# check (check_timer()) panics in its first tenth of a second, long
		# before any initramfs runs. That says nothing of what is tested, so
		# the boot runs once more; any other failure stands.
		((try == 1 && console == 0)) && [[ -f $log ]] &&
			grep -q 'IO-APIC + timer doesn.t work' "$log" && ! grep -q 'Run /init' "$log" || break
		_vm_err "vm_boot: the kernel's timer check failed on a busy host before /init; booting once more"
		mv -f "$log" "$log.timer-check"
	done
	if ((rc == 124 || rc == 137)); then
		_vm_err "vm_boot: QEMU still running after ${timeout} s; killed it (guest hung?). Log: $log"
	elif ((rc != 0)); then
		_vm_err "vm_boot: QEMU failed with status $rc: ${cmd[*]}"
	fi
	return "$rc"
}

# vm_luks_image PLAIN KEY OUT UUID PASSPHRASE: OUT becomes a LUKS2 volume
# (Debian's cryptsetup: aes-xts-plain64, 512-bit key, 512-byte sectors,
# argon2id at costs TCG can pay) whose data is the file system image
# PLAIN, encrypted by tests' luks2-tool so that no device-mapper device is
# made on the host. The volume key (64 random bytes) is left in KEY.
vm_luks_image() {
	local plain=$1 key=$2 out=$3 uuid=$4 pass=$5 size offset
	size=$(stat -c %s "$plain") || return 1
	head -c 64 /dev/urandom >"$key"
	rm -f "$out"
	truncate -s $((size + 4 * 1048576)) "$out"
	printf %s "$pass" | cryptsetup luksFormat -q --type luks2 --key-file - --volume-key-file "$key" \
		--key-size 512 --cipher aes-xts-plain64 --sector-size 512 --uuid "$uuid" \
		--pbkdf argon2id --pbkdf-force-iterations 4 --pbkdf-memory 8192 --pbkdf-parallel 2 \
		--luks2-metadata-size 16k --luks2-keyslots-size 1m "$out" || return 1
	offset=$(cryptsetup luksDump "$out" | awk '/^Data segments:/ { s = 1 } s && /offset:/ { print $2; exit }')
	[[ $offset =~ ^[0-9]+$ ]] || return 1
	"$HARDINIT_SRC/build/tools/luks2-tool" encrypt "$(od -An -tx1 -v "$key" | tr -d ' \n')" 0 \
		<"$plain" | dd of="$out" bs=512 seek=$((offset / 512)) conv=notrunc status=none || return 1
	truncate -s $((offset + size)) "$out"
}

# vm_wait_serial LOG TEXT SECONDS: 0 once the serial log has TEXT (a fixed
# string); 1 once the kernel's last line is there ("] reboot: ", which the
# "secureboot: " line of a Secure Boot boot does not match) or after
# SECONDS. The tests that type on a guest's console wait with it.
vm_wait_serial() {
	local i
	for ((i = 0; i < $3 * 4; i++)); do
		grep -aqF -- "$2" "$1" 2>/dev/null && return 0
		grep -aqF '] reboot: ' "$1" 2>/dev/null && return 1
		sleep 0.25
	done
	return 1
}

vm_exit_reason() {
	local log=${1:?usage: vm_exit_reason LOG}
	if grep -q 'Kernel panic - not syncing' "$log"; then
		echo panic
	elif grep -q 'reboot: Power down' "$log"; then
		echo poweroff
	elif grep -q 'reboot: Restarting system' "$log"; then
		echo reboot
	elif grep -q 'reboot: System halted' "$log"; then
		echo halt
	else
		echo unknown
	fi
}

# ---- reading the report -------------------------------------------------------

# Kernel console records ("[    1.234567] text") are written to the UART
# synchronously, while a process's tty output is queued: a record can land
# in the middle of one of testinit's lines, splitting it around the record
# (the record always ends with its own newline). This joins such lines
# again and drops the records. Output: \r stripped. (With printk.time=0 the
# records carry no timestamp and are kept as they are.) A console shared
# with systemd's status lines also carries their "erase to the end of the
# line" (ESC [ K) ahead of a probe's line: dropped, it is no text of ours.
_VM_PRINTK='\[ *[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]\] '

vm_clean_log() {
	local log=${1:?usage: vm_clean_log LOG}
	tr -d '\r' <"$log" | awk -v re="$_VM_PRINTK" '
		BEGIN { erase = sprintf("%c", 27) "\\[[0-2]?K" }
		{
			gsub(erase, "")
			line = carry $0
			if (match(line, re)) {
				# Before the first record: firmware output without a
				# newline, not a line of ours.
				carry = seen ? substr(line, 1, RSTART - 1) : ""
				seen = 1
				next
			}
			carry = ""
			print line
		}
		END { if (carry != "") print carry }'
}

vm_section() {
	local log=${1:?usage: vm_section LOG NAME} name=${2:?usage: vm_section LOG NAME}
	[[ -f $log ]] || { _vm_err "vm_section: no log $log"; return 1; }
	if [[ ${VM_SECTION_RAW:-0} == 1 ]]; then
		tr -d '\r' <"$log"
	else
		vm_clean_log "$log"
	fi | awk -v name="$name" '
		$0 == "=== BEGIN " name " ===" { inside = 1; found = 1; next }
		$0 == "=== END " name " ===" { if (inside) closed = 1; inside = 0; next }
		inside { print }
		END {
			if (!found) { print "vm: section " name " not in the log" > "/dev/stderr"; exit 1 }
			if (!closed) { print "vm: section " name " has no END marker" > "/dev/stderr"; exit 1 }
		}'
}

# vm_section_value LOG NAME KEY: the value of the first KEY=VALUE line of
# section NAME (blanks before KEY skipped: a character a probe pushed into
# the tty is echoed ahead of its line); empty when there is none.
vm_section_value() {
	local log=${1:?usage: vm_section_value LOG NAME KEY} name=${2:?} key=${3:?}
	vm_section "$log" "$name" | awk -v key="$key" '
		{ sub(/^[ \t]+/, "") }
		index($0, key "=") == 1 { print substr($0, length(key) + 2); exit }'
}

vm_log_tail() {
	local log=${1:?usage: vm_log_tail LOG [N]} n=${2:-$VM_LOG_TAIL_LINES}
	tr -d '\r' <"$log" 2>/dev/null | tail -n "$n"
}

_vm_fail() {
	local log=$1
	shift
	{
		printf 'FAILED: %s\n' "$*"
		printf -- '--- last %d lines of %s ---\n' "$VM_LOG_TAIL_LINES" "$log"
		vm_log_tail "$log"
		printf -- '--- end of log ---\n'
	} >&2
	return 1
}

# Kernel records are searched in the raw log, testinit's and the probes'
# lines in the cleaned one (where a record may have split them).
_vm_log_has() {
	local log=$1 text=$2
	tr -d '\r' <"$log" | grep -qF -- "$text" || vm_clean_log "$log" | grep -qF -- "$text"
}

vm_assert_log_contains() {
	local log=${1:?} text=${2:?}
	_vm_log_has "$log" "$text" || _vm_fail "$log" "expected the log to contain: $text"
}

vm_assert_log_lacks() {
	local log=${1:?} text=${2:?}
	! _vm_log_has "$log" "$text" || _vm_fail "$log" "expected the log not to contain: $text"
}

vm_assert_section_contains() {
	local log=${1:?} name=${2:?} text=${3:?} body
	body=$(vm_section "$log" "$name") || { _vm_fail "$log" "section $name missing"; return 1; }
	grep -qF -- "$text" <<<"$body" ||
		_vm_fail "$log" "expected section $name to contain: $text"$'\n'"--- section $name ---"$'\n'"$body"
}

vm_assert_section_line() {
	local log=${1:?} name=${2:?} line=${3:?} body
	body=$(vm_section "$log" "$name") || { _vm_fail "$log" "section $name missing"; return 1; }
	grep -qxF -- "$line" <<<"$body" ||
		_vm_fail "$log" "expected section $name to have the line: $line"$'\n'"--- section $name ---"$'\n'"$body"
}

vm_assert_section_lacks() {
	local log=${1:?} name=${2:?} text=${3:?} body
	body=$(vm_section "$log" "$name") || { _vm_fail "$log" "section $name missing"; return 1; }
	! grep -qF -- "$text" <<<"$body" ||
		_vm_fail "$log" "expected section $name not to contain: $text"$'\n'"--- section $name ---"$'\n'"$body"
}

# vm_assert_section_value LOG NAME KEY VALUE: the section's KEY= reads
# VALUE exactly (vm_section_value).
vm_assert_section_value() {
	local log=${1:?} name=${2:?} key=${3:?} want=$4 got
	got=$(vm_section_value "$log" "$name" "$key")
	[[ $got == "$want" ]] ||
		_vm_fail "$log" "$key: guest reads '$got', expected '$want'"$'\n'"--- section $name ---"$'\n'"$(vm_section "$log" "$name")"
}

# The last capability both Debian kernels know, on both architectures
# (CAP_CHECKPOINT_RESTORE; doc/design.md).
VM_LAST_CAP=40

# vm_capbnd_without CAP...: the bounding set a guest's /proc/PID/status
# shows (CapBnd, 16 hex digits) when the full set 0..VM_LAST_CAP has lost
# the capabilities CAP (numbers).
vm_capbnd_without() {
	local mask=$(((1 << (VM_LAST_CAP + 1)) - 1)) c
	for c in "$@"; do
		mask=$((mask & ~(1 << c)))
	done
	printf '%016x\n' "$mask"
}

vm_assert_done() {
	local log=${1:?} reason
	vm_assert_log_contains "$log" "=== TESTINIT DONE ===" || return 1
	reason=$(vm_exit_reason "$log")
	[[ $reason == poweroff ]] || _vm_fail "$log" "expected the guest to power off, it ended by: $reason"
}

# ---- sharing between tests ------------------------------------------------------

# vm_cache_note NAME hit|miss [SECONDS]: one line for tests/run-suites' list
# of cached artefacts (HARDINIT_CACHE_LOG, which it sets); nothing when unset.
# A miss says what it cost: the seconds it took to build (or to wait for the
# lane that was building it).
vm_cache_note() {
	[[ -n ${HARDINIT_CACHE_LOG:-} ]] || return 0
	if [[ $2 == miss ]]; then
		printf 'miss %s: built in %s s\n' "$1" "${3:-?}"
	else
		printf 'hit  %s\n' "$1"
	fi >>"$HARDINIT_CACHE_LOG"
}

# vm_deb: echo the path of hardinit's .deb for this tree: the one make check
# built once for every suite (HARDINIT_DEB_DIR, exported by tests/run-suites),
# else make deb's, built now when missing or older than the tree.
vm_deb() {
	local dir=${HARDINIT_DEB_DIR:-} version deb
	version=$(cd "$HARDINIT_SRC" && dpkg-parsechangelog -S Version) || return 1
	if [[ -z $dir ]]; then
		make -C "$HARDINIT_SRC" -s deb >&2 || return 1
		dir=$HARDINIT_SRC/build/deb
	fi
	deb=$dir/hardinit_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
	[[ -f $deb ]] || { _vm_err "no $deb: run make deb"; return 1; }
	printf '%s\n' "$deb"
}

vm_cache_dir() {
	local dir=${VM_RUN_DIR:-${BATS_RUN_TMPDIR:+$BATS_RUN_TMPDIR/vm}}
	# Outside bats: one directory per shell that sourced this file (the
	# caller removes it when done).
	dir=${dir:-${TMPDIR:-/tmp}/hardinit-vm.$_VM_SOURCING_PID}
	mkdir -p "$dir" && printf '%s\n' "$dir"
}

vm_build_once() {
	local path=${1:?usage: vm_build_once PATH CMD...} t0=$SECONDS name=
	shift
	# What is kept across runs (under the cache) is listed hit or miss.
	[[ $path == "$HARDINIT_CACHE"/* ]] && name=${path#"$HARDINIT_CACHE"/}
	if [[ -e $path ]]; then
		[[ -z $name ]] || vm_cache_note "$name" hit
		return 0
	fi
	mkdir -p "$(dirname "$path")"
	(
		flock 9
		[[ -e $path ]] && exit 0
		"$@" || { rm -rf "$path"; exit 1; }
		[[ -e $path ]] || { printf 'vm: vm_build_once: %s did not create %s\n' "$*" "$path" >&2; exit 1; }
	) 9>"$path.lock" || return 1
	[[ -z $name ]] || vm_cache_note "$name" miss $((SECONDS - t0))
}

# ---- swtpm: a TPM 2.0 for one boot ----------------------------------------

# vm_need_swtpm: the test is skipped unless swtpm and swtpm_setup are
# installed (swtpm, swtpm-tools; scripts/install-deps).
vm_need_swtpm() {
	command -v swtpm >/dev/null && command -v swtpm_setup >/dev/null ||
		skip "swtpm is not installed (apt-get install swtpm swtpm-tools)"
}

# vm_swtpm_setup DIR BANKS: DIR/state manufactured as a TPM 2.0 with an EK
# and only the PCR banks BANKS active (a comma list: sha256, sha1,sha256);
# its log in DIR/setup.log, printed when it fails.
vm_swtpm_setup() {
	local d=${1:?usage: vm_swtpm_setup DIR BANKS} banks=${2:?usage: vm_swtpm_setup DIR BANKS}
	mkdir -p "$d/state"
	swtpm_setup --tpm2 --tpmstate "$d/state" --pcr-banks "$banks" --createek --overwrite >"$d/setup.log" 2>&1 ||
		{ cat "$d/setup.log"; return 1; }
}

# vm_swtpm_start DIR [STATE]: swtpm on STATE (default DIR/state; made when
# missing, else as vm_swtpm_setup or an earlier boot left it), its control
# socket DIR/sock, its log DIR/log. It runs in the background as the
# test's child: call vm_swtpm_stop from teardown, so it is never left
# running. Sets SWTPM_PID and VM_TPM_ARGS (QEMU's options for vm_boot's --
# part or vm_efi_boot's). Returns 1 with one line when it does not start.
vm_swtpm_start() {
	local d=${1:?usage: vm_swtpm_start DIR [STATE]} state=${2:-$1/state} i
	command -v swtpm >/dev/null || { echo "swtpm is not installed (scripts/install-deps)"; return 1; }
	mkdir -p "$d" "$state"
	# A socket left by an earlier boot in DIR would pass the wait below.
	rm -f "$d/sock"
	swtpm socket --tpm2 --tpmstate dir="$state" --ctrl type=unixio,path="$d/sock" \
		--log file="$d/log" --terminate </dev/null >/dev/null 2>&1 &
	SWTPM_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -S $d/sock ]] && break
		sleep 0.1
	done
	[[ -S $d/sock ]] || { echo "swtpm did not start: $(cat "$d/log" 2>/dev/null)"; return 1; }
	# shellcheck disable=SC2054,SC2034 # QEMU's options are comma lists; the caller reads VM_TPM_ARGS
	VM_TPM_ARGS=(-chardev "socket,id=chrtpm,path=$d/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
		-device tpm-tis,tpmdev=tpm0)
}

# vm_swtpm_stop: the swtpm vm_swtpm_start started, if any, stopped.
vm_swtpm_stop() {
	if [[ -n ${SWTPM_PID:-} ]]; then
		kill "$SWTPM_PID" 2>/dev/null || true
		wait "$SWTPM_PID" 2>/dev/null || true
		SWTPM_PID=""
	fi
}

# vm_swtpm_serve STATE DIR CMD...: swtpm on STATE serving its TPM on the
# host, on the unix socket DIR/srv (initialised and started up, as a
# TPM after the firmware: tpm2-tss's swtpm TCTI, --tpm2-device=swtpm:path=
# DIR/srv, speaks to it), while CMD runs; stopped before it returns. The
# host's enrollment of a token against the state a boot then uses.
# Returns CMD's status, 1 with one line when swtpm does not start.
vm_swtpm_serve() {
	local state=${1:?usage: vm_swtpm_serve STATE DIR CMD...} d=${2:?usage: vm_swtpm_serve STATE DIR CMD...}
	local i pid rc=0
	shift 2
	mkdir -p "$state" "$d"
	rm -f "$d/srv" "$d/serve.pid"
	swtpm socket --tpm2 --tpmstate dir="$state" --server type=unixio,path="$d/srv" \
		--ctrl type=unixio,path="$d/srv.ctrl" --flags not-need-init,startup-clear \
		--daemon --pid file="$d/serve.pid" --log file="$d/serve.log" || { echo "swtpm did not start"; return 1; }
	for ((i = 0; i < 50; i++)); do [[ -S $d/srv ]] && break; sleep 0.1; done
	pid=$(cat "$d/serve.pid")
	if [[ -S $d/srv ]]; then
		"$@" || rc=$?
	else
		echo "swtpm did not serve $d/srv: $(cat "$d/serve.log" 2>/dev/null)"
		rc=1
	fi
	kill "$pid"
	for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	return "$rc"
}

# ---- UEFI firmware --------------------------------------------------------

# Debian's ovmf: the 4 MiB builds, plain and with Secure Boot (SMM), their
# empty variables and the variables with Debian's snakeoil PK, KEK and db
# enrolled; the snakeoil key (.key, passphrase "snakeoil") and certificate
# (.pem) sign what that db trusts.
VM_OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
VM_OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
VM_OVMF_SECURE_CODE=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
VM_OVMF_SECURE_VARS=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd
VM_OVMF_SNAKEOIL=/usr/share/ovmf/PkKek-1-snakeoil

# vm_have_ovmf [plain] [secure]: 0 when the firmware files of each mode
# named are installed (plain when none is named).
vm_have_ovmf() {
	local mode f
	local -a files=()
	for mode in "${@:-plain}"; do
		case $mode in
		plain) files+=("$VM_OVMF_CODE" "$VM_OVMF_VARS") ;;
		secure) files+=("$VM_OVMF_SECURE_CODE" "$VM_OVMF_SECURE_VARS" "$VM_OVMF_SNAKEOIL.key" "$VM_OVMF_SNAKEOIL.pem") ;;
		*) _vm_err "vm_have_ovmf: unknown mode '$mode'"; return 2 ;;
		esac
	done
	for f in "${files[@]}"; do
		[[ -f $f ]] || return 1
	done
}

# vm_need_ovmf [plain] [secure]: the test is skipped unless vm_have_ovmf.
vm_need_ovmf() {
	vm_have_ovmf "$@" || skip "ovmf not installed (scripts/install-deps)"
}

# vm_snakeoil_key OUT: the snakeoil private key, unencrypted, in OUT (mode
# 0600), for the builder's --sign-key beside --sign-cert $VM_OVMF_SNAKEOIL.pem.
vm_snakeoil_key() {
	local out=${1:?usage: vm_snakeoil_key OUT}
	(umask 077 && openssl pkey -in "$VM_OVMF_SNAKEOIL.key" -passin pass:snakeoil -out "$out")
}

# vm_eventlog_events PCR: the firmware's event log (binary_bios_measurements
# as hex text on stdin, as a probe dumps it with od; TCG PC Client
# crypto-agile format) to one line per event extended into PCR, in order:
# "TYPE BANK=HEX..." (TYPE in 8 hex digits, one BANK=HEX per bank the log
# carries). EV_NO_ACTION, never extended, is left out.
vm_eventlog_events() {
	python3 -c '
import struct, sys
want = int(sys.argv[1])
data = bytes.fromhex("".join(sys.stdin.read().split()))
# The first event (SHA-1 format) is the Spec ID event naming the banks.
_, _, _, size = struct.unpack_from("<II20sI", data, 0)
spec = data[32:32 + size]
assert spec[:16].rstrip(b"\0") == b"Spec ID Event03", spec[:16]
n = struct.unpack_from("<I", spec, 24)[0]
sizes = dict(struct.unpack_from("<HH", spec, 28 + 4 * i) for i in range(n))
names = {0x4: "sha1", 0xB: "sha256", 0xC: "sha384", 0xD: "sha512"}
off = 32 + size
while off < len(data):
    pcr, etype, count = struct.unpack_from("<III", data, off)
    off += 12
    digests = []
    for i in range(count):
        alg = struct.unpack_from("<H", data, off)[0]
        if alg in names:
            digests.append("%s=%s" % (names[alg], data[off + 2:off + 2 + sizes[alg]].hex()))
        off += 2 + sizes[alg]
    off += 4 + struct.unpack_from("<I", data, off)[0]
    if pcr == want and etype != 3:
        print("%08x %s" % (etype, " ".join(digests)))
' "${1:?usage: vm_eventlog_events PCR}"
}

# vm_pcr_replay BANK [WORD...]: the PCR (lower-case hex) that the events
# vm_eventlog_events printed (stdin) leave in BANK, extended in order from
# zeros, then each WORD extended as systemd measures a word (BANK's hash
# of its text).
vm_pcr_replay() {
	python3 -c '
import hashlib, sys
bank = sys.argv[1]
value = bytes(hashlib.new(bank).digest_size)
for line in sys.stdin:
    for field in line.split()[1:]:
        name, _, digest = field.partition("=")
        if name == bank:
            value = hashlib.new(bank, value + bytes.fromhex(digest)).digest()
for word in sys.argv[2:]:
    value = hashlib.new(bank, value + hashlib.new(bank, word.encode()).digest()).digest()
print(value.hex())
' "${1:?usage: vm_pcr_replay BANK [WORD...]}" "${@:2}"
}

# vm_make_esp EFI IMG [BOOTNAME]: a FAT ESP image holding EFI as the
# removable-media boot path \EFI\BOOT\BOOTNAME (BOOTX64.EFI; an arm64
# UKI is BOOTAA64.EFI); made with mtools, no mount.
vm_make_esp() {
	local efi=$1 img=$2 name=${3:-BOOTX64.EFI} kib
	kib=$(($(stat -c %s "$efi") / 1024 + 8192))
	rm -f "$img"
	mkfs.vfat -C -n ESP "$img" "$kib" >/dev/null
	mmd -i "$img" ::/EFI ::/EFI/BOOT
	mcopy -i "$img" "$efi" "::/EFI/BOOT/$name"
}

# vm_efi_boot [--console] LOG TIMEOUT STOP_TEXT CODE VARS_TEMPLATE
# QEMU_ARGS...: one firmware boot (OVMF or AAVMF; the machine and CPU
# options are the caller's) on a fresh copy of the variables, bounded by
# TIMEOUT. With a STOP_TEXT, QEMU is stopped as soon as the serial log
# shows it: a firmware that refused an image waits for ever. With
# --console the serial is QEMU's stdio as well (what the caller pipes in
# is typed on the guest's console), still copied to LOG. Returns QEMU's
# status.
vm_efi_boot() {
	local console=0
	[[ ${1:-} == --console ]] && { console=1; shift; }
	local log=$1 limit=$2 stop=$3 code=$4 vars=$1.vars rc=0 pid
	cp "$5" "$vars"
	shift 5
	rm -f "$log"
	local -a cmd=("$VM_QEMU" -accel tcg -m 1024 -nodefaults -nographic -no-reboot
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
		-drive "if=pflash,format=raw,unit=1,file=$vars")
	if ((console)); then
		cmd+=(-chardev "stdio,id=ser0,mux=on,signal=off,logfile=$log" -serial chardev:ser0 -mon chardev=ser0 "$@")
		# Stdin named: a shell may give an asynchronous command /dev/null.
		timeout --foreground -k 5 "$limit" "${cmd[@]}" <&0 &
	else
		cmd+=(-serial "file:$log" "$@")
		timeout -k 5 "$limit" "${cmd[@]}" </dev/null &
	fi
	pid=$!
	if [[ -n $stop ]]; then
		while kill -0 "$pid" 2>/dev/null; do
			if grep -aqF -- "$stop" "$log" 2>/dev/null; then
				kill "$pid" 2>/dev/null
				break
			fi
			sleep 1
		done
	fi
	wait "$pid" || rc=$?
	rm -f "$vars"
	return "$rc"
}

# vm_ovmf_boot [--console] LOG plain|secure TIMEOUT STOP_TEXT QEMU_ARGS...:
# vm_efi_boot under OVMF on a q35 machine: plain, its code with empty
# variables (no Secure Boot); secure, the Secure Boot code (SMM, its
# variable store protected) with the snakeoil keys enrolled.
vm_ovmf_boot() {
	local -a console=()
	[[ ${1:-} == --console ]] && { console=(--console); shift; }
	local log=$1 mode=$2 limit=$3 stop=$4
	shift 4
	case $mode in
	plain) vm_efi_boot "${console[@]}" "$log" "$limit" "$stop" "$VM_OVMF_CODE" "$VM_OVMF_VARS" -machine q35 "$@" ;;
	secure)
		# shellcheck disable=SC2054 # QEMU's options are comma lists
		vm_efi_boot "${console[@]}" "$log" "$limit" "$stop" "$VM_OVMF_SECURE_CODE" "$VM_OVMF_SECURE_VARS" \
			-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on "$@"
		;;
	*) _vm_err "vm_ovmf_boot: unknown mode '$mode'"; return 2 ;;
	esac
}
