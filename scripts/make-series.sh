#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/make-series.sh [OUTDIR]   (default build/series)
#
# Write the upstream-style series: every commit of the prepared tree on top
# of "pristine" (patches/series plus any commit of your own), with each
# test source from kunit/ folded into the first commit that refers to it
# by name (the hook that #includes it, or the Makefile line that builds
# it).  The result applies with "git am" on pristine linux-source-6.12.
# The prepared tree is not modified.
#
# Besides, OUTDIR/send/<subsystem>/ holds the same patches as one series
# per subsystem, each on pristine, with a cover letter (subject and text
# from patches/cover/<subsystem>) and To:/Cc: from get_maintainer.pl,
# ready for "git send-email OUTDIR/send/<subsystem>/".
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

KUNITDIR=${KUNIT52_KUNIT:-$REPO/kunit}
OUT=${1:-$REPO/build/series}
COVERS=${KUNIT52_COVERS:-$REPO/patches/cover}
INDEX=$(mktemp)
trap 'rm -f "$INDEX"' EXIT

tgit() {
	git -C "$TREE" "$@"
}

# Does COMMIT refer to the test source F: an #include of it, or (a test
# built on its own) the Makefile line of its object?
refers_to() {
	local name
	name=$(basename "$2")
	tgit show --format= "$1" | grep -qF -e "$name" -e "${name%.c}.o"
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
	commit_like "$commit" "$parent" "$(GIT_INDEX_FILE=$INDEX tgit write-tree)"
}

# Commit TREE on PARENT with COMMIT's author, committer and message; print it.
commit_like() {
	local commit=$1 parent=$2 treeid=$3
	GIT_AUTHOR_NAME=$(tgit log -1 --format=%an "$commit") \
	GIT_AUTHOR_EMAIL=$(tgit log -1 --format=%ae "$commit") \
	GIT_AUTHOR_DATE=$(tgit log -1 --format=%aD "$commit") \
	GIT_COMMITTER_NAME=$(tgit log -1 --format=%cn "$commit") \
	GIT_COMMITTER_EMAIL=$(tgit log -1 --format=%ce "$commit") \
	GIT_COMMITTER_DATE=$(tgit log -1 --format=%cD "$commit") \
		tgit commit-tree "$treeid" -p "$parent" \
		-F <(tgit log -1 --format=%B "$commit")
}

# subsystem_of SUBJECT: print the subsystem whose prefix SUBJECT starts with.
# (The table: $COVERS/subsystems, "prefix<TAB>subsystem" lines.)
subsystem_of() {
	local prefix sub
	while IFS=$'\t' read -r prefix sub; do
		[[ -z "$prefix" || "$prefix" == \#* ]] && continue
		if [[ "$1" == "$prefix"* ]]; then
			echo "$sub"
			return 0
		fi
	done < "$COVERS/subsystems"
	return 1
}

# maintainers PATCH OPTION...: get_maintainer.pl's list, one address a line.
maintainers() {
	local patch=$1
	shift
	(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-fixes "$@" "$patch")
}

# write_subsystem SUB HEAD: the series pristine..HEAD with its cover letter.
write_subsystem() {
	local sub=$1 head=$2 dir=$OUT/send/$1 diff=$OUT/send/$1.diff cover a
	local -a args=()
	[[ -f "$COVERS/$sub" ]] || die "no cover letter for subsystem '$sub' (write $COVERS/$sub)"
	tgit diff "pristine..$head" > "$diff"
	while read -r a; do args+=("--to=$a"); done < <(maintainers "$diff" --no-r --no-l)
	while read -r a; do args+=("--cc=$a"); done < <(maintainers "$diff" --no-m)
	rm -f "$diff"
	# The cover letter is from the series' author, not from this tree's user.
	tgit -c user.name="$(tgit log -1 --format=%an "$head")" \
		-c user.email="$(tgit log -1 --format=%ae "$head")" \
		format-patch -q --zero-commit --no-signature --cover-letter "${args[@]}" \
		-o "$dir" "pristine..$head"
	cover=$(find "$dir" -name '0000-cover-letter.patch')
	COVER_TEXT=$COVERS/$sub perl -0pi -e '
		open(my $f, "<", $ENV{COVER_TEXT}) or die "$ENV{COVER_TEXT}: $!\n";
		my $subject = do { local $/ = "\n"; <$f> }; chomp $subject; my $blurb = <$f>; $blurb =~ s/\n+\z//;
		s/\*\*\* SUBJECT HERE \*\*\*/$subject/; s/\*\*\* BLURB HERE \*\*\*/$blurb/;' "$cover"
}

# send_series TIP: the commits pristine..TIP regrouped by subsystem, each
# group on pristine (they touch disjoint files), then written out.
send_series() {
	local tip=$1 commit subject sub base
	local -A heads=()
	mkdir -p "$OUT/send"
	for commit in $(tgit rev-list --reverse "pristine..$tip"); do
		subject=$(tgit log -1 --format=%s "$commit")
		sub=$(subsystem_of "$subject") ||
			die "no subsystem for patch '$subject' (add its prefix to $COVERS/subsystems)"
		base=${heads[$sub]:-$(tgit rev-parse pristine)}
		rm -f "$INDEX"
		GIT_INDEX_FILE=$INDEX tgit read-tree "$base"
		tgit diff-tree -p --binary "$commit^" "$commit" |
			GIT_INDEX_FILE=$INDEX tgit apply --cached ||
			die "'$subject' does not apply without the other subsystems' patches"
		heads[$sub]=$(commit_like "$commit" "$base" "$(GIT_INDEX_FILE=$INDEX tgit write-tree)")
	done
	for sub in "${!heads[@]}"; do
		write_subsystem "$sub" "${heads[$sub]}"
	done
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
			if refers_to "$commit" "$f"; then
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
	find "$OUT" -maxdepth 1 -name '*.patch' -printf '    %f\n' | LC_ALL=C sort >&2
	send_series "$parent"
	info "per-subsystem series with cover letters, for git send-email:"
	find "$OUT/send" -name '*.patch' -printf '    send/%P\n' | LC_ALL=C sort >&2
}

main "$@"
