#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/system.sh ARCH [TEST_GLOB]    run guest tests, print KTAP results
#        scripts/system.sh --shell ARCH        interactive shell in the guest
#        scripts/system.sh --print ARCH [TEST_GLOB]
#                                              print the boot's command line
#        scripts/system.sh --boots ARCH        the boots of "make system",
#                                              one per line (for other runners: LAVA)
#
# Full-system boots: the kernel that the KUnit runs built in build/ARCH
# (with kunit.enable=0), the initramfs from scripts/initramfs.sh, and a
# fresh 64 MiB scratch virtio disk, under QEMU (TCG).  The guest's /init
# runs the test programs, whose KTAP arrives on a virtio console of its
# own; kunit.py parses it.  A panic, oops, WARNING, BUG, KASAN/UBSAN or
# lockdep report on the console, a missing end marker (hang, crash) or a
# boot past the time limit fails the run; a console whose kernel banner is
# not the build's vmlinux's gives no verdict (exit 3).  Logs stay in
# build/ARCH/system.
# Results go to $KUNIT52_RESULTS (default build/ARCH/system/results.jsonl).
#
# KUNIT52_VARIANT=debug boots the hardened kernel of build/ARCH-debug
# instead, with kunit.enable=1: the KUnit suites run first (their KTAP is
# parsed from the console), then the guest tests, then /init asks kmemleak
# for a scan, so one boot covers both under KASAN, UBSAN, KFENCE, lockdep,
# kmemleak, DEBUG_LIST, DEBUG_VM and DEBUG_OBJECTS.  KUNIT52_VARIANT=coverage
# boots the gcov kernel the same way (no extra boots); /init leaves its
# counters on the scratch disk (scripts/coverage.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# Time limits, seconds: hang detectors, not speed checks.  A plain
# kernel's full-system boot, and one guest test in it (guest/init's
# kunit52.timeout default).
PLAIN_BOOT_TIMEOUT=900
PLAIN_TEST_TIMEOUT=300
# The debug and coverage kernels run the KUnit suites in the boot, then
# every guest test one after another, each several times slower
# (sanitizers or gcov under TCG): their limits are SLOW_FACTOR times the
# plain ones.  On arm64's hardened kernel ftracetest_errlog ran past 300 s
# (27 s on plain x86_64) and the last test ended 860 s after boot.
SLOW_FACTOR=2
# An extra boot runs one short test: its time limit, in seconds.
EXTRA_BOOT_TIMEOUT=${KUNIT52_EXTRA_BOOT_TIMEOUT:-180}
# Kernel arguments that guest tests rely on: slab_allocators_test reads
# the call sites of "filp" objects (alloc_traces, free_traces in debugfs).
GUEST_ARGS="slab_debug=U,filp"
# Extra kernel arguments (harness self-tests use kunit52.inject=...).
EXTRA_ARGS=${KUNIT52_SYSTEM_ARGS:-}
# 0: the full-system boot only, no extra boots (scripts/lava.sh check
# compares that one boot with LAVA's run of it).
EXTRA_BOOTS=${KUNIT52_SYSTEM_EXTRA_BOOTS:-1}

# Where a boot's files go: build/ARCH[-VARIANT]/system, or
# $KUNIT52_SYSTEM_DIR (the harness self-tests boot beside a gate's boot).
system_dir() {
	echo "${KUNIT52_SYSTEM_DIR:-$(build_dir "$1")/system}"
}

kernel_image() {
	echo "$(build_dir "$1")/$(arch_fact "$1" kernel_path)"
}

# With the debug and coverage variants, KUnit runs in the same boot.
kunit_enable() {
	case ${KUNIT52_VARIANT:-} in
	debug|coverage) echo 1 ;;
	*) echo 0 ;;
	esac
}

# How many times the plain time limits this variant's boots get.
slow_factor() {
	if [[ $(kunit_enable) == 1 ]]; then
		echo "$SLOW_FACTOR"
	else
		echo 1
	fi
}

# The full-system boot's time limit (KUNIT52_SYSTEM_TIMEOUT overrides it).
boot_timeout() {
	echo "${KUNIT52_SYSTEM_TIMEOUT:-$((PLAIN_BOOT_TIMEOUT * $(slow_factor)))}"
}

