#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The full gate behind "make test".  Every suite and every guest test runs
# on every architecture of qemu_configs/ (GATE_ARCHES: a subset, by
# hand), each on one kernel configuration (gate_variant in its table):
# the plain kernel that "make run" builds, or the hardened one
# (kunitconfigs/variants/debug), where one boot runs the KUnit suites,
# the guest tests and a kmemleak scan.  Then the series and checkpatch,
# and the harness self-tests ("make mutants" runs apart: each mutant is
# a rebuild).
#
# The builds run one after the other in the foreground; each arch's
# full-system boot runs in the background as soon as its kernel is built,
# in one of two lanes: the first arch's boot (the hardened kernel's, the
# gate's longest: its QEMU keeps 1.3 of the 2 cores busy and waits the
# rest of the time) has a lane of its own; the other boots follow one
# another in the second.  The next builds and the host-only steps run
# niced beside the boots, which keep their priority, so that at most two
# boots share the machine and no build slows them.  Every build tree is
# stored for the machine's next clones (scripts/tree-cache.sh).  Every step runs
# even after a failure and records its results in a file of its own
# (build/gate/results/); the summary, build/gate/junit.xml and the last
# line, "N passed, N failed", are read from them; build/gate/times.tsv
# has each step's time, from which the summary names the longest steps
# and the critical path.  Exits non-zero if any test failed, crashed,
# hung, timed out or printed no KTAP output.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

GATE=$REPO/build/gate
RESULTS_DIR=$GATE/results
LOGS=$GATE/logs
DONE=$GATE/done
NSTEP=0
FG_LAST=""
GATE_START=$(date +%s)
declare -A BG_PID=()
# How often a waiting boot looks whether the one before it has ended, s.
POLL=2

# run_step N NAME AFTER CMD...: run CMD with results file N-NAME.jsonl; a
# step that fails without recording a failure gets one (a crash of the
# step itself counts).  Its time goes to times.tsv: name, seconds, start
# and end (s since the gate began) and AFTER, the steps it waited for
# (comma-separated).
run_step() {
	local n=$1 name=$2 after=$3 rc=0 start results
	shift 3
	start=$(date +%s)
	results=$(printf '%s/%02d-%s.jsonl' "$RESULTS_DIR" "$n" "$name")
	: > "$results"
	info "[$name] $*"
	KUNIT52_RESULTS=$results "$@" || rc=$?
	if [[ $rc -ne 0 ]] &&
	   ! python3 "$REPO/scripts/results.py" has --status FAIL,ERROR "$results"; then
		KUNIT52_RESULTS=$results result step gate "$name" "the step completes" \
			ERROR "$LOGS/$name.log" "exit status $rc"
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" $(($(date +%s) - start)) \
		$((start - GATE_START)) $(($(date +%s) - GATE_START)) "${after:--}" >> "$GATE/times.tsv"
	: > "$DONE/$name"
	info "[$name] done in $(($(date +%s) - start))s (exit $rc)"
}

# step NAME CMD...: a step in the foreground, after the one before it.
step() {
	local after=$FG_LAST
	NSTEP=$((NSTEP + 1))
	FG_LAST=$1
	run_step "$NSTEP" "$1" "$after" "${@:2}" 2>&1 | tee "$LOGS/$1.log"
}

# wait_done NAME: wait until step NAME has ended.
wait_done() {
	until [[ -e "$DONE/$1" ]]; do
		sleep "$POLL"
	done
}

# step_bg NAME AFTER CMD...: a step in the background, started once the
# background step AFTER (if any) has ended; after the foreground step
# before it too.  Its output goes to logs/NAME.log, shown when it is
# joined.
step_bg() {
	local name=$1 after=$2
	shift 2
	NSTEP=$((NSTEP + 1))
	{
		[[ -z "$after" ]] || wait_done "$after"
		run_step "$NSTEP" "$name" "$FG_LAST${after:+,$after}" "$@"
	} > "$LOGS/$name.log" 2>&1 &
	BG_PID[$name]=$!
	info "[$name] in the background${after:+, after $after} (log: $LOGS/$name.log)"
}

# join NAME: wait for background step NAME, then show its output.
join() {
	info "[$1] waiting for it to end"
	wait "${BG_PID[$1]}" || true
	cat "$LOGS/$1.log"
}

# The kunit.sh/system.sh environment of ARCH's gate configuration.
variant_env() {
	echo "KUNIT52_VARIANT=$(gate_variant "$1")"
}

