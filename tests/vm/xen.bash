# shellcheck shell=bash
# The Xen harness: Debian's Xen 4.17 under QEMU (TCG), a PV dom0 on Debian's
# generic 6.1 kernel running from an initramfs of its own, and the
# toolstack (xl, xenstored, xenconsoled, the hotplug scripts) in it, so a
# test can `xl create` a domU exactly as a user's dom0 would and read the
# guest's console. Load after lib.bash (`load lib`, `load xen`).
#
#   xen_dir                     echo the cache dir of Xen (scripts/fetch-xen)
#   xen_dom0_initrd OUT SCENARIO [FILE=PATH_IN_DOM0]...
#                               dom0's initramfs: busybox, bash, the toolstack
#                               and its libraries, the dom0 kernel's Xen and
#                               disk modules, /init (tests/vm/xen-dom0-init)
#                               and SCENARIO as /scenario, the script /init
#                               runs once the toolstack is up; each FILE is
#                               copied to PATH_IN_DOM0 (a domU's kernel, its
#                               ramdisk, its xl config)
#   xen_dom0_tree DIR SCENARIO [FILE=PATH_IN_DOM0]...
#                               the same files in DIR, for a dom0 whose root
#                               is a disk (vm_rootfs DIR) and whose own
#                               initramfs is hardinit's: its real init runs
#                               /init of the tree
#   xen_pvh_vmlinux VERSION     echo the path of VERSION's (6.12, 6.1)
#                               uncompressed vmlinux, the ELF with the PVH
#                               entry note, cut out of Debian's vmlinuz once
#                               and cached beside Xen
#   xen_man_notes               the XEN GUESTS notes of hardinit.conf(5), one
#                               line each: PATH, the value quoted for it and
#                               any further quoted console lines, tab-separated
#   xen_boot LOG DOM0_INITRD [--disk IMG]... [--timeout S] [--xen-append "..."]
#                               [--cpu MODEL] [--dom0-append "..."] [--icount]
#                               boot Xen with the generic kernel as dom0 and
#                               DOM0_INITRD; dom0's hvc0 and Xen's own lines
#                               are on com1, in LOG; the disks are dom0's
#                               /dev/vda, /dev/vdb... (a scenario hands one to
#                               a domU as phy:/dev/vdX); --icount: QEMU's
#                               -icount shift=0,sleep=off, guest time one ns
#                               per instruction (Xen 4.17 and its guests boot
#                               so; make bench's Xen row uses it)
#
# The scenario prints between "=== BEGIN NAME ===" and "=== END NAME ==="
# markers, as testinit does (vm_section reads them), and the domU's own
# console, kept by xenconsoled, is printed by `domu_console NAME` in a
# section "domu-console-NAME". /init powers dom0 off when the scenario ends
# or after XEN_SCENARIO_TIMEOUT seconds.

XEN_DOM0_KERNEL=6.1-generic
# The emulated CPU: SVM and its nested paging (NPT, Xen's HAP) for HVM and
# PVH guests; a PV guest needs neither.
XEN_CPU="qemu64,+svm,+npt"
XEN_DOM0_MEM=768
# Xen, dom0 and the domUs it starts share this much guest memory.
XEN_QEMU_MEM=2048
XEN_TIMEOUT=${XEN_TIMEOUT:-900}
# The dom0 kernel's modules the toolstack and the tests need: xenfs for
# /proc/xen, the event channel, grant and privcmd devices xl opens, the
# block backend that serves a domU's xvda, and the virtio disk it passes.
XEN_DOM0_MODULES=(xenfs xen-evtchn xen-gntdev xen-gntalloc xen-privcmd xen-blkback virtio_pci virtio_blk)

xen_dir() {
	"$HARDINIT_SRC/scripts/fetch-xen"
}

# Copy a dynamically linked program and every library ldd resolves for it
# (Xen's from the unpacked packages first, the rest from the host, which is
# the same Debian release) into DIR.
_xen_copy_program() {
	local dir=$1 prog=$2 xenroot=$3 lib libpath
	libpath=$(find "$xenroot/usr/lib" -name '*.so*' -printf '%h\n' | sort -u | tr '\n' :)
	install -D -m 0755 "$prog" "$dir/${prog#"$xenroot"}"
	while read -r lib; do
		[[ -f $lib ]] || continue
		mkdir -p "$dir/lib/x86_64-linux-gnu"
		cp -L "$lib" "$dir/lib/x86_64-linux-gnu/"
	done < <(LD_LIBRARY_PATH=$libpath ldd "$prog" | awk '/=> \// { print $3 }')
	# glibc loads libgcc_s at run time (pthread_cancel, which xl uses).
	cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$dir/lib/x86_64-linux-gnu/"
	# The program interpreter, where the ELF header names it.
	install -D -m 0755 /lib64/ld-linux-x86-64.so.2 "$dir/lib64/ld-linux-x86-64.so.2"
}

