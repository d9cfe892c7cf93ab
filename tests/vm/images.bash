# shellcheck shell=bash
# Real systems for the VM tests: Debian 12 roots built with debootstrap from
# Debian's packages, and a busybox appliance. Load after lib.bash
# (`load lib; load images` in a bats file, or source both from a script).
#
#   img_debian_systemd [permissive|enforcing]
#                         echo the path of an ext4 image: Debian 12 minbase
#                         with systemd as init, Debian's refpolicy, labelled,
#                         SELINUX= set to the variant (default permissive)
#   img_debian_sysvinit [permissive|enforcing]
#                         the same with sysvinit-core as init
#   img_busybox_appliance echo the path of an ext4 image: busybox-static as
#                         /sbin/init with an inittab of services, meant to be
#                         mounted read-only and booted with config/appliance.conf
#   img_tree NAME         echo the cached root tree NAME (debian-systemd,
#                         debian-sysvinit), building it when missing
#   img_apt_mirror        echo the Debian mirror URI the host's apt uses
#
# Two cache levels under ${HARDINIT_CACHE:-/var/cache/hardinit}/images/:
#   NAME-TREEKEY/tree     the debootstrapped, configured, labelled root tree;
#                         TREEKEY hashes the tree builder's code and package
#                         list, so it is rebuilt (a few minutes) only when
#                         those change
#   NAME-TREEKEY/VARIANT-IMGKEY.img
#                         the ext4 image (mke2fs -d, no loop mount); IMGKEY
#                         hashes the assembly code, the probe and the
#                         build/hardinit copied in as /usr/sbin/hardinit (for
#                         `hardinit audit`); older images of a tree are removed
# Boot images with `vm_boot ... -- -snapshot` so the cached file stays as built.
#
# The guest's probe (/usr/local/sbin/hardinit-probe) runs once the real init
# has finished booting, prints sections "=== BEGIN NAME ===" ... "=== END
# NAME ===" on /dev/ttyS0, then "=== PROBE DONE ===" and powers off.

IMG_SUITE=bookworm
IMG_CACHE=${HARDINIT_CACHE:-/var/cache/hardinit}/images
# Seconds the probe waits for systemd to finish booting (is-system-running
# --wait): a TCG boot of Debian takes 30-90 s, a loaded host more.
IMG_PROBE_BOOT_WAIT=300
IMG_HOSTNAME="hardinit-debian"
# Trees and images of other keys are removed once unused for this long: a
# second checkout (another branch, CI beside a session) may still boot them.
IMG_PRUNE_MINUTES=180

# The tools the probes use, common to both Debian roots: procps (sysctl,
# ps), pamtester and libpam-modules (pam_namespace), policycoreutils and
# selinux-utils (getenforce, getsebool, setfiles, restorecon).
IMG_DEBIAN_COMMON="selinux-policy-default,libpam-modules,procps,pamtester,policycoreutils,selinux-utils"
# systemd root: udev, dbus (systemd-logind needs the bus), and
# initramfs-tools with zstd so bench/debian can build Debian's own initramfs
# for comparison inside this root (never on the host, whose /boot its
# postinst would touch).
# prometheus-node-exporter and curl: the fleet-export test (tests/vm/fleet.bats)
# scrapes hardinit's textfile metrics inside the guest; the exporter is
# disabled in every other image (_img_configure_debian).
IMG_DEBIAN_SYSTEMD_PKGS="systemd-sysv,udev,dbus,kmod,initramfs-tools,zstd,prometheus-node-exporter,curl,$IMG_DEBIAN_COMMON"
IMG_DEBIAN_SYSVINIT_PKGS="sysvinit-core,$IMG_DEBIAN_COMMON"
# Kept out of the sysvinit root: the init system Debian would otherwise pick.
IMG_DEBIAN_SYSVINIT_EXCLUDE="systemd-sysv,systemd"

_img_err() {
	printf 'images: %s\n' "$*" >&2
}

# _img_cache_note PATH hit|miss T0: the cached artefact for tests/run-suites'
# list (tests/vm/lib.bash's vm_cache_note), named by its place in the cache.
_img_cache_note() {
	vm_cache_note "images/${1#"$IMG_CACHE"/}" "$2" $((SECONDS - $3))
}

_img_hash() {
	sha256sum | cut -c1-16
}

# The mirror the host's apt uses for the main suite, from deb822 .sources
# files or sources.list; no host name is written down here.
img_apt_mirror() {
	local uri f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		uri=$(awk -v suite="$IMG_SUITE" '
			BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; ok = 0; deb = 0
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
					if ($i ~ /^Types:/ && $i ~ /[ \t]deb([ \t]|$)/) deb = 1
					if ($i ~ /^Suites:/ && (" " $i " ") ~ ("[ \t]" suite "[ \t]")) ok = 1
					if ($i ~ /^Enabled:[ \t]*no/) ok = 0
				}
				if (ok && deb && uris != "") { split(uris, u, /[ \t]+/); print u[1]; exit }
			}' "$f")
		[[ -n $uri ]] && { printf '%s\n' "$uri"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		uri=$(awk -v suite="$IMG_SUITE" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == suite) { print $i; exit }
			}' "$f")
		[[ -n $uri ]] && { printf '%s\n' "$uri"; return 0; }
	done
	_img_err "no '$IMG_SUITE' deb source in /etc/apt/sources.list{,.d}; add Debian 12's mirror to apt's sources"
	return 1
}

# ---- the root trees -------------------------------------------------------------