# QEMU command line for ARCH, without the kernel arguments: the machine
# of ARCH's table (the one kunit.py boots), the initramfs of SYS, a
# scratch disk and a console for KTAP (scripts/arch.py, system-qemu).
qemu_cmd() {
	local arch=$1 sys=$2 ktap=$3 scratch=${4:-$2/scratch.img}
	"$REPO/scripts/arch.py" "$arch" system-qemu "$(kernel_image "$arch")" \
		"$sys/initramfs.cpio.gz" "$scratch" "$ktap"
}

# Kernel arguments for ARCH: its console and system_args (table), then
# ours.  KUnit prints its KTAP at KERN_INFO, so a KUnit boot keeps every message.
# The hardened kernel runs the guest tests one after another
# (kunit52.serial=1): under TCG its sanitizers make every program several
# times slower, and the freezer tests' fork storms beside the NFS tests
# starved nfsdcld_test's sqlite3 past its 30 s limit (measured on arm64).
kernel_args() {
	local arch=$1 glob=$2 args sys_args
	args="console=$(arch_fact "$arch" console) panic=-1 oops=panic kunit.enable=$(kunit_enable) $GUEST_ARGS"
	sys_args=$(arch_fact "$arch" system_args)
	args+=${sys_args:+ $sys_args}
	if [[ $(kunit_enable) == 1 ]]; then
		args+=" kunit52.serial=1"
	else
		args+=" loglevel=5"
	fi
	args+=" kunit52.tests=$glob${EXTRA_ARGS:+ $EXTRA_ARGS}"
	# After EXTRA_ARGS: /init takes an argument's first value.
	[[ $(slow_factor) == 1 ]] ||
		args+=" kunit52.timeout=$((PLAIN_TEST_TIMEOUT * $(slow_factor)))"
	echo "$args"
}

prepare_boot() {
	local arch=$1 sys=$2
	[[ -f "$(kernel_image "$arch")" ]] ||
		die "no $arch kernel in $(build_dir "$arch") (run: make kunit ARCH=$arch${KUNIT52_VARIANT:+ VARIANT=$KUNIT52_VARIANT})"
	"$REPO/scripts/initramfs.sh" "$arch" "$sys"
}

# A fresh 64 MiB scratch disk in FILE.
fresh_scratch() {
	rm -f "$1"
	truncate -s 64M "$1"
}

# console_excerpt LOG LINE: the lines of the console LOG from LINE (the
# first report) on, as many as EXCERPT_LINES, indented.
EXCERPT_LINES=15
console_excerpt() {
	grep -a -F -x -m1 -A $((EXCERPT_LINES - 1)) -- "$2" "$1" | sed 's/^/    | /'
}

# Decide the run from the logs; record the results; non-zero on failure.
judge() {
	local label=$1 sys=$2 rc=$3 report failed=0
	report=$(first_report "$sys/console.log")
	if [[ -n "$report" ]]; then
		echo "system $label: kernel report on the console: $report" >&2
		console_excerpt "$sys/console.log" "$report" >&2
		result system "$label" kernel-report "no kernel report" FAIL \
			"$sys/console.log" "$report"
		failed=1
	fi
	if [[ $(kunit_enable) == 1 ]]; then
		results_of_ktap kunit "$label" "$sys/console.log" --quiet || failed=1
	fi
	if ! grep -q 'kunit52: all tests done' "$sys/console.log"; then
		if [[ $rc -eq 124 ]]; then
			report="timed out after ${BOOT_TIMEOUT}s"
		else
			report="the guest stopped before its tests ended (qemu exit $rc)"
		fi
		echo "system $label: $report" >&2
		result system "$label" boot "the boot finishes" FAIL "$sys/console.log" "$report"
		failed=1
	fi
	results_of_ktap system "$label" "$sys/ktap.log" || failed=1
	if [[ $failed -ne 0 ]]; then
		echo "system $label: FAILED; console: $sys/console.log, KTAP: $sys/ktap.log" >&2
	fi
	return "$failed"
}

# cpu_seconds FILE: the CPU time of the shell's children in FILE, the
# output of the builtin "times" (run in the shell that waited for QEMU:
# a subshell counts its own), in whole seconds.
cpu_seconds() {
	sed -n 2p "$1" | awk '{
		for (i = 1; i <= NF; i++) { split($i, m, "m"); s += m[1] * 60 + m[2] }
		printf "%d\n", s }'
}