# kunit_step ARCH [nice]: build ARCH's gate kernel; on a plain kernel run
# the KUnit suites with kunit.py too (a hardened kernel runs them in its
# guest boot, so that kmemleak's scan covers them).
kunit_step() {
	local arch=$1 mode=run name=kunit-$1
	shift
	[[ -z $(gate_variant "$arch") ]] || { mode=build name=build-$arch; }
	step "$name" env "$(variant_env "$arch")" KUNIT52_KUNIT_MODE=$mode \
		"$@" "$REPO/scripts/kunit.sh" "$arch" '*'
}

# boot_step_name ARCH: the step that boots ARCH's gate kernel with the
# guest tests (and, on a hardened kernel, the KUnit suites).
boot_step_name() {
	if [[ -n $(gate_variant "$1") ]]; then
		echo "hardened-$1"
	else
		echo "system-$1"
	fi
}

report() {
	local -a files
	echo
	echo "== kunit52 gate summary =="
	awk -F'\t' '{ printf "step %-20s %5ss\n", $1, $2 }' "$GATE/times.tsv"
	python3 "$REPO/scripts/gate-times.py" "$GATE/times.tsv"
	if [[ -s "$GATE/boots.tsv" ]]; then
		echo "full-system boots: wall time, and QEMU's time on the CPU (the rest it waited):"
		awk -F'\t' '{ printf "  boot %-22s %5ss, CPU %5ss (%.2f cores)\n", $1, $2, $3, $2 ? $3 / $2 : 0 }' \
			"$GATE/boots.tsv"
	fi
	if [[ -s "$GATE/ccache.tsv" ]]; then
		echo "compiler cache ($KUNIT52_CCACHE_DIR) and build trees:"
		awk -F'\t' '{ printf "  build %-14s %s\n", $1, $2 }' "$GATE/ccache.tsv"
	fi
	files=("$RESULTS_DIR"/*.jsonl)
	python3 "$REPO/scripts/results.py" junit --out "$GATE/junit.xml" "${files[@]}"
	echo "JUnit XML: $GATE/junit.xml; logs: $LOGS/"
	echo
	python3 "$REPO/scripts/results.py" report "${files[@]}"
}

# gate_order ARCH...: the arches in gate order, the longest boots first,
# so that each boot waits beside the next arch's build: hardened kernels
# (their builds and boots are the longest; the first has a lane of its
# own), then the plain ones with the Debian guest (every guest test, and
# the extra boots), then those whose guest is static programs (a few
# tests: seconds).
gate_order() {
	local a
	for a in "$@"; do
		[[ -z $(gate_variant "$a") ]] || echo "$a"
	done
	for a in "$@"; do
		[[ -n $(gate_variant "$a") ]] || static_guest "$a" || echo "$a"
	done
	for a in "$@"; do
		[[ -n $(gate_variant "$a") ]] || ! static_guest "$a" || echo "$a"
	done
}

main() {
	local arch prev="" boot list
	local -a arches boots=()
	list=$(gate_arches) || exit 1
	# shellcheck disable=SC2086 # one arch a word
	mapfile -t arches < <(gate_order $list)
	rm -rf "$GATE"
	mkdir -p "$RESULTS_DIR" "$LOGS" "$DONE"
	: > "$GATE/times.tsv"
	export KUNIT52_CCACHE_REPORT=$GATE/ccache.tsv KUNIT52_BOOT_REPORT=$GATE/boots.tsv \
		KUNIT52_TREE_CACHE_STORE=1

	step deps "$REPO/scripts/deps.sh"
	step prepare "$REPO/scripts/prepare-tree.sh"
	# The first build has the machine to itself; the next ones, the
	# series, checkpatch and the self-tests (whose boots use their own
	# directories) run niced beside the boots.
	info "gate arches: ${arches[*]}"
	for arch in "${arches[@]}"; do
		if [[ ${#boots[@]} -gt 0 ]]; then
			kunit_step "$arch" nice -n 19
		else
			kunit_step "$arch"
		fi
		boot=$(boot_step_name "$arch")
		step_bg "$boot" "$prev" env "$(variant_env "$arch")" "$REPO/scripts/system.sh" "$arch"
		boots+=("$boot")
		[[ ${#boots[@]} -eq 1 ]] || prev=$boot
	done
	step series nice -n 19 "$REPO/scripts/make-series.sh"
	step checkpatch nice -n 19 "$REPO/scripts/checkpatch-series.sh"
	step selftest nice -n 19 "$REPO/scripts/selftest.sh"
	for boot in "${boots[@]}"; do
		join "$boot"
	done
	printf 'total\t%s\n' $(($(date +%s) - GATE_START)) >> "$GATE/times.tsv"
	report
}

main "$@"