# The probe for the Debian roots. It waits for the init to finish, then
# prints what the tests compare: raw reads of /proc and /sys, the tools'
# views, and hardinit's audit. Every command is bounded by `timeout`.
_img_debian_probe() {
	cat <<'PROBE'
#!/bin/bash
# hardinit's test probe: run once by the real init after boot (systemd:
# hardinit-test-probe.service; sysvinit: an inittab line). Output goes to
# the serial port, in sections; then the machine powers off.
exec >/dev/ttyS0 2>&1 </dev/null
PATH=/usr/sbin:/usr/bin:/sbin:/bin
begin() { echo "=== BEGIN $1 ==="; }
end() { echo "=== END $1 ==="; }

begin INIT
echo "comm=$(cat /proc/1/comm)"
echo "exe=$(readlink /proc/1/exe)"
end INIT

if [ -d /run/systemd/system ]; then
	state=$(timeout BOOTWAIT systemctl is-system-running --wait 2>/dev/null)
	begin SYSTEMD
	echo "state=$state"
	echo "multi-user=$(systemctl is-active multi-user.target)"
	systemctl --failed --no-legend --plain 2>&1 | sed 's/^/failed: /'
	systemctl show -p UserspaceTimestampMonotonic -p FinishTimestampMonotonic \
		-p SecurityStartTimestampMonotonic -p SecurityFinishTimestampMonotonic
	echo "multi-user-$(systemctl show -p ActiveEnterTimestampMonotonic multi-user.target)"
	systemd-analyze time 2>&1 | tr '\n' ' '; echo
	end SYSTEMD
	begin TMPFILES
	systemctl show -p ActiveState -p Result systemd-tmpfiles-setup.service
	cat /run/tmpfiles.d/*.conf 2>&1 | grep -v '^#'
	end TMPFILES
	begin SYSCTL_SERVICE
	systemctl show -p ActiveState -p Result systemd-sysctl.service
	end SYSCTL_SERVICE
fi

begin SELINUX
echo "enforce=$(cat /sys/fs/selinux/enforce 2>&1)"
echo "getenforce=$(getenforce 2>&1)"
echo "pid1=$(tr -d '\0' </proc/1/attr/current 2>&1)"
echo "self=$(tr -d '\0' </proc/self/attr/current 2>&1)"
echo "policyvers=$(cat /sys/fs/selinux/policyvers 2>&1)"
grep '^SELINUX' /etc/selinux/config
getsebool -a 2>&1
end SELINUX

begin AVC
dmesg -t 2>/dev/null | grep -c 'avc: *denied'
dmesg -t 2>/dev/null | grep 'avc: *denied' | head -n 30
end AVC

begin SYSCTL
sysctl -a 2>/dev/null | grep -E '^(kernel|fs|vm|dev\.tty|user|net\.core|net\.ipv4\.(conf\.(all|default)|icmp|tcp_sync|tcp_rfc)|net\.ipv6\.conf\.(all|default))[. ]'
end SYSCTL

begin DROPINS
for f in /run/sysctl.d/*.conf /run/tmpfiles.d/*.conf; do [ -f "$f" ] && echo "$f"; done
end DROPINS

begin POLYDIRS
for d in /tmp/tmp-inst /var/tmp/tmp-inst; do
	if [ -e "$d" ]; then
		echo "$d $(stat -c '%a %U %G' "$d") $(ls -Zd "$d" | cut -d' ' -f1)"
	else
		echo "$d missing"
	fi
done
end POLYDIRS

begin CAPS
grep -E '^Cap(Bnd|Eff|Prm)' /proc/1/status
end CAPS

begin MOUNTS
cat /proc/self/mountinfo
end MOUNTS

begin AUDIT
if [ -x /usr/sbin/hardinit ]; then
	timeout 60 /usr/sbin/hardinit audit
	echo "audit-exit=$?"
else
	echo "audit-exit=missing"
fi
end AUDIT

begin REPORT
cat /run/hardinit/report.txt 2>&1
end REPORT

echo "=== PROBE DONE ==="
sync
if [ -d /run/systemd/system ]; then
	systemctl poweroff --no-block
else
	poweroff
fi
PROBE
}

# Files every Debian root gets; ROOT is the tree, INIT systemd or sysvinit.
_img_configure_debian() {
	local root=$1 init=$2
	echo "$IMG_HOSTNAME" >"$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$IMG_HOSTNAME" >"$root/etc/hosts"
	# Pass 0: no fsck of a read-only image (e2fsprogs' fsck is not in minbase).
	printf '/dev/vda\t/\text4\tdefaults\t0\t0\n' >"$root/etc/fstab"
	# A fixed id: no first-boot units, the same journal path every boot.
	echo 6861726469696e6974746573740a0001 >"$root/etc/machine-id"
	# Root locked: the tests never log in.
	sed -i 's/^root:[^:]*:/root:*:/' "$root/etc/shadow"
	_img_debian_probe | sed "s/BOOTWAIT/$IMG_PROBE_BOOT_WAIT/" >"$root/usr/local/sbin/hardinit-probe"
	chmod 0755 "$root/usr/local/sbin/hardinit-probe"
	printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$root/etc/selinux/config"
	case $init in
	systemd)
		cat >"$root/etc/systemd/system/hardinit-test-probe.service" <<-'EOF'
			[Unit]
			Description=hardinit test probe (prints the system's state on ttyS0, powers off)
			After=multi-user.target
			[Service]
			# simple, not oneshot: a queued oneshot job would keep the
			# system "starting", and the probe waits for "running".
			Type=simple
			ExecStart=/usr/local/sbin/hardinit-probe
			[Install]
			WantedBy=multi-user.target
		EOF
		ln -sf /etc/systemd/system/hardinit-test-probe.service \
			"$root/etc/systemd/system/multi-user.target.wants/hardinit-test-probe.service"
		# No getty on the probe's serial port: its prompt would land in
		# the middle of the sections.
		ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
		# Only the fleet test runs the exporter; it enables it itself.
		rm -f "$root/etc/systemd/system/multi-user.target.wants/prometheus-node-exporter.service"
		;;
	sysvinit)
		# Runlevel 2's scripts run first (l2 is a wait entry before ours);
		# no getty on ttyS0 for the same reason as above.
		sed -i -e '/^T[0-9]:.*ttyS/d' -e '/^hp:/d' "$root/etc/inittab"
		printf 'hp:2345:once:/usr/local/sbin/hardinit-probe\n' >>"$root/etc/inittab"
		;;
	esac
}

# debootstrap into STAGING (a fresh directory). debootstrap mounts /proc
# and /sys inside the target: a private mount namespace keeps those mounts
# off the host.
_img_debootstrap() {
	local staging=$1 include=$2 exclude=$3 mirror log=$1.log
	mirror=$(img_apt_mirror) || return 1
	command -v debootstrap >/dev/null ||
		{ _img_err "debootstrap missing; apt-get install debootstrap (scripts/install-deps)"; return 1; }
	echo "images: debootstrap $IMG_SUITE from $mirror into $staging (a few minutes; log $log)" >&2
	if ! unshare --mount --propagation private \
		debootstrap --variant=minbase --include="$include" ${exclude:+--exclude="$exclude"} \
		"$IMG_SUITE" "$staging" "$mirror" >"$log" 2>&1; then
		_img_err "debootstrap failed; last lines of $log:"
		tail -n 15 "$log" >&2
		return 1
	fi
	rm -rf "$staging/var/cache/apt/archives/"*.deb "$staging/var/lib/apt/lists/"*_Packages
}

# The policy the postinst of selinux-policy-default compiled in the chroot.
_img_check_policy() {
	local root=$1 p
	p=$(find "$root/etc/selinux/default/policy" -name 'policy.[0-9]*' 2>/dev/null | head -n 1)
	[[ -n $p ]] || { _img_err "$root has no compiled policy in /etc/selinux/default/policy (the selinux-policy-default postinst failed?)"; return 1; }
	[[ -f $root/etc/selinux/default/contexts/files/file_contexts ]] ||
		{ _img_err "$root has no file_contexts for the default policy"; return 1; }
}

# Label the tree with its own policy's file contexts (security.selinux
# xattrs that mke2fs -d copies into the image).
_img_label() {
	local root=$1
	setfiles -r "$root" "$root/etc/selinux/default/contexts/files/file_contexts" "$root" ||
		{ _img_err "setfiles -r $root failed"; return 1; }
}

_img_build_debian_tree() {
	local staging=$1 init=$2
	case $init in
	systemd) _img_debootstrap "$staging" "$IMG_DEBIAN_SYSTEMD_PKGS" "" ;;
	sysvinit) _img_debootstrap "$staging" "$IMG_DEBIAN_SYSVINIT_PKGS" "$IMG_DEBIAN_SYSVINIT_EXCLUDE" ;;
	esac || return 1
	if [[ $init == sysvinit && -e $staging/lib/systemd/systemd ]]; then
		_img_err "the sysvinit root contains systemd: a package pulled it in despite --exclude"
		return 1
	fi
	_img_check_policy "$staging"
}

# The key of a tree: the code that debootstraps it and the package lists.
# What is configured on top (probe, units, SELinux mode) is keyed with the
# image, so changing the probe costs an image build, not a debootstrap.
_img_tree_key() {
	{
		declare -f _img_build_debian_tree _img_debootstrap _img_check_policy
		echo "$IMG_SUITE $IMG_DEBIAN_SYSTEMD_PKGS $IMG_DEBIAN_SYSVINIT_PKGS"
		echo "$IMG_DEBIAN_SYSVINIT_EXCLUDE"
	} | _img_hash
}

_img_tree_dir() {
	printf '%s/%s-%s\n' "$IMG_CACHE" "$1" "$(_img_tree_key)"
}

img_tree() {
	local name=${1:?usage: img_tree debian-systemd|debian-sysvinit} dir init
	case $name in
	debian-systemd) init=systemd ;;
	debian-sysvinit) init=sysvinit ;;
	*) _img_err "unknown tree '$name'"; return 1 ;;
	esac
	dir=$(_img_tree_dir "$name")
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $dir/tree.done ]]; then
		cache_hit=miss
		mkdir -p "$dir" || { _img_err "cannot create $dir; run as root or set HARDINIT_CACHE"; return 1; }
		(
			flock 9
			[[ -f $dir/tree.done ]] && exit 0
			rm -rf "$dir/tree.new" "$dir/tree"
			_img_build_debian_tree "$dir/tree.new" "$init" || { rm -rf "$dir/tree.new"; exit 1; }
			mv "$dir/tree.new" "$dir/tree" && touch "$dir/tree.done"
		) 9>"$dir/.lock" || return 1
		# Trees of older keys are dead weight.
		find "$IMG_CACHE" -maxdepth 1 -name "$name-*" ! -path "$dir" \
			-mmin +"$IMG_PRUNE_MINUTES" -exec rm -rf {} +
	fi
	touch "$dir"
	_img_cache_note "$dir/tree" "$cache_hit" "$cache_t0"
	printf '%s\n' "$dir/tree"
}

# ---- the ext4 images ------------------------------------------------------------

_img_hardinit_bin() {
	local b=$HARDINIT_SRC/build/hardinit
	[[ -x $b ]] || { _img_err "$b missing; run 'make build/hardinit'"; return 1; }
	printf '%s\n' "$b"
}

# Configure the tree (probe, units, hostname, fstab), copy hardinit in for
# `hardinit audit`, set the SELinux mode, label the whole tree with its own
# policy, write the image. The tree is changed in place under the tree's
# lock; every step overwrites what the last assembly wrote.
_img_assemble_debian() {
	local tree=$1 init=$2 variant=$3 out=$4 hardinit
	hardinit=$(_img_hardinit_bin) || return 1
	_img_configure_debian "$tree" "$init" || return 1
	install -m 0755 "$hardinit" "$tree/usr/sbin/hardinit"
	printf 'SELINUX=%s\nSELINUXTYPE=default\n' "$variant" >"$tree/etc/selinux/config"
	_img_label "$tree" || return 1
	vm_rootfs "$out" "$tree" -L debian-root >&2
}

_img_debian_image() {
	local name=$1 variant=${2:-permissive} tree dir key out
	case $variant in
	permissive | enforcing) ;;
	*) _img_err "unknown SELinux variant '$variant'; use permissive or enforcing"; return 1 ;;
	esac
	tree=$(img_tree "$name") || return 1
	dir=$(dirname "$tree")
	key=$({
		declare -f _img_assemble_debian _img_configure_debian _img_debian_probe _img_label vm_rootfs
		echo "$IMG_PROBE_BOOT_WAIT $IMG_HOSTNAME"
		sha256sum <"$(_img_hardinit_bin)"
	} | _img_hash) || return 1
	out=$dir/$variant-$key.img
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $out ]]; then
		cache_hit=miss
		(
			flock 9
			[[ -f $out ]] && exit 0
			find "$dir" -maxdepth 1 -name '*.img' ! -name "*-$key.img" -mmin +"$IMG_PRUNE_MINUTES" -delete
			_img_assemble_debian "$tree" "${name#debian-}" "$variant" "$out.new" || { rm -f "$out.new"; exit 1; }
			mv "$out.new" "$out"
		) 9>"$dir/.lock" || return 1
	fi
	touch "$out"
	_img_cache_note "$out" "$cache_hit" "$cache_t0"
	printf '%s\n' "$out"
}

img_debian_systemd() {
	_img_debian_image debian-systemd "${1:-permissive}"
}

img_debian_sysvinit() {
	_img_debian_image debian-sysvinit "${1:-permissive}"
}

# ---- the busybox appliance ---------------------------------------------------------

# The appliance's services: inittab respawn lines. The probe checks that
# every one of them runs, so a line added here is checked too.
_img_appliance_inittab() {
	cat <<-'EOF'
		::sysinit:/etc/init.d/rcS
		::respawn:/bin/syslogd -n -O /run/messages
		::respawn:/bin/klogd -n
		::respawn:/bin/httpd -f -p 127.0.0.1:8080 -h /srv/www
		::respawn:/bin/crond -f -c /etc/crontabs
		::respawn:/usr/sbin/heartbeat
		::once:/usr/sbin/appliance-probe
		::shutdown:/bin/umount -a -r
	EOF
}

_img_appliance_probe() {
	cat <<'PROBE'
#!/bin/sh
# The appliance's probe, run once by busybox init: wait (bounded) for every
# respawn service of /etc/inittab, print the system's state, power off.
exec >/dev/ttyS0 2>&1 </dev/null
WAIT=60
services=$(sed -n 's/^::respawn:\([^ ]*\).*/\1/p' /etc/inittab)
i=0
while [ $i -lt $WAIT ]; do
	missing=0
	for s in $services; do
		pidof "${s##*/}" >/dev/null || missing=1
	done
	[ $missing = 0 ] && [ -s /run/heartbeat ] && break
	sleep 1
	i=$((i + 1))
done
echo "=== BEGIN SERVICES ==="
for s in $services; do
	if pidof "${s##*/}" >/dev/null; then echo "$s running"; else echo "$s not-running"; fi
done
wget -q -O - http://127.0.0.1:8080/index.html 2>&1 | sed 's/^/httpd: /'
echo "heartbeat: $(cat /run/heartbeat 2>&1)"
echo "=== END SERVICES ==="
echo "=== BEGIN LOCKS ==="
for k in modules_disabled kexec_load_disabled yama/ptrace_scope; do
	echo "$k=$(cat /proc/sys/kernel/$k 2>&1)"
done
echo "lockdown=$(cat /sys/kernel/security/lockdown 2>&1)"
echo "=== END LOCKS ==="
echo "=== BEGIN CAPS ==="
grep -E '^Cap(Bnd|Eff|Prm)' /proc/1/status | sed 's/^/init /'
grep -E '^CapBnd' /proc/$(pidof httpd | cut -d' ' -f1)/status | sed 's/^/httpd /'
grep -E '^CapBnd' /proc/self/status | sed 's/^/probe /'
echo "=== END CAPS ==="
echo "=== BEGIN ROOT ==="
awk '$2 == "/" { print $1, $3, $4 }' /proc/mounts
if touch /probe-write-test 2>/dev/null; then echo "root-write=ok"; rm -f /probe-write-test; else echo "root-write=refused"; fi
echo "=== END ROOT ==="
echo "=== BEGIN INIT ==="
echo "exe=$(readlink /proc/1/exe)"
echo "cmdline=$(tr '\0' ' ' </proc/1/cmdline)"
echo "=== END INIT ==="
echo "=== PROBE DONE ==="
poweroff
PROBE
}

