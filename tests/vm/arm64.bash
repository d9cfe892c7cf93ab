# Shared by the arm64 suites (arm64.bats, arm64_debian.bats): their
# hardening config and reading the guest's ARM64 probe section.

# A key's value in the ARM64 section (the character root's TIOCSTI pushes
# into ttyAMA0 is echoed ahead of the line that reports it:
# vm_section_value skips it), and the assertion on it.
guest() {
	vm_section_value "$1" ARM64 "$2"
}

expect() {
	vm_assert_section_value "$1" ARM64 "$2" "$3"
}

# arm64_conf: the config both suites boot: every hardening stage whose
# effect the ARM64 probe reads (NX, ASLR, MDWE, sysctls, the bounding set,
# TIOCSTI).
arm64_conf() {
	cat <<-'EOF'
		# tests/vm/arm64.bash: the arm64 suites' hardening config.
		[boot]
		failure_action = poweroff
		failure_delay = 0
		[memory]
		nx = require
		aslr = yes
		mdwe = yes
		[sysctl]
		kernel.kptr_restrict = 2
		kernel.dmesg_restrict = 1
		fs.protected_fifos = 2
		[capabilities]
		drop = cap_sys_rawio
		drop = cap_perfmon
		drop = cap_bpf
		drop = cap_checkpoint_restore
		[tty]
		tiocsti = deny-unprivileged
	EOF
}