# boot_cpu LABEL WALL CPU: say how much of a boot of WALL seconds QEMU
# spent on the CPU (the rest of the time its guest waited: timeouts,
# grace periods, sleeps), and add it to $KUNIT52_BOOT_REPORT (the gate's
# summary).
boot_cpu() {
	local label=$1 wall=$2 cpu=$3
	info "boot $label: ${wall}s, QEMU on the CPU ${cpu}s ($(awk -v c="$cpu" -v w="$wall" \
		'BEGIN { printf "%.2f", w ? c / w : 0 }') cores)"
	[[ -z "${KUNIT52_BOOT_REPORT:-}" ]] ||
		printf '%s\t%s\t%s\n' "$label" "$wall" "$cpu" >> "$KUNIT52_BOOT_REPORT"
}

# boot ARCH DIR LABEL TIMEOUT GLOB KERNEL_ARGS QEMU_ARG...: one boot of
# the initramfs in SYS (the run's system dir) with its files in DIR
# (a fresh scratch disk, console.log, ktap.log); judged as LABEL.
boot() {
	local arch=$1 sys=$2 dir=$3 label=$4 limit=$5 glob=$6 args=$7 why start cmdline cpu rc=0
	local -a qemu
	shift 7
	mkdir -p "$dir"
	fresh_scratch "$dir/scratch.img"
	: > "$dir/ktap.log"
	mapfile -t qemu < <(qemu_cmd "$arch" "$sys" "$dir/ktap.log" "$dir/scratch.img")
	cmdline="$(kernel_args "$arch" "$glob")${args:+ $args}"
	start=$(date +%s)
	times > "$dir/times.before"
	timeout -k 10 "$limit" "${qemu[@]}" "$@" -append "$cmdline" \
		< /dev/null > "$dir/console.log" 2>&1 || rc=$?
	times > "$dir/times.after"
	cpu=$(($(cpu_seconds "$dir/times.after") - $(cpu_seconds "$dir/times.before")))
	boot_cpu "$label" $(($(date +%s) - start)) "$cpu"
	if ! why=$(check_booted_kernel "$(build_dir "$arch")" "$dir/console.log" "$dir/ktap.log"); then
		refuse_verdict system "$label" "$dir/console.log" "$why"
		return "$KUNIT52_NO_VERDICT_STATUS"
	fi
	BOOT_TIMEOUT=$limit judge "$label" "$dir" "$rc"
}

# The extra boots of ARCH's table whose test matches GLOB, after the
# full-system boot, with its kernel and initramfs: each runs its one test
# under its own QEMU and kernel arguments (another CPU model, say).
run_extra_boots() {
	local arch=$1 glob=$2 sys=$3 label=$4 name test args failed=0 rc=0
	local -a qemu
	while read -r name; do
		test=$("$REPO/scripts/arch.py" "$arch" extra-boot "$name" test)
		# shellcheck disable=SC2053 # glob match is the point
		[[ "$test" == $glob ]] || continue
		args=$("$REPO/scripts/arch.py" "$arch" extra-boot "$name" args)
		mapfile -t qemu < <("$REPO/scripts/arch.py" "$arch" extra-boot "$name" qemu)
		info "extra boot $label/$name: $test with ${qemu[*]} ${args:-(no arguments)}"
		boot "$arch" "$sys" "$sys/$name" "$label/$name" "$EXTRA_BOOT_TIMEOUT" \
			"$test" "$args" "${qemu[@]}" || rc=$?
		# A refused boot (no verdict) outweighs a failed one.
		[[ $rc -eq 0 || $failed -eq $KUNIT52_NO_VERDICT_STATUS ]] || failed=$rc
		rc=0
	done < <("$REPO/scripts/arch.py" "$arch" extra-boots)
	return "$failed"
}

