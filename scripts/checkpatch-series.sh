#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/checkpatch-series.sh [SERIES_DIR]   (default build/series)
#
# Check the series written by make-series.sh:
#   - it applies, patch by patch, on pristine linux-source-6.12;
#   - every patch passes scripts/checkpatch.pl --strict with no error and
#     no warning;
#   - every fix the README lists is tagged and tested (check-fixes.sh).
# One result per patch goes to $KUNIT52_RESULTS (default
# build/series/results.jsonl).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

SERIES=${1:-$REPO/build/series}
export KUNIT52_RESULTS=${KUNIT52_RESULTS:-$SERIES/results.jsonl}
INDEX=$(mktemp)
trap 'rm -f "$INDEX"' EXIT

# Apply PATCH to the temporary index (pristine plus the earlier patches).
applies() {
	GIT_INDEX_FILE=$INDEX git -C "$TREE" apply --cached "$1" 2>/dev/null
}

# Does MAINTAINERS (pristine) already cover every file PATCH creates, by
# an "F:" directory entry?  Then checkpatch's FILE_PATH_CHANGES warning
# ("does MAINTAINERS need updating?") is answered: no.
new_files_maintained() {
	local f dirs
	dirs=$(git -C "$TREE" show pristine:MAINTAINERS | sed -n 's|^F:[[:space:]]*\(.*/\)$|\1|p')
	while read -r f; do
		dirs_of "$f" | grep -qxF -f <(printf '%s\n' "$dirs") || return 1
	done < <(sed -n 's/^ create mode [0-7]* //p' "$1")
}

# Every leading directory of PATH, with a trailing slash.
dirs_of() {
	local d=$1
	while [[ $d == */* ]]; do
		d=${d%/*}
		echo "$d/"
	done
}

# Print "errors warnings checks" from checkpatch's output in LOG.
checkpatch_counts() {
	sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' "$1" |
		tail -1
}

main() {
	local p log name counts errors warnings checks ignore failed=0
	local -a patches
	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"
	mapfile -t patches < <(find "$SERIES" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	[[ ${#patches[@]} -gt 0 ]] || die "no patches in $SERIES (run: make series)"

	rm -f "$INDEX"
	GIT_INDEX_FILE=$INDEX git -C "$TREE" read-tree pristine
	for p in "${patches[@]}"; do
		name=$(basename "$p")
		log=${p%.patch}.checkpatch.log
		if ! applies "$p"; then
			echo "FAIL  $name: does not apply on pristine + earlier patches" >&2
			result series pristine applies "$name" FAIL "$p" \
				"does not apply on pristine + earlier patches"
			failed=1
			continue
		fi
		# UNKNOWN_COMMIT_ID: our tree has no upstream history to look ids up in.
		ignore=UNKNOWN_COMMIT_ID
		new_files_maintained "$p" && ignore+=,FILE_PATH_CHANGES
		(cd "$TREE" && perl scripts/checkpatch.pl --strict --color=never \
			--ignore "$ignore" "$p") > "$log" 2>&1 || true
		counts=$(checkpatch_counts "$log")
		read -r errors warnings checks <<< "${counts:-1 0 0}"
		if [[ $errors -eq 0 && $warnings -eq 0 ]]; then
			printf 'ok    %s: checkpatch --strict: 0 errors, 0 warnings, %s checks\n' "$name" "$checks"
			result checkpatch series checkpatch "$name" PASS "$log"
		else
			printf 'FAIL  %s: checkpatch --strict: %s errors, %s warnings (log: %s)\n' \
				"$name" "$errors" "$warnings" "$log" >&2
			grep -E '^(ERROR|WARNING):' "$log" | sed 's/^/        /' >&2 || true
			result checkpatch series checkpatch "$name" FAIL "$log" \
				"$errors errors, $warnings warnings"
			failed=1
		fi
	done
	"$REPO/scripts/check-fixes.sh" || failed=1
	return "$failed"
}

main "$@"
