#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/check-fixes.sh [FIXES_DOC [PATCHES_DIR [TEST_DIR...]]]
#
# Every kernel fix we carry is listed in docs/kernel-fixes.md's "Kernel fixes
# carried" section, one "- `NNNN-....patch`" entry each.  For every entry:
#   - the patch is in PATCHES_DIR;
#   - it carries "Fixes:", unless the entry says why not ("No `Fixes:`",
#     any case, a line break allowed);
#   - the entry names, in backquotes, a test that catches the bug, found
#     by that name in the test sources (default kunit/, guest/,
#     scripts/initramfs.sh).
# One result per fix goes to $KUNIT52_RESULTS (default build/series/fixes.jsonl).
# shellcheck disable=SC2016 # backquotes in patterns are the doc's, not expansions
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

FIXES_DOC=${1:-$REPO/docs/kernel-fixes.md}
PATCHES=${2:-$REPO/patches}
shift $(($# > 2 ? 2 : $#))
TESTS=("$@")
[[ ${#TESTS[@]} -gt 0 ]] || TESTS=("$REPO/kunit" "$REPO/guest" "$REPO/scripts/initramfs.sh")
export KUNIT52_RESULTS=${KUNIT52_RESULTS:-$REPO/build/series/fixes.jsonl}

# Print the fix entries of FIXES_DOC, one a line: "patch<TAB>entry text".
fix_entries() {
	awk '/^## Kernel fixes carried/ { on = 1; next }
	     on && /^## / { on = 0 }
	     on && /^- `[0-9]+-.*\.patch`/ { if (e) print e; p = $2; gsub(/[`:]/, "", p); e = p "\t" $0; next }
	     on && e && /^  / { e = e " " $0; next }
	     on && e { print e; e = "" }
	     END { if (e) print e }' "$FIXES_DOC"
}

# Does some backquoted word of TEXT name a test in the test sources?
names_a_test() {
	local word
	while read -r word; do
		[[ "$word" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
		grep -rqw -- "$word" "${TESTS[@]}" && return 0
	done < <(grep -o '`[^`]*`' <<< "$1" | tr -d '`')
	return 1
}

# check_fix PATCH TEXT: print why the entry is wrong, or nothing.
check_fix() {
	local patch=$1 text=$2 words
	words=$(tr -s ' ' <<< "${text,,}")
	if [[ ! -f "$PATCHES/$patch" ]]; then
		echo "not in $PATCHES"
	elif ! grep -q '^Fixes: [0-9a-f]\{12,\} (".*")$' "$PATCHES/$patch" &&
		[[ "$words" != *'no `fixes:`'* ]]; then
		echo "no Fixes: tag, and the fixes doc does not say why"
	elif [[ "$text" != *"Caught by"* && "$text" != *"Checked by"* ]] ||
		! names_a_test "$text"; then
		echo "the fixes doc names no test (Caught by \`name\`) found in the test sources"
	fi
}

main() {
	local patch text why n=0 failed=0
	while IFS=$'\t' read -r patch text; do
		n=$((n + 1))
		why=$(check_fix "$patch" "$text")
		if [[ -z "$why" ]]; then
			echo "ok    $patch: tagged and tested"
			result series fixes fixes "$patch" PASS "$FIXES_DOC"
		else
			echo "FAIL  $patch: $why" >&2
			result series fixes fixes "$patch" FAIL "$FIXES_DOC" "$why"
			failed=1
		fi
	done < <(fix_entries)
	[[ $n -gt 0 ]] || die "no fix entries under '## Kernel fixes carried' in $FIXES_DOC"
	return "$failed"
}

main "$@"
