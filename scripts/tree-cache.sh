#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/tree-cache.sh manifest OUT
#        scripts/tree-cache.sh seed BUILD
#        scripts/tree-cache.sh store BUILD MANIFEST
#
# Kernel build trees shared by the clones of a machine, one per build
# label (x86_64, arm64-debug, ...), beside the compiler cache.  A fresh
# clone's build directory is seeded from the tree its label last stored,
# so that Kbuild rebuilds what its own dependency tracking says changed
# (fixdep: the sources and headers an object read, the CONFIG_ symbols
# it uses) instead of every object: after one Kconfig option is added,
# only the objects that read it are compiled again, where the compiler
# cache misses on every object (autoconf.h changed).
#
# A seeded tree is never trusted on its timestamps: each entry holds the
# manifest of the sources it was built from (a git blob id per file of
# the prepared tree, the linked kunit/ files included), and seeding dates
# every file of the tree before the clone's sources, then every source
# whose content differs from the manifest after it, so that make
# rebuilds each of them and everything depending on them
# (docs/design.md, "Build trees shared by clones").
#
#   manifest OUT          the prepared tree's sources, "BLOB<TAB>PATH" a line
#   seed BUILD            fill an empty build directory from the cache; says
#                         on one line what it did (nothing if no entry fits)
#   store BUILD MANIFEST  after a successful build of BUILD from the sources
#                         of MANIFEST (taken before it): replace the label's
#                         entry, unless a source changed during the build
#
# KUNIT52_TREE_CACHE=off turns both off; KUNIT52_TREES_DIR moves the
# cache (default: beside the compiler cache).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

KUNITDIR=${KUNIT52_KUNIT:-$REPO/kunit}
TREES=${KUNIT52_TREES_DIR:-$(dirname "$KUNIT52_CCACHE_DIR")/trees}
# Seeded files are dated this many seconds before the seeding, and the
# sources that differ from the entry's manifest at the seeding: make
# rebuilds what depends on a source only if the source is newer.
SEED_AGE=60
# What a stored tree leaves out: the boots' files (initramfs, disks) and
# logs, which every run writes anew.
STORE_EXCLUDES=(--exclude=./system --exclude='./*.log' --exclude=./results.jsonl
		--exclude=./rows.tsv --exclude=./.progress-mark --exclude=./.source-manifest)

tgit() {
	git -C "$TREE" "$@"
}

cache_off() {
	[[ "${KUNIT52_TREE_CACHE:-on}" == off ]]
}

# manifest: every source of the prepared tree, "BLOB<TAB>PATH", sorted by
# path: tracked files by their index blob (refreshed, so an edit counts),
# edited and untracked ones (the kunit/ links too) by their content.
manifest() {
	local f
	tgit update-index -q --refresh > /dev/null 2>&1 || true
	{
		tgit ls-files -s | awk -F'\t' '{ split($1, a, " "); print a[2] "\t" $2 }'
		{
			tgit diff --name-only
			tgit ls-files -o --exclude-standard -- . ':(exclude).build-*'
			list_sources "$KUNITDIR"
		} | LC_ALL=C sort -u | while read -r f; do
			if [[ -e "$TREE/$f" ]]; then
				printf '%s\t%s\n' "$(tgit hash-object -- "$f")" "$f"
			else
				printf 'deleted\t%s\n' "$f"
			fi
		done
	} | awk -F'\t' '{ blob[$2] = $1 } END { for (p in blob) print blob[p] "\t" p }' |
		LC_ALL=C sort -t "$(printf '\t')" -k2
}

# changed_paths OLD NEW: the paths whose blob differs between two
# manifests (added, removed or edited), one per line.
changed_paths() {
	awk -F'\t' 'FILENAME == ARGV[1] { old[$2] = $1; next }
		{ if (old[$2] != $1) print $2; delete old[$2] }
		END { for (p in old) print p }' "$1" "$2" | LC_ALL=C sort -u
}

