#!/usr/bin/env bats
# The docs' examples, judged by the code they describe: every hardinit.*
# kernel command-line word in README.md, the man pages, tests/vm/README.md
# and doc/*.md is fed to the built hardinit's own command-line parser
# (dry-run), and every option of an example command line of hardinit,
# hardinit-mkinitramfs or update-hardinit is one that program's --help names.
# A wrong example (hardinit.failure=poweroff, a renamed option) fails here.

bats_require_minimum_version 1.5.0

setup_file() {
	REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export REPO HARDINIT="$REPO/build/hardinit"
	make -s -C "$REPO" build/hardinit >&2
}

doc_files() {
	printf '%s\n' "$REPO/README.md" "$REPO"/man/*.[0-9] "$REPO/tests/vm/README.md" "$REPO"/doc/*.md
}

# FILE as plain text: roff's font changes and escapes removed, continued
# lines (a trailing \ in Markdown, \e in roff) joined.
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\&//g' -e 's/\\e$/\\/' \
		-e 's/\\ / /g' "$1" | sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ba' -e '}'
}

# The hardinit.* words of FILE, one a line; a trailing '.' or ',' is the
# sentence's.
doc_words() {
	plain "$1" | grep -oE 'hardinit\.[a-z][A-Za-z0-9_.,-]*(=("[^"]*"|[^][:space:]`"'\''(){}<>]*))?' |
		sed -E 's/[.,]+$//'
}

# Why WORD is not what hardinit's command-line parser takes, or nothing.
#   hardinit.debug                 the one flag
#   hardinit.conf|img|prom|install[-...]  file names (hardinit.conf(5), hardinit.img-KVER, ...)
#   hardinit.SECTION.KEY=VALUE     applied by dry-run as written
#   hardinit.SECTION.KEY[=]        a key named in prose: the parser knows it
word_problem() {
	local w=$1 name=${1%%=*} out why
	name=${name#hardinit.}
	if [[ $w != *=* && $name != *.* ]]; then
		case ${name%%-*} in
		debug | conf | img | prom | install) return 0 ;;
		*) echo "$w: neither hardinit.debug, a file name nor hardinit.SECTION.KEY=VALUE"; return 0 ;;
		esac
	fi
	mkdir -p "$BATS_TEST_TMPDIR/root"
	printf '[boot]\nfailure_action = halt\n' >"$BATS_TEST_TMPDIR/w.conf"
	out=$("$HARDINIT" dry-run --config "$BATS_TEST_TMPDIR/w.conf" --root "$BATS_TEST_TMPDIR/root" \
		--cmdline "root=/dev/vda $w" 2>&1) || :
	why=$(grep -m1 'error: config:' <<<"$out" | sed 's/^.*error: config: //') || :
	if [[ $w == *=?* ]]; then
		[[ $out == *"override ${w//\"/} applied"* && -z $why ]] || echo "$w: ${why:-not applied by dry-run}"
	elif grep -qE 'unknown section|unknown key|not a SECTION\.KEY' <<<"$out"; then
		echo "$w: $why"
	fi
}

# Every problem of the words of the files given, one a line.
check_words() {
	local f w
	for f in "$@"; do
		while IFS= read -r w; do
			word_problem "$w" | sed "s|^|${f#"$REPO"/}: |"
		done < <(doc_words "$f" | sort -u)
	done
}

@test "docs: every hardinit.* word in README.md, the man pages, tests/vm/README.md and doc/ is taken by hardinit" {
	local files n=0 f
	mapfile -t files < <(doc_files)
	# The words are really found: the examples of hardinit.conf(5) and the VM template.
	for f in "${files[@]}"; do n=$((n + $(doc_words "$f" | grep -c '=' || :))); done
	echo "words with a value: $n"
	[ "$n" -ge 10 ]
	doc_words "$REPO/tests/vm/README.md" | grep -qx 'hardinit.boot.failure_action=poweroff'
	run check_words "${files[@]}"
	echo "$output"
	[ -z "$output" ]
}

@test "docs: the word check refuses a wrong example (the old VM template's hardinit.failure=poweroff)" {
	local f=$BATS_TEST_TMPDIR/bad.md
	printf '%s\n' '--append "root=LABEL=testroot hardinit.failure=poweroff"' \
		'.BR hardinit.selinux.enforce=1 ,' 'Use `hardinit.debgu`.' \
		'.BR hardinit.boot.failure_action=sometimes .' \
		'a key in prose: \fBhardinit.boot.nokey=\fR.' >"$f"
	run check_words "$f"
	echo "$output"
	[[ $output == *"hardinit.failure=poweroff: "*"not a SECTION.KEY name"* ]]
	[[ $output == *"hardinit.selinux.enforce=1: "*"unknown key 'enforce'"* ]]
	[[ $output == *"hardinit.debgu: neither hardinit.debug"* ]]
	[[ $output == *"hardinit.boot.failure_action=sometimes: "*"invalid value"* ]]
	[[ $output == *"hardinit.boot.nokey=: "*"unknown key 'nokey'"* ]]
	[ "$(wc -l <<<"$output")" -eq 5 ]
}

# The example command lines of FILE (Markdown code blocks, roff .nf/.fi
# blocks) that run PROG, continued lines joined.
doc_commands() {
	local file=$1 prog=$2
	if [[ $file == *.md ]]; then
		plain "$file" | awk '/^```/{f=!f; next} f'
	else
		plain "$file" | awk '/^\.nf/{f=1; next} /^\.fi/{f=0} f'
	fi | sed -E 's/^[[:space:]]*(sudo[[:space:]]+|# )?//' | grep -E "^$prog( |$)" || :
}

# Every option of an example command line that PROG's --help does not name.
check_commands() {
	local prog=$1 bin=$2 help f line opt sub
	shift 2
	help=$("$bin" --help 2>&1)
	for f in "$@"; do
		while IFS= read -r line; do
			line=${line%%#*}
			if [[ $prog == hardinit ]]; then
				sub=$(awk '{print $2}' <<<"$line")
				[[ -z $sub || $sub == -* ]] || grep -qE "^  $sub( |$)" <<<"$help" ||
					echo "${f#"$REPO"/}: $prog $sub: no such command in $prog --help"
			fi
			for opt in $(grep -oE '(^|[[ ])--?[a-z][a-z0-9-]*' <<<"$line" | tr -d '[ '); do
				grep -qE -- "(^|[^a-z-])$opt([^a-z0-9-]|$)" <<<"$help" ||
					echo "${f#"$REPO"/}: $prog $opt: not an option in $prog --help"
			done
		done < <(doc_commands "$f" "$prog")
	done
}

@test "docs: every example command of hardinit, hardinit-mkinitramfs and update-hardinit uses options their --help names" {
	local files n
	mapfile -t files < <(doc_files)
	n=$(for f in "${files[@]}"; do doc_commands "$f" 'hardinit|hardinit-mkinitramfs|update-hardinit'; done | wc -l)
	echo "example command lines: $n"
	[ "$n" -ge 8 ]
	run check_commands hardinit "$HARDINIT" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	run check_commands hardinit-mkinitramfs "$REPO/initramfs/hardinit-mkinitramfs" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	run check_commands update-hardinit "$REPO/hooks/update-hardinit" "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	# The check can fail: a command and an option that do not exist.
	printf '```sh\nhardinit verify /etc/hardinit.conf\nhardinit audit --yaml\n```\n' >"$BATS_TEST_TMPDIR/bad.md"
	run check_commands hardinit "$HARDINIT" "$BATS_TEST_TMPDIR/bad.md"
	echo "$output"
	[[ $output == *"hardinit verify: no such command"* ]]
	[[ $output == *"hardinit --yaml: not an option"* ]]
}

# The config examples of the man pages: .nf/.fi blocks holding a [section].
# An include names the reader's own file: it becomes an empty one here.
config_examples() {
	local dir=$1 page
	for page in "$REPO"/man/*.[0-9]; do
		plain "$page" | awk -v dir="$dir" -v base="${page##*/}" '
			/^\.nf/ { f = 1; buf = ""; next }
			/^\.fi/ { if (f && buf ~ /(^|\n)\[[a-z]+\]/) { n++; file = dir "/" base "." n ".conf"; printf "%s", buf > file; close(file); print file } f = 0; next }
			f && !/^\.R[SE]/ { buf = buf $0 "\n" }'
	done
}

