#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the patched kernel tree in work/linux:
#   1. extract Debian's linux-source-6.12 tarball,
#   2. make it a git repository whose first commit (tag "pristine") is the
#      untouched source,
#   3. apply patches/series with "git am", one commit per patch,
#   4. link every file under kunit/ into the tree at the same path.
#
# The first clone on a machine keeps the pristine repository and the
# prepared commits beside the compiler cache; the next ones check them
# out (the same commits: the dates are fixed or the patches').
#
# The tree is re-prepared only when the tarball, the series or the set of
# files under kunit/ changed.  A tree holding a developer's uncommitted
# edits or extra commits is never touched: we refuse and say what to do.
#
# With --check-clean, only check that the tree holds no edits of yours.
#
# Environment (used by the harness self-tests): KUNIT52_TARBALL,
# KUNIT52_TREE, KUNIT52_PATCHES, KUNIT52_KUNIT.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

TARBALL=${KUNIT52_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PATCHES=${KUNIT52_PATCHES:-$REPO/patches}
KUNITDIR=${KUNIT52_KUNIT:-$REPO/kunit}
PREPARED_REF=refs/kunit52/prepared

# gc.auto=0: git am would otherwise start an automatic gc that packs the
# tree's 80,000 objects in the background, beside the first build.
tgit() {
	git -C "$TREE" -c user.name=kunit52 -c user.email=kunit52@localhost -c gc.auto=0 \
		-c core.autocrlf=false -c advice.detachedHead=false "$@"
}

# Patch files named by the series, in order (comments and blanks skipped).
series_patches() {
	[[ -f "$PATCHES/series" ]] || die "missing $PATCHES/series"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# Test sources, relative to kunit/, sorted.
kunit_files() {
	list_sources "$KUNITDIR"
}

# What the prepared tree was made from.  Test file contents are not part
# of it: they are linked, so editing one needs no re-preparation.
compute_stamp() {
	local p
	stat -c 'tarball %n %s %Y' "$TARBALL"
	sha256sum "$PATCHES/series" | sed 's|  .*| series|'
	while read -r p; do
		[[ -f "$PATCHES/$p" ]] || die "patches/series names missing patch '$p'"
		sha256sum "$PATCHES/$p" | sed "s|  .*| $p|"
	done < <(series_patches)
	kunit_files | sed 's/^/kunit /'
}

# True when the tree has no uncommitted change and no commit of its own.
tree_is_untouched() {
	local head prepared
	[[ -z "$(tgit status --porcelain --untracked-files=normal)" ]] || return 1
	head=$(tgit rev-parse -q --verify HEAD) || return 1
	prepared=$(tgit rev-parse -q --verify "$PREPARED_REF") || return 1
	[[ "$head" == "$prepared" ]]
}

refuse_dirty_tree() {
	printf '%s: error: %s has local edits or commits; refusing to touch it.\n' \
		"${0##*/}" "$TREE" >&2
	cat >&2 <<MSG
  See them:      git -C $TREE status; git -C $TREE log --oneline $PREPARED_REF..HEAD
  Keep them:     git -C $TREE format-patch $PREPARED_REF -o <dir>   (or: git -C $TREE stash)
                 then add the patches to patches/ and patches/series
  Discard them:  git -C $TREE reset --hard $PREPARED_REF && git -C $TREE clean -fd
MSG
	exit 1
}

# The pristine repositories of the machine's clones, one per tarball
# (the compiler cache's neighbour): a fresh clone checks the pristine
# commit out of it instead of extracting the tarball and committing its
# 87,000 files again.  Git never rewrites an object, so the clone's
# objects can be hard links to the cache's (git clone --local).
PRISTINE_DIR=${KUNIT52_PRISTINE_DIR:-$(dirname "$KUNIT52_CCACHE_DIR")/pristine}

# The cache's repository for this tarball (its name, size and date).
pristine_repo() {
	echo "$PRISTINE_DIR/$(stat -c '%n %s %Y' "$TARBALL" | sha256sum | cut -c1-16).git"
}

# extract_into DIR: the tarball in DIR, committed and tagged pristine.
extract_into() {
	local dir=$1
	info "extracting $(basename "$TARBALL") into $TREE (about a minute)"
	mkdir -p "$dir"
	tar -xf "$TARBALL" -C "$dir" --strip-components=1
	git -C "$dir" init -q -b kunit52
	(
		cd "$dir"
		git add -A -f .
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
			git -c user.name=kunit52 -c user.email=kunit52@localhost -c gc.auto=0 \
			commit -q -m "pristine $(basename "$TARBALL")"
		git tag pristine
	)
}

# save_pristine DIR: keep DIR's repository for the machine's next clones
# (complete, or not at all; the first of two clones at once wins).
save_pristine() {
	local repo new
	repo=$(pristine_repo)
	[[ ! -e "$repo" ]] || return 0
	mkdir -p "$PRISTINE_DIR" 2>/dev/null || return 0
	new=$repo.new.$$
	if git clone -q --bare --local "$1" "$new" 2>/dev/null && : > "$new/kunit52-complete"; then
		mv -T "$new" "$repo" 2>/dev/null || rm -rf "$new"
	else
		rm -rf "$new"
	fi
}

# clone_pristine DIR: check the pristine commit out of the cache into
# DIR, every file dated as the tarball is (a checkout dates them now,
# which would make them newer than a build tree seeded from the cache).
clone_pristine() {
	local repo=$1 dir=$2
	git clone -q --local "$repo" "$dir" || return 1
	git -C "$dir" remote remove origin
	git -C "$dir" ls-files -z | (cd "$dir" && xargs -0 touch -h -r "$TARBALL" --)
}

extract_pristine() {
	local tmp="$TREE.tmp" repo
	repo=$(pristine_repo)
	rm -rf "$tmp"
	if [[ -f "$repo/kunit52-complete" ]] && clone_pristine "$repo" "$tmp"; then
		info "checked out pristine $(basename "$TARBALL") from $repo"
	else
		rm -rf "$tmp"
		extract_into "$tmp"
		save_pristine "$tmp"
	fi
	rm -rf "$TREE"
	mv "$tmp" "$TREE"
}

# series_key STAMP: what the prepared commits depend on: the tarball and
# the patches, in order (git am's dates come from the patches; the
# pristine commit's are fixed).
series_key() {
	printf '%s\n' "$1" | grep -v '^kunit ' | sha256sum | cut -c1-16
}

# prepared_before KEY: check out the commits that another clone on this
# machine made from the same tarball and patches (kept in the pristine
# repository); fails if there are none.
prepared_before() {
	local repo ref=refs/kunit52/prepared/$1
	repo=$(pristine_repo)
	[[ -f "$repo/kunit52-complete" ]] || return 1
	git -C "$repo" rev-parse -q --verify "$ref" > /dev/null || return 1
	tgit fetch -q "$repo" "$ref" || return 1
	[[ $(tgit rev-list --count pristine..FETCH_HEAD) -eq $(series_patches | wc -l) ]] || return 1
	tgit checkout -q -B kunit52 FETCH_HEAD
}

apply_series() {
	local key p n=0 repo
	key=$(series_key "$1")
	if prepared_before "$key"; then
		tgit update-ref "$PREPARED_REF" HEAD
		info "checked out the series of $PATCHES/series, applied before on this machine"
		return 0
	fi
	tgit checkout -q -B kunit52 pristine
	while read -r p; do
		if ! tgit am -q --committer-date-is-author-date "$PATCHES/$p"; then
			tgit am --abort || true
			die "patch '$p' does not apply to pristine linux-source-6.12"
		fi
		n=$((n + 1))
	done < <(series_patches)
	tgit update-ref "$PREPARED_REF" HEAD
	# For the machine's next clones.
	repo=$(pristine_repo)
	[[ ! -f "$repo/kunit52-complete" ]] ||
		tgit push -q "$repo" "HEAD:refs/kunit52/prepared/$key" 2>/dev/null || true
	info "applied $n patch(es) from $PATCHES/series"
}

# Link kunit/<path> to <tree>/<path>; keep the links out of git status.
link_kunit_files() {
	local f dst exclude="$TREE/.git/info/exclude"

	mkdir -p "$(dirname "$exclude")"
	sed '/^# kunit52 links begin$/,/^# kunit52 links end$/d' "$exclude" \
		2>/dev/null > "$exclude.new" || true
	echo '# kunit52 links begin' >> "$exclude.new"
	while read -r f; do
		dst="$TREE/$f"
		printf '/%s\n' "$f" >> "$exclude.new"
		if [[ -L "$dst" && "$(readlink "$dst")" == "$KUNITDIR/$f" ]]; then
			continue
		elif [[ -L "$dst" ]]; then
			rm -f "$dst"
		elif [[ -e "$dst" ]]; then
			rm -f "$exclude.new"
			die "kunit/$f would hide $dst, which the kernel tree already has"
		fi
		mkdir -p "$(dirname "$dst")"
		ln -s "$KUNITDIR/$f" "$dst"
	done < <(kunit_files)
	echo '# kunit52 links end' >> "$exclude.new"
	mv "$exclude.new" "$exclude"
}

main() {
	local stamp old_stamp="" old_tarball=""

	if [[ "${1:-}" == --check-clean ]]; then
		[[ ! -d "$TREE/.git" ]] || tree_is_untouched || refuse_dirty_tree
		return 0
	fi
	[[ $# -eq 0 ]] || die "usage: ${0##*/} [--check-clean]"

	[[ -f "$TARBALL" ]] || die "no kernel source at $TARBALL (run 'make deps' or: apt-get install linux-source-6.12)"
	stamp=$(compute_stamp)

	if [[ -d "$TREE/.git" ]]; then
		old_stamp=$(cat "$TREE/.git/kunit52-stamp" 2>/dev/null || true)
		if [[ "$stamp" == "$old_stamp" ]]; then
			link_kunit_files
			info "kernel tree $TREE is up to date"
			return 0
		fi
		tree_is_untouched || refuse_dirty_tree
		old_tarball=$(printf '%s\n' "$old_stamp" | grep '^tarball ' || true)
	elif [[ -e "$TREE" ]]; then
		die "$TREE exists but is not a prepared tree; move it away"
	fi

	if [[ "$old_tarball" != "$(printf '%s\n' "$stamp" | grep '^tarball ')" ]]; then
		extract_pristine
	fi
	apply_series "$stamp"
	link_kunit_files
	printf '%s\n' "$stamp" > "$TREE/.git/kunit52-stamp"
	info "kernel tree ready: $TREE ($(tgit rev-list --count pristine..HEAD) patch(es) on pristine)"
}

main "$@"
