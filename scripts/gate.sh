#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The full gate behind "make test".  Every suite and every guest test runs
# on every architecture, each on one kernel configuration (gate_variant in
# its qemu_configs/ table): x86_64 on the plain kernel that "make run"
# builds, arm64 on the hardened one (kunitconfigs/variants/debug), where one boot
# runs the KUnit suites, the guest tests and a kmemleak scan.  Then the
# series and checkpatch, and the harness self-tests ("make mutants" runs
# apart: each mutant is a rebuild).
#
# Boots spend most of their time waiting (NFS timeouts, grace periods), so
# each runs in the background while the next build, or the host-only
# steps, run niced beside it; two boots never overlap.  Every step runs
# even after a failure and records its results in a file of its own
# (build/gate/results/); the summary, build/gate/junit.xml and the last
# line, "N passed, N failed", are read from them.  Exits non-zero if any
# test failed, crashed, hung, timed out or printed no KTAP output.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

GATE=$REPO/build/gate
RESULTS_DIR=$GATE/results
LOGS=$GATE/logs
NSTEP=0
declare -A BG_PID=()
# run_step N NAME CMD...: run CMD with results file N-NAME.jsonl; a step
# that fails without recording a failure gets one (a crash of the step
# itself counts).
run_step() {
	local n=$1 name=$2 rc=0 start=$SECONDS results
	shift 2
	results=$(printf '%s/%02d-%s.jsonl' "$RESULTS_DIR" "$n" "$name")
	: > "$results"
	info "[$name] $*"
	KUNIT52_RESULTS=$results "$@" || rc=$?
	if [[ $rc -ne 0 ]] &&
	   ! python3 "$REPO/scripts/results.py" has --status FAIL,ERROR "$results"; then
		KUNIT52_RESULTS=$results result step gate "$name" "the step completes" \
			ERROR "$LOGS/$name.log" "exit status $rc"
	fi
	printf '%s\t%s\n' "$name" $((SECONDS - start)) >> "$GATE/times.tsv"
	info "[$name] done in $((SECONDS - start))s (exit $rc)"
}

# step NAME CMD...: a step in the foreground.
step() {
	NSTEP=$((NSTEP + 1))
	run_step "$NSTEP" "$@" 2>&1 | tee "$LOGS/$1.log"
}

# step_bg NAME CMD...: a step in the background, its output in
# logs/NAME.log, shown when it is joined.
step_bg() {
	NSTEP=$((NSTEP + 1))
	run_step "$NSTEP" "$@" > "$LOGS/$1.log" 2>&1 &
	BG_PID[$1]=$!
	info "[$1] running in the background (log: $LOGS/$1.log)"
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
	if [[ -s "$GATE/ccache.tsv" ]]; then
		echo "compiler cache ($KUNIT52_CCACHE_DIR):"
		awk -F'\t' '{ printf "  build %-14s %s\n", $1, $2 }' "$GATE/ccache.tsv"
	fi
	files=("$RESULTS_DIR"/*.jsonl)
	python3 "$REPO/scripts/results.py" junit --out "$GATE/junit.xml" "${files[@]}"
	echo "JUnit XML: $GATE/junit.xml; logs: $LOGS/"
	echo
	python3 "$REPO/scripts/results.py" report "${files[@]}"
}

# gate_order ARCH...: the arches in gate order: hardened ones first (their
# builds are the longest, and their boots wait beside the next build).
gate_order() {
	local a
	for a in "$@"; do
		[[ -z $(gate_variant "$a") ]] || echo "$a"
	done
	for a in "$@"; do
		[[ -n $(gate_variant "$a") ]] || echo "$a"
	done
}

main() {
	local arch prev="" start=$SECONDS list
	local -a arches
	list=$(gate_arches) || exit 1
	# shellcheck disable=SC2086 # one arch a word
	mapfile -t arches < <(gate_order $list)
	rm -rf "$GATE"
	mkdir -p "$RESULTS_DIR" "$LOGS"
	: > "$GATE/times.tsv"
	export KUNIT52_CCACHE_REPORT=$GATE/ccache.tsv

	step deps "$REPO/scripts/deps.sh"
	step prepare "$REPO/scripts/prepare-tree.sh"
	# Each arch's boot waits in the background while the next arch builds
	# and runs its KUnit suites (niced, so that the boot's timings are not
	# disturbed); two boots never overlap.
	info "gate arches: ${arches[*]}"
	for arch in "${arches[@]}"; do
		if [[ -n "$prev" ]]; then
			kunit_step "$arch" nice -n 19
			join "$(boot_step_name "$prev")"
		else
			kunit_step "$arch"
		fi
		step_bg "$(boot_step_name "$arch")" env "$(variant_env "$arch")" \
			"$REPO/scripts/system.sh" "$arch"
		prev=$arch
	done
	step series nice -n 19 "$REPO/scripts/make-series.sh"
	step checkpatch nice -n 19 "$REPO/scripts/checkpatch-series.sh"
	# Its boots use their own directories.
	step selftest nice -n 19 "$REPO/scripts/selftest.sh"
	join "$(boot_step_name "$prev")"
	printf 'total\t%s\n' $((SECONDS - start)) >> "$GATE/times.tsv"
	report
}

main "$@"
