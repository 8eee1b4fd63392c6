#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The full gate behind "make test": the series and checkpatch, every KUnit
# suite and every full-system test on x86_64 and arm64, the same again on
# the hardened x86_64 kernel (kunitconfigs/debug), and the harness
# self-tests ("make mutants" runs apart: each mutant is a rebuild).  Every
# step runs even after a failure; each adds rows to build/gate/rows.tsv.  Ends with
# one line of its own, "N passed, N failed", and exits non-zero if any
# test failed, crashed, hung, timed out or printed no KTAP output.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

GATE=$REPO/build/gate
ROWS=$GATE/rows.tsv
export KUNIT52_ROWS=$ROWS

# True if a row after the first N rows records a failure.
new_failure_rows() {
	tail -n +"$(($1 + 1))" "$ROWS" | awk -F'\t' '$4 > 0 { f = 1 } END { exit !f }'
}

# step NAME CMD...: run a step, record a failure row if it fails without
# recording one of its own (a crash of the step itself counts).
step() {
	local name=$1 before start rc=0
	shift
	before=$(wc -l < "$ROWS")
	start=$SECONDS
	info "[$name] $*"
	"$@" || rc=$?
	if [[ $rc -ne 0 ]] && ! new_failure_rows "$before"; then
		printf 'step\t%s (exit %d)\t0\t1\t0\t-\n' "$name" "$rc" >> "$ROWS"
	fi
	printf '%s\t%s\n' "$name" $((SECONDS - start)) >> "$GATE/times.tsv"
	info "[$name] done in $((SECONDS - start))s (exit $rc)"
}

report() {
	local passed failed skipped
	echo
	echo "== kunit52 gate summary =="
	awk -F'\t' '{ printf "%-11s %-60s %6s %6s %7s\n", $1, $2, $3, $4, $5 }' \
		<(printf 'area\titem\tpassed\tfailed\tskipped\n') "$ROWS"
	echo
	awk -F'\t' '{ printf "step %-12s %5ss\n", $1, $2 }' "$GATE/times.tsv"
	awk -F'\t' '$4 > 0 && $6 != "-" { print "failed: " $2 " (log: " $6 ")" }' "$ROWS"
	passed=$(awk -F'\t' '{ s += $3 } END { print s + 0 }' "$ROWS")
	failed=$(awk -F'\t' '{ s += $4 } END { print s + 0 }' "$ROWS")
	skipped=$(awk -F'\t' '{ s += $5 } END { print s + 0 }' "$ROWS")
	[[ $skipped -eq 0 ]] || echo "($skipped skipped)"
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 && $passed -gt 0 ]]
}

main() {
	local arch start=$SECONDS
	rm -rf "$GATE"
	mkdir -p "$GATE"
	: > "$ROWS"
	: > "$GATE/times.tsv"

	step deps "$REPO/scripts/deps.sh"
	step prepare "$REPO/scripts/prepare-tree.sh"
	step series "$REPO/scripts/make-series.sh"
	step checkpatch "$REPO/scripts/checkpatch-series.sh"
	for arch in "${KUNIT52_ARCHES[@]}"; do
		step "kunit-$arch" "$REPO/scripts/kunit.sh" "$arch" '*'
		step "system-$arch" "$REPO/scripts/system.sh" "$arch"
	done
	# The hardened run: one boot of the debug kernel runs the KUnit suites,
	# the guest tests and a kmemleak scan.
	step build-x86_64-debug env KUNIT52_VARIANT=debug KUNIT52_KUNIT_MODE=build \
		"$REPO/scripts/kunit.sh" x86_64
	step hardened-x86_64 env KUNIT52_VARIANT=debug "$REPO/scripts/system.sh" x86_64
	# After the builds, so that the boot self-tests have a kernel.
	step selftest "$REPO/scripts/selftest.sh"
	printf 'total\t%s\n' $((SECONDS - start)) >> "$GATE/times.tsv"
	report
}

main "$@"