run_tests() {
	local arch=$1 glob=$2 sys label rc=0
	sys=$(system_dir "$arch")
	label=$(basename "$(build_dir "$arch")")
	mkdir -p "$sys"
	if [[ -z "${KUNIT52_RESULTS:-}" ]]; then
		export KUNIT52_RESULTS=$sys/results.jsonl
		: > "$KUNIT52_RESULTS"
	fi
	prepare_boot "$arch" "$sys"
	info "booting $arch with tests '$glob' (console: $sys/console.log)"
	boot "$arch" "$sys" "$sys" "$label" "$(boot_timeout)" "$glob" "" || rc=$?
	# A kernel that failed its full boot (a panic, a hang) would fail
	# each extra boot the same way, after its time limit: not worth it.
	# The coverage kernel's boot is for its counters: one boot only.
	[[ "${KUNIT52_VARIANT:-}" != coverage ]] || return "$rc"
	[[ "$EXTRA_BOOTS" != 0 ]] || return "$rc"
	if [[ $rc -ne 0 ]]; then
		info "extra boots of $label skipped: the full-system boot failed"
		return "$rc"
	fi
	run_extra_boots "$arch" "$glob" "$sys" "$label" || rc=$?
	return "$rc"
}

shell() {
	local arch=$1 sys
	local -a qemu
	! static_guest "$arch" ||
		die "$arch's guest has no shell: it is static test programs only (no Debian packages for $arch)"
	sys=$(system_dir "$arch")
	mkdir -p "$sys"
	prepare_boot "$arch" "$sys"
	fresh_scratch "$sys/scratch.img"
	mapfile -t qemu < <(qemu_cmd "$arch" "$sys" "$sys/ktap.log")
	info "interactive $arch guest: tests in /tests, scratch disk /dev/vda; 'reboot -f' or Ctrl-A X to leave"
	exec "${qemu[@]}" -append "console=$(arch_fact "$arch" console) panic=-1 kunit.enable=0 $GUEST_ARGS $(arch_fact "$arch" system_args) kunit52.mode=shell"
}

# The command line run_tests would run, quoted, on one line.
print_boot() {
	local arch=$1 glob=$2 sys
	local -a qemu
	sys=$(system_dir "$arch")
	mapfile -t qemu < <(qemu_cmd "$arch" "$sys" "$sys/ktap.log")
	printf '%q ' "${qemu[@]}" -append "$(kernel_args "$arch" "$glob")"
	echo
}

# The boots that run_tests ARCH '*' makes, one per line, for another
# runner (scripts/lava.py): NAME (- for the full-system boot), the tests'
# glob, the time limit (s), the kernel arguments and the extra QEMU
# arguments, tab-separated.
print_boots() {
	local arch=$1 name test args
	local -a qemu
	printf '%s\t%s\t%s\t%s\n' - '*' "$(boot_timeout)" "$(kernel_args "$arch" '*')"
	[[ "${KUNIT52_VARIANT:-}" != coverage ]] || return 0
	while read -r name; do
		test=$("$REPO/scripts/arch.py" "$arch" extra-boot "$name" test)
		args=$("$REPO/scripts/arch.py" "$arch" extra-boot "$name" args)
		mapfile -t qemu < <("$REPO/scripts/arch.py" "$arch" extra-boot "$name" qemu)
		printf '%s\t%s\t%s\t%s' "$name" "$test" "$EXTRA_BOOT_TIMEOUT" \
			"$(kernel_args "$arch" "$test")${args:+ $args}"
		[[ ${#qemu[@]} -eq 0 ]] || printf '\t%s' "${qemu[@]}"
		printf '\n'
	done < <("$REPO/scripts/arch.py" "$arch" extra-boots)
}

main() {
	check_variant
	if [[ "${1:-}" == --boots ]]; then
		[[ $# -eq 2 ]] || die "usage: ${0##*/} --boots ARCH"
		check_arch "$2"
		print_boots "$2"
		return 0
	fi
	if [[ "${1:-}" == --print ]]; then
		[[ $# -ge 2 && $# -le 3 ]] || die "usage: ${0##*/} --print ARCH [TEST_GLOB]"
		check_arch "$2"
		print_boot "$2" "${3:-*}"
		return 0
	fi
	if [[ "${1:-}" == --shell ]]; then
		[[ $# -eq 2 ]] || die "usage: ${0##*/} --shell ARCH"
		check_arch "$2"
		shell "$2"
	fi
	[[ $# -ge 1 && $# -le 2 ]] || die "usage: ${0##*/} ARCH [TEST_GLOB]"
	check_arch "$1"
	run_tests "$1" "${2:-*}"
}

main "$@"
