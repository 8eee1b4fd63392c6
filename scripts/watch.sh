#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/watch.sh ARCH SUITE_GLOB
#
# make watch: run the TDD loop (scripts/loop.sh) now, then each time a
# file is saved under kunit/, under patches/ or among the prepared tree's
# sources (not its .git or build directories), and print the verdict and
# the failed cases.  A save while a run is going on voids that run's
# verdict (the compiler may have read the file half written) and starts
# another run when it ends: the files saved meanwhile are dated now
# first, so that make recompiles them even if an object of the run is
# newer than the save.  The loop builds without the compiler cache, so a
# half-written file's object is never stored under a key (docs/design.md,
# "The compiler cache").  Ctrl-C stops it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# Saves closer together than this (s) are one edit (an editor writing a
# backup, then the file).
SETTLE=0.3
EVENTS=""
WATCHER=""

cleanup() {
	[[ -z "$WATCHER" ]] || { kill "$WATCHER" 2>/dev/null; wait "$WATCHER" 2>/dev/null; } || true
	[[ -z "$EVENTS" ]] || rm -f "$EVENTS"
}

# The directories watched, and what inside them is not a source.
WATCH_DIRS=()
EXCLUDE='(/\.git/|/\.build-|/build/|~$|\.sw[a-z]$|/\.#|/#[^/]*#$|4913$)'

# start_watcher: inotifywait in the background, one saved path a line
# appended to $EVENTS.
start_watcher() {
	EVENTS=$(mktemp)
	inotifywait -m -r -q -e close_write -e moved_to -e delete --exclude "$EXCLUDE" \
		--format '%w%f' "${WATCH_DIRS[@]}" >> "$EVENTS" 2>/dev/null &
	WATCHER=$!
}

# saved_since N: the paths saved after the first N lines of $EVENTS.
saved_since() {
	tail -n +"$(($1 + 1))" "$EVENTS" | LC_ALL=C sort -u
}

# wait_for_save N: wait until $EVENTS has more than N lines, then for
# SETTLE seconds without a new one.
wait_for_save() {
	local n=$1 m
	while [[ $(wc -l < "$EVENTS") -le $n ]]; do
		kill -0 "$WATCHER" 2>/dev/null || die "inotifywait stopped"
		sleep 0.2
	done
	while true; do
		m=$(wc -l < "$EVENTS")
		sleep "$SETTLE"
		[[ $(wc -l < "$EVENTS") -ne $m ]] || break
	done
}

# run_once ARCH GLOB: one run of the loop; its exit status.
run_once() {
	local rc=0
	printf '\n==> %s  make kunit ARCH=%s SUITE=%q\n' "$(date +%T)" "$1" "$2"
	# A saved patch or a new test file needs the tree prepared again (a
	# no-op otherwise).
	"$REPO/scripts/prepare-tree.sh" > /dev/null || rc=$?
	[[ $rc -ne 0 ]] || "$REPO/scripts/loop.sh" "$1" "$2" || rc=$?
	return "$rc"
}

main() {
	local arch=${1:-} glob=${2:-} n f rc start
	[[ $# -eq 2 && -n "$arch" && -n "$glob" ]] ||
		{ echo "usage: ${0##*/} ARCH SUITE_GLOB" >&2; exit 2; }
	( check_arch "$arch" ) || exit 2
	( check_suite "$glob" ) || exit 2
	command -v inotifywait > /dev/null || die "inotifywait not found (run: make deps)"
	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"
	WATCH_DIRS=("$REPO/kunit" "$REPO/patches" "$TREE")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	start_watcher
	n=0
	while true; do
		start=$SECONDS
		rc=0
		run_once "$arch" "$glob" || rc=$?
		if [[ $(wc -l < "$EVENTS") -gt $n ]]; then
			# The compiler may have read a file while it was being
			# written: this verdict is not the files' on disk.
			printf '==> files saved during the run (%s): its verdict does not count; running again\n' \
				"$(saved_since "$n" | sed "s|^$REPO/||; s|^$TREE/||" | head -3 | paste -sd' ')"
		else
			if [[ $rc -eq 0 ]]; then
				printf '==> PASS in %ds; waiting for a save (Ctrl-C stops)\n' $((SECONDS - start))
			else
				printf '==> FAIL in %ds; waiting for a save (Ctrl-C stops)\n' $((SECONDS - start))
			fi
			wait_for_save "$n"
		fi
		# Saved during the run or since: dated now, so that make sees them.
		while read -r f; do
			[[ ! -f "$f" ]] || touch -c "$f"
		done < <(saved_since "$n")
		n=$(wc -l < "$EVENTS")
	done
}

main "$@"
