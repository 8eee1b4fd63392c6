#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness' own tests.  Each prints "ok"/"FAIL" and adds a row to
# $KUNIT52_ROWS (default build/selftest/rows.tsv).  Tests that need a
# built kernel are skipped, and say so, when there is none.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

WORK=$REPO/build/selftest
ROWS=${KUNIT52_ROWS:-$WORK/rows.tsv}
FAILED=0

# record NAME STATUS [LOG]: STATUS is ok, FAIL or skip.
record() {
	local name=$1 status=$2 log=${3:--}
	case $status in
	ok)   printf 'ok    %s\n' "$name"
	      printf 'selftest\t%s\t1\t0\t0\t%s\n' "$name" "$log" >> "$ROWS" ;;
	skip) printf 'skip  %s\n' "$name"
	      printf 'selftest\t%s\t0\t0\t1\t%s\n' "$name" "$log" >> "$ROWS" ;;
	*)    printf 'FAIL  %s (log: %s)\n' "$name" "$log" >&2
	      printf 'selftest\t%s\t0\t1\t0\t%s\n' "$name" "$log" >> "$ROWS"
	      FAILED=1 ;;
	esac
}

# check NAME FUNC: run FUNC with its output in WORK/NAME.log.  FUNC runs
# in a subshell with errexit in force (it would be ignored inside "if").
check() {
	local name=$1 log=$WORK/$1.log rc
	set +e
	(set -e; "$2") > "$log" 2>&1
	rc=$?
	set -e
	if [[ $rc -eq 0 ]]; then
		record "$name" ok "$log"
	else
		record "$name" FAIL "$log"
	fi
}

# fails CMD...: succeed only if CMD fails.
fails() {
	if "$@"; then
		echo "unexpected success: $*"
		return 1
	fi
}

# expect_error LOG PATTERN CMD...: CMD must fail with exactly one line of
# error output matching PATTERN.
expect_error() {
	local log=$1 pattern=$2 rc=0
	shift 2
	"$@" > "$log.out" 2> "$log.err" || rc=$?
	cat "$log.out" "$log.err"
	[[ $rc -ne 0 ]] || { echo "expected failure, got exit 0"; return 1; }
	[[ $(wc -l < "$log.err") -eq 1 ]] || { echo "expected one error line"; return 1; }
	grep -q -- "$pattern" "$log.err"
}

t_shellcheck() {
	shellcheck -x "$REPO"/scripts/*.sh "$REPO/.ci/run"
}

t_unknown_arch() {
	expect_error "$WORK/arch" "unknown ARCH 'mips'" "$REPO/scripts/kunit.sh" mips
}

t_unknown_suite() {
	expect_error "$WORK/suite" "unknown SUITE 'nosuch\*'" \
		"$REPO/scripts/kunit.sh" x86_64 'nosuch*'
}

t_soak_bad_input() {
	expect_error "$WORK/soak-arch" "unknown ARCH 'mips'" "$REPO/scripts/soak.sh" mips 10
	expect_error "$WORK/soak-secs" "SECONDS must be a positive number" \
		"$REPO/scripts/soak.sh" x86_64 10m
	expect_error "$WORK/soak-seed" "SEED must be a positive number" \
		"$REPO/scripts/soak.sh" x86_64 10 -5
}

t_make_unknown_arch() {
	expect_error "$WORK/make-arch" "unknown ARCH 'sparc'" \
		make -s --no-print-directory -C "$REPO" kunit ARCH=sparc
}

# kunitconfigs/all is the union of the per-suite files.
t_kunitconfig_union() {
	local f line rc=0
	for f in "$REPO"/kunitconfigs/*; do
		# all is the union; debug and bench are fragments on top of it.
		case $(basename "$f") in all|debug|bench) continue ;; esac
		while read -r line; do
			grep -qxF -- "$line" "$REPO/kunitconfigs/all" ||
				{ echo "$(basename "$f"): '$line' missing from all"; rc=1; }
		done < <(grep '^CONFIG_' "$f")
	done
	return "$rc"
}

# A fake linux-source tarball, patch series and kunit dir under $1.
make_fake_source() {
	local d=$1
	mkdir -p "$d/src/linux-source-6.12/lib" "$d/patches" "$d/kunit/lib/tests"
	printf 'int a;\n' > "$d/src/linux-source-6.12/lib/a.c"
	tar -C "$d/src" -cJf "$d/linux-source-6.12.tar.xz" linux-source-6.12
	git -C "$d/src/linux-source-6.12" init -q
	git -C "$d/src/linux-source-6.12" add -A
	git -C "$d/src/linux-source-6.12" -c user.name=t -c user.email=t@t commit -q -m base
	printf '#include "tests/a_kunit.c"\n' >> "$d/src/linux-source-6.12/lib/a.c"
	git -C "$d/src/linux-source-6.12" -c user.name=t -c user.email=t@t commit -q -am \
		"lib: include the a test"
	git -C "$d/src/linux-source-6.12" format-patch -q -1 -o "$d/patches"
	(cd "$d/patches" && ls -- *.patch) > "$d/patches/series"
	printf '/* test */\n' > "$d/kunit/lib/tests/a_kunit.c"
}