_img_build_appliance() {
	local root=$1 busybox applet
	busybox=$(_vm_host_busybox) || return 1
	mkdir -p "$root"/{bin,sbin,usr/sbin,etc/init.d,etc/crontabs,proc,sys,dev,run,tmp,srv/www,root}
	chmod 1777 "$root/tmp"
	chmod 0700 "$root/root"
	install -m 0755 "$busybox" "$root/bin/busybox"
	while read -r applet; do
		[[ $applet == busybox ]] || ln -sf busybox "$root/bin/$applet"
	done < <("$busybox" --list)
	# busybox as the real init, the way appliances ship it.
	ln -sf ../bin/busybox "$root/sbin/init"
	_img_appliance_inittab >"$root/etc/inittab"
	cat >"$root/etc/init.d/rcS" <<-'EOF'
		#!/bin/sh
		# The root stays read-only: everything written goes to /run or /tmp.
		/bin/hostname appliance
		/bin/ifconfig lo 127.0.0.1 up
	EOF
	cat >"$root/usr/sbin/heartbeat" <<-'EOF'
		#!/bin/sh
		# A service of the appliance's own: counts seconds into /run.
		n=0
		while :; do n=$((n + 1)); echo "$n" >/run/heartbeat; sleep 1; done
	EOF
	echo 'appliance up' >"$root/srv/www/index.html"
	echo '* * * * * /bin/true' >"$root/etc/crontabs/root"
	_img_appliance_probe >"$root/usr/sbin/appliance-probe"
	chmod 0755 "$root/etc/init.d/rcS" "$root/usr/sbin/heartbeat" "$root/usr/sbin/appliance-probe"
	_vm_write_accounts "$root"
	mknod -m 0600 "$root/dev/console" c 5 1
	mknod -m 0666 "$root/dev/null" c 1 3
}

