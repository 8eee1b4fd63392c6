#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/make-series.sh [OUTDIR]   (default build/series)
#
# Write the upstream-style series: every commit of the prepared tree on top
# of "pristine" (patches/series plus any commit of your own), with each
# test source from kunit/ folded into the first commit that refers to it
# by name (the hook that #includes it).  The result applies with "git am"
# on pristine linux-source-6.12.  The prepared tree is not modified.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

KUNITDIR=${KUNIT52_KUNIT:-$REPO/kunit}
OUT=${1:-$REPO/build/series}
INDEX=$(mktemp)
trap 'rm -f "$INDEX"' EXIT

tgit() {
	git -C "$TREE" "$@"
}

# Rewrite COMMIT onto PARENT with the test sources claimed so far added;
# print the new commit.
rewrite_commit() {
	local commit=$1 parent=$2 f blob
	shift 2
	rm -f "$INDEX"
	GIT_INDEX_FILE=$INDEX tgit read-tree "$commit"
	for f in "$@"; do
		blob=$(tgit hash-object -w "$KUNITDIR/$f")
		GIT_INDEX_FILE=$INDEX tgit update-index --add --cacheinfo "100644,$blob,$f"
	done
	GIT_AUTHOR_NAME=$(tgit log -1 --format=%an "$commit") \
	GIT_AUTHOR_EMAIL=$(tgit log -1 --format=%ae "$commit") \
	GIT_AUTHOR_DATE=$(tgit log -1 --format=%aD "$commit") \
	GIT_COMMITTER_NAME=$(tgit log -1 --format=%cn "$commit") \
	GIT_COMMITTER_EMAIL=$(tgit log -1 --format=%ce "$commit") \
	GIT_COMMITTER_DATE=$(tgit log -1 --format=%cD "$commit") \
		tgit commit-tree "$(GIT_INDEX_FILE=$INDEX tgit write-tree)" -p "$parent" \
		-F <(tgit log -1 --format=%B "$commit")
}

main() {
	local parent commit f
	local -a files claimed=()
	local -A seen=()

	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"
	[[ -z "$(tgit status --porcelain)" ]] ||
		info "warning: uncommitted edits in $TREE are not in the series"
	mapfile -t files < <(list_sources "$KUNITDIR")

	parent=$(tgit rev-parse pristine)
	for commit in $(tgit rev-list --reverse pristine..HEAD); do
		for f in "${files[@]}"; do
			[[ -n "${seen[$f]:-}" ]] && continue
			if tgit show --format= "$commit" | grep -qF "$(basename "$f")"; then
				claimed+=("$f")
				seen[$f]=1
			fi
		done
		parent=$(rewrite_commit "$commit" "$parent" "${claimed[@]}")
	done
	for f in "${files[@]}"; do
		[[ -n "${seen[$f]:-}" ]] || die "kunit/$f is not referenced by any patch in the series"
	done

	rm -rf "$OUT"
	mkdir -p "$OUT"
	tgit format-patch -q --zero-commit --no-signature -o "$OUT" "pristine..$parent"
	info "series written to $OUT:"
	find "$OUT" -name '*.patch' -printf '    %f\n' | LC_ALL=C sort >&2
}

main "$@"
