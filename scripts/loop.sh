#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/loop.sh ARCH [SUITE_GLOB]
#
# make kunit: the TDD loop (docs/loop.md).  Builds a kernel for the
# suites matching SUITE_GLOB only, from their kunitconfigs/suites/ files
# (each names its test file on its first line), the arch's table,
# kunitconfigs/lean, the variant's fragment, kunitconfigs/loop, the arch's
# loop options and the pins, in build/ARCH[-VARIANT]-loop-NAMES (one
# directory per set of suites); makes only the arch's loop target (an
# image QEMU boots without unpacking it), then runs the suites with
# kunit.py exec.  The gate's kernel (scripts/kunit.sh, build/ARCH) is not
# touched.
#
# The verdict is the gate kernel's: every CONFIG_ symbol that the objects
# compiling the suites' test files read (their dependency lists, written
# by fixdep) must have the value it has in the configuration of
# scripts/kunit.sh for this arch and variant.  A symbol that differs is
# pinned to the gate's value (BUILD/pins) and the kernel built again; one
# that Kconfig will not take is an error that names it.
#
# A kernel that stops making progress (a report on the console, then
# REPORT_GRACE seconds without a line; or LOOP_STALL seconds without any)
# is stopped, with the report, its addresses resolved from vmlinux, and
# the cases that were running.
#
# Exit status: 0 only if every case passed; 1 a failure; 2 bad input; 3 no
# verdict (the booted kernel is not this build's, as in scripts/kunit.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Seconds without a console line after which a boot has stopped making
# progress: a KUnit case prints nothing while it runs.  The longest
# silences of passing boots are in docs/loop.md (about a second).
LOOP_STALL=${KUNIT52_LOOP_STALL:-60}
# Seconds without a line after a kernel report: a kernel that reports
# and then goes on prints within a second.
REPORT_GRACE=5
# Report lines printed after a stopped boot's first report.
REPORT_LINES=20
KUNITPY=tools/testing/kunit/kunit.py

usage() {
	echo "usage: ${0##*/} ARCH [SUITE_GLOB]   (ARCH: ${KUNIT52_ARCHES[*]})" >&2
	exit 2
}

# suite_configs GLOB: the kunitconfigs/suites/ files of the suites that
# GLOB's suite part (before any '.') matches, one per line.
suite_configs() {
	local glob=${1%%.*} cfg file s
	for cfg in "$REPO"/kunitconfigs/suites/*; do
		file=$(test_file_of "$cfg")
		[[ -n "$file" && -f "$REPO/kunit/$file" ]] || continue
		while read -r s; do
			# shellcheck disable=SC2053 # glob match is the point
			if [[ "$s" == $glob ]]; then
				echo "$cfg"
				break
			fi
		done < <(suites_in "$REPO/kunit/$file")
	done
}

# test_file_of CFG: the test file a suite's kunitconfig names on its first
# line, "(path/in/the/tree.c)".
test_file_of() {
	sed -n '1s/.*(\([^)]*\.c\)).*/\1/p' "$1"
}

# loop_fact ARCH FIELD: a field of the arch's loop kernel (its table's
# "loop" entry).
loop_fact() {
	"$REPO/scripts/arch.py" "$1" loop "$2"
}

# kunit_py LOG ARG...: kunit.py in the prepared tree; its output to LOG,
# shown if it fails.
kunit_py() {
	local log=$1
	shift
	(cd "$TREE" && python3 "$KUNITPY" "$@") > "$log" 2>&1 || {
		cat "$log" >&2
		return 1
	}
}

# up_to_date DIR FILE...: whether DIR/.config was made from FILE... as
# they are now (their digest is DIR/.inputs); a loop run that changed no
# fragment configures nothing.
up_to_date() {
	local dir=$1
	shift
	[[ -f "$dir/.config" && -f "$dir/.inputs" ]] &&
		cat "$@" | sha256sum | cmp -s - "$dir/.inputs"
}