img_busybox_appliance() {
	local dir=$IMG_CACHE/busybox-appliance busybox key out
	busybox=$(_vm_host_busybox) || return 1
	key=$({
		declare -f _img_build_appliance _img_appliance_inittab _img_appliance_probe vm_rootfs _vm_write_accounts
		sha256sum <"$busybox"
	} | _img_hash) || return 1
	out=$dir/appliance-$key.img
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $out ]]; then
		cache_hit=miss
		mkdir -p "$dir" || { _img_err "cannot create $dir; run as root or set HARDINIT_CACHE"; return 1; }
		(
			flock 9
			[[ -f $out ]] && exit 0
			rm -rf "$dir/tree" "$dir"/*.img
			_img_build_appliance "$dir/tree" &&
				vm_rootfs "$out.new" "$dir/tree" -L appliance >&2 &&
				mv "$out.new" "$out"
			rc=$?
			rm -rf "$dir/tree"
			exit $rc
		) 9>"$dir/.lock" || return 1
	fi
	_img_cache_note "$out" "$cache_hit" "$cache_t0"
	printf '%s\n' "$out"
}

# ---- the fleet variant (tests/vm/fleet.bats) --------------------------------------
#
#   img_debian_systemd_fleet [permissive|enforcing]
#                         echo the path of an ext4 image: the systemd root
#                         (SELinux as the variant) with Debian's node_exporter
#                         enabled on 127.0.0.1:9100 with its textfile
#                         directory, hardinit's audit units installed by
#                         `make install-fleet` and enabled, the shipped
#                         profiles where hardinit audit looks for them, and
#                         the fleet probe instead of the standard one
#
# The files are added to the shared tree only for the assembly, under the
# tree's lock, and removed again whatever the outcome, so every other
# variant is assembled from the tree as it was.

# The fleet probe: the standard probe's service runs it (a drop-in). It
# waits for the boot and for the timer's first audit, then prints raw
# reads of /proc/sys and /sys next to what node_exporter serves, changes
# one sysctl, runs hardinit-audit.service and prints both again.
_img_fleet_probe() {
	cat <<'PROBE'
#!/bin/bash
exec >/dev/ttyS0 2>&1 </dev/null
PATH=/usr/sbin:/usr/bin:/sbin:/bin
PROM=/var/lib/prometheus/node-exporter/hardinit.prom
begin() { echo "=== BEGIN $1 ==="; }
end() { echo "=== END $1 ==="; }

raw() {
	sysctl -a 2>/dev/null | sed 's/ = /=/' |
		grep -E '^(kernel|fs|vm|dev\.tty|user|net\.core|net\.ipv4\.(conf\.(all|default)|icmp|tcp_)|net\.ipv6\.conf\.(all|default))[.]'
	echo "selinux_enforce=$(cat /sys/fs/selinux/enforce 2>&1)"
	for k in modules_disabled kexec_load_disabled yama/ptrace_scope; do
		echo "$k=$(cat /proc/sys/kernel/$k 2>/dev/null || echo absent)"
	done
	echo "lockdown=$(cat /sys/kernel/security/lockdown 2>&1)"
}

# node_exporter runs every collector per scrape: seconds under a loaded TCG.
scrape() {
	curl -s --max-time 60 http://127.0.0.1:9100/metrics | grep -E '^(hardinit_|node_textfile_)'
}

state=$(timeout BOOTWAIT systemctl is-system-running --wait 2>/dev/null)
begin SYSTEMD
echo "state=$state"
systemctl --failed --no-legend --plain 2>&1 | sed 's/^/failed: /'
end SYSTEMD

# The timer's first run: the test's drop-in makes it 5 s after boot.
waited=0
while [ ! -s "$PROM" ] && [ "$waited" -lt 240 ]; do sleep 2; waited=$((waited + 2)); done
start=$SECONDS
while ! curl -s --max-time 60 -o /dev/null http://127.0.0.1:9100/metrics && [ $((SECONDS - start)) -lt 240 ]; do
	sleep 2
done
ready=$((SECONDS - start))
begin TIMER
echo "file_waited=$waited"
echo "exporter_waited=$ready"
echo "timer=$(systemctl is-active hardinit-audit.timer)"
# The shipped unit's own settings, as installed (the drop-in aside).
sed -n 's/^\(OnBootSec\|OnUnitActiveSec\|RandomizedDelaySec\|AccuracySec\)=/unit_\1=/p' \
	/usr/local/lib/systemd/system/hardinit-audit.timer
echo "exporter=$(systemctl is-active prometheus-node-exporter.service)"
systemctl show -p Result -p ExecMainStatus -p NRestarts hardinit-audit.service
systemctl show -p ProtectSystem -p ProtectHome -p PrivateTmp -p PrivateNetwork -p NoNewPrivileges \
	-p ReadWritePaths hardinit-audit.service
ls -l "$PROM" 2>&1
end TIMER

begin RAW1
raw
end RAW1
begin METRICS1
scrape
end METRICS1

begin CHANGE
sysctl -w kernel.kptr_restrict=0
timeout 120 systemctl start hardinit-audit.service
echo "start-exit=$?"
systemctl show -p Result -p ExecMainStatus hardinit-audit.service
journalctl -b -u hardinit-audit.service --no-pager -o cat 2>&1 | tail -n 5
end CHANGE

begin RAW2
raw
end RAW2
begin METRICS2
scrape
end METRICS2

begin FLEET_AVC
dmesg -t 2>/dev/null | grep 'avc: *denied' | grep -E 'comm="(hardinit|prometheus-node|curl)"' | head -n 20
end FLEET_AVC

echo "=== PROBE DONE ==="
sync
systemctl poweroff --no-block
PROBE
}

_img_fleet_files() {
	cat <<-'EOF'
		/etc/systemd/system/prometheus-node-exporter.service.d
		/etc/systemd/system/multi-user.target.wants/prometheus-node-exporter.service
		/etc/systemd/system/hardinit-test-probe.service.d
		/etc/systemd/system/hardinit-audit.timer.d
		/etc/systemd/system/timers.target.wants/hardinit-audit.timer
		/usr/local/lib/systemd/system/hardinit-audit.service
		/usr/local/lib/systemd/system/hardinit-audit.timer
		/usr/local/sbin/hardinit-fleet-probe
		/usr/local/share/hardinit
		/usr/share/hardinit
	EOF
}

_img_fleet_remove() {
	local tree=$1 f
	while read -r f; do rm -rf "${tree:?}$f"; done < <(_img_fleet_files)
}

_img_fleet_add() {
	local tree=$1
	# The units exactly as `make install` ships them; the binary is the
	# image's /usr/sbin/hardinit, its profiles where it was built to look.
	make -s -C "$HARDINIT_SRC" --no-print-directory install-fleet DESTDIR="$tree" PREFIX=/usr \
		UNITDIR=/usr/local/lib/systemd/system >&2 || return 1
	install -d "$tree/usr/local/share/hardinit/profiles"
	install -m 0644 "$HARDINIT_SRC"/config/*.conf "$tree/usr/local/share/hardinit/profiles/"
	ln -sf /usr/local/lib/systemd/system/hardinit-audit.timer \
		"$tree/etc/systemd/system/timers.target.wants/hardinit-audit.timer"
	mkdir -p "$tree/etc/systemd/system/prometheus-node-exporter.service.d" \
		"$tree/etc/systemd/system/hardinit-test-probe.service.d"
	# Debian's default ARGS is empty and its built-in textfile directory is
	# /var/lib/prometheus/node-exporter; say both explicitly.
	cat >"$tree/etc/systemd/system/prometheus-node-exporter.service.d/hardinit-fleet.conf" <<-'EOF'
		[Service]
		ExecStart=
		ExecStart=/usr/bin/prometheus-node-exporter --web.listen-address=127.0.0.1:9100 --collector.textfile.directory=/var/lib/prometheus/node-exporter
	EOF
	ln -sf /lib/systemd/system/prometheus-node-exporter.service \
		"$tree/etc/systemd/system/multi-user.target.wants/prometheus-node-exporter.service"
	# The timer's first run as shipped is a minute after boot plus up to 30 s
	# of spread, which the guest would sit out; the test's drop-in starts it
	# 5 s after boot. The shipped unit is installed unchanged and read back
	# by the probe (TIMER's unit_ lines), so the test still checks its values.
	mkdir -p "$tree/etc/systemd/system/hardinit-audit.timer.d"
	cat >"$tree/etc/systemd/system/hardinit-audit.timer.d/hardinit-test.conf" <<-'EOF'
		[Timer]
		OnBootSec=
		OnBootSec=5s
		RandomizedDelaySec=0
	EOF
	_img_fleet_probe | sed "s/BOOTWAIT/$IMG_PROBE_BOOT_WAIT/" >"$tree/usr/local/sbin/hardinit-fleet-probe"
	chmod 0755 "$tree/usr/local/sbin/hardinit-fleet-probe"
	cat >"$tree/etc/systemd/system/hardinit-test-probe.service.d/fleet.conf" <<-'EOF'
		[Service]
		ExecStart=
		ExecStart=/usr/local/sbin/hardinit-fleet-probe
	EOF
}

_img_assemble_fleet() {
	local tree=$1 variant=$2 out=$3 hardinit rc=0
	hardinit=$(_img_hardinit_bin) || return 1
	_img_fleet_remove "$tree"
	_img_configure_debian "$tree" systemd || return 1
	install -m 0755 "$hardinit" "$tree/usr/sbin/hardinit"
	printf 'SELINUX=%s\nSELINUXTYPE=default\n' "$variant" >"$tree/etc/selinux/config"
	_img_fleet_add "$tree" && _img_label "$tree" && vm_rootfs "$out" "$tree" -L debian-root >&2 || rc=1
	_img_fleet_remove "$tree"
	return $rc
}

img_debian_systemd_fleet() {
	local variant=${1:-permissive} tree dir key out
	case $variant in
	permissive | enforcing) ;;
	*) _img_err "unknown SELinux variant '$variant'; use permissive or enforcing"; return 1 ;;
	esac
	tree=$(img_tree debian-systemd) || return 1
	dir=$(dirname "$tree")
	key=$({
		declare -f _img_assemble_fleet _img_fleet_add _img_fleet_remove _img_fleet_files _img_fleet_probe \
			_img_configure_debian _img_debian_probe _img_label vm_rootfs
		echo "$IMG_PROBE_BOOT_WAIT $IMG_HOSTNAME"
		cat "$HARDINIT_SRC"/contrib/systemd/* "$HARDINIT_SRC"/config/*.conf "$HARDINIT_SRC/Makefile"
		sha256sum <"$(_img_hardinit_bin)"
	} | _img_hash) || return 1
	out=$dir/fleet-$variant-$key.img
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $out ]]; then
		cache_hit=miss
		(
			flock 9
			[[ -f $out ]] && exit 0
			find "$dir" -maxdepth 1 -name "fleet-$variant-*.img" ! -name "fleet-$variant-$key.img" -mmin +"$IMG_PRUNE_MINUTES" -delete
			_img_assemble_fleet "$tree" "$variant" "$out.new" || { rm -f "$out.new"; exit 1; }
			mv "$out.new" "$out"
		) 9>"$dir/.lock" || return 1
	fi
	touch "$out"
	_img_cache_note "$out" "$cache_hit" "$cache_t0"
	printf '%s\n' "$out"
}

# ---- the arm64 Debian/systemd root (tests/vm/arm64_debian.bats) ----------
#
#   img_debian_systemd_arm64
#                         echo the path of an ext4 image: Debian 12 minbase
#                         for arm64 with systemd as init (no SELinux policy),
#                         the arm64 probe as a unit after multi-user.target
#   img_tree_arm64        echo the cached arm64 root tree, building it when
#                         missing
#
# Debootstrap's first stage (download, unpack) runs on the host; its second
# stage (the arm64 maintainer scripts) runs on the host too, in a chroot
# whose arm64 programs qemu-aarch64-static runs through a binfmt_misc
# instance of its own: a new user namespace (Linux 6.7+ gives each one its
# own binfmt_misc, so the host's registrations and mounts stay untouched;
# everything mounted dies with the namespace), registered with Debian's
# qemu-user-static line. A kernel without that falls back to the second
# stage as PID 1 of an arm64 TCG guest (hardinit's arm64 image, init=, root
# rw), which takes up to an hour on a loaded 2-core host. Cached as
# debian-systemd-arm64-TREEKEY/tree like the amd64 trees.

IMG_ARM64_PKGS="systemd-sysv,udev,dbus,kmod,procps"
# Debian's registration of qemu-aarch64-static (qemu-user-static): flags
# OPF, F opening the interpreter once, so the chroot needs no copy of it.
IMG_ARM64_BINFMT=/usr/lib/binfmt.d/qemu-aarch64.conf
# The fallback's second-stage kernel and its bound (a TCG arm64 guest
# unpacks and configures ~120 packages: 3589 s measured on this 2-core
# machine shared with other TCG guests).
IMG_ARM64_STAGE2_KERNEL=6.12-arm64
IMG_ARM64_STAGE2_TIMEOUT=5400
# The fallback's free space in the second stage's root (it unpacks every
# .deb again) and the size of the tar disk that carries the tree back.
IMG_ARM64_STAGE2_SLACK_KIB=$((768 * 1024))
IMG_ARM64_TAR_SIZE=1G

# Run "$@" as root of a new user, mount and PID namespace whose uids and
# gids 0-65535 are the host's own (so the tree's owners are real ones);
# the namespace's mounts, binfmt_misc included, end with it. The map is
# written from outside (util-linux 2.38's --map-users needs newuidmap).
_img_arm64_userns() {
	local fifo pid rc=0 ok=go
	fifo=$(mktemp -u) && mkfifo -m 0600 "$fifo" || return 1
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --user --mount --pid --fork --propagation private \
		bash -c 'read -r go <"$0" && [ "$go" = go ] && exec "$@"' "$fifo" "$@" &
	pid=$!
	for _ in {1..100}; do
		[[ $(readlink "/proc/$pid/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
		sleep 0.05
	done
	{ echo '0 0 65536' >"/proc/$pid/uid_map" && echo '0 0 65536' >"/proc/$pid/gid_map"; } 2>/dev/null || ok=no
	echo "$ok" >"$fifo"
	wait "$pid" || rc=$?
	rm -f "$fifo"
	[[ $ok == go ]] || { _img_err "cannot map uids into a new user namespace (run as root)"; return 1; }
	return "$rc"
}

# Whether this host can run the second stage under qemu-user: the
# interpreter, its registration line, and a binfmt_misc of a user
# namespace's own (Linux 6.7+). Such an instance starts empty (register
# and status only); one that lists entries is not private to the
# namespace, so the second stage never registers into the host's and
# takes the guest fallback instead.
_img_arm64_qemu_user_ok() {
	[[ -r $IMG_ARM64_BINFMT ]] && command -v qemu-aarch64-static >/dev/null &&
		_img_arm64_userns sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc &&
			[ "$(ls /proc/sys/fs/binfmt_misc | tr "\n" " ")" = "register status " ]' 2>/dev/null
}

# The script run as root of that namespace: register qemu-aarch64, give the
# tree a /proc, and run debootstrap's second stage chrooted. container=lxc
# tells debootstrap not to test mknod (a user namespace may not; the
# first stage made /dev's nodes).
_img_arm64_chroot_stage2() {
	cat <<'SCRIPT'
set -e
tree=$1 binfmt=$2
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
cat "$binfmt" >/proc/sys/fs/binfmt_misc/register
mount -t proc proc "$tree/proc"
container=lxc exec chroot "$tree" /debootstrap/debootstrap --second-stage
SCRIPT
}

# PID 1 of the fallback's second-stage guest: debootstrap's second stage,
# then the tree (its own file system only) as a tar on /dev/vdb, then
# power off.
_img_arm64_stage2_init() {
	# The arm64 maker guest's init (init= under hardinit's image): it runs
	# inside that guest only, so its sysrq power-off ends the guest, never the host.
	cat <<'INIT'
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
echo "=== STAGE2 START ==="
[ -r /proc/self/stat ] || mount -t proc proc /proc
rc=0
/debootstrap/debootstrap --second-stage || rc=$?
echo "stage2: debootstrap exited with status $rc"
if [ "$rc" = 0 ]; then
	rm -f /sbin/hardinit-stage2
	if tar -C / --one-file-system --numeric-owner -cf /dev/vdb .; then
		echo "=== STAGE2 TAR OK ==="
	fi
fi
# What went wrong (debootstrap removes its directory when it succeeds).
tail -n 20 /debootstrap/debootstrap.log 2>/dev/null
sync
echo o >/proc/sysrq-trigger
sleep 60
INIT
}

# debootstrap's first stage into STAGING, on the host: download and unpack.
_img_arm64_first_stage() {
	local staging=$1 mirror log=$1.log
	mirror=$(img_apt_mirror) || return 1
	command -v debootstrap >/dev/null ||
		{ _img_err "debootstrap missing; apt-get install debootstrap (scripts/install-deps)"; return 1; }
	echo "images: debootstrap --arch arm64 --foreign $IMG_SUITE from $mirror into $staging (log $log)" >&2
	if ! unshare --mount --propagation private \
		debootstrap --arch=arm64 --foreign --variant=minbase --include="$IMG_ARM64_PKGS" \
		"$IMG_SUITE" "$staging" "$mirror" >"$log" 2>&1; then
		_img_err "debootstrap --foreign failed; last lines of $log:"
		tail -n 15 "$log" >&2
		return 1
	fi
	# The first stage links /proc to the host's; the second mounts its own.
	rm -f "$staging/proc" && mkdir -m 0555 "$staging/proc"
}

# The second stage under qemu-user on the host; STAGING becomes the tree OUT.
_img_arm64_second_stage_user() {
	local staging=$1 out=$2 log=$1.stage2.log start
	echo "images: debootstrap --second-stage under qemu-aarch64-static in a user namespace (log $log)" >&2
	start=$SECONDS
	if ! _img_arm64_userns bash -c "$(_img_arm64_chroot_stage2)" stage2 "$staging" "$IMG_ARM64_BINFMT" \
		>"$log" 2>&1; then
		_img_err "the arm64 second stage failed; last lines of $log:"
		tail -n 20 "$log" >&2
		return 1
	fi
	echo "images: the arm64 second stage took $((SECONDS - start)) s" >&2
	rm -f "$staging/var/cache/apt/archives/"*.deb "$staging/var/lib/apt/lists/"*_Packages
	mv "$staging" "$out"
}

# The fallback: the second stage in an arm64 TCG guest; the configured
# tree comes back as a tar written to a second disk, unpacked into OUT.
_img_arm64_second_stage_guest() {
	local staging=$1 out=$2 work=$1.vm start
	rm -rf "$work" && mkdir -p "$work"
	_img_arm64_stage2_init >"$staging/sbin/hardinit-stage2"
	chmod 0755 "$staging/sbin/hardinit-stage2"
	printf '[boot]\nfailure_action = poweroff\nfailure_delay = 0\n' >"$work/stage2.conf"
	vm_initramfs "$work/stage2.img" --kernel "$IMG_ARM64_STAGE2_KERNEL" --config "$work/stage2.conf" \
		>"$work/stage2.build" 2>&1 || { cat "$work/stage2.build" >&2; return 1; }
	VM_ROOTFS_SLACK_KIB=$IMG_ARM64_STAGE2_SLACK_KIB vm_rootfs "$work/root.img" "$staging" || return 1
	truncate -s "$IMG_ARM64_TAR_SIZE" "$work/tree.tar" || return 1
	echo "images: debootstrap --second-stage in an arm64 guest (log $work/stage2.log)" >&2
	start=$SECONDS
	vm_boot "$work/stage2.log" --kernel "$IMG_ARM64_STAGE2_KERNEL" --initrd "$work/stage2.img" \
		--disk "$work/root.img" --disk "$work/tree.tar" --timeout "$IMG_ARM64_STAGE2_TIMEOUT" \
		--append "root=/dev/vda rw init=/sbin/hardinit-stage2 hardinit.boot.failure_action=poweroff" || true
	echo "images: the arm64 second stage took $((SECONDS - start)) s" >&2
	grep -q '=== STAGE2 TAR OK ===' "$work/stage2.log" || {
		_img_err "the arm64 second stage did not finish; last lines of $work/stage2.log:"
		vm_log_tail "$work/stage2.log" 30 >&2
		return 1
	}
	mkdir -p "$out" && tar -C "$out" --numeric-owner -xpf "$work/tree.tar" || return 1
	rm -rf "$work" "$staging" "$out/var/cache/apt/archives/"*.deb "$out/var/lib/apt/lists/"*_Packages
}

_img_arm64_second_stage() {
	local staging=$1 out=$2
	if _img_arm64_qemu_user_ok; then
		_img_arm64_second_stage_user "$staging" "$out" || return 1
	else
		_img_err "no binfmt_misc of a user namespace's own here (Linux < 6.7?) or no qemu-user-static: the second stage runs in an arm64 TCG guest instead (up to $IMG_ARM64_STAGE2_TIMEOUT s)"
		_img_arm64_second_stage_guest "$staging" "$out" || return 1
	fi
	[[ -x $out/lib/systemd/systemd && -x $out/usr/bin/bash ]] ||
		{ _img_err "the arm64 tree has no systemd or bash after the second stage"; return 1; }
}

_img_arm64_tree_key() {
	{
		declare -f _img_arm64_first_stage _img_arm64_second_stage _img_arm64_second_stage_user \
			_img_arm64_second_stage_guest _img_arm64_chroot_stage2 _img_arm64_stage2_init
		echo "$IMG_SUITE $IMG_ARM64_PKGS $IMG_ARM64_STAGE2_KERNEL"
	} | _img_hash
}

img_tree_arm64() {
	local name=debian-systemd-arm64 dir
	[[ $VM_ARCH == arm64 ]] ||
		{ _img_err "img_tree_arm64 boots an arm64 guest: source lib.bash with VM_ARCH=arm64"; return 1; }
	dir=$IMG_CACHE/$name-$(_img_arm64_tree_key)
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $dir/tree.done ]]; then
		cache_hit=miss
		mkdir -p "$dir" || { _img_err "cannot create $dir; run as root or set HARDINIT_CACHE"; return 1; }
		(
			flock 9
			[[ -f $dir/tree.done ]] && exit 0
			rm -rf "$dir/stage" "$dir/stage.vm" "$dir/tree"
			if _img_arm64_first_stage "$dir/stage" && _img_arm64_second_stage "$dir/stage" "$dir/tree.new"; then
				rm -rf "$dir/stage" && mv "$dir/tree.new" "$dir/tree" && touch "$dir/tree.done"
			else
				rm -rf "$dir/stage" "$dir/tree.new"
				exit 1
			fi
		) 9>"$dir/.lock" || return 1
		find "$IMG_CACHE" -maxdepth 1 -name "$name-*" ! -path "$dir" \
			-mmin +"$IMG_PRUNE_MINUTES" -exec rm -rf {} +
	fi
	touch "$dir"
	_img_cache_note "$dir/tree" "$cache_hit" "$cache_t0"
	printf '%s\n' "$dir/tree"
}

# The arm64 root's probe: the same raw reads as tests/vm/arm64.bats's
# busybox probe (section ARM64, the same keys), after systemd says the
# boot is finished, and who PID 1 is. It writes to /dev/console, not to
# /dev/ttyAMA0: the TIOCSTI probe takes ttyAMA0 as its controlling
# terminal, and when that session leader exits the kernel hangs the tty
# up, which ends every write through a file opened as /dev/ttyAMA0 (the
# last run's probe stopped there) but not through /dev/console.
_img_arm64_probe() {
	cat <<'PROBE'
#!/bin/bash
exec >/dev/console 2>&1 </dev/null
PATH=/usr/sbin:/usr/bin:/sbin:/bin
P=/usr/local/lib/hardinit-probe
state=$(timeout BOOTWAIT systemctl is-system-running --wait 2>/dev/null)
echo "=== BEGIN SYSTEMD ==="
echo "state=$state"
echo "multi-user=$(systemctl is-active multi-user.target)"
systemctl --failed --no-legend --plain 2>&1 | sed 's/^/failed: /'
echo "=== END SYSTEMD ==="
echo "=== BEGIN ARM64 ==="
echo "uname=$(uname -m)"
echo "pid1.comm=$(cat /proc/1/comm)"
echo "pid1.exe=$(readlink /proc/1/exe)"
for key in kernel.kptr_restrict kernel.dmesg_restrict fs.protected_fifos \
	kernel.randomize_va_space vm.mmap_min_addr vm.mmap_rnd_bits vm.mmap_rnd_compat_bits \
	dev.tty.legacy_tiocsti; do
	f=/proc/sys/$(echo "$key" | tr . /)
	if [ -e "$f" ]; then echo "sysctl.$key=$(cat "$f")"; else echo "sysctl.$key=<absent>"; fi
done
echo "capbnd.pid1=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/1/status)"
echo "capbnd.fresh=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)"
echo "seccomp.pid1=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/1/status)"
$P/tiocsti /dev/ttyAMA0 | sed 's/^/root./'
$P/tiocsti --uid 1001 /dev/ttyAMA0 | sed 's/^/alice./'
$P/tiocsti --uid 1001 --high /dev/ttyAMA0 | sed 's/^/alicehigh./'
$P/wx
echo "=== END ARM64 ==="
echo "=== BEGIN REPORT ==="
cat /run/hardinit/report.txt 2>&1
echo "=== END REPORT ==="
echo "=== PROBE DONE ==="
sync
systemctl poweroff --no-block
PROBE
}

# The configured arm64 image: hostname, fstab, a fixed machine-id, root
# locked, no getty on the probe's port, the probe unit and its static
# arm64 helpers (build/arm64/probe).
_img_assemble_arm64() {
	local tree=$1 out=$2
	echo "$IMG_HOSTNAME" >"$tree/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$IMG_HOSTNAME" >"$tree/etc/hosts"
	printf '/dev/vda\t/\text4\tdefaults\t0\t0\n' >"$tree/etc/fstab"
	echo 6861726469696e6974746573740a0002 >"$tree/etc/machine-id"
	sed -i 's/^root:[^:]*:/root:*:/' "$tree/etc/shadow"
	install -d "$tree/usr/local/lib/hardinit-probe"
	install -m 0755 "$HARDINIT_SRC/build/arm64/probe/wx" "$HARDINIT_SRC/build/arm64/probe/tiocsti" \
		"$tree/usr/local/lib/hardinit-probe/" || return 1
	_img_arm64_probe | sed "s/BOOTWAIT/$IMG_PROBE_BOOT_WAIT/" >"$tree/usr/local/sbin/hardinit-probe"
	chmod 0755 "$tree/usr/local/sbin/hardinit-probe"
	cat >"$tree/etc/systemd/system/hardinit-test-probe.service" <<-'EOF'
		[Unit]
		Description=hardinit test probe (prints the system's state on ttyAMA0, powers off)
		After=multi-user.target
		[Service]
		Type=simple
		ExecStart=/usr/local/sbin/hardinit-probe
		[Install]
		WantedBy=multi-user.target
	EOF
	mkdir -p "$tree/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/hardinit-test-probe.service \
		"$tree/etc/systemd/system/multi-user.target.wants/hardinit-test-probe.service"
	ln -sf /dev/null "$tree/etc/systemd/system/serial-getty@ttyAMA0.service"
	vm_rootfs "$out" "$tree" -L debian-arm64 >&2
}

img_debian_systemd_arm64() {
	local tree dir key out
	tree=$(img_tree_arm64) || return 1
	dir=$(dirname "$tree")
	key=$({
		declare -f _img_assemble_arm64 _img_arm64_probe vm_rootfs
		echo "$IMG_PROBE_BOOT_WAIT $IMG_HOSTNAME"
		cat "$HARDINIT_SRC/build/arm64/probe/wx" "$HARDINIT_SRC/build/arm64/probe/tiocsti"
	} | _img_hash) || return 1
	out=$dir/systemd-$key.img
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $out ]]; then
		cache_hit=miss
		(
			flock 9
			[[ -f $out ]] && exit 0
			find "$dir" -maxdepth 1 -name 'systemd-*.img' ! -name "systemd-$key.img" -mmin +"$IMG_PRUNE_MINUTES" -delete
			_img_assemble_arm64 "$tree" "$out.new" || { rm -f "$out.new"; exit 1; }
			mv "$out.new" "$out"
		) 9>"$dir/.lock" || return 1
	fi
	touch "$out"
	_img_cache_note "$out" "$cache_hit" "$cache_t0"
	printf '%s\n' "$out"
}

# ---- Debian 12/systemd on LUKS2, and on LVM on LUKS2 (tests/vm/luks_debian.bats) ----
#
#   img_crypt_tree        echo the cached root tree of the encrypted installs
#                         (Debian 12 minbase, systemd, cryptsetup and lvm2 as
#                         the installer's "encrypted" recipes install them; no
#                         SELinux policy), building it when missing
#   img_debian_crypt luks|lvm UUID
#                         echo the path of an ext4 image of that tree with
#                         the files Debian's installer writes for that layout:
#                         /etc/crypttab naming the LUKS2 volume UUID as
#                         vda5_crypt (`none luks,discard`), /etc/fstab with
#                         / on /dev/mapper/vda5_crypt (luks) or on
#                         /dev/mapper/debian--vg-root with swap on
#                         debian--vg-swap_1 (lvm); and the crypt probe as a
#                         unit after multi-user.target (which runs the
#                         script "step" of a disk labelled hardinit-step,
#                         when one is attached). The test's maker
#                         guest copies it onto the encrypted volume.

IMG_DEBIAN_CRYPT_PKGS="systemd-sysv,udev,dbus,kmod,procps,cryptsetup,lvm2"
IMG_CRYPT_NAME=vda5_crypt
IMG_CRYPT_VG=debian-vg

_img_build_crypt_tree() {
	_img_debootstrap "$1" "$IMG_DEBIAN_CRYPT_PKGS" "" || return 1
	[[ -x $1/sbin/cryptsetup && -x $1/sbin/lvm ]] ||
		{ _img_err "$1 lacks cryptsetup or lvm after debootstrap"; return 1; }
}

img_crypt_tree() {
	local dir key
	key=$({
		declare -f _img_build_crypt_tree _img_debootstrap
		echo "$IMG_SUITE $IMG_DEBIAN_CRYPT_PKGS"
	} | _img_hash)
	dir=$IMG_CACHE/debian-crypt-$key
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $dir/tree.done ]]; then
		cache_hit=miss
		mkdir -p "$dir" || { _img_err "cannot create $dir; run as root or set HARDINIT_CACHE"; return 1; }
		(
			flock 9
			[[ -f $dir/tree.done ]] && exit 0
			rm -rf "$dir/tree.new" "$dir/tree"
			_img_build_crypt_tree "$dir/tree.new" || { rm -rf "$dir/tree.new"; exit 1; }
			mv "$dir/tree.new" "$dir/tree" && touch "$dir/tree.done"
		) 9>"$dir/.lock" || return 1
		find "$IMG_CACHE" -maxdepth 1 -name "debian-crypt-*" ! -path "$dir" \
			-mmin +"$IMG_PRUNE_MINUTES" -exec rm -rf {} +
	fi
	touch "$dir"
	_img_cache_note "$dir/tree" "$cache_hit" "$cache_t0"
	printf '%s\n' "$dir/tree"
}

# The probe of the encrypted roots: what systemd made of the volume hardinit
# opened, read with the root's own tools (cryptsetup, dmsetup, udevadm,
# journalctl, systemctl) and from /sys. NAME is the crypttab name.
_img_crypt_probe() {
	cat <<'PROBE'
#!/bin/bash
exec >/dev/ttyS0 2>&1 </dev/null
PATH=/usr/sbin:/usr/bin:/sbin:/bin
begin() { echo "=== BEGIN $1 ==="; }
end() { echo "=== END $1 ==="; }
state=$(timeout BOOTWAIT systemctl is-system-running --wait 2>/dev/null)
begin SYSTEMD
echo "comm=$(cat /proc/1/comm)"
echo "state=$state"
echo "multi-user=$(systemctl is-active multi-user.target)"
systemctl --failed --no-legend --plain 2>&1 | sed 's/^/failed: /'
systemctl list-jobs --no-legend 2>&1 | sed 's/^/job: /'
end SYSTEMD
begin ROOT
dn=$(awk '$5 == "/" { print $3 }' /proc/self/mountinfo | tail -n 1)
echo "devnum=$dn"
echo "source=$(findmnt -rn -o SOURCE /)"
echo "dm_name=$(cat /sys/dev/block/$dn/dm/name 2>&1)"
echo "dm_uuid=$(cat /sys/dev/block/$dn/dm/uuid 2>&1)"
echo "slaves=$(ls /sys/dev/block/$dn/slaves 2>&1 | tr '\n' ' ')"
end ROOT
begin CRYPT
c=/dev/mapper/@NAME@
t=$(stat -L -c '%t %T' $c 2>&1)
cn=$(printf '%d:%d' 0x${t% *} 0x${t#* })
echo "devnum=$cn"
echo "dm_uuid=$(dmsetup info -c --noheadings -o uuid @NAME@ 2>&1)"
echo "slaves=$(ls /sys/dev/block/$cn/slaves 2>&1 | tr '\n' ' ')"
systemctl show -p ActiveState -p Result -p NRestarts -p ExecMainStatus systemd-cryptsetup@@NAME@.service | sed 's/^/unit: /'
echo "device-unit=$(systemctl is-active dev-mapper-@NAME@.device)"
echo "ask-console=$(systemctl show -p ActiveEnterTimestampMonotonic --value systemd-ask-password-console.service)"
journalctl -b -o cat -u systemd-cryptsetup@@NAME@.service 2>&1 | sed 's/^/journal: /'
# Userspace only (hardinit's own prompt is in the kernel log).
journalctl -b -o cat _TRANSPORT=journal _TRANSPORT=syslog _TRANSPORT=stdout 2>&1 |
	grep -i 'enter passphrase' | sed 's/^/asked: /'
cryptsetup status @NAME@ 2>&1 | sed 's/^ *//; s/^/status: /'
udevadm info -q property $c 2>&1 | sed 's/^/udev: /'
end CRYPT
begin DMTABLE
dmsetup table 2>&1
end DMTABLE
begin LVM
lvs --noheadings -o lv_name,lv_active,lv_dm_path 2>&1 | awk '{ print "lv: " $1, $2, $3 }'
echo "swap-target=$(systemctl is-active swap.target)"
tail -n +2 /proc/swaps | sed 's/^/swap: /'
end LVM
# A test's own step, on a disk it attaches (ext4 labelled hardinit-step).
if step=$(findfs LABEL=hardinit-step 2>/dev/null); then
	mkdir -p /run/hardinit-step
	mount -o ro "$step" /run/hardinit-step && bash /run/hardinit-step/step
fi
echo "=== PROBE DONE ==="
sync
systemctl poweroff --no-block
PROBE
}