fake_env() {
	local d=$1
	shift
	KUNIT52_TARBALL=$d/linux-source-6.12.tar.xz KUNIT52_TREE=$d/tree \
		KUNIT52_PATCHES=$d/patches KUNIT52_KUNIT=$d/kunit "$@"
}

# Fresh preparation, then no-op, then a refusal that keeps local edits.
t_prepare_tree() {
	local d=$WORK/fake tree head
	rm -rf "$d"
	make_fake_source "$d"
	tree=$d/tree

	fake_env "$d" "$REPO/scripts/prepare-tree.sh"
	git -C "$tree" rev-parse -q --verify pristine
	[[ $(git -C "$tree" rev-list --count pristine..HEAD) -eq 1 ]]
	[[ -L "$tree/lib/tests/a_kunit.c" ]]
	[[ -z "$(git -C "$tree" status --porcelain)" ]]
	head=$(git -C "$tree" rev-parse HEAD)

	# Up to date: nothing happens.
	fake_env "$d" "$REPO/scripts/prepare-tree.sh" 2>&1 | grep -q 'up to date'
	[[ $(git -C "$tree" rev-parse HEAD) == "$head" ]]

	# A test source edit needs no re-preparation (it is linked).
	printf '/* edited */\n' >> "$d/kunit/lib/tests/a_kunit.c"
	fake_env "$d" "$REPO/scripts/prepare-tree.sh" 2>&1 | grep -q 'up to date'

	# Series changed, tree has local edits: refuse and keep them.
	printf 'int b;\n' >> "$tree/lib/a.c"
	printf '\n' >> "$d/patches/series"
	fails fake_env "$d" "$REPO/scripts/prepare-tree.sh" 2> "$WORK/dirty.err"
	grep -q 'has local edits' "$WORK/dirty.err"
	grep -qx 'int b;' "$tree/lib/a.c"

	# A commit of the developer's own is kept as well.
	git -C "$tree" -c user.name=t -c user.email=t@t commit -q -am wip
	fails fake_env "$d" "$REPO/scripts/prepare-tree.sh" 2>/dev/null
	[[ $(git -C "$tree" log -1 --format=%s) == wip ]]

	# Discarded as the message says: re-prepared.
	git -C "$tree" reset -q --hard refs/kunit52/prepared
	fake_env "$d" "$REPO/scripts/prepare-tree.sh"
	[[ $(git -C "$tree" rev-list --count pristine..HEAD) -eq 1 ]]
	fails grep -q 'int b;' "$tree/lib/a.c"
}

# The series folds each test source into the patch that includes it.
t_series_folds_tests() {
	local d=$WORK/fake out=$WORK/fake-series
	[[ -d "$d/tree" ]] || t_prepare_tree
	fake_env "$d" "$REPO/scripts/make-series.sh" "$out"
	grep -q '^+++ b/lib/tests/a_kunit.c' "$out"/0001-*.patch
	# An orphan test source is an error.
	printf 'x\n' > "$d/kunit/lib/orphan_kunit.c"
	fails fake_env "$d" "$REPO/scripts/make-series.sh" "$out" 2>/dev/null
	rm -f "$d/kunit/lib/orphan_kunit.c"
}

# kunit-summary.py: failures, crashes and missing output all fail.
summary_of() {
	local json=$WORK/summary.json
	printf '%s' "$1" > "$json"
	python3 "$REPO/scripts/kunit-summary.py" "$json" x86_64 "$WORK/summary-rows.tsv" -
}

