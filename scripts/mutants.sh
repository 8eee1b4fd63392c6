#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/mutants.sh ARCH MUTATIONS.tsv...
#        scripts/mutants.sh --check MUTATIONS.tsv...   (only: does each apply?)
#
# Prove that our suites can fail: apply each mutant of each MUTATIONS.tsv
# (a plausible bug in the code under test) to the prepared tree, one at a
# time, run the suite named by the file's "# suite: GLOB" line (or, with a
# "# guest: GLOB" line, build and boot the guest tests of that name), and
# expect it to go red (a failure, crash or hang; not a build error).  The tree is restored
# after each mutant, and on any exit.  A list with an "# arch: ARCH..."
# line is for those arches only, and a guest list is for the arches whose
# guest has a test of that name (guest_tests): elsewhere it is skipped,
# and says why.  Refuses to run on a tree holding
# edits of yours.  Results go to $KUNIT52_RESULTS (default
# build/mutants/results.jsonl).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

WORK=$REPO/build/mutants
RESULTS=${KUNIT52_RESULTS:-$WORK/results.jsonl}
MUTATED=""

restore() {
	[[ -z "$MUTATED" ]] || git -C "$TREE" checkout -q -- "$MUTATED"
	MUTATED=""
}

on_exit() {
	stop_child
	restore
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# apply_mutant FILE OLD NEW: mutate FILE of the tree (of MUTANT_ROOT if
# set), and remember to restore it.
apply_mutant() {
	mutate "${MUTANT_ROOT:-$TREE}/$1" "$2" "$3"
	[[ -n "${MUTANT_ROOT:-}" ]] || MUTATED=$1
}

# check_list LIST: every mutant applies, once, to a copy of its file.
check_list() {
	local list=$1 name file old new rc=0
	while IFS=$'\t' read -r name file old new; do
		[[ -z "$name" || "$name" == \#* ]] && continue
		mkdir -p "$WORK/check/$(dirname "$file")"
		cp "$TREE/$file" "$WORK/check/$file"
		if MUTANT_ROOT=$WORK/check apply_mutant "$file" "$old" "$new"; then
			echo "ok    applies  $name"
		else
			echo "FAIL  $name does not apply" >&2
			rc=1
		fi
	done < "$list"
	return "$rc"
}

# run_guest ARCH GLOB: build the kernel, boot it with the guest tests GLOB.
# A build error returns 0 (the mutant did not build: it is not killed).
run_guest() {
	KUNIT52_RESULTS=/dev/null KUNIT52_KUNIT_MODE=build "$REPO/scripts/kunit.sh" "$1" || return 0
	KUNIT52_RESULTS=/dev/null "$REPO/scripts/system.sh" "$1" "$2"
}

# guest_has ARCH GLOB: does ARCH's guest have a test named GLOB?  (Every
# guest test, unless its table lists guest_tests.)
guest_has() {
	local t
	local -a tests
	mapfile -t tests < <(arch_fact "$1" guest_tests)
	[[ ${#tests[@]} -gt 0 ]] || return 0
	for t in "${tests[@]}"; do
		# shellcheck disable=SC2053 # glob match is the point
		[[ "$t" == $2 ]] && return 0
	done
	return 1
}

# list_skip ARCH LIST GUEST: why LIST does not apply to ARCH (nothing if it does).
list_skip() {
	local arches
	arches=$(sed -n 's/^# arch: *//p' "$2")
	if [[ -n "$arches" && " $arches " != *" $1 "* ]]; then
		echo "for $arches only"
	elif [[ -n "$3" ]] && ! guest_has "$1" "$3"; then
		echo "$1's guest has no test '$3'"
	fi
}

# run_list ARCH LIST: run every mutant of LIST; count into KILLED/SURVIVED.
run_list() {
	local arch=$1 list=$2 suite guest name file old new log rc skip
	suite=$(sed -n 's/^# suite: *//p' "$list")
	guest=$(sed -n 's/^# guest: *//p' "$list")
	[[ -n "$suite$guest" ]] || die "$list has no '# suite: GLOB' or '# guest: GLOB' line"
	skip=$(list_skip "$arch" "$list" "$guest")
	if [[ -n "$skip" ]]; then
		echo "skip  ${list##*/}: $skip"
		return 0
	fi

	while IFS=$'\t' read -r name file old new; do
		[[ -z "$name" || "$name" == \#* ]] && continue
		log=$WORK/$name.log
		if ! apply_mutant "$file" "$old" "$new" 2> "$log"; then
			echo "FAIL  $name: cannot apply ($(cat "$log"))" >&2
			KUNIT52_RESULTS=$RESULTS result mutant "$arch" "${list##*/}" "$name applies" FAIL "$log"
			SURVIVED=$((SURVIVED + 1))
			continue
		fi
		rc=0
		if [[ -n "$guest" ]]; then
			run_child "$log" run_guest "$arch" "$guest" || rc=$?
		else
			run_child "$log" env KUNIT52_RESULTS=/dev/null KUNIT52_BOOT_TIMEOUT=120 \
				"$REPO/scripts/kunit.sh" "$arch" "$suite" || rc=$?
		fi
		restore
		if [[ $rc -ne 0 ]] && kernel_built "$log"; then
			printf 'ok    killed   %-36s %s\n' "$name" \
				"$(grep -m1 -o 'Ran [0-9]* tests.*' "$log" || echo 'crashed or hung')"
			KUNIT52_RESULTS=$RESULTS result mutant "$arch" "${list##*/}" "$name is killed" PASS "$log"
			KILLED=$((KILLED + 1))
		else
			echo "FAIL  SURVIVED $name: the suite stayed green or did not build (log: $log)" >&2
			KUNIT52_RESULTS=$RESULTS result mutant "$arch" "${list##*/}" "$name is killed" FAIL "$log" \
				"the suite stayed green or did not build"
			SURVIVED=$((SURVIVED + 1))
		fi
	done < "$list"
}

main() {
	local arch=${1:-} list rc=0
	if [[ "$arch" == --check ]]; then
		shift
		mkdir -p "$WORK"
		for list in "$@"; do
			check_list "$list" || rc=1
		done
		return "$rc"
	fi
	[[ -n "$arch" && $# -ge 2 ]] || die "usage: ${0##*/} ARCH MUTATIONS.tsv... | --check MUTATIONS.tsv..."
	shift
	check_arch "$arch"
	"$REPO/scripts/prepare-tree.sh" --check-clean
	mkdir -p "$WORK"
	KILLED=0
	SURVIVED=0
	for list in "$@"; do
		[[ -f "$list" ]] || die "no such mutation list: $list"
		run_list "$arch" "$list"
	done
	echo "mutants: $KILLED killed, $SURVIVED survived"
	[[ $SURVIVED -eq 0 ]]
}

main "$@"