# Configure TREE for LAYOUT (luks, lvm) with the volume UUID, write OUT.
# The common configuration first (hostname, machine-id, the standard probe's
# unit, no getty on ttyS0), then the crypt probe in the standard probe's
# place and the files of the layout.
_img_assemble_crypt() {
	local tree=$1 layout=$2 uuid=$3 out=$4 root
	mkdir -p "$tree/etc/selinux"
	_img_configure_debian "$tree" systemd || return 1
	rm -rf "$tree/etc/selinux"
	_img_crypt_probe | sed "s/BOOTWAIT/$IMG_PROBE_BOOT_WAIT/; s/@NAME@/$IMG_CRYPT_NAME/g" \
		>"$tree/usr/local/sbin/hardinit-probe"
	printf '%s UUID=%s none luks,discard\n' "$IMG_CRYPT_NAME" "$uuid" >"$tree/etc/crypttab"
	case $layout in
	luks)
		root=/dev/mapper/$IMG_CRYPT_NAME
		printf '%s\t/\text4\terrors=remount-ro\t0\t1\n' "$root" >"$tree/etc/fstab" ;;
	lvm)
		root=/dev/mapper/${IMG_CRYPT_VG//-/--}-root
		printf '%s\t/\text4\terrors=remount-ro\t0\t1\n%s\tnone\tswap\tsw\t0\t0\n' \
			"$root" "/dev/mapper/${IMG_CRYPT_VG//-/--}-swap_1" >"$tree/etc/fstab" ;;
	*) _img_err "unknown layout '$layout'; use luks or lvm"; return 1 ;;
	esac
	vm_rootfs "$out" "$tree" -L debian-root >&2
}