# inputs_used DIR FILE...: record FILE...'s digest as DIR/.config's.
inputs_used() {
	local dir=$1
	shift
	cat "$@" | sha256sum > "$dir/.inputs"
}

# reference ARCH BUILD: BUILD/reference/.config, the gate's kernel's
# configuration for ARCH and this variant, made as scripts/kunit.sh makes
# it (kunit.py config, the same fragments and table).
reference() {
	local arch=$1 dir=$2/reference qemu
	local -a frags args=()
	qemu=${KUNIT52_QEMU_CONFIGS:-$REPO/qemu_configs}/$arch.py
	mapfile -t frags < <(gate_kunitconfigs "$arch")
	! up_to_date "$dir" "$qemu" "${frags[@]}" || return 0
	mkdir -p "$dir"
	args=("--build_dir=$dir" "--qemu_config=$qemu")
	args+=("${frags[@]/#/--kunitconfig=}")
	mapfile -t -O ${#args[@]} args < <(variant_make_options | sed 's/^/--make_options=/')
	[[ -z "$CROSS_PREFIX" ]] || args+=("--cross_compile=$CROSS_PREFIX")
	kunit_py "$dir/config.log" config "${args[@]}" || return 1
	inputs_used "$dir" "$qemu" "${frags[@]}"
}

# make_kernel BUILD TARGET...: the kernel's make in BUILD, for this arch
# and variant, without the compiler cache (an edit is new text: a cache
# would only add a lookup to each compile).
make_kernel() {
	local build=$1
	local -a args
	shift
	args=(-C "$TREE" "O=$build" "ARCH=$LINUX_ARCH" -j"$(nproc)" -s)
	[[ -z "$CROSS_PREFIX" ]] || args+=("CROSS_COMPILE=$CROSS_PREFIX")
	mapfile -t -O ${#args[@]} args < <(variant_make_options)
	CCACHE_DISABLE=1 make "${args[@]}" "$@"
}

# compose DIR FRAGMENT...: DIR/.config from the fragments, in order,
# completed with Kconfig's defaults (what kunit.py config does, without
# its refusal of a "# ... is not set" line for a symbol that is not
# visible here: kunitconfigs/lean's are written for the gate's kernel).
compose() {
	local dir=$1
	shift
	! up_to_date "$dir" "$@" || return 0
	mkdir -p "$dir"
	cat "$@" > "$dir/.config"
	make_kernel "$dir" olddefconfig > "$dir/config.log" 2>&1 || {
		cat "$dir/config.log" >&2
		return 1
	}
	inputs_used "$dir" "$@"
}

# missing_options CONFIG FRAGMENT...: the lines "CONFIG_X=V" of the
# fragments that CONFIG does not hold.
missing_options() {
	local config=$1
	shift
	grep -h '^CONFIG_' "$@" | grep -vxF -f "$config" || true
}

# loop_fragments BUILD CFG...: the loop kernel's fragments: the suites',
# the arch's table, the lean one, the variant's, then the loop's own:
# kunitconfigs/loop (what a subset kernel leaves out) and the arch's loop
# options, or, strict, kunitconfigs/loop-strict and the pins.  BUILD/base
# (whose last path component is "base") is the same without the arch's
# loop options.
loop_fragments() {
	local build=$1
	shift
	printf '%s\n' "$@" "$BUILD/arch.kconfig" "$REPO/kunitconfigs/lean"
	[[ -z "${KUNIT52_VARIANT:-}" ]] || echo "$REPO/kunitconfigs/variants/$KUNIT52_VARIANT"
	if ((STRICT)); then
		printf '%s\n' "$REPO/kunitconfigs/loop-strict" "$BUILD/pins"
	else
		echo "$REPO/kunitconfigs/loop"
	fi
	[[ "${build##*/}" == base ]] || echo "$BUILD/loop.kconfig"
}

# configure_loop BUILD CFG...: the loop kernel's .config, and BUILD/base's
# (a subset kernel's: the options the arch's loop options bring are the
# ones that differ between the two); the suites' options and the pins
# must hold.
configure_loop() {
	local build=$1 missing dir
	local -a frags
	shift
	for dir in "$build/base" "$build"; do
		((!STRICT)) || [[ "$dir" == "$build" ]] || continue
		mapfile -t frags < <(loop_fragments "$dir" "$@")
		compose "$dir" "${frags[@]}" || return 1
	done
	((!STRICT)) || set -- "$@" "$build/pins"
	missing=$(missing_options "$build/.config" "$@" | paste -sd' ')
	[[ -z "$missing" ]] ||
		die "loop ${build##*/}: Kconfig did not take $missing (from $*; log: $build/config.log)"
}

# set_options CONFIG: CONFIG's "CONFIG_X=y" and "CONFIG_X=m" lines,
# sorted (a number or a string follows from what is on, as
# FUNCTION_ALIGNMENT from the function tracer).
set_options() {
	grep -E '^CONFIG_[A-Za-z0-9_]+=[ym]$' "$1" | LC_ALL=C sort
}

# check_subset BUILD: die unless every option the loop kernel turns on is
# on, the same way, in the gate's kernel, but for those that the arch's
# loop options bring (how the kernel boots: x86_64's PVH entry).
check_subset() {
	local build=$1 extra
	extra=$(LC_ALL=C comm -23 <(set_options "$build/.config") <(set_options "$build/reference/.config") |
		LC_ALL=C comm -12 <(set_options "$build/base/.config") - | paste -sd' ')
	[[ -z "$extra" ]] ||
		die "loop ${build##*/}: not a subset of the gate's kernel: $extra" \
			"(the gate's: $build/reference/.config)"
}

# report_unread BUILD CFG...: the options that the objects under test read
# and that the subset kernel leaves off, in BUILD/read-differs, and a
# line that counts them (docs/loop.md, "What a subset kernel leaves out").
report_unread() {
	local build=$1 n
	read_differs "$@" > "$build/read-differs"
	n=$(wc -l < "$build/read-differs")
	[[ $n -eq 0 ]] ||
		info "loop ${build##*/}: $n option(s) the code under test reads are off here, on in the gate's" \
			"kernel ($(cut -f1 "$build/read-differs" | head -4 | paste -sd' ')$( [[ $n -le 4 ]] || echo ' ...'));" \
			"STRICT=1 builds them in"
}

# read_differs BUILD CFG...: the options that the objects compiling the
# test files of the suites' kunitconfigs CFG... read (kept in
# BUILD/.read-symbols) and whose value in BUILD/.config is not the
# gate's, as disagreements prints them.
read_differs() {
	local build=$1 cfg
	local -a files=()
	shift
	for cfg in "$@"; do
		files+=("$(test_file_of "$cfg")")
	done
	read_symbols "$build" "${files[@]}" > "$build/.read-symbols"
	disagreements "$build" "$build/.read-symbols"
}

# config_lines SYMBOLS CONFIG: "SYMBOL<TAB>its line in the .config CONFIG"
# for each symbol in the file SYMBOLS ("# CONFIG_SYMBOL is not set" when
# absent).
config_lines() {
	awk '
		FILENAME == ARGV[1] { sym[$0] = 1; next }
		/^CONFIG_/ { s = $0; sub(/=.*/, "", s); sub(/^CONFIG_/, "", s); v[s] = $0; next }
		/^# CONFIG_.* is not set$/ { s = $2; sub(/^CONFIG_/, "", s); v[s] = $0 }
		END { for (s in sym) print s "\t" (s in v ? v[s] : "# CONFIG_" s " is not set") }' "$1" "$2"
}

# read_symbols BUILD FILE...: the CONFIG_ symbols read by the objects of
# BUILD whose dependency list names one of FILE..., one per line.
read_symbols() {
	local build=$1 f
	local -a pat=() objs
	shift
	for f in "$@"; do
		pat+=(-e "$f")
	done
	mapfile -t objs < <(grep -rlF --include='.*.o.cmd' "${pat[@]}" "$build/" || true)
	[[ ${#objs[@]} -gt 0 ]] || return 0
	grep -ho 'include/config/[A-Za-z0-9_]*' "${objs[@]}" | sed 's|include/config/||' |
		LC_ALL=C sort -u
}

# disagreements BUILD SYMBOLS: "SYMBOL<TAB>gate's line" for each symbol
# in the file SYMBOLS whose value in BUILD/.config is not the gate's.
disagreements() {
	local build=$1 syms=$2
	join -t "$(printf '\t')" \
		<(config_lines "$syms" "$build/.config" | LC_ALL=C sort) \
		<(config_lines "$syms" "$build/reference/.config" | LC_ALL=C sort) |
		awk -F'\t' '$2 != $3 { print $1 "\t" $3 }'
}

# agree BUILD CFG...: whether the loop kernel's configuration agrees
# with the gate's on every option the objects under test read; where it
# does not, the gate's value is pinned (BUILD/pins) and the kernel
# configured again: returns 1 then, to be built and checked again.  Dies
# naming the symbols when Kconfig will not take the gate's values.
agree() {
	local build=$1 diff=$1/.disagreements
	read_differs "$@" > "$diff"
	shift
	[[ -s "$build/.read-symbols" ]] ||
		die "loop ${build##*/}: no object of $build names the test file of $*"
	[[ -s "$diff" ]] || return 0
	info "loop ${build##*/}: pinning $(wc -l < "$diff") option(s) to the gate's value:" \
		"$(cut -f1 "$diff" | head -5 | paste -sd' ')$( [[ $(wc -l < "$diff") -le 5 ]] || echo ' ...')"
	# A symbol's old pin (the gate's configuration changed) gives way.
	{
		grep -v -E "^(# )?CONFIG_($(cut -f1 "$diff" | paste -sd'|'))[= ]" "$build/pins" || true
		cut -f2 "$diff"
	} | LC_ALL=C sort -u > "$build/pins.new"
	if cmp -s "$build/pins.new" "$build/pins"; then
		rm -f "$build/pins.new"
		die "loop ${build##*/}: Kconfig does not take the gate's value of" \
			"$(cut -f1 "$diff" | paste -sd' '), which the code under test reads;" \
			"add what it depends on to $* (the gate's: $build/reference/.config)"
	fi
	mv "$build/pins.new" "$build/pins"
	configure_loop "$build" "$@"
	return 1
}

# build_loop BUILD: make the loop's target only; the compiler's messages
# as it wrote them on failure.
build_loop() {
	local build=$1
	make_kernel "$build" "$LOOP_TARGET" > "$build/make.log" 2>&1 || {
		grep -v '^make\(\[[0-9]*\]\)\?: \*\*\*' "$build/make.log" >&2 || true
		echo "loop ${build##*/}: build FAILED (log: $build/make.log)" >&2
		return 1
	}
}

# symbolize VMLINUX: resolve the kernel addresses (0xffff...) on stdin to
# function+offset from VMLINUX's symbol table (a loop kernel has no
# kallsyms).
symbolize() {
	local nm=${CROSS_PREFIX}nm
	awk -v syms=<("$nm" -n "$1" 2>/dev/null | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }') '
		function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
			return v }
		BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); n++; addr[n] = hex(f[1]); name[n] = f[2] } }
		function lookup(a,   lo, hi, mid) { lo = 1; hi = n; if (!n || a < addr[1]) return ""
			while (lo < hi) { mid = int((lo + hi + 1) / 2); if (addr[mid] <= a) lo = mid; else hi = mid - 1 }
			return sprintf("%s+0x%x", name[lo], a - addr[lo]) }
		{ line = $0; out = ""
		  while (match(line, /0xffff[0-9a-f]{12}/)) {
			s = lookup(hex(substr(line, RSTART, RLENGTH)))
			out = out substr(line, 1, RSTART + RLENGTH - 1) (s != "" ? " (" s ")" : "")
			line = substr(line, RSTART + RLENGTH) }
		  print out line }'
}

# running_case LOG: the case that was running when the console LOG
# ends: the one after the last case of the last suite that began.
running_case() {
	sed 's/^\[[^]]*\] //' "$1" | awk '
		/^    # Subtest: / { suite = $0; sub(/^    # Subtest: /, "", suite); last = ""; next }
		/^    (not )?ok [0-9]+ / { last = $0; sub(/^    (not )?ok [0-9]+ /, "", last); sub(/ #.*/, "", last) }
		END { if (suite == "") print "no suite had begun"
		      else if (last == "") print "suite " suite ", its first case"
		      else print "suite " suite ", the case after " last }'
}

# stop_stalled BUILD WHY: stop the loop kernel's QEMU and say why, with
# the report and the case that was running.
stop_stalled() {
	local build=$1 why=$2 kernel
	kernel=$build/$LOOP_KERNEL
	pkill -f -- "-kernel $kernel" 2>/dev/null || true
	echo "loop ${build##*/}: STOPPED: $why; running: $(running_case "$build/console.watch")" >&2
}

# watch_console BUILD: read the kernel's console (kunit.py's raw output)
# on stdin, keep it in BUILD/console.watch, and stop a kernel that has
# stopped making progress.
watch_console() {
	local build=$1 line limit=$LOOP_STALL report="" during="" rc last now gap=0 after=""
	: > "$build/console.watch"
	last=$EPOCHREALTIME
	while true; do
		rc=0
		IFS= read -r -t "$limit" line || rc=$?
		if [[ $rc -eq 0 ]]; then
			printf '%s\n' "$line" >> "$build/console.watch"
			now=$EPOCHREALTIME
			if (( ${now//[.,]/} - ${last//[.,]/} > gap )); then
				gap=$(( ${now//[.,]/} - ${last//[.,]/} ))
				after=$line
			fi
			last=$now
			if [[ -z "$report" && ( "$line" =~ $KUNIT52_REPORT_RE ||
			      "$line" == *"exited with irqs disabled"* ) ]]; then
				report=$line
				during=$(running_case "$build/console.watch")
				limit=$REPORT_GRACE
			fi
			continue
		fi
		[[ $rc -gt 128 ]] || break
		if [[ -n "$report" ]]; then
			stop_stalled "$build" "a kernel report (running: $during), then ${REPORT_GRACE}s of silence"
			grep -a -F -x -A $((REPORT_LINES - 1)) -- "$report" "$build/console.watch" |
				symbolize "$build/vmlinux" | sed 's/^/    | /' >&2
		else
			stop_stalled "$build" "no console line for ${LOOP_STALL}s"
		fi
		cat > /dev/null
		break
	done
	# The longest silence of this boot, for LOOP_STALL's bound
	# (docs/loop.md): microseconds, and the line that ended it.
	printf '%d\t%s\n' "$gap" "$after" > "$build/longest-silence"
}

# run_loop ARCH BUILD GLOB: boot the loop kernel with kunit.py exec and
# judge its console as scripts/kunit.sh does; prints the failed cases.
run_loop() {
	local arch=$1 build=$2 glob=$3 label=${2##*/} report why rc=0
	rm -f "$build/test.log"
	(cd "$TREE" && PYTHONUNBUFFERED=1 exec python3 "$KUNITPY" exec "--build_dir=$build" \
		"--qemu_config=$build/loop_qemu_config.py" "--timeout=$KUNIT_BOOT_TIMEOUT" \
		--raw_output=all "$glob" 2>&1) | watch_console "$build"
	if ! why=$(check_booted_kernel "$build" "$build/test.log"); then
		refuse_verdict kunit "$label" "$build/test.log" "$why"
		echo "loop $label: kernel console: $build/test.log" >&2
		return "$KUNIT52_NO_VERDICT_STATUS"
	fi
	results_of_ktap kunit "$label" "$build/test.log" --quiet > "$build/table.txt" || rc=1
	report=$(first_report "$build/test.log")
	if [[ -n "$report" ]]; then
		result kunit "$label" kernel-report "no kernel report" FAIL "$build/test.log" "$report"
		rc=1
	fi
	python3 "$REPO/scripts/results.py" report "$KUNIT52_RESULTS" || rc=1
	[[ $rc -eq 0 ]] || echo "loop $label: FAILED; kernel console: $build/test.log" >&2
	return "$rc"
}

# since T0: seconds since the time T0 ($EPOCHREALTIME), one decimal.
since() {
	awk -v a="${1/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }'
}

# Rounds of pinning the gate's values before giving up (strict): each
# round builds again, and the objects may then read options they did not.
PIN_ROUNDS=8
# KUNIT52_LOOP_STRICT=1 (make kunit STRICT=1): every option the code under
# test reads has the gate's value; otherwise the loop kernel is a subset
# of the gate's (docs/loop.md).
STRICT=${KUNIT52_LOOP_STRICT:-0}

main() {
	local arch=${1:-} glob=${2:-*} label names round t0 t1 t2 built checked rc=0
	local -a cfgs
	[[ -n "$arch" && $# -le 2 ]] || usage
	( check_arch "$arch" && check_variant && check_suite "$glob" ) || exit 2
	[[ "$LOOP_STALL" =~ ^[1-9][0-9]*$ ]] ||
		{ echo "${0##*/}: error: KUNIT52_LOOP_STALL must be a positive number of seconds" >&2; exit 2; }
	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"
	mapfile -t cfgs < <(suite_configs "$glob")
	[[ ${#cfgs[@]} -gt 0 ]] || die "no kunitconfigs/suites/ file names the test file of SUITE '$glob'"
	names=$(printf '%s\n' "${cfgs[@]##*/}" | paste -sd+)
	[[ "$STRICT" =~ ^[01]$ ]] ||
		{ echo "${0##*/}: error: KUNIT52_LOOP_STRICT must be 0 or 1" >&2; exit 2; }
	BUILD=$(build_dir "$arch")-loop-$( ((!STRICT)) || echo strict-)$names
	label=${BUILD##*/}
	CROSS_PREFIX=$(arch_fact "$arch" cross_compile)
	LINUX_ARCH=$(arch_fact "$arch" linux_arch)
	LOOP_TARGET=$(loop_fact "$arch" target)
	LOOP_KERNEL=$(loop_fact "$arch" kernel_path)
	make_build_dir "$BUILD"
	touch "$BUILD/pins"
	arch_fact "$arch" kconfig > "$BUILD/arch.kconfig"
	loop_fact "$arch" kconfig > "$BUILD/loop.kconfig"
	"$REPO/scripts/arch.py" "$arch" loop-qemu-config > "$BUILD/loop_qemu_config.py"
	reference "$arch" "$BUILD" ||
		die "kunit.py could not configure the gate's kernel (log: $BUILD/reference/config.log)"
	configure_loop "$BUILD" "${cfgs[@]}"
	((STRICT)) || check_subset "$BUILD"
	for ((round = 1; ; round++)); do
		t0=$EPOCHREALTIME
		build_loop "$BUILD" || return 1
		t1=$EPOCHREALTIME
		if ((!STRICT)); then
			report_unread "$BUILD" "${cfgs[@]}"
			break
		fi
		! agree "$BUILD" "${cfgs[@]}" || break
		[[ $round -lt $PIN_ROUNDS ]] ||
			die "loop $label: the options read still differ from the gate's after $PIN_ROUNDS rounds ($BUILD/.disagreements)"
	done
	built=$(since "$t0")
	checked=$(since "$t1")
	export KUNIT52_RESULTS=$BUILD/results.jsonl
	: > "$KUNIT52_RESULTS"
	t2=$EPOCHREALTIME
	run_loop "$arch" "$BUILD" "$glob" || rc=$?
	info "loop $label: built in ${built}s (make $LOOP_TARGET), options checked in ${checked}s," \
		"booted and tested in $(since "$t2")s"
	return "$rc"
}

# Sourced (the self-tests): the functions only.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || main "$@"