# label_of BUILD: the build's label (build/x86_64 or its real directory,
# work/linux/.build-x86_64: x86_64).
label_of() {
	local real
	real=$(realpath "$1")
	real=${real##*/}
	echo "${real#.build-}"
}

# entry_ok DIR: is DIR a complete entry (the last thing a store writes)?
entry_ok() {
	[[ -f "$1/complete" && -d "$1/build" && -f "$1/manifest" ]]
}

# relocate BUILD OLD NEW: the absolute paths of the prepared tree the
# build was made from (tools/objtool's and the uapi headers' command
# lines hold them) become this clone's, so that the command lines Kbuild
# compares match.
relocate() {
	local build=$1 old=$2 new=$3
	[[ "$old" != "$new" ]] || return 0
	grep -rlIF --null -- "$old" "$build" 2>/dev/null |
		xargs -0 -r sed -i "s|$old|$new|g"
}

# added_headers OLD NEW: headers present in one manifest only.  One can
# change which file an #include finds, which no object's dependency list
# names.
added_headers() {
	awk -F'\t' 'FNR == 1 { n++ } $1 != "deleted" && $2 ~ /\.h$/ { seen[$2] += n }
		END { for (p in seen) if (seen[p] != 3) print p }' "$1" "$2"
}

# date_sources WHEN MANIFEST CHANGED: make every source older than the
# seeded tree (dated WHEN) unless it changed since the entry was built
# (the paths in the file CHANGED), and every changed one newer.  A
# source whose content no longer matches MANIFEST after it was dated
# back (an edit saved meanwhile) is dated now again.
date_sources() {
	local when=$1 manifest=$2 changed=$3 ref back
	ref=$(mktemp)
	back=$(mktemp)
	touch -d "@$when" "$ref"
	find -L "$TREE" \( -path "$TREE/.git" -o -path "$TREE/.build-*" \) -prune \
		-o -type f -newer "$ref" -printf '%P\n' |
		awk 'FILENAME == ARGV[1] { changed[$0] = 1; next } !($0 in changed)' "$changed" - > "$back"
	if [[ -s "$back" ]]; then
		(cd "$TREE" && xargs -r -d '\n' touch -d "@$((when - 1))" -- < "$back")
		paste <(cd "$TREE" && git hash-object --stdin-paths < "$back") "$back" |
			awk -F'\t' 'FILENAME == ARGV[1] { want[$2] = $1; next } want[$2] != $1 { print $2 }' \
				"$manifest" - |
			(cd "$TREE" && xargs -r -d '\n' touch -c --)
	fi
	rm -f "$ref" "$back"
	(cd "$TREE" && xargs -r -d '\n' touch -c -- < "$changed")
}

# fill DIR ENTRY MANIFEST CHANGED: DIR, a copy of ENTRY's tree with this
# clone's paths and dates; fails if any step does.
fill() {
	local dir=$1 entry=$2 manifest=$3 changed=$4 when
	cp -a "$entry/build/." "$dir/" &&
		relocate "$dir/" "$(cat "$entry/source-tree")" "$TREE" || return 1
	when=$(($(date +%s) - SEED_AGE))
	find "$dir/" -exec touch -h -d "@$when" {} + &&
		date_sources "$when" "$manifest" "$changed"
}

# The tree is filled beside the build directory and renamed into its
# place at the end: an interrupted seed leaves the build directory empty.
seed() {
	local build=$1 real label entry tmp added
	real=$(realpath "$build")
	label=$(label_of "$build")
	entry=$TREES/$label
	cache_off && return 0
	# Never over a developer's build: only an empty directory is seeded.
	[[ -d "$real" && -z "$(ls -A "$real")" ]] || return 0
	exec 9> "$TREES/$label.lock" || return 0
	flock -s 9
	entry_ok "$entry" || return 0
	rm -rf "$real".seed.*
	tmp=$real.seed.$$
	mkdir "$tmp"
	manifest > "$tmp.manifest"
	changed_paths "$entry/manifest" "$tmp.manifest" > "$tmp.changed"
	added=$(added_headers "$entry/manifest" "$tmp.manifest" | head -1)
	if [[ -n "$added" ]]; then
		echo "tree cache: not used ($added was added or removed since it was built)"
	elif ! fill "$tmp" "$entry" "$tmp.manifest" "$tmp.changed"; then
		echo "tree cache: not used (seeding from $entry failed)"
	else
		rmdir "$real"
		mv "$tmp" "$real"
		echo "tree cache: seeded from the tree built $(cat "$entry/date") from" \
			"$(cat "$entry/source-tree"); $(wc -l < "$tmp.changed") source(s) differ"
	fi
	rm -rf "$tmp" "$tmp.manifest" "$tmp.changed"
}

store() {
	local build=$1 before=$2 label new old
	label=$(label_of "$build")
	cache_off && return 0
	[[ -f "$before" ]] || die "store: no manifest $before"
	mkdir -p "$TREES"
	if ! manifest | cmp -s - "$before"; then
		echo "tree cache: $label not stored: a source changed during the build"
		return 0
	fi
	exec 9> "$TREES/$label.lock"
	flock 9
	rm -rf "$TREES/$label".new.* "$TREES/$label".old.*
	new=$TREES/$label.new.$$
	old=$TREES/$label.old.$$
	mkdir -p "$new/build"
	tar -C "$build/" "${STORE_EXCLUDES[@]}" -cf - . | tar -C "$new/build" -xf -
	cp "$before" "$new/manifest"
	echo "$TREE" > "$new/source-tree"
	date -u '+%Y-%m-%d %H:%M UTC' > "$new/date"
	: > "$new/complete"
	[[ ! -e "$TREES/$label" ]] || mv "$TREES/$label" "$old"
	mv "$new" "$TREES/$label"
	rm -rf "$old"
	echo "tree cache: $label stored ($(du -sh "$TREES/$label" | cut -f1))"
}

main() {
	case ${1:-} in
	manifest) [[ $# -eq 2 ]] || die "usage: ${0##*/} manifest OUT"; manifest > "$2" ;;
	seed) [[ $# -eq 2 ]] || die "usage: ${0##*/} seed BUILD"; mkdir -p "$TREES"; seed "$2" ;;
	store) [[ $# -eq 3 ]] || die "usage: ${0##*/} store BUILD MANIFEST"; store "$2" "$3" ;;
	*) die "usage: ${0##*/} manifest OUT | seed BUILD | store BUILD MANIFEST" ;;
	esac
}

main "$@"