@test "docs: the config examples of the man pages are valid, and hardinit.conf(5)'s does what its text says" {
	local d=$BATS_TEST_TMPDIR/ex f files
	mkdir -p "$d"
	: >"$d/empty.conf"
	mapfile -t files < <(config_examples "$d")
	[ "${#files[@]}" -ge 1 ]
	for f in "${files[@]}"; do
		sed -i "s|^include = .*|include = $d/empty.conf|" "$f"
		run "$HARDINIT" check-config "$f"
		[ "$status" -eq 0 ] || { echo "${f##*/}: $output" >&2; return 1; }
	done
	# "With this file, hardinit.selinux.mode=permissive on the command line is
	# refused and logged, and hardinit.capabilities.drop=cap_sys_rawio is applied."
	f=$(grep -l '^lock_cmdline = yes' "${files[@]}" | head -n 1)
	[[ $f == */hardinit.conf.5.* ]]
	mkdir -p "$d/root"
	run "$HARDINIT" dry-run --config "$f" --root "$d/root" \
		--cmdline "root=/dev/vda hardinit.selinux.mode=permissive hardinit.capabilities.drop=cap_sys_rawio"
	echo "$output"
	[[ $output == *"hardinit.selinux.mode=permissive refused: it weakens the locked config"* ]]
	[[ $output == *"override hardinit.capabilities.drop=cap_sys_rawio applied"* ]]
}

