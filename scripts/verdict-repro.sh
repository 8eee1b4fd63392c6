#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/verdict-repro.sh [--cycles N] [--seed S] [--guest-every K]
#                                 [--clean-every K] [ARCH]
#
# Does every verdict come from the sources on disk?  Runs N cycles
# (default 100) on ARCH (default x86_64) of: edit one kernel file of the
# prepared tree in place (a mutant of mutations/*.tsv, picked at random
# from the seed, which is printed), build and boot with the shared
# compiler cache exactly as the gate's KUnit run (scripts/kunit.sh) and "make
# system" (scripts/kunit.sh, then scripts/system.sh) do, then write the
# original text back in place.  Every K-th cycle edits nothing instead.
#
# Each verdict is checked against what the sources say it must be: a
# mutant's suite or guest test goes red (make mutants proves each one
# does), the unedited tree is green.  A kernel that the harness refused
# (its booted banner is not the build's: scripts/lib.sh, check_booted_kernel)
# is a mismatch too.  Every mismatch is printed with the cycle before it.
# Not part of make test (about 40 s a KUnit cycle, 2 to 3 minutes a
# guest cycle on x86_64).  docs/design.md, "The compiler cache", has the
# results.  Exit status: 0 when no cycle mismatched.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

WORK=$REPO/build/verdict-repro
# Exit status of kunit.sh and system.sh when they refuse a verdict.
NO_VERDICT=$KUNIT52_NO_VERDICT_STATUS
EDITED=""
ORIGINAL=$WORK/original

usage() {
	die "usage: ${0##*/} [--cycles N] [--seed S] [--guest-every K] [--clean-every K] [ARCH]"
}

# revert: write the edited file's original text back, in place (the
# inode stays, as with an editor that overwrites the file).
revert() {
	[[ -n "$EDITED" ]] || return 0
	cat "$ORIGINAL" > "$TREE/$EDITED"
	EDITED=""
}