# The dom0 kernel's modules, decompressed (busybox's modprobe reads plain
# .ko) with a modules.dep of their own made by depmod.
_xen_dom0_modules() {
	local dir=$1 kdir kver m path
	kdir=$(vm_kernel_dir "$XEN_DOM0_KERNEL") || return 1
	kver=$(cat "$kdir/kver")
	local -a want=()
	for m in "${XEN_DOM0_MODULES[@]}"; do
		want+=("$m")
		# and what it depends on (modinfo's depends= line, recursively)
		while read -r path; do want+=("$(basename "${path%%.ko*}")"); done < <(
			modprobe -d "$kdir" -S "$kver" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }')
	done
	for m in "${want[@]}"; do
		path=$(modprobe -d "$kdir" -S "$kver" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }' | tail -n 1)
		[[ -n $path ]] || continue # built in
		mkdir -p "$dir/lib/modules/$kver/kernel"
		case $path in
		*.xz) xz -dc "$path" >"$dir/lib/modules/$kver/kernel/$(basename "${path%.xz}")" ;;
		*) cp "$path" "$dir/lib/modules/$kver/kernel/" ;;
		esac
	done
	# Only what depmod reads besides the modules: its warnings say nothing.
	touch "$dir/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo}
	depmod -b "$dir" "$kver"
}

# XEN_ELFNOTE_PHYS32_ENTRY (18): the 32-bit entry point a PVH loader jumps to.
_xen_has_pvh_note() {
	readelf -nW "$1" 2>/dev/null | grep -qE '^ +Xen +0x[0-9a-f]+[[:space:]]+(Unknown note type: \(0x00000012\)|.*PHYS32_ENTRY)'
}

xen_pvh_vmlinux() {
	local version=${1:?usage: xen_pvh_vmlinux VERSION} kdir kver xen out off tmp
	kdir=$(vm_kernel_dir "$version") || return 1
	kver=$(cat "$kdir/kver")
	xen=$(xen_dir) || return 1
	out=$xen/pvh/vmlinux-$kver
	if [[ ! -s $out ]]; then
		mkdir -p "$xen/pvh"
		tmp=$(mktemp "$xen/pvh/.vmlinux.XXXXXX")
		# Debian's bzImage carries the kernel zstd-compressed: its frame
		# starts at the first zstd magic (28 b5 2f fd).
		off=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$kdir/boot/vmlinuz-$kver" | head -n 1 | cut -d: -f1)
		[[ -n $off ]] || { rm -f "$tmp"; _vm_err "xen_pvh_vmlinux: no zstd frame in vmlinuz-$kver"; return 1; }
		tail -c "+$((off + 1))" "$kdir/boot/vmlinuz-$kver" | zstd -dcq 2>/dev/null >"$tmp"
		_xen_has_pvh_note "$tmp" ||
			{ rm -f "$tmp"; _vm_err "xen_pvh_vmlinux: vmlinux of $kver has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)"; return 1; }
		mv "$tmp" "$out"
	fi
	printf '%s\n' "$out"
}

