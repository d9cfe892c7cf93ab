# Branch protection for one of musl's aarch64 assembly files (musl 1.2.3
# has none; scripts/build-bti runs this over each before building):
# - a BTI landing pad ("hint 34", bti c) at the entry of every function
#   the file declares with .type, so an indirect call may reach it;
# - crti.s's _init/_fini sign their return address ("hint 25", paciasp,
#   itself a landing pad) and crtn.s authenticates it ("hint 29", autiasp)
#   before the ret, as compiled code does with -mbranch-protection=standard;
# - longjmp returns with ret, not br x30: the setjmp call site it returns
#   to is not an indirect-branch target (no bti j there);
# - the GNU property note (BTI and PAC), so the linker keeps the binary's.
# restore.s (the signal return trampoline) gets the note only: it is
# reached by a return, never an indirect branch, and unwinders recognise it
# by its first two instructions.
# Hints are no-ops on CPUs without BTI or PAC.
# One file per run (awk -f musl-bti.awk FILE > OUT): the .type lines may
# follow the label, so the file is read whole first.
{ lines[++n] = $0 }
/^[ \t]*\.type[ \t]/ {
	s = $0
	sub(/^[ \t]*\.type[ \t]+/, "", s)
	split(s, a, /[ \t]*,[ \t]*/)
	if (a[2] ~ /function/) fn[a[1]] = 1
}
END {
	crti = FILENAME ~ /crti\.s$/
	crtn = FILENAME ~ /crtn\.s$/
	pads = FILENAME !~ /restore\.s$/
	for (i = 1; i <= n; i++) {
		l = lines[i]
		if (crtn && l ~ /^[ \t]*ret[ \t]*$/) print "\thint 29 // autiasp"
		if (FILENAME ~ /longjmp\.s$/ && l ~ /^[ \t]*br[ \t]+x30[ \t]*$/) l = "\tret"
		print l
		lab = l
		if (lab ~ /^[A-Za-z_.$][A-Za-z0-9_.$]*:[ \t]*$/) {
			sub(/:.*/, "", lab)
			if (pads && lab in fn) print (crti ? "\thint 25 // paciasp" : "\thint 34 // bti c")
		}
	}
	print ""
	print ".section .note.gnu.property,\"a\""
	print ".p2align 3"
	print ".word 4, 16, 5"
	print ".asciz \"GNU\""
	print ".word 0xc0000000, 4, 3, 0 // GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI, PAC"
}