on_exit() {
	stop_child
	revert
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The mutants that apply to ARCH, one per line: KIND GLOB NAME FILE OLD
# NEW, tab-separated (KIND: kunit or guest; GLOB: its suites or tests).
mutants_of() {
	local arch=$1 list suite guest arches
	for list in "$REPO"/mutations/*.tsv; do
		suite=$(sed -n 's/^# suite: *//p' "$list")
		guest=$(sed -n 's/^# guest: *//p' "$list")
		arches=$(sed -n 's/^# arch: *//p' "$list")
		[[ -z "$arches" || " $arches " == *" $arch "* ]] || continue
		if [[ -n "$guest" ]]; then
			static_guest "$arch" && continue
			grep -v -e '^#' -e '^$' "$list" | sed "s/^/guest\t$guest\t/"
		else
			grep -v -e '^#' -e '^$' "$list" | sed "s/^/kunit\t$suite\t/"
		fi
	done
}

# build_and_boot ARCH KIND GLOB LOG: as the gate's KUnit run or make system would;
# the exit status of the step that failed (NO_VERDICT if refused).
build_and_boot() {
	local arch=$1 kind=$2 glob=$3 log=$4
	if [[ $kind == kunit ]]; then
		run_child "$log" env KUNIT52_RESULTS=/dev/null \
			"$REPO/scripts/kunit.sh" "$arch" "$glob"
	else
		run_child "$log" env KUNIT52_RESULTS=/dev/null KUNIT52_KUNIT_MODE=build \
			"$REPO/scripts/kunit.sh" "$arch" || return 2
		run_child "$log.system" env KUNIT52_RESULTS=/dev/null \
			"$REPO/scripts/system.sh" "$arch" "$glob"
	fi
}

# booted ARCH KIND CYCLE: which kernel the cycle's last boot ran, "#N"
# of its banner and whether that is the build's vmlinux (its console and
# KTAP are kept as CYCLE.console).
booted() {
	local arch=$1 kind=$2 cycle=$3 build why
	local -a logs
	build=$(build_dir "$arch")
	if [[ $kind == kunit ]]; then
		logs=("$build/test.log")
	else
		logs=("$build/system/console.log" "$build/system/ktap.log")
	fi
	cat "${logs[@]}" > "$cycle.console" 2>/dev/null || true
	if why=$(check_booted_kernel "$build" "$cycle.console"); then
		echo "kernel $(vmlinux_banner "$build" | grep -o '#[0-9]*' | head -n1), the build's"
	else
		echo "$why"
	fi
}

# verdict RC LOG: red, green, refused or broken (did not build).
verdict() {
	local rc=$1 log=$2
	if [[ $rc -eq 0 ]]; then
		echo green
	elif [[ $rc -eq $NO_VERDICT ]]; then
		echo refused
	elif ! kernel_built "$log"; then
		echo broken
	else
		echo red
	fi
}

main() {
	local cycles=100 seed="" guest_every=5 clean_every=4 arch=x86_64
	local i pick kind glob name file old new want got log rc booted mismatches=0
	local prev="none" what
	local -a all kunit_mutants guest_mutants
	while [[ $# -gt 0 ]]; do
		case $1 in
		--cycles) cycles=${2:?}; shift 2 ;;
		--seed) seed=${2:?}; shift 2 ;;
		--guest-every) guest_every=${2:?}; shift 2 ;;
		--clean-every) clean_every=${2:?}; shift 2 ;;
		-*) usage ;;
		*) arch=$1; shift ;;
		esac
	done
	[[ $cycles =~ ^[0-9]+$ && $guest_every =~ ^[0-9]+$ && $clean_every =~ ^[0-9]+$ ]] ||
		die "--cycles, --guest-every and --clean-every take a whole number"
	check_arch "$arch"
	[[ -z "${KUNIT52_VARIANT:-}" ]] || die "VARIANT must be unset: the cycles use $arch's plain kernel"
	"$REPO/scripts/prepare-tree.sh" --check-clean
	seed=${seed:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	RANDOM=$((seed % 32768))
	mkdir -p "$WORK"
	mapfile -t all < <(mutants_of "$arch")
	mapfile -t kunit_mutants < <(printf '%s\n' "${all[@]}" | grep '^kunit')
	mapfile -t guest_mutants < <(printf '%s\n' "${all[@]}" | grep '^guest' || true)
	info "verdict-repro $arch: $cycles cycles, seed $seed (--seed $seed repeats them), ${#kunit_mutants[@]} KUnit and ${#guest_mutants[@]} guest mutants; logs: $WORK"

	for ((i = 1; i <= cycles; i++)); do
		log=$WORK/cycle-$i.log
		if [[ $clean_every -gt 0 && $((i % clean_every)) -eq 0 ]]; then
			# Nothing edited: every suite (every guest test, each
			# clean_every * guest_every cycles) must pass.
			kind=kunit glob='*' name=clean
			[[ ${#guest_mutants[@]} -eq 0 || $guest_every -eq 0 || $((i % (clean_every * guest_every))) -ne 0 ]] ||
				{ kind=guest; glob='*'; }
			want=green
			what="$name ($kind '$glob')"
		else
			if [[ ${#guest_mutants[@]} -gt 0 && $guest_every -gt 0 && $((i % guest_every)) -eq 0 ]]; then
				pick=${guest_mutants[RANDOM % ${#guest_mutants[@]}]}
			else
				pick=${kunit_mutants[RANDOM % ${#kunit_mutants[@]}]}
			fi
			IFS=$'\t' read -r kind glob name file old new <<< "$pick"
			cp "$TREE/$file" "$ORIGINAL"
			mutate "$TREE/$file" "$old" "$new" || die "mutant $name does not apply to $file"
			EDITED=$file
			want=red
			what="$name in $file ($kind '$glob')"
		fi
		rc=0
		build_and_boot "$arch" "$kind" "$glob" "$log" || rc=$?
		revert
		got=$(verdict "$rc" "$log")
		booted=$(booted "$arch" "$kind" "${log%.log}")
		if [[ $got == "$want" ]]; then
			printf 'ok    cycle %3d  %-5s %s; %s\n' "$i" "$got" "$what" "$booted"
		else
			mismatches=$((mismatches + 1))
			printf 'MISMATCH cycle %d: %s: expected %s, got %s; %s (log: %s)\n    the cycle before: %s\n' \
				"$i" "$what" "$want" "$got" "$booted" "$log" "$prev" >&2
		fi
		prev="cycle $((i)): $what, $got"
	done
	echo "verdict-repro $arch: $cycles cycles, seed $seed: $mismatches mismatch(es)"
	[[ $mismatches -eq 0 ]]
}

main "$@"