xen_man_notes() {
	awk '
		function flush() { if (path != "") print path quotes; path = ""; quotes = "" }
		/^\.SH / { flush(); inside = ($0 == ".SH XEN GUESTS"); next }
		!inside { next }
		/^\.TP/ { flush(); tag = 1; next }
		tag { tag = 0; if ($1 == ".I" && $2 ~ /^\//) { path = $2; next } }
		path != "" {
			line = $0
			while (match(line, /\\\(lq[^\\]*(\\-[^\\]*)*\\\(rq/)) {
				q = substr(line, RSTART + 4, RLENGTH - 8)
				gsub(/\\-/, "-", q)
				quotes = quotes "\t" q
				line = substr(line, RSTART + RLENGTH)
			}
		}
		END { flush() }' "$HARDINIT_SRC/man/hardinit.conf.5"
}

xen_dom0_initrd() {
	local out=${1:?usage: xen_dom0_initrd OUT SCENARIO [FILE=PATH]...} dir
	shift
	dir=$(mktemp -d)
	xen_dom0_tree "$dir" "$@" || { rm -rf "$dir"; return 1; }
	vm_cpio "$out" "$dir"
	rm -rf "$dir"
}

xen_dom0_tree() {
	local dir=${1:?usage: xen_dom0_tree DIR SCENARIO [FILE=PATH]...} scenario=${2:?}
	shift 2
	local xen busybox p f
	xen=$(xen_dir) || return 1
	busybox=$(_vm_host_busybox) || return 1
	mkdir -p "$dir"/{bin,sbin,etc,proc,sys,dev,run,tmp,var/log/xen/console,var/lib/xen,var/run/xen,root,usr/bin,usr/sbin}
	install -m 0755 "$busybox" "$dir/bin/busybox"
	_vm_link_applets "$dir" "$busybox"
	# The hotplug scripts are bash, and take their lock with util-linux's
	# flock, which Debian's busybox lacks.
	_xen_copy_program "$dir" /bin/bash "$xen/root"
	_xen_copy_program "$dir" /usr/bin/flock "$xen/root"
	for p in xl xenstored xenconsoled xen-init-dom0; do
		_xen_copy_program "$dir" "$xen/root/usr/lib/xen-4.17/bin/$p" "$xen/root" || return 1
	done
	for p in xenstore-read xenstore-write xenstore-exists xenstore-rm xenstore-ls xenstore; do
		[[ -e $xen/root/usr/bin/$p ]] || continue
		if [[ -L $xen/root/usr/bin/$p ]]; then
			cp -a "$xen/root/usr/bin/$p" "$dir/usr/bin/"
		else
			_xen_copy_program "$dir" "$xen/root/usr/bin/$p" "$xen/root"
		fi
	done
	# The hotplug scripts xl runs for a phy: disk, and its config.
	cp -a "$xen/root/etc/xen" "$dir/etc/"
	ln -sf /usr/lib/xen-4.17/bin/xl "$dir/usr/sbin/xl"
	_xen_dom0_modules "$dir" || return 1
	install -m 0755 "$HARDINIT_SRC/tests/vm/xen-dom0-init" "$dir/init"
	install -m 0755 "$HARDINIT_SRC/tests/vm/xen-block-phy" "$dir/etc/xen/scripts/block-phy"
	install -m 0755 "$scenario" "$dir/scenario"
	for f in "$@"; do
		install -D -m 0644 "${f%%=*}" "$dir/${f#*=}"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$dir/etc/passwd"
	printf 'root:x:0:\n' >"$dir/etc/group"
}

xen_boot() {
	local log=${1:?usage: xen_boot LOG DOM0_INITRD [options]} initrd=${2:?}
	shift 2
	local timeout=$XEN_TIMEOUT xen_append="" dom0_append="" cpu=$XEN_CPU icount=0 xen kdir kver
	local -a disks=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--disk) disks+=("${2:?}"); shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--xen-append) xen_append=$2; shift 2 ;;
		--cpu) cpu=${2:?}; shift 2 ;;
		--dom0-append) dom0_append=$2; shift 2 ;;
		--icount) icount=1; shift ;;
		*) _vm_err "xen_boot: unknown option '$1'"; return 2 ;;
		esac
	done
	xen=$(xen_dir) || return 1
	kdir=$(vm_kernel_dir "$XEN_DOM0_KERNEL") || return 1
	kver=$(cat "$kdir/kver")
	local -a cmd=("$VM_QEMU" -accel tcg -cpu "$cpu" -m "$XEN_QEMU_MEM" -nodefaults
		-nographic -no-reboot -serial "file:$log"
		-kernel "$xen/xen.elf"
		-append "console=com1 dom0_mem=${XEN_DOM0_MEM}M,max:${XEN_DOM0_MEM}M${xen_append:+ $xen_append}"
		-initrd "$kdir/boot/vmlinuz-$kver console=hvc0 panic=-1${dom0_append:+ $dom0_append},$initrd")
	local d
	for d in "${disks[@]}"; do
		cmd+=(-drive "file=$d,if=virtio,format=raw")
	done
	((icount)) && cmd+=(-icount "shift=0,sleep=off")
	rm -f "$log"
	local rc=0
	timeout -k 5 "$timeout" "${cmd[@]}" </dev/null || rc=$?
	if ((rc == 124 || rc == 137)); then
		_vm_err "xen_boot: QEMU still running after ${timeout} s; killed it. Log: $log"
	elif ((rc != 0)); then
		_vm_err "xen_boot: QEMU failed with status $rc: ${cmd[*]}"
	fi
	return "$rc"
}
