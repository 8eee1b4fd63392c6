#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/bench-loop.sh [--reps N] ARCH...
#
# The TDD loop against plain kunit.py, same edits, same machine, same
# moment.  For each ARCH and each of two edits (a one-line change to the
# vmalloc test, kunit/mm/tests/vmalloc_kunit.c, and one to mm/vmalloc.c),
# N times (default 5), alternating: edit, then `make kunit ARCH=ARCH
# SUITE='vmalloc*'` to its verdict; edit, then plain kunit.py (`kunit.py
# run` in the prepared tree with the vmalloc suite's kunitconfig, its own
# --arch and build directory) to its verdict.  Each edit adds a new line
# of code (a constant named after the run), so that no build hits the
# compiler cache.  A first run of each, untimed, builds the kernels.
# Prints a markdown table: min, median and max seconds, and the ratio of
# the medians.  The edited files are restored on any exit.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

REPS=5
OUT=$REPO/build/bench
TEST_FILE=$REPO/kunit/mm/tests/vmalloc_kunit.c
CODE_FILE=mm/vmalloc.c
GLOB='vmalloc*'
SAVED=""
EDIT=0
# The longest console silence of the loop's boots, per arch (docs/loop.md,
# LOOP_STALL's bound): "microseconds<TAB>the line that ended it".
declare -A SILENCE=()

restore() {
	[[ -z "$SAVED" ]] || cp "$SAVED" "$TEST_FILE"
	git -C "$TREE" checkout -q -- "$CODE_FILE" 2>/dev/null || true
	[[ -z "$SAVED" ]] || rm -f "$SAVED"
}
trap restore EXIT
trap 'exit 130' INT TERM

# edit FILE: a one-line change that is code: a new constant.
edit() {
	EDIT=$((EDIT + 1))
	printf 'static const int kunit52_bench_edit_%d __maybe_unused = %d;\n' \
		"$EDIT" "$EDIT" >> "$1"
}

# ours ARCH LOG: make kunit, as a developer runs it; keeps the longest
# console silence of its boot.
ours() {
	local f
	make -s --no-print-directory -C "$REPO" kunit ARCH="$1" SUITE="$GLOB" > "$2" 2>&1 || return 1
	f=$(build_dir "$1")-loop-vmalloc/longest-silence
	if [[ -z "${SILENCE[$1]:-}" || $(cut -f1 "$f") -gt ${SILENCE[$1]%%$'\t'*} ]]; then
		SILENCE[$1]=$(cat "$f")
	fi
}

# plain ARCH LOG: kunit.py as it comes, with the suite's kunitconfig.
plain() {
	local arch=$1 log=$2 cross
	local -a args=(run "--kunitconfig=$REPO/kunitconfigs/suites/vmalloc" "--arch=$arch"
		       "--build_dir=.kunit-bench-$arch" --kernel_args=panic=-1 "$GLOB")
	cross=$(arch_fact "$arch" cross_compile)
	[[ -z "$cross" ]] || args+=("--cross_compile=$cross")
	(cd "$TREE" && python3 tools/testing/kunit/kunit.py "${args[@]}") > "$log" 2>&1
}

# timed CMD...: seconds CMD took (two decimals); dies if it failed.
timed() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" || die "$1 failed (log: ${*: -1})"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
}

# stats: "min median max" of the numbers on stdin.
stats() {
	sort -n | awk '{ v[NR] = $1 } END { printf "%s %s %s\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
}

# bench_arch ARCH: the table rows of ARCH.
bench_arch() {
	local arch=$1 what file i o p
	local -a mine theirs
	info "bench-loop $arch: first builds (untimed)"
	ours "$arch" "$OUT/loop-ours-$arch.log" || die "make kunit failed (log: $OUT/loop-ours-$arch.log)"
	plain "$arch" "$OUT/loop-plain-$arch.log" || die "kunit.py failed (log: $OUT/loop-plain-$arch.log)"
	for what in test code; do
		file=$TEST_FILE
		[[ $what == test ]] || file=$TREE/$CODE_FILE
		mine=()
		theirs=()
		for ((i = 1; i <= REPS; i++)); do
			edit "$file"
			mine+=("$(timed ours "$arch" "$OUT/loop-ours-$arch.log")")
			edit "$file"
			theirs+=("$(timed plain "$arch" "$OUT/loop-plain-$arch.log")")
			info "bench-loop $arch $what edit $i/$REPS: ours ${mine[-1]} s, kunit.py ${theirs[-1]} s"
		done
		o=$(printf '%s\n' "${mine[@]}" | stats)
		p=$(printf '%s\n' "${theirs[@]}" | stats)
		awk -v a="$arch" -v w="$what" -v o="$o" -v p="$p" 'BEGIN {
			split(o, x, " "); split(p, y, " ")
			printf "| %s | %s | %s / **%s** / %s | %s / **%s** / %s | %.2f |\n", a,
				(w == "test" ? "one line of kunit/mm/tests/vmalloc_kunit.c" : "one line of mm/vmalloc.c"),
				x[1], x[2], x[3], y[1], y[2], y[3], x[2] / y[2] }'
	done
}

main() {
	local arch
	local -a arches=()
	while (($#)); do
		case $1 in
		--reps) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--reps needs a positive number"; REPS=$2; shift ;;
		*) check_arch "$1"; arches+=("$1") ;;
		esac
		shift
	done
	[[ ${#arches[@]} -gt 0 ]] || die "usage: ${0##*/} [--reps N] ARCH..."
	[[ -z "$(git -C "$TREE" status --porcelain -- "$CODE_FILE")" ]] ||
		die "$TREE/$CODE_FILE has edits of yours; commit or stash them first"
	mkdir -p "$OUT"
	SAVED=$(mktemp)
	cp "$TEST_FILE" "$SAVED"
	echo "| arch | edit | \`make kunit\` s: min / median / max | plain kunit.py s: min / median / max | ratio of medians |"
	echo "|---|---|---:|---:|---:|"
	for arch in "${arches[@]}"; do
		bench_arch "$arch"
	done
	echo
	for arch in "${arches[@]}"; do
		awk -F'\t' -v a="$arch" '{ printf "- %s: the longest console silence of the loop'"'"'s boots was %.1f s, before \"%s\".\n", a, $1 / 1e6, substr($2, 1, 60) }' <<< "${SILENCE[$arch]}"
	done
}

main "$@"