# An example command line made runnable here: its placeholders (an output,
# a kernel, a key, a UUID, FILE...) replaced by this test's own, and
# nothing written outside $T. The replacements are the whole list: an
# example that needs another one fails the test below.
runnable() {
	local line=$1 uuid=0a1b2c3d-0000-4000-8000-000000000001
	line=${line%%#*}
	line=${line//\$(git log -1 --format=%ct)/0}
	line=${line//\[--json\]/--json}
	line=${line//\/path\/to\/unpacked-kernel/$KROOT}
	line=${line//\/var\/cache\/hardinit\/kernels\/6.12/$KROOT}
	line=$(sed -E "s/--kver [^ ]+/--kver $KVER/; s|--kernel [^ ]+|--kernel $KROOT/boot/vmlinuz-$KVER|;
		s/UUID=[.0-9a-f]*\\.\\.\\./UUID=$uuid/g; s| -o [^ ]+| -o $T/out.img|; s|--uki [^ ]+|--uki $T/out.efi|;
		s|--sign-key db.key|--sign-key $T/db.key|; s|--sign-cert db.pem|--sign-cert $T/db.pem|;
		s|--policy /etc/selinux/[^ ]+|--policy $T/policy.33|; s|/etc/hardinit.conf|$REPO/config/baseline.conf|;
		s| FILE| $REPO/config/baseline.conf|g; s|--format prometheus|--format prometheus --output $T/h.prom|;
		s|private-tmp alice /bin/sh|private-tmp nobody /bin/true|" <<<"$line")
	# The machine's own /lib/modules (this host has none): the cached kernel's.
	[[ $line != *hardinit-mkinitramfs* || $line == *--moddir* ]] || line+=" --moddir $KROOT"
	printf '%s\n' "$line"
}

@test "docs: every example command of hardinit and hardinit-mkinitramfs runs as written (placeholders aside)" {
	local T=$BATS_TEST_TMPDIR f line cmd rc out n=0
	export KROOT=${HARDINIT_CACHE:-/var/cache/hardinit}/kernels/6.12 T
	[ -d "$KROOT/lib/modules" ] || skip "no 6.12 kernel in $KROOT (scripts/install-deps fetches it)"
	KVER=$(cd "$KROOT/lib/modules" && ls | head -n 1)
	export KVER hash=9b4332f63d3b62e3fa38037cb624dafd1942e3c9a4336e28fc95417d7eca8a2d size=1048576
	export PATH="$REPO/build:$REPO/initramfs:$PATH"
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=db -days 1 -keyout "$T/db.key" -out "$T/db.pem" 2>/dev/null
	printf '\x8c\xff\x7c\xf9\x08\x00\x00\x00SE Linux' >"$T/policy.33"
	local -a files
	mapfile -t files < <(doc_files)
	for f in "${files[@]}"; do
		while IFS= read -r line; do
			[[ $line == *" ... "* ]] && { echo "not runnable (an elided command): $line"; continue; }
			cmd=$(runnable "$line")
			n=$((n + 1))
			rc=0
			out=$(cd "$T" && unshare --mount --propagation private bash -c "$cmd" 2>&1) || rc=$?
			case $cmd in
			# audit on this host, which hardinit did not boot: 2, it cannot audit
			*"hardinit audit"*) [[ $rc == 2 && $out == *"/run/hardinit/config: cannot read"* || $rc == 0 || $rc == 1 ]] ;;
			*) [[ $rc == 0 ]] ;;
			esac || { echo "${f#"$REPO"/}: '$line' as '$cmd' exited $rc: $out"; return 1; }
		done < <(doc_commands "$f" 'hardinit|hardinit-mkinitramfs')
	done
	echo "example commands run: $n"
	[ "$n" -ge 12 ]
}

# The make targets the docs name as commands (`make demo`, `make install
# PREFIX=...` in backquotes, or a code line starting with make), one a
# line: the first word after "make" that is not an assignment.
doc_make_targets() {
	plain "$1" | grep -oE '(`make|^make)( [A-Z_]+=[^[:space:]`]*)* [a-z][a-z0-9-]*' |
		sed -E 's/^`?make( [A-Z_]+=[^[:space:]`]*)* //' | sort -u
}

@test "docs: every man page section the docs, the schemas, the scripts and --help cite exists" {
	local n=0 f cite page sec
	while IFS=: read -r f cite; do
		page=${cite%%(*}
		sec=${cite#*), }
		[[ -f $REPO/man/$page.${cite:${#page}+1:1} ]] || continue
		grep -qE "^\.SH \"?$sec" "$REPO/man/$page.${cite:${#page}+1:1}" ||
			{ echo "$f cites $cite: man/$page has no section $sec"; false; }
		n=$((n + 1))
	done < <(grep -oE '[a-z-]+\([0-9]\), [A-Z][A-Z]+( [A-Z]+)*' -r "$REPO/README.md" "$REPO/man" "$REPO/contrib" \
		"$REPO/prog/cli.c" "$REPO/initramfs/hardinit-mkinitramfs" | sed 's/ *$//')
	[ "$n" -ge 5 ]
}

@test "docs: every make target README.md, the man pages, tests/vm/README.md and doc/ name is a rule of the Makefile" {
	local f t bad='' n=0
	for f in $(doc_files); do
		for t in $(doc_make_targets "$f"); do
			n=$((n + 1))
			grep -qE "^([^:=#[:space:]]+[[:space:]]+)*$t([[:space:]]+[^:=#[:space:]]+)*[[:space:]]*:([^=]|$)" \
				"$REPO/Makefile" || bad+=" ${f#"$REPO"/}:$t"
		done
	done
	# README names demo, check, bench, fuzz, install, deb and cross at least
	[ "$n" -ge 7 ]
	[ -z "$bad" ] || { echo "no such make target:$bad" >&2; false; }
	# the reader: commands, not prose
	[ "$(doc_make_targets <(printf 'run `make ARCH=arm64 cross` to make the tree\nmake demo  # x\n') |
		tr '\n' ' ')" = "cross demo " ]
}

# A man page's SYNOPSIS as one line of plain text: roff's macros, font
# changes and quotes removed, alternatives written A|B.
synopsis_text() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /{/^\.SH/d;p}' "$1" |
		sed -E 's/^\.(B|I|R|BR|RB|IR|RI|BI|IB)( |$)//; /^\.br$/d; s/\\f[BIRP]//g; s/\\-/-/g; s/\\\(dq//g; s/\\&//g; s/"//g' |
		tr '\n' ' ' | sed -E 's/ *\| */|/g; s/  +/ /g'
}

# What PROG's --help (on stdin) offers, one a line: each option as its
# spellings joined by '|' (-o|--output), "cmd NAME" for each of hardinit's
# commands, and "values --OPT A|B|C" for each option whose values --help
# lists. Options are read from the option lines (two spaces, then '-'),
# the usage lines and, for hardinit, its command lines.
help_offers() {
	local prog=$1
	awk -v prog="$prog" '
		/^(Usage:|       [a-z])/ || /^  -/ || (prog == "hardinit" && /^(  [a-z]|        \[)/) {
			line = $0
			if (prog == "hardinit" && match(line, /^  [a-z][a-z-]*/)) print "cmd " substr(line, 3, RLENGTH - 2)
			# a short option and its long spelling: one option
			if (match(line, /^  -[a-zA-Z], --[a-z][a-z0-9-]*/)) {
				s = substr(line, 3, RLENGTH - 2); split(s, p, ", "); print p[2] "|" p[1]
				line = substr(line, RLENGTH + 1)
			}
			while (match(line, /(^|[ ,[])--?[a-zA-Z][a-z0-9-]*( [A-Za-z0-9]+(\|[A-Za-z0-9]+)+)?/)) {
				s = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
				sub(/^[ ,[]/, "", s)
				n = split(s, w, " ")
				print w[1]
				if (n > 1) print "values " w[1] " " w[2]
			}
		}' | sort -u
}

# Every offer of PROG's --help that MANPAGE's SYNOPSIS lacks, one a line.
synopsis_missing() {
	local prog=$1 help=$2 page=$3 syn offer alt found
	syn=" $(synopsis_text "$page") "
	while IFS= read -r offer; do
		case $offer in
		"cmd "*) [[ $syn == *" $prog ${offer#cmd } "* ]] || echo "${page##*/}: the command ${offer#cmd } is not in SYNOPSIS" ;;
		"values "*)
			offer=${offer#values }
			[[ $syn == *" $offer "* || $syn == *" $offer]"* ]] ||
				echo "${page##*/}: SYNOPSIS does not write ${offer%% *} ${offer#* } as --help does" ;;
		*)
			found=
			for alt in ${offer//|/ }; do
				grep -qE -- "[][ |]$alt([][ |=]|$)" <<<"$syn" && found=1
			done
			[[ -n $found ]] || echo "${page##*/}: $offer is not in SYNOPSIS" ;;
		esac
	done < <(help_offers "$prog" <<<"$help")
}

@test "docs: every command and option --help prints is in its man page's SYNOPSIS, with the same values" {
	local n
	n=$("$HARDINIT" --help | help_offers hardinit | wc -l)
	echo "hardinit offers: $n"
	[ "$n" -ge 25 ]
	"$HARDINIT" --help | help_offers hardinit | grep -qx 'cmd private-tmp'
	"$REPO/initramfs/hardinit-mkinitramfs" --help | help_offers hardinit-mkinitramfs |
		grep -qx 'values --target auto|generic|virtio|xen|none'
	"$REPO/hooks/update-hardinit" --help | help_offers update-hardinit | grep -qx -- '--config|-c'
	run synopsis_missing hardinit "$("$HARDINIT" --help)" "$REPO/man/hardinit.8"
	echo "$output"
	[ -z "$output" ]
	run synopsis_missing hardinit-mkinitramfs "$("$REPO/initramfs/hardinit-mkinitramfs" --help)" "$REPO/man/hardinit-mkinitramfs.8"
	echo "$output"
	[ -z "$output" ]
	run synopsis_missing update-hardinit "$("$REPO/hooks/update-hardinit" --help)" "$REPO/man/update-hardinit.8"
	echo "$output"
	[ -z "$output" ]
}

@test "docs: the SYNOPSIS check fails on a page that lacks an option, a command or a value" {
	local page=$BATS_TEST_TMPDIR/x.8
	sed -e '/^\.RB \[ \\-\\-host\\-only \]$/d' -e 's/^\.BR auto | generic | virtio/.BR virtio/' \
		"$REPO/man/hardinit-mkinitramfs.8" >"$page"
	run synopsis_missing hardinit-mkinitramfs "$("$REPO/initramfs/hardinit-mkinitramfs" --help)" "$page"
	echo "$output"
	[[ $output == *"x.8: --host-only is not in SYNOPSIS"* ]]
	[[ $output == *"x.8: SYNOPSIS does not write --target auto|generic|virtio|xen|none as --help does"* ]]
	sed -e '/^\.B hardinit private-tmp/,/^\.br/d' "$REPO/man/hardinit.8" >"$page"
	run synopsis_missing hardinit "$("$HARDINIT" --help)" "$page"
	echo "$output"
	[[ $output == *"x.8: the command private-tmp is not in SYNOPSIS"* ]]
	[[ $output == *"x.8: --dir is not in SYNOPSIS"* ]]
}

# Lines of the files given that name a tracker's issue by its number
# ("issue N", "(issue N)", "Issue N:", "issues N and M", "issue #N"):
# a comment, test or doc says what a thing is, checks or why, not which
# request asked for it. An upstream reference is a URL (.../issues/123),
# which this does not match.
issue_numbers() {
	grep -n -i -E '(^|[^a-z/])issues? ?#?[0-9]+' -- "$@" || :
}

@test "docs: no tracked file names an issue by its number" {
	local files
	git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	mapfile -t files < <(git -C "$REPO" ls-files | grep -vE '\.(img|png|gz|xz|zst|bin)$|/corpus/')
	[ "${#files[@]}" -ge 100 ]
	run bash -c "cd '$REPO' && $(declare -f issue_numbers); issue_numbers \"\$@\"" _ "${files[@]}"
	echo "$output"
	[ -z "$output" ]
	# The check can fail, and leaves an upstream URL alone.
	local n=1 t=$BATS_TEST_TMPDIR/t.c
	printf '%s\n' "/* Xen for real (issue ${n}7) */" "# Issue $n: a test" "see issue #$n" \
		"https://github.com/o/r/issues/$n" "reissued $n times" >"$t"
	run issue_numbers "$t"
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} == "1:"* && ${lines[1]} == "2:"* && ${lines[2]} == "3:"* ]]
}

# The top-level folders of FILE's section from the heading matching START
# to the next heading of that level, as `NAME/` names them, one a line.
named_folders() {
	awk -v start="$2" '$0 ~ start { on = 1; lvl = $1; next } on && $1 == lvl { exit } on' "$1" |
		grep -oE '`\.?[a-z0-9_-]+/' | tr -d '`/' | sort -u
}

# Every top-level folder of the tree FILE's section leaves out.
folders_missing() {
	comm -23 <(git -C "$REPO" ls-files | grep / | cut -d/ -f1 | sort -u) <(named_folders "$1" "$2")
}

@test "docs: README's layout and HACKING.md's map name every top-level folder, design.md's tree table every C floor" {
	git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	run folders_missing "$REPO/README.md" '^## Layout'
	echo "README.md's layout lacks: $output"
	[ -z "$output" ]
	run folders_missing "$REPO/HACKING.md" '^## Map'
	echo "HACKING.md's map lacks: $output"
	[ -z "$output" ]
	local f
	for f in init crypto arch block tpm stages prog; do
		named_folders "$REPO/doc/design.md" '^## The shape of the tree' | grep -qx "$f" ||
			{ echo "doc/design.md's tree table lacks $f/" >&2; return 1; }
	done
	# the docs these pages send a reader to exist
	for f in $(cat "$REPO/README.md" "$REPO/HACKING.md" "$REPO/doc/design.md" | grep -oE 'doc/[a-z0-9-]+\.md' | sort -u); do
		[ -f "$REPO/$f" ] || { echo "no such file: $f" >&2; return 1; }
	done
	# the check can fail: a layout without tpm/
	sed '/^- `tpm\/`/d' "$REPO/README.md" >"$BATS_TEST_TMPDIR/r.md"
	run folders_missing "$BATS_TEST_TMPDIR/r.md" '^## Layout'
	[ "$output" = tpm ]
}

# The hi_ functions FILEs name that no header of the tree declares.
undeclared_functions() {
	local fn
	for fn in $(cat -- "$@" | grep -oE '\bhi_[a-z0-9_]*[a-z0-9]\b' | sort -u); do
		grep -rqE "\b$fn\(" --include='*.h' "$REPO"/{init,crypto,arch,block,tpm,stages,prog} || echo "$fn"
	done
}

@test "docs: every hi_ function README, HACKING.md and doc/ name is declared, the stage runner where design.md says" {
	run undeclared_functions "$REPO/README.md" "$REPO/HACKING.md" "$REPO"/doc/*.md
	echo "declared in no header: $output"
	[ -z "$output" ]
	# design.md: "sees the stages through hi_boot_run_stages() and
	# hi_boot_handoff() (HEADER)": that header declares both.
	local h
	h=$(tr '\n' ' ' <"$REPO/doc/design.md" | grep -oE 'hi_boot_handoff\(\)` \(`[a-z]+/[a-z_]+\.h`\)' | grep -oE '[a-z]+/[a-z_]+\.h')
	[ -n "$h" ]
	grep -q 'hi_boot_run_stages(' "$REPO/$h"
	grep -q 'hi_boot_handoff(' "$REPO/$h"
	# the check can fail: a function no header declares
	printf 'see `hi_boot_run_everything()`\n' >"$BATS_TEST_TMPDIR/f.md"
	run undeclared_functions "$BATS_TEST_TMPDIR/f.md"
	[ "$output" = hi_boot_run_everything ]
}