t_summary() {
	local ok='{"sub_groups":[{"name":"s","sub_groups":[],"test_cases":[{"name":"a","status":"PASS"},{"name":"b","status":"SKIP"}]}]}'
	local fail='{"sub_groups":[{"name":"s","sub_groups":[{"name":"p","sub_groups":[],"test_cases":[{"name":"x","status":"FAIL"}]}],"test_cases":[{"name":"a","status":"PASS"}]}]}'
	local crash='{"sub_groups":[{"name":"s","sub_groups":[],"test_cases":[{"name":"a","status":"ERROR"}]}]}'
	summary_of "$ok"
	fails summary_of "$fail"
	fails summary_of "$crash"
	fails summary_of '{"sub_groups":[]}'
	fails summary_of 'not json'
	grep -q '(no KTAP output)' "$WORK/summary-rows.tsv"
}

have_kernel() {
	[[ -f "$REPO/build/x86_64/arch/x86/boot/bzImage" ]]
}

# A real boot that prints no KTAP results (the suites are only listed)
# must fail the run.
t_boot_no_ktap() {
	fails env KUNIT52_KUNIT_MODE=exec KUNIT52_KERNEL_ARGS=kunit.action=list \
		KUNIT52_ROWS="$WORK/boot-rows.tsv" KUNIT52_BOOT_TIMEOUT=120 \
		"$REPO/scripts/kunit.sh" x86_64
	grep -q $'no KTAP output)\t0\t1' "$WORK/boot-rows.tsv"
}

# A guest that never runs (QEMU -S: CPUs stopped) must fail at the boot
# timeout.
t_boot_hang() {
	local start=$SECONDS
	fails env KUNIT52_KUNIT_MODE=exec KUNIT52_QEMU_ARGS=-S \
		KUNIT52_ROWS="$WORK/hang-rows.tsv" KUNIT52_BOOT_TIMEOUT=20 \
		"$REPO/scripts/kunit.sh" x86_64
	echo "failed after $((SECONDS - start))s"
	awk -F'\t' '$4 > 0 { f = 1 } END { exit !f }' "$WORK/hang-rows.tsv"
}

# Every planted bug of scripts/mutations/ still applies to the tree.
t_mutants_apply() {
	"$REPO/scripts/mutants.sh" --check "$REPO"/scripts/mutations/*.tsv
}

# A guest that panics must fail the full-system run, quickly.
t_system_panic() {
	fails env KUNIT52_SYSTEM_ARGS=kunit52.inject=panic KUNIT52_SYSTEM_TIMEOUT=300 \
		KUNIT52_ROWS="$WORK/panic-rows.tsv" "$REPO/scripts/system.sh" x86_64
	grep -q $'kernel-report\t0\t1' "$WORK/panic-rows.tsv"
	grep -q 'Kernel panic' "$REPO/build/x86_64/system/console.log"
}

# A guest that hangs must fail at the time limit.
t_system_hang() {
	fails env KUNIT52_SYSTEM_ARGS=kunit52.inject=hang KUNIT52_SYSTEM_TIMEOUT=60 \
		KUNIT52_ROWS="$WORK/hang-sys-rows.tsv" "$REPO/scripts/system.sh" x86_64
	grep -q $'did not finish)\t0\t1' "$WORK/hang-sys-rows.tsv"
}

main() {
	rm -rf "$WORK"
	mkdir -p "$WORK"
	[[ -n "${KUNIT52_ROWS:-}" ]] || : > "$ROWS"

	check shellcheck t_shellcheck
	check unknown-arch t_unknown_arch
	check unknown-suite t_unknown_suite
	check make-unknown-arch t_make_unknown_arch
	check soak-bad-input t_soak_bad_input
	check kunitconfig-all-is-union t_kunitconfig_union
	check prepare-tree-keeps-edits t_prepare_tree
	check series-folds-tests t_series_folds_tests
	check summary-counts-failures t_summary
	check mutants-apply t_mutants_apply
	if have_kernel; then
		check boot-without-ktap-fails t_boot_no_ktap
		check boot-hang-times-out t_boot_hang
		check system-panic-fails t_system_panic
		check system-hang-fails t_system_hang
	else
		record boot-without-ktap-fails skip
		record boot-hang-times-out skip
		record system-panic-fails skip
		record system-hang-fails skip
	fi
	return "$FAILED"
}

main "$@"
