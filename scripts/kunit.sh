#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/kunit.sh ARCH [SUITE_GLOB]
#
# Build the ARCH kernel from kunitconfigs/ in build/ARCH (one build
# directory per architecture, shared by every suite: changing SUITE_GLOB
# never rebuilds) and run the KUnit suites matching SUITE_GLOB under QEMU
# (TCG) with kunit.py.  Prints kunit.py's results, then a summary table;
# rows for "make test" are appended to $KUNIT52_ROWS (default
# build/ARCH/rows.tsv).  Exit status: 0 only if every test passed and the
# console shows no kernel report (KASAN, UBSAN, lockdep, WARNING, ...);
# 3 (no verdict) when the kernel that booted is not this build's vmlinux.
# KUNIT52_VARIANT=debug (or bench, coverage) builds in build/ARCH-debug with
# kunitconfigs/variants/debug on top (and the variant's make options:
# LLVM=1 for coverage); KUNIT52_KUNIT_MODE=build only builds.
# An empty build directory is first seeded from the machine's build
# trees (scripts/tree-cache.sh); KUNIT52_TREE_CACHE_STORE=1 stores the
# tree there after a successful build (make run and make test do).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

BUILD_TIMEOUT=${KUNIT52_BUILD_TIMEOUT:-3600}	# whole kunit.py run, seconds
BOOT_TIMEOUT=$KUNIT_BOOT_TIMEOUT
# For the harness self-tests: "exec" boots the existing kernel without
# building; extra kernel arguments are appended to the command line, and
# extra QEMU arguments to QEMU's.
MODE=${KUNIT52_KUNIT_MODE:-run}
KERNEL_ARGS=${KUNIT52_KERNEL_ARGS:-}
QEMU_ARGS=${KUNIT52_QEMU_ARGS:-}

usage() {
	echo "usage: ${0##*/} ARCH [SUITE_GLOB]   (ARCH: ${KUNIT52_ARCHES[*]})" >&2
	exit 2
}

# Print a line every 30 s while PID lives, so a long build shows progress.
# Objects count when they were (re)built after the ticker started.  Its
# sleep holds none of the ticker's output: killed with the ticker, a
# sleep left holding a pipe kept the gate's tee (and the gate) waiting
# up to 30 s after the build ended.
TICK=30
progress_ticker() {
	local pid=$1 build=$2 start=$SECONDS mark=$2/.progress-mark
	touch "$mark"
	while sleep "$TICK" > /dev/null 2>&1 && kill -0 "$pid" 2>/dev/null; do
		printf '    ... %s: %ds, %s objects (re)built\n' "${build##*/}" \
			$((SECONDS - start)) \
			"$(find "$build/" -name '*.o' -newer "$mark" 2>/dev/null | wc -l)" >&2
	done
}

kunit_args() {
	local arch=$1 build=$2 suite=$3 cross
	printf '%s\n' "$MODE" \
		"--build_dir=$build" \
		"--qemu_config=${KUNIT52_QEMU_CONFIGS:-$REPO/qemu_configs}/$arch.py"
	if [[ "$MODE" != build ]]; then
		printf '%s\n' "--timeout=$BOOT_TIMEOUT"
	fi
	if [[ "$MODE" != exec ]]; then
		gate_kunitconfigs "$arch" | sed 's/^/--kunitconfig=/'
		variant_make_options | sed 's/^/--make_options=/'
		echo "--jobs=$(nproc)"
		cross=$(arch_fact "$arch" cross_compile)
		[[ -z "$cross" ]] || echo "--cross_compile=$cross"
	fi
	[[ "$MODE" != build ]] || return 0
	[[ -z "$KERNEL_ARGS" ]] || echo "--kernel_args=$KERNEL_ARGS"
	[[ -z "$QEMU_ARGS" ]] || echo "--qemu_args=$QEMU_ARGS"
	printf '%s\n' "$suite"
}