img_debian_crypt() {
	local layout=${1:?usage: img_debian_crypt luks|lvm UUID} uuid=${2:?usage: img_debian_crypt luks|lvm UUID}
	local tree dir key out
	tree=$(img_crypt_tree) || return 1
	dir=$(dirname "$tree")
	key=$({
		declare -f _img_assemble_crypt _img_configure_debian _img_debian_probe _img_crypt_probe vm_rootfs
		echo "$IMG_PROBE_BOOT_WAIT $IMG_HOSTNAME $IMG_CRYPT_NAME $IMG_CRYPT_VG $layout $uuid"
	} | _img_hash) || return 1
	out=$dir/$layout-$key.img
	local cache_t0=$SECONDS cache_hit=hit
	if [[ ! -f $out ]]; then
		cache_hit=miss
		(
			flock 9
			[[ -f $out ]] && exit 0
			find "$dir" -maxdepth 1 -name "$layout-*.img" ! -name "$layout-$key.img" -mmin +"$IMG_PRUNE_MINUTES" -delete
			_img_assemble_crypt "$tree" "$layout" "$uuid" "$out.new" || { rm -f "$out.new"; exit 1; }
			mv "$out.new" "$out"
		) 9>"$dir/.lock" || return 1
	fi
	touch "$out"
	_img_cache_note "$out" "$cache_hit" "$cache_t0"
	printf '%s\n' "$out"
}
