# shellcheck shell=bash
# A test root with Linux-PAM and the real pam_namespace, for
# tests/vm/polyinst.bats. Source it after tests/vm/lib.bash.
#
#   pam_stage_root DIR        add to a vm_stage_root'd DIR: util-linux's
#                             runuser with the PAM service "runuser"
#                             (session required pam_namespace.so), the PAM
#                             modules it names, glibc's loader and every
#                             shared library they need (found by ldd), NSS
#                             and shadow files, namespace.conf polyinstan-
#                             tiating /tmp and /var/tmp (root exempt) and
#                             Debian's namespace.init
#   pam_copy_binary DIR FILE... copy each FILE (symlinks resolved) to the same
#                             path under DIR, with its shared libraries
#
# The binaries and modules come from the host (Debian 12: util-linux's
# runuser, libc-bin's getent, libpam-modules; scripts/install-deps installs
# them), so the
# guest runs Debian's own pam_namespace (linux-pam 1.5.2) unmodified.
#
# runuser is used because, run by root, it opens a PAM session without
# asking for a password (it skips pam_authenticate), which su would need a
# terminal for. Its session is what pam_namespace acts on: the module
# unshares a mount namespace in runuser itself, which then forks the
# command inside it.

PAM_MODULE_DIR=/lib/x86_64-linux-gnu/security
# The modules /etc/pam.d/runuser and /etc/pam.d/other below name.
PAM_MODULES=(pam_rootok.so pam_permit.so pam_deny.so pam_unix.so pam_namespace.so)
PAM_NAMESPACE_INIT=/etc/security/namespace.init

_pam_err() {
	printf 'pam-root: %s\n' "$*" >&2
}

# The shared objects FILE needs, as absolute paths on the host (ldd's
# "name => /path (addr)" lines and the loader's "/path (addr)" line).
_pam_needed_libs() {
	local file=$1 out
	out=$(ldd "$file" 2>&1) || { _pam_err "ldd $file failed: $out"; return 1; }
	if grep -q 'not found' <<<"$out"; then
		_pam_err "ldd $file: a library is missing: $(grep 'not found' <<<"$out")"
		return 1
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"
}

# cp -L keeps the path ldd names (the loader and the libraries are found by
# those names in the guest) but copies the file a symlink points to: on a
# merged-/usr host /lib64/ld-linux-x86-64.so.2 points into /usr/lib, which
# the test root does not need to have.
_pam_copy_file() {
	local dir=$1 file=$2
	[[ -e $dir$file ]] && return 0
	mkdir -p "$dir$(dirname "$file")"
	cp -L "$file" "$dir$file" || { _pam_err "cannot copy $file into $dir"; return 1; }
}

pam_copy_binary() {
	local dir=${1:?usage: pam_copy_binary DIR FILE...} file lib
	shift
	for file in "$@"; do
		[[ -e $file ]] || { _pam_err "$file missing on the host (scripts/install-deps)"; return 1; }
		_pam_copy_file "$dir" "$file" || return 1
		local libs
		libs=$(_pam_needed_libs "$file") || return 1
		for lib in $libs; do
			_pam_copy_file "$dir" "$lib" || return 1
		done
	done
}

# The PAM service runuser opens: root may run anything as anyone (auth is
# skipped by runuser anyway), the account must exist, and the session is
# pam_namespace's. pam_unix's session only logs the open and the close.
_pam_write_service() {
	local dir=$1
	mkdir -p "$dir/etc/pam.d"
	cat >"$dir/etc/pam.d/runuser" <<-'EOF'
		auth     sufficient pam_rootok.so
		auth     required   pam_deny.so
		account  required   pam_unix.so
		session  required   pam_namespace.so
		session  required   pam_unix.so
	EOF
	# A service without a file falls back to "other": refuse it.
	cat >"$dir/etc/pam.d/other" <<-'EOF'
		auth     required pam_deny.so
		account  required pam_deny.so
		password required pam_deny.so
		session  required pam_deny.so
	EOF
	chmod 0644 "$dir/etc/pam.d/runuser" "$dir/etc/pam.d/other"
}

# glibc 2.36 has the files NSS module built in; nsswitch.conf just says so.
# The shadow entries are locked ("!"): nobody logs in with a password, and
# pam_unix's account check finds every user.
_pam_write_accounts() {
	local dir=$1
	printf '%s\n' 'passwd: files' 'group: files' 'shadow: files' >"$dir/etc/nsswitch.conf"
	printf '%s\n' 'root:!:::::::' 'alice:!:::::::' 'bob:!:::::::' >"$dir/etc/shadow"
	chmod 0644 "$dir/etc/nsswitch.conf"
	chmod 0600 "$dir/etc/shadow"
}

# The layout hardinit prepares by default: POLYDIR/tmp-inst/ as the
# instance prefix, the "user" method, root exempt.
_pam_write_namespace_conf() {
	local dir=$1
	mkdir -p "$dir/etc/security/namespace.d"
	printf '%s\n' "/tmp /tmp/tmp-inst/ user root" "/var/tmp /var/tmp/tmp-inst/ user root" \
		>"$dir/etc/security/namespace.conf"
	chmod 0644 "$dir/etc/security/namespace.conf"
	# pam_namespace runs it (with /bin/sh: busybox) for every instance.
	[[ -f $PAM_NAMESPACE_INIT ]] ||
		{ _pam_err "$PAM_NAMESPACE_INIT missing (libpam-modules)"; return 1; }
	install -m 0755 "$PAM_NAMESPACE_INIT" "$dir/etc/security/namespace.init"
}

pam_stage_root() {
	local dir=${1:?usage: pam_stage_root DIR} m
	[[ -x $dir/bin/busybox ]] || { _pam_err "$dir is not a staged root (vm_stage_root first)"; return 1; }
	# getent: Debian's namespace.init looks the user up with it.
	local -a files=(/usr/sbin/runuser /usr/bin/getent)
	for m in "${PAM_MODULES[@]}"; do
		files+=("$PAM_MODULE_DIR/$m")
	done
	pam_copy_binary "$dir" "${files[@]}" || return 1
	_pam_write_service "$dir"
	_pam_write_accounts "$dir"
	_pam_write_namespace_conf "$dir"
}