run_kunit() {
	local arch=$1 build=$2 suite=$3 log=$4 pid ticker rc=0
	local -a args
	mapfile -t args < <(kunit_args "$arch" "$build" "$suite")

	info "kunit.py $arch: suites '$suite' (log: $log)"
	(
		cd "$TREE"
		ccache_env "$build/ccache-stats.log"
		exec timeout --foreground -k 10 "$BUILD_TIMEOUT" \
			python3 tools/testing/kunit/kunit.py "${args[@]}"
	) > >(tee "$log") 2>&1 &
	pid=$!
	progress_ticker "$pid" "$build" &
	ticker=$!
	wait "$pid" || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	[[ $rc -eq 124 ]] && echo "kunit.py $arch: timed out after ${BUILD_TIMEOUT}s" >&2
	return "$rc"
}

# store_tree BUILD LOG RC: after a build that succeeded (kunit.py went
# on to boot it, or a build-only run ended well), store its tree for the
# machine's other clones, if asked to.
store_tree() {
	local build=$1 log=$2 rc=$3 msg
	[[ "${KUNIT52_TREE_CACHE_STORE:-0}" == 1 ]] || return 0
	[[ -f "$build/.source-manifest" ]] || return 0
	if [[ "$MODE" == build && $rc -eq 0 ]] || grep -q 'Starting KUnit Kernel' "$log"; then
		msg=$("$REPO/scripts/tree-cache.sh" store "$build" "$build/.source-manifest") ||
			msg="tree cache: not stored (tree-cache.sh failed)"
		info "kunit ${build##*/}: $msg"
	fi
}

main() {
	local arch=${1:-} suite=${2:-*} build label log report cache why tree rc=0
	[[ -n "$arch" && $# -le 2 ]] || usage
	check_arch "$arch"
	check_variant
	check_suite "$suite"
	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"

	build=$(build_dir "$arch")
	label=${build##*/}
	make_build_dir "$build"
	# Before anything is written into the build directory: only an empty
	# one is seeded.
	if [[ "$MODE" != exec ]]; then
		tree=$("$REPO/scripts/tree-cache.sh" seed "$build") ||
			tree="tree cache: not used (scripts/tree-cache.sh failed)"
		[[ -z "$tree" ]] || info "kunit $label: $tree"
	fi
	log=$build/kunit.log
	if [[ -z "${KUNIT52_RESULTS:-}" ]]; then
		export KUNIT52_RESULTS=$build/results.jsonl
		: > "$KUNIT52_RESULTS"
	fi

	rm -f "$build/test.log"
	if [[ "$MODE" != exec ]]; then
		"$REPO/scripts/tree-cache.sh" manifest "$build/.source-manifest" ||
			rm -f "$build/.source-manifest"
	fi
	run_kunit "$arch" "$build" "$suite" "$log" || rc=$?
	if [[ "$MODE" != exec ]]; then
		store_tree "$build" "$log" "$rc"
		cache=$(ccache_summary "$build/ccache-stats.log")
		info "kunit $label: compiler cache $KUNIT52_CCACHE_DIR: $cache"
		[[ -z "${KUNIT52_CCACHE_REPORT:-}" ]] ||
			printf '%s\t%s\n' "$label" "$cache${tree:+; ${tree#tree cache: }}" >> "$KUNIT52_CCACHE_REPORT"
	fi
	if [[ "$MODE" == build ]]; then
		[[ $rc -eq 0 ]] || echo "kunit $label: build FAILED; log: $log" >&2
		return "$rc"
	fi
	echo
	if ! why=$(check_booted_kernel "$build" "$build/test.log"); then
		refuse_verdict kunit "$label" "$build/test.log" "$why"
		echo "kunit $label: full log: $log (kernel console: $build/test.log)" >&2
		return "$KUNIT52_NO_VERDICT_STATUS"
	fi
	results_of_ktap kunit "$label" "$build/test.log" --quiet || rc=1
	report=$(first_report "$build/test.log")
	if [[ -n "$report" ]]; then
		echo "kunit $label: kernel report on the console: $report" >&2
		result kunit "$label" kernel-report "no kernel report" FAIL \
			"$build/test.log" "$report"
		rc=1
	fi
	if [[ $rc -ne 0 ]]; then
		echo "kunit $label: FAILED; full log: $log (kernel console: $build/test.log)" >&2
		return 1
	fi
}

main "$@"
