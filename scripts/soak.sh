#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/soak.sh ARCH SECONDS [SEED]
#
# Soak the vmalloc model test: run vmalloc_random_model_test for
# consecutive seeds from SEED (default: a random one) until SECONDS have
# passed, in boots of at most 240 s each (KUnit stops a case after 300 s).
# Prints every boot's seed range, and the first failing seed if one fails;
# replay that seed with vmalloc.kunit_seed=<seed>.  Then one long run of
# lib/test_vmalloc.c's stress mode on the hardened kernel
# (guest/vmalloc_stress_test.c; make test runs a short one):
# KUNIT52_STRESS_LOOPS loops per test and worker, within
# KUNIT52_STRESS_LIMIT seconds.  Exit status: 0 only if every seed and
# the stress run passed.  Logs: build/ARCH/soak/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

CASE=vmalloc_free_space.vmalloc_random_model_test
CHUNK=240
STRESS_LOOPS=${KUNIT52_STRESS_LOOPS:-2000}
STRESS_LIMIT=${KUNIT52_STRESS_LIMIT:-1800}
# s beyond the stress run's limit for the rest of its boot (KUnit first).
STRESS_BOOT_SLACK=900

usage() {
	echo "usage: ${0##*/} ARCH SECONDS [SEED]" >&2
	exit 2
}

# Run one boot: seeds from $1 for $2 seconds; log to $3.
soak_boot() {
	local seed=$1 secs=$2 log=$3
	KUNIT52_KERNEL_ARGS="vmalloc.kunit_seed=$seed vmalloc.kunit_soak_secs=$secs" \
	KUNIT52_BOOT_TIMEOUT=$((secs + 180)) \
	KUNIT52_RESULTS=$SOAK_DIR/results.jsonl \
		"$REPO/scripts/kunit.sh" "$ARCH" "$CASE" > "$log" 2>&1
}

# The hardened kernel of $ARCH, built if needed, runs the stress test
# once, long; its parameters go on the kernel command line.
soak_stress() {
	local log=$SOAK_DIR/stress.log
	info "soak $ARCH: test_vmalloc stress mode, $STRESS_LOOPS loops, on the hardened kernel (log: $log)"
	KUNIT52_VARIANT=debug KUNIT52_KUNIT_MODE=build KUNIT52_RESULTS=/dev/null \
		"$REPO/scripts/kunit.sh" "$ARCH" '*' > "$log" 2>&1 ||
		die "soak $ARCH: cannot build the hardened kernel (log: $log)"
	KUNIT52_VARIANT=debug KUNIT52_RESULTS=$SOAK_DIR/stress.jsonl \
	KUNIT52_SYSTEM_TIMEOUT=$((STRESS_LIMIT + STRESS_BOOT_SLACK)) \
	KUNIT52_SYSTEM_ARGS="kunit52.vmalloc_stress_loops=$STRESS_LOOPS kunit52.vmalloc_stress_limit=$STRESS_LIMIT kunit52.timeout=$((STRESS_LIMIT + 60))" \
		"$REPO/scripts/system.sh" "$ARCH" 'vmalloc_stress*' >> "$log" 2>&1 || {
		echo "soak $ARCH: test_vmalloc stress run FAILED; log: $log"
		return 1
	}
	echo "soak $ARCH: test_vmalloc stress run passed ($STRESS_LOOPS loops); log: $log"
}

main() {
	local secs seed left chunk n=0 log last first rc
	[[ $# -ge 2 && $# -le 3 ]] || usage
	ARCH=$1 secs=$2 seed=${3:-}
	check_arch "$ARCH"
	[[ $secs =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a positive number, not '$secs'"
	[[ -z $seed ]] && seed=$(( (RANDOM << 15 | RANDOM) + 1 ))
	[[ $seed =~ ^[1-9][0-9]*$ ]] || die "SEED must be a positive number, not '$seed'"
	SOAK_DIR=$REPO/build/$ARCH/soak
	mkdir -p "$SOAK_DIR"
	rm -f "$SOAK_DIR/results.jsonl"

	info "soak $ARCH: $CASE for ${secs}s from seed $seed"
	left=$secs
	while ((left > 0)); do
		chunk=$((left < CHUNK ? left : CHUNK))
		n=$((n + 1))
		log=$SOAK_DIR/boot$n.log
		local t0=$SECONDS
		rc=0
		soak_boot "$seed" "$chunk" "$log" || rc=$?
		left=$((left - (SECONDS - t0)))
		first=$(sed -n 's/.*soak: first failing seed \([0-9]*\).*/\1/p' "$REPO/build/$ARCH/test.log" | tail -1)
		last=$(sed -n 's/.*soak: [0-9]* seeds passed, [0-9]*\.\.\([0-9]*\).*/\1/p' "$REPO/build/$ARCH/test.log" | tail -1)
		if [[ -n $first ]]; then
			echo "soak $ARCH: boot $n: seeds $seed..$first: FIRST FAILING SEED $first"
			echo "  replay: KUNIT52_KERNEL_ARGS=vmalloc.kunit_seed=$first scripts/kunit.sh $ARCH '$CASE'"
			cp "$REPO/build/$ARCH/test.log" "$SOAK_DIR/boot$n.console.log"
			echo "  log: $SOAK_DIR/boot$n.console.log"
			return 1
		fi
		if [[ $rc -ne 0 || -z $last ]]; then
			cp "$REPO/build/$ARCH/test.log" "$SOAK_DIR/boot$n.console.log" 2>/dev/null || true
			die "soak $ARCH: boot $n (from seed $seed) failed without a seed verdict; logs: $log, $SOAK_DIR/boot$n.console.log"
		fi
		echo "soak $ARCH: boot $n: seeds $seed..$last passed ($((last - seed + 1)) seeds)"
		seed=$((last + 1))
	done
	echo "soak $ARCH: all seeds passed in ${secs}s ($n boots); next seed would be $seed"
	soak_stress
}

main "$@"
