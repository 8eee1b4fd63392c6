#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/coverage.sh ARCH
#
# Line, function and branch coverage of the code our suites are about
# (KUNIT52_COVERAGE_OBJECTS in scripts/lib.sh): build ARCH's kernel with
# Clang (LLVM=1) and gcov on those objects (the coverage variant, in
# build/ARCH-coverage), boot it once with the full-system initramfs (the
# KUnit suites at boot, then every guest test), take the .gcda files /init
# leaves on the scratch disk, and write an lcov/genhtml report to
# build/coverage/ARCH/index.html (build/coverage/index.html links every
# arch's) and a text summary (scripts/coverage-summary.py) to stdout and
# build/coverage/ARCH/summary.txt.  Exit status: non-zero if the build,
# the boot or the data fails, or if a test failed (the report is still
# written then).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

export KUNIT52_VARIANT=coverage

# Sources of the profiled objects the report keeps (the test files our
# KUnit suites include at the end of them are reported separately by
# genhtml but summarised only here).
coverage_sources() {
	local obj
	for obj in "${KUNIT52_COVERAGE_OBJECTS[@]}"; do
		echo "${obj%.o}.c"
	done
}

build_kernel() {
	local arch=$1 build=$2
	KUNIT52_RESULTS=/dev/null KUNIT52_KUNIT_MODE=build "$REPO/scripts/kunit.sh" "$arch" ||
		die "the Clang build of $arch failed; log: $build/kunit.log"
	grep -qx 'CONFIG_CC_IS_CLANG=y' "$build/.config" ||
		die "$build/.config is not a Clang build (CONFIG_CC_IS_CLANG unset)"
	grep -qx 'CONFIG_GCOV_KERNEL=y' "$build/.config" ||
		die "$build/.config lacks CONFIG_GCOV_KERNEL"
}

# Boot once; the tests' results go to the usual places.  Returns the
# boot's status; the counters are on the scratch disk either way.
boot_kernel() {
	local arch=$1
	KUNIT52_RESULTS=$(build_dir "$arch")/system/results.jsonl "$REPO/scripts/system.sh" "$arch"
}

# Unpack the guest's tar of .gcda files and put each next to its .gcno in
# BUILD (the guest's path is the build's absolute one; match by suffix).
collect_gcda() {
	local build=$1 sys=$2 out=$3 f rel n=0
	rm -rf "$out" && mkdir -p "$out"
	grep -q 'kunit52: gcov: ' "$sys/console.log" ||
		die "the guest exported no gcov data (no /sys/kernel/debug/gcov?); console: $sys/console.log"
	tar -xf "$sys/scratch.img" -C "$out" 2>/dev/null ||
		die "no gcov tar on the scratch disk $sys/scratch.img; console: $sys/console.log"
	find "$build/" -name '*.gcda' -delete
	while IFS= read -r f; do
		rel=${f#"$out"/}
		while [[ "$rel" == */* && ! -e "$build/${rel%.gcda}.gcno" ]]; do
			rel=${rel#*/}
		done
		[[ -e "$build/${rel%.gcda}.gcno" ]] || die "$f: no matching .gcno in $build"
		cp "$f" "$build/$rel"
		n=$((n + 1))
	done < <(find "$out" -name '*.gcda')
	[[ $n -gt 0 ]] || die "the guest's gcov tar holds no .gcda file; console: $sys/console.log"
	info "coverage: $n .gcda files from the guest"
}

# lcov's geninfo runs "TOOL" with gcov's arguments: llvm-cov's gcov mode
# reads Clang's data.  It must be an absolute path to one program.
gcov_tool() {
	local tool=$1/llvm-gcov
	printf '#!/bin/sh\nexec llvm-cov gcov "$@"\n' > "$tool"
	chmod +x "$tool"
	echo "$tool"
}

# Capture, keep our sources, write the HTML report.
report() {
	local arch=$1 build=$2 dir=$3 tool src
	local -a keep=()
	tool=$(gcov_tool "$dir")
	while read -r src; do
		keep+=("*/$src")
	done < <(coverage_sources)
	(cd "$build" && lcov --quiet --capture --directory . --base-directory . \
		--gcov-tool "$tool" --rc lcov_branch_coverage=1 \
		--output-file "$dir/all.info") > "$dir/lcov.log" 2>&1 ||
		die "lcov failed; log: $dir/lcov.log"
	lcov --quiet --rc lcov_branch_coverage=1 --extract "$dir/all.info" "${keep[@]}" \
		--output-file "$dir/coverage.info" >> "$dir/lcov.log" 2>&1 ||
		die "lcov --extract failed; log: $dir/lcov.log"
	genhtml --quiet --branch-coverage --title "kunit52 $arch" --prefix "$TREE" \
		--output-directory "$dir" "$dir/coverage.info" >> "$dir/lcov.log" 2>&1 ||
		die "genhtml failed; log: $dir/lcov.log"
}

# build/coverage/index.html: a link to each arch's report.
write_index() {
	local top=$1 a
	{
		echo '<!DOCTYPE html><html><head><title>kunit52 coverage</title></head><body>'
		echo '<h1>kunit52 coverage</h1><ul>'
		for a in "${KUNIT52_ARCHES[@]}"; do
			[[ -e "$top/$a/index.html" ]] || continue
			printf '<li><a href="%s/index.html">%s</a> <pre>%s</pre></li>\n' "$a" "$a" \
				"$(sed 's/&/\&amp;/g; s/</\&lt;/g' "$top/$a/summary.txt")"
		done
		echo '</ul></body></html>'
	} > "$top/index.html"
}

main() {
	local arch=${1:-} build sys top dir rc=0
	local -a sources
	[[ -n "$arch" && $# -eq 1 ]] || die "usage: ${0##*/} ARCH"
	check_arch "$arch"
	[[ -d "$TREE/.git" ]] || die "no prepared tree at $TREE (run: make prepare)"
	build=$(build_dir "$arch")
	sys=$build/system
	top=$REPO/build/coverage
	dir=$top/$arch
	build_kernel "$arch" "$build"
	boot_kernel "$arch" || rc=$?
	[[ $rc -eq 0 ]] || echo "coverage $arch: some tests failed (console: $sys/console.log); reporting anyway" >&2
	mkdir -p "$dir"
	collect_gcda "$build" "$sys" "$dir/gcda"
	report "$arch" "$build" "$dir"
	mapfile -t sources < <(coverage_sources)
	python3 "$REPO/scripts/coverage-summary.py" "$dir/coverage.info" \
		"${sources[@]}" | tee "$dir/summary.txt"
	write_index "$top"
	info "coverage $arch: report $top/index.html ($dir/index.html)"
	return "$rc"
}

main "$@"
