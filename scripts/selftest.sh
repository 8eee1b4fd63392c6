#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness' own tests.  Each prints "ok"/"FAIL" and records a result
# in $KUNIT52_RESULTS (default build/selftest/results.jsonl).  Tests that need a
# built kernel are skipped, and say so, when there is none.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

WORK=$REPO/build/selftest
# The self-tests' boots and builds are not the gate's: keep them out of
# its boot and cache tables.
unset KUNIT52_BOOT_REPORT KUNIT52_CCACHE_REPORT KUNIT52_TREE_CACHE_STORE
export KUNIT52_RESULTS=${KUNIT52_RESULTS:-$WORK/results.jsonl}
FAILED=0

# record NAME STATUS [LOG]: STATUS is ok, FAIL or skip.
record() {
	local name=$1 status=$2 log=${3:--}
	case $status in
	ok)   printf 'ok    %s\n' "$name"
	      result selftest host harness "$name" PASS "$log" ;;
	skip) printf 'skip  %s\n' "$name"
	      result selftest host harness "$name" SKIP "$log" "no kernel built" ;;
	*)    printf 'FAIL  %s (log: %s)\n' "$name" "$log" >&2
	      result selftest host harness "$name" FAIL "$log" "$(tail -3 "$log" 2>/dev/null)"
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
	# make test refuses an unknown GATE_ARCHES before any step; so does
	# the gate itself, and a blank one.
	expect_error "$WORK/gate-arch" "unknown ARCH 'sparc' in GATE_ARCHES" \
		make -s --no-print-directory -C "$REPO" test GATE_ARCHES='x86_64 sparc'
	expect_error "$WORK/gate-arch-script" "unknown ARCH 'sparc'" \
		env KUNIT52_GATE_ARCHES='x86_64 sparc' "$REPO/scripts/gate.sh"
	expect_error "$WORK/gate-blank" "no arch to gate" \
		env KUNIT52_GATE_ARCHES=' ' "$REPO/scripts/gate.sh"
	# A static guest (powerpc) has no shell for make boot.
	expect_error "$WORK/boot-static" "powerpc's guest has no shell" \
		"$REPO/scripts/system.sh" --shell powerpc
}

# The console's bug reports count, except those a test marked as
# expected (between the markers) and the KASAN suite's own; a panic
# counts everywhere.
t_expected_reports() {
	local log=$WORK/console.txt
	printf '%s\n' "[ 1.0] $KUNIT52_EXPECTED_BEGIN: lkdtm X" "[ 1.1] Oops: Kernel access" \
		"[ 1.2] $KUNIT52_EXPECTED_END" "    # Subtest: kasan" \
		"    BUG: KASAN: slab-out-of-bounds in x" "ok 3 kasan" > "$log"
	[[ -z $(first_report "$log") ]]
	echo "[ 2.0] BUG: KASAN: use-after-free in y" >> "$log"
	[[ $(first_report "$log") == "[ 2.0] BUG: KASAN: use-after-free in y" ]]
	printf '%s\n' "[ 1.0] $KUNIT52_EXPECTED_BEGIN: lkdtm X" \
		"[ 1.1] Kernel panic - not syncing: Fatal exception" > "$log"
	[[ $(first_report "$log") == "[ 1.1] Kernel panic - not syncing: Fatal exception" ]]
}

# Adding an architecture is one file in qemu_configs/ (README): with a
# copy of x86_64's table renamed to riscv64, every fact the boot uses
# changed, beside the real ones, every script takes ARCH=riscv64 and
# reads its facts from the new file.
t_new_arch() {
	local dir=$WORK/qemu_configs boot
	mkdir -p "$dir"
	cp "$REPO"/qemu_configs/*.py "$dir/"
	sed -e "s/'amd64'/'riscv64'/; s/'x86_64-linux-gnu'/'riscv64-linux-gnu'/" \
	    -e "s/'cross_compile': ''/'cross_compile': 'riscv64-linux-gnu-'/" \
	    -e "s/'qemu_arch': 'x86_64'/'qemu_arch': 'riscv64'/" \
	    -e "s/'gate_variant': ''/'gate_variant': 'debug'/" \
	    -e "s|'arch/x86/boot/bzImage'|'arch/riscv/boot/Image'|" \
	    -e "s/'console': 'ttyS0'/'console': 'ttyS9'/" \
	    -e "s/'virtio': 'pci'/'virtio': 'mmio'/" \
	    -e "s/'system_args': 'acpi=off'/'system_args': 'riscv_only=1'/" \
	    -e "s/linux_arch='x86_64'/linux_arch='riscv'/" \
	    "$REPO/qemu_configs/x86_64.py" > "$dir/riscv64.py"
	export KUNIT52_QEMU_CONFIGS=$dir
	[[ $("$REPO/scripts/arch.py" --list | tr '\n' ' ') == "arm64 powerpc riscv64 x86_64 " ]]
	[[ $("$REPO/scripts/arch.py" riscv64 guest_cc) == riscv64-linux-gnu-gcc ]]
	[[ $("$REPO/scripts/arch.py" riscv64 debian_arch) == riscv64 ]]
	# The kernel's ARCH= (the guest's UAPI headers) is kunit.py's own.
	[[ $("$REPO/scripts/arch.py" riscv64 linux_arch) == riscv ]]
	# An extra boot's QEMU arguments, one a line; none is no line at all
	# (an empty argument would be a QEMU drive without media).
	[[ $("$REPO/scripts/arch.py" riscv64 extra-boot mds-kvm64 qemu | tr '\n' ' ') == "-cpu kvm64 " ]]
	[[ $("$REPO/scripts/arch.py" riscv64 extra-boot psi-off qemu | wc -l) == 0 ]]
	# kunit.sh accepts the arch (and goes on to check the suite); so does
	# make (-n: its ARCH check is made while reading the Makefile).
	expect_error "$WORK/new-arch-kunit" "unknown SUITE 'nosuch'" \
		"$REPO/scripts/kunit.sh" riscv64 nosuch
	make -n -s --no-print-directory -C "$REPO" kunit ARCH=riscv64 > /dev/null
	# The boot is the table's machine, devices and arguments.
	boot=$(KUNIT52_VARIANT=debug "$REPO/scripts/system.sh" --print riscv64)
	echo "$boot"
	[[ $boot == "qemu-system-riscv64 -accel tcg -smp 2 -m 2048 "* ]]
	[[ $boot == *" -device virtio-blk-device"* ]]
	[[ $boot == *"build/riscv64-debug/arch/riscv/boot/Image "* ]]
	[[ $boot == *"console=ttyS9\ panic=-1"*"riscv_only=1"* ]]
	[[ $boot != *"acpi=off"* ]]
}

# ccache_env CACHE_DIR [MIN_FREE_KB]: in a subshell, print the warning
# and "disabled=<CCACHE_DISABLE>" for a cache at CACHE_DIR.
cache_setup() {
	(
		KUNIT52_CCACHE_DIR=$1
		KUNIT52_CCACHE_MIN_FREE_KB=${2:-$KUNIT52_CCACHE_MIN_FREE_KB}
		ccache_env "$WORK/ccache-stats.log" 2>&1
		echo "disabled=${CCACHE_DISABLE:-0} dir=${CCACHE_DIR:-none}"
	)
}

# A cache that cannot be made, or sits on a full file system, is bypassed
# with one warning line; a good one is used.
t_ccache_fallback() {
	local out
	out=$(cache_setup /proc/kunit52-no-cache)
	echo "$out"
	[[ $(grep -c 'warning: compiler cache' <<< "$out") -eq 1 ]]
	grep -q 'cannot create it; building without it' <<< "$out"
	grep -q 'disabled=1' <<< "$out"
	[[ $(ccache_summary "$WORK/ccache-stats.log") == "cache off: cannot create it" ]]
	out=$(cache_setup "$WORK/cache" 999999999999)
	echo "$out"
	grep -q 'file system is full .*; building without it' <<< "$out"
	grep -q 'disabled=1' <<< "$out"
	out=$(cache_setup "$WORK/cache")
	echo "$out"
	[[ $(wc -l <<< "$out") -eq 1 ]]
	grep -qx "disabled=0 dir=$WORK/cache" <<< "$out"
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
	mkdir -p "$d/cover"
	printf 'lib:\tlib\n' > "$d/cover/subsystems"
	printf 'lib: the a test\nText of the cover letter.\n' > "$d/cover/lib"
}

# A get_maintainer.pl for the fake tree: a maintainer, or with --no-m a list.
fake_get_maintainer() {
	mkdir -p "$1/scripts"
	cat > "$1/scripts/get_maintainer.pl" <<'PERL'
print grep(/^--no-m$/, @ARGV) ? "list\@fake.invalid\n" : "Maint <m\@fake.invalid>\n";
PERL
}

fake_env() {
	local d=$1
	shift
	KUNIT52_TARBALL=$d/linux-source-6.12.tar.xz KUNIT52_TREE=$d/tree \
		KUNIT52_PATCHES=$d/patches KUNIT52_KUNIT=$d/kunit KUNIT52_COVERS=$d/cover \
		KUNIT52_PRISTINE_DIR=$d/pristine "$@"
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

	# Another clone's tree comes from the machine's pristine repository,
	# with the same commits.
	fake_env "$d" env KUNIT52_TREE="$d/tree2" "$REPO/scripts/prepare-tree.sh" > "$d/tree2.out" 2>&1
	grep -q 'checked out pristine' "$d/tree2.out"
	grep -q 'applied before on this machine' "$d/tree2.out"
	[[ $(git -C "$d/tree2" rev-parse HEAD) == "$head" ]]
	[[ -z "$(git -C "$d/tree2" status --porcelain)" ]]

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

# tree_cache_env D CMD...: CMD with fake clone D's tree and kunit/ and the
# self-test's own tree cache.
tree_cache_env() {
	local d=$1
	shift
	KUNIT52_TREE=$d/tree KUNIT52_KUNIT=$d/kunit KUNIT52_TREES_DIR=$WORK/trees "$@"
}

# fake_build BUILD: a make build of the fake tree: a.o from lib/a.c and
# the test file it includes, and a file naming the tree by its absolute
# path (as tools/objtool's command lines do).
fake_build() {
	mkdir -p "$1"
	printf 'a.o: ../lib/a.c ../lib/tests/a_kunit.c\n\tcat $^ > $@\n' > "$1/Makefile"
	echo "$(cd "$1/.." && pwd)/tools/include" > "$1/paths.txt"
	make -s -C "$1"
}

# A build tree stored by one clone seeds another's: nothing is rebuilt
# when the sources are the same, whatever their dates; a source whose
# content differs is rebuilt; absolute paths follow the clone; a source
# edited during the build, an interrupted store, a developer's own
# build directory and an added header each keep the cache out.
t_tree_cache() {
	local d=$WORK/tree-cache one two b1 b2
	rm -rf "$d" "$WORK/trees"
	one=$d/one
	two=$d/two
	make_fake_source "$one"
	fake_env "$one" "$REPO/scripts/prepare-tree.sh"
	b1=$one/tree/.build-fake
	tree_cache_env "$one" "$REPO/scripts/tree-cache.sh" manifest "$d/before"
	fake_build "$b1"
	tree_cache_env "$one" "$REPO/scripts/tree-cache.sh" store "$b1" "$d/before"
	[[ -f "$WORK/trees/fake/complete" ]]

	# The second clone, prepared later: same sources, newer dates.
	sleep 1
	make_fake_source "$two"
	fake_env "$two" "$REPO/scripts/prepare-tree.sh"
	touch "$two/kunit/lib/tests/a_kunit.c" "$two/tree/lib/a.c"
	b2=$two/tree/.build-fake
	mkdir -p "$b2"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" seed "$b2" | tee "$d/seed.out"
	grep -q '0 source(s) differ' "$d/seed.out"
	make -q -C "$b2" a.o || { echo "a.o rebuilt with the same sources"; return 1; }
	grep -qx "$two/tree/tools/include" "$b2/paths.txt"

	# A test file whose content differs, even dated before the stored
	# build (a clone checked out earlier): a.o is rebuilt, with it.
	rm -rf "$b2"
	mkdir -p "$b2"
	printf '/* edited */\n' >> "$two/kunit/lib/tests/a_kunit.c"
	touch -d 2001-01-01 "$two/kunit/lib/tests/a_kunit.c"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" seed "$b2" | tee "$d/seed.out"
	grep -q '1 source(s) differ' "$d/seed.out"
	fails make -q -C "$b2" a.o
	make -s -C "$b2"
	grep -q edited "$b2/a.o"

	# A developer's build directory is never seeded over.
	echo mine > "$b2/a.o"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" seed "$b2"
	grep -qx mine "$b2/a.o"

	# A source edited during the build: not stored.
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" manifest "$d/before2"
	printf '/* again */\n' >> "$two/kunit/lib/tests/a_kunit.c"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" store "$b2" "$d/before2" |
		grep -q 'not stored: a source changed during the build'
	grep -qx "$one/tree" "$WORK/trees/fake/source-tree"

	# A header added since the entry was built: the tree is not used.
	rm -rf "$b2"
	mkdir -p "$b2"
	printf 'int h;\n' > "$two/tree/lib/h.h"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" seed "$b2" | grep -q 'not used (lib/h.h'
	[[ -z "$(ls -A "$b2")" ]]
	rm "$two/tree/lib/h.h"

	# An interrupted store leaves no entry a seed would use.
	rm "$WORK/trees/fake/complete"
	tree_cache_env "$two" "$REPO/scripts/tree-cache.sh" seed "$b2"
	[[ -z "$(ls -A "$b2")" ]]
}

# The series folds each test source into the patch that includes it.
t_series_folds_tests() {
	local d=$WORK/fake out=$WORK/fake-series
	[[ -d "$d/tree" ]] || t_prepare_tree
	fake_get_maintainer "$d/tree"
	fake_env "$d" "$REPO/scripts/make-series.sh" "$out"
	grep -q '^+++ b/lib/tests/a_kunit.c' "$out"/0001-*.patch
	# The per-subsystem series: cover letter, recipients, the patch.
	grep -qx 'Subject: \[PATCH 0/1\] lib: the a test' "$out/send/lib/0000-cover-letter.patch"
	grep -qx 'Text of the cover letter.' "$out/send/lib/0000-cover-letter.patch"
	grep -qx 'To: Maint <m@fake.invalid>' "$out/send/lib/0001-"*.patch
	grep -qx 'Cc: list@fake.invalid' "$out/send/lib/0001-"*.patch
	# A patch of no known subsystem is an error.
	printf 'other:\tother\n' > "$d/cover/subsystems"
	fails fake_env "$d" "$REPO/scripts/make-series.sh" "$out" 2>/dev/null
	printf 'lib:\tlib\n' > "$d/cover/subsystems"
	# An orphan test source is an error.
	printf 'x\n' > "$d/kunit/lib/orphan_kunit.c"
	fails fake_env "$d" "$REPO/scripts/make-series.sh" "$out" 2>/dev/null
	rm -f "$d/kunit/lib/orphan_kunit.c"
}

# check-fixes.sh: a fix needs Fixes: (or a reason) and a test that names it.
# shellcheck disable=SC2016 # backquotes of the README, not expansions
t_fixes_checked() {
	local d=$WORK/fixes entry='- `0001-x.patch`: a bug. Caught by `a_test`.'
	mkdir -p "$d/patches" "$d/tests"
	printf 'KUNIT_CASE(a_test),\n' > "$d/tests/a_kunit.c"
	printf 'Subject: x\n\nSigned-off-by: t <t@t>\n' > "$d/patches/0001-x.patch"
	printf '## Kernel fixes carried\n\n%s\n\n## Next\n' "$entry" > "$d/README.md"
	fails check_fixes_in "$d" 2>/dev/null
	sed -i 's/^Signed-off-by/Fixes: 0123456789ab ("x: y")\n&/' "$d/patches/0001-x.patch"
	check_fixes_in "$d"
	sed -i 's/a_test/b_test/' "$d/README.md"
	fails check_fixes_in "$d" 2>/dev/null
	sed -i 's/b_test/a_test/; s/Fixes: .*//' "$d/README.md" "$d/patches/0001-x.patch"
	sed -i 's/a bug\./a bug, no `Fixes:`: hardening./' "$d/README.md"
	check_fixes_in "$d"
}

check_fixes_in() {
	KUNIT52_RESULTS=/dev/null "$REPO/scripts/check-fixes.sh" "$1/README.md" "$1/patches" "$1/tests"
}

# results.py: failures, crashes and missing output all fail.
results_of() {
	printf '%s\n' "$1" > "$WORK/summary.ktap"
	KUNIT52_RESULTS=$WORK/summary.jsonl results_of_ktap kunit x86_64 "$WORK/summary.ktap"
}

t_summary() {
	local r=$REPO/scripts/results.py
	results_of $'KTAP version 1\n1..1\n# Subtest: s\n1..2\nok 1 a\nok 2 b # SKIP no\nok 1 s'
	fails results_of $'KTAP version 1\n1..1\n# Subtest: s\n1..2\nok 1 a\n# b: EXPECTATION FAILED at x.c:7\nnot ok 2 b\nnot ok 1 s'
	# A crash: the plan promised two cases, one ran.
	fails results_of $'KTAP version 1\n1..1\n# Subtest: s\n1..2\nok 1 a'
	fails results_of 'no ktap here'
	python3 "$r" has --suite '(no KTAP output)' --status ERROR "$WORK/summary.jsonl"
	# The report counts what the gate counts, and fails on any failure.
	fails python3 "$r" report "$WORK/summary.jsonl" > "$WORK/report.txt"
	[[ $(tail -1 "$WORK/report.txt") == '3 passed, 3 failed' ]]
	# ... and shows why a case failed, not only where its log is.
	grep -q '^    # b: EXPECTATION FAILED at x.c:7$' "$WORK/report.txt"
	python3 "$r" junit --out "$WORK/junit.xml" "$WORK/summary.jsonl"
	grep -q '<failure' "$WORK/junit.xml"
	grep -q '<skipped' "$WORK/junit.xml"
}

# LAVA's monitors (scripts/lava.py), fed in random pieces as
# lava-dispatcher reads a console, record one case per KTAP leaf with
# its result, as our parser does: parameters and a guest test's groups
# (indent 8) without their parent's line, skips, failures, a kernel
# message and diagnostics between parameters, a suite's SKIP.
LAVA_KTAP=(
	'KTAP version 1' '1..3'
	'    KTAP version 1' '    # Subtest: alpha' '    # module: alpha_test' '    1..4'
	'    ok 1 plain_case'
	'        KTAP version 1' '        # Subtest: param_case'
	'        ok 1 first "quoted" param'
	'[    1.234567] a kernel message between parameters'
	'        # param_case: a diagnostic line'
	'        not ok 2 - second param'
	'        ok 3 third # SKIP not this time'
	'    # param_case: pass:1 fail:1 skip:1 total:3'
	'    not ok 2 param_case'
	'        KTAP version 1' '        # Subtest: single_param'
	'        ok 1 the only one'
	'    ok 3 single_param'
	'    ok 4 skipped_case # SKIP a reason'
	'# alpha: pass:2 fail:1 skip:1 total:4' 'not ok 1 alpha'
	'    KTAP version 1' '    # Subtest: beta' '    1..1'
	'    ok 1 beta_case # SKIP not here'
	'ok 2 beta # SKIP'
	'    KTAP version 1' '    # Subtest: gamma_test' '    1..2'
	'    ok 1 a guest test'"'"'s first case'
	'        KTAP version 1' '        # Subtest: vers=3' '        1..2'
	'        ok 1 vers=3: mount -o hard'
	'        # rw,relatime,vers=3'
	'        ok 2 vers=3: a file written'
	'    ok 2 vers=3'
	'    # gamma_test: ran 0.5 s'
	'ok 3 gamma_test'
)
LAVA_KTAP_LEAVES=10

t_lava_monitors() {
	local seed=$((RANDOM * 32768 + RANDOM)) k=$WORK/lava.ktap
	printf '%s\n' "${LAVA_KTAP[@]}" > "$k"
	: > "$WORK/lava-ours.jsonl"
	KUNIT52_RESULTS=$WORK/lava-ours.jsonl results_of_ktap kunit x86_64 "$k" --quiet || true
	/usr/bin/python3 "$REPO/scripts/lava.py" scan --seed "$seed" "$k" alpha beta gamma_test \
		> "$WORK/lava-scan.jsonl"
	cat "$WORK/lava-scan.jsonl"
	[[ $(wc -l < "$WORK/lava-scan.jsonl") -eq $LAVA_KTAP_LEAVES ]]
	printf '%s\n' 'actions:' '- test:' '    monitors:' '    - name: alpha' \
		'    - name: beta' '    - name: gamma_test' > "$WORK/lava-job.yaml"
	/usr/bin/python3 "$REPO/scripts/lava.py" compare --job "$WORK/lava-job.yaml" \
		"$WORK/lava-ours.jsonl" "$WORK/lava-scan.jsonl"
}

# have_gate_builds: the kernel and initramfs of every arch of the gate
# (the gate's own steps made them before this one).
have_gate_builds() {
	local a list build
	list=$(gate_arches) || return 1
	for a in $list; do
		build=$(KUNIT52_VARIANT=$(gate_variant "$a") build_dir "$a")
		[[ -f "$build/$(arch_fact "$a" kernel_path)" &&
		   -f "$build/system/initramfs.cpio.gz" ]] || return 1
	done
}

# make lava-jobs writes a job, valid by LAVA's schema, for every boot of
# the gate (and a KUnit job for each plain kernel), each with a monitor
# per suite; bad input is refused in one line.
t_lava_jobs() {
	local a list n=0 lava=$WORK/lava
	expect_error "$WORK/lava-arch" "unknown ARCH 'mips'" "$REPO/scripts/lava.sh" jobs mips
	expect_error "$WORK/lava-cmd" "unknown command 'nosuch'" "$REPO/scripts/lava.sh" nosuch
	KUNIT52_LAVA_DIR=$lava "$REPO/scripts/lava.sh" jobs
	list=$(gate_arches)
	for a in $list; do
		n=$((n + $(KUNIT52_VARIANT=$(gate_variant "$a") "$REPO/scripts/system.sh" --boots "$a" | wc -l)))
		[[ -n $(gate_variant "$a") ]] || n=$((n + 1))
	done
	echo "expected $n jobs"
	[[ $(find "$lava/jobs" -name '*.yaml' | wc -l) -eq $n ]]
	for a in "$lava"/jobs/*.yaml; do
		grep -q '^    - name: ' "$a" || { echo "$a: no monitor"; return 1; }
	done
	[[ -s "$lava/jobs/artifacts.txt" ]]
}

have_kernel() {
	[[ -f "$REPO/build/x86_64/arch/x86/boot/bzImage" ]]
}

# A source that .incbin's a file is compiled again when that file changes
# (x86's piggy.S and the compressed kernel): with the cache as the builds
# set it, the second object holds the new bytes.  Depend mode failed this.
t_ccache_incbin() {
	local d=$WORK/incbin b
	mkdir -p "$d"
	printf '.section .rodata\n.incbin "blob.bin"\n' > "$d/piggy.S"
	for b in AAAA BBBB; do
		printf '%s' "$b" > "$d/blob.bin"
		(
			cd "$d"
			KUNIT52_CCACHE_DIR=$d/cache
			ccache_env "$d/stats.log"
			gcc -Wp,-MMD,.piggy.o.d -c piggy.S -o piggy.o
		)
		objcopy -O binary --only-section=.rodata "$d/piggy.o" "$d/payload.bin"
		echo "blob $b, object $(cat "$d/payload.bin")"
		cmp "$d/blob.bin" "$d/payload.bin"
	done
}

# The guard of every verdict: a console whose kernel banner is not the
# build's vmlinux's (an earlier link, another build) or shows none is
# refused; the kernel's own line and /init's copy of /proc/version agree.
t_booted_kernel_guard() {
	local d=$WORK/guard banner='Linux version 6.12.0 (a@b) (gcc 12.2.0) #7 SMP PREEMPT_DYNAMIC Mon Dec  7 18:00:00 UTC 2026'
	mkdir -p "$d"
	printf '\x7fELF\x01%s\n\x00\x02%s\n\x00\x03' "${banner/\#7 SMP*/# SMP PREEMPT_DYNAMIC }" \
		"$banner" > "$d/vmlinux"
	printf '[    0.000000] %s\r\n' "$banner" > "$d/same.log"
	printf 'kunit52: kernel: %s\nKTAP version 1\n' "$banner" > "$d/ktap.log"
	printf '[    0.000000] %s\r\n' "${banner/\#7/#6}" > "$d/earlier.log"
	printf '[    0.000000] %s\nkunit52: kernel: %s\n' "$banner" "${banner/18:00/18:01}" > "$d/mixed.log"
	printf 'SeaBIOS\n' > "$d/none.log"
	check_booted_kernel "$d" "$d/same.log" "$d/ktap.log"
	check_booted_kernel "$d" "$d/none.log" "$d/ktap.log"
	guard_refuses "$d" "$d/earlier.log" "is #6 SMP .*, not this build's #7 SMP"
	guard_refuses "$d" "$d/mixed.log" '18:01:00 UTC 2026, not'
	printf '%s\n' "${banner/6.12.0/6.13.0}" > "$d/other.log"
	guard_refuses "$d" "$d/other.log" "is '6.13.0 (a@b)"
	guard_refuses "$d" "$d/none.log" 'no kernel banner in .*none.log: no kernel'
	rm "$d/vmlinux"
	guard_refuses "$d" "$d/same.log" 'no kernel banner in'
}

# guard_refuses BUILD LOG PATTERN: check_booted_kernel refuses, saying PATTERN.
guard_refuses() {
	local why
	if why=$(check_booted_kernel "$1" "$2"); then
		echo "$2: accepted"
		return 1
	fi
	echo "$2: $why"
	grep -q -- "$3" <<< "$why"
}

# A real boot that prints no KTAP results (the suites are only listed)
# must fail the run.
t_boot_no_ktap() {
	fails env KUNIT52_KUNIT_MODE=exec KUNIT52_KERNEL_ARGS=kunit.action=list \
		KUNIT52_RESULTS="$WORK/boot.jsonl" KUNIT52_BOOT_TIMEOUT=120 \
		"$REPO/scripts/kunit.sh" x86_64
	python3 "$REPO/scripts/results.py" has --suite '(no KTAP output)' \
		--status ERROR "$WORK/boot.jsonl"
}

# A guest that never runs (QEMU -S: CPUs stopped) must fail at the boot
# timeout.
t_boot_hang() {
	local start=$SECONDS
	fails env KUNIT52_KUNIT_MODE=exec KUNIT52_QEMU_ARGS=-S \
		KUNIT52_RESULTS="$WORK/hang.jsonl" KUNIT52_BOOT_TIMEOUT=20 \
		"$REPO/scripts/kunit.sh" x86_64
	echo "failed after $((SECONDS - start))s"
	python3 "$REPO/scripts/results.py" has --status FAIL,ERROR "$WORK/hang.jsonl"
}

# Every planted bug of mutations/ still applies to the tree.
t_mutants_apply() {
	"$REPO/scripts/mutants.sh" --check "$REPO"/mutations/*.tsv
}

# A guest that panics must fail the full-system run, quickly.
t_system_panic() {
	fails env KUNIT52_SYSTEM_ARGS=kunit52.inject=panic KUNIT52_SYSTEM_TIMEOUT=300 \
		KUNIT52_RESULTS="$WORK/panic.jsonl" KUNIT52_SYSTEM_DIR="$WORK/panic" \
		"$REPO/scripts/system.sh" x86_64
	python3 "$REPO/scripts/results.py" has --suite kernel-report --status FAIL \
		"$WORK/panic.jsonl"
	grep -q 'Kernel panic' "$WORK/panic/console.log"
}

# A guest that hangs must fail at the time limit.
t_system_hang() {
	fails env KUNIT52_SYSTEM_ARGS=kunit52.inject=hang KUNIT52_SYSTEM_TIMEOUT=60 \
		KUNIT52_RESULTS="$WORK/hang-sys.jsonl" KUNIT52_SYSTEM_DIR="$WORK/hang-sys" \
		"$REPO/scripts/system.sh" x86_64
	python3 "$REPO/scripts/results.py" has --suite boot --status FAIL \
		"$WORK/hang-sys.jsonl"
}

# make coverage refuses bad input in one line, and its summary counts a
# function's lines, branches and gaps as lcov recorded them.
t_coverage() {
	local info=$WORK/cov.info out=$WORK/cov.summary
	expect_error "$WORK/cov-arch" "unknown ARCH 'mips'" "$REPO/scripts/coverage.sh" mips
	expect_error "$WORK/cov-deps" "unknown package group 'nosuch'" \
		"$REPO/scripts/deps.sh" nosuch
	printf '%s\n' SF:/t/mm/vmalloc.c FN:10,va_clip FN:20,other \
		FNDA:3,va_clip FNDA:0,other DA:11,3 DA:12,0 DA:13,3 DA:21,0 \
		BRDA:11,0,0,2 BRDA:11,0,1,- BRDA:13,0,0,1 BRDA:13,0,1,1 \
		end_of_record > "$info"
	"$REPO/scripts/coverage-summary.py" "$info" mm/vmalloc.c | tee "$out"
	grep -Eq '^  va_clip +2/3 +66.7% +3/4 +75.0% +1/1' "$out"
	grep -q 'line 12 (va_clip): not run' "$out"
	grep -q 'line 11 (va_clip): 1 of 2 branches never taken' "$out"
	if grep -q 'line 21' "$out"; then
		echo "a function outside the goal was listed"
		return 1
	fi
	grep -q 'mm/vmalloc.c: goal lines >= 100%, branches >= 95%: NOT met' "$out"
}

# make kunit and make watch refuse a SUITE that names nothing, with exit
# status 2 and one line, before preparing or building anything.
t_loop_bad_suite() {
	local goal rc
	for goal in kunit watch; do
		rc=0
		make -s --no-print-directory -C "$REPO" "$goal" ARCH=x86_64 SUITE=nosuch \
			> "$WORK/$goal.out" 2> "$WORK/$goal.err" || rc=$?
		cat "$WORK/$goal.out" "$WORK/$goal.err"
		[[ $rc -eq 2 ]] || { echo "make $goal: exit $rc, not 2"; return 1; }
		[[ $(wc -l < "$WORK/$goal.err") -eq 1 ]] || { echo "make $goal: not one line"; return 1; }
		grep -q "unknown SUITE 'nosuch'" "$WORK/$goal.err"
		[[ ! -e "$REPO/build/x86_64-loop-nosuch" ]]
	done
}

# console_then_silence SECONDS LINE...: the lines, then SECONDS of
# silence (a kernel that stopped making progress) from a process that
# looks like the loop kernel's QEMU, for the watchdog to end.
console_then_silence() {
	local secs=$1
	shift
	printf '%s\n' "$@"
	(exec -a "qemu-system-x86_64 -kernel $WORK/loop/vmlinux" sleep "$secs")
}

# loop_fn FUNC ARG...: a function of scripts/loop.sh, in a shell of its
# own that sources it.
loop_fn() {
	bash -c 'source "$1" && shift && "$@"' selftest "$REPO/scripts/loop.sh" "$@"
}

# watched SECONDS LINE...: the loop's console watchdog over that
# console; prints how long it took, in whole seconds, then its messages.
watched() {
	local start=$SECONDS
	console_then_silence "$@" |
		LOOP_KERNEL=vmlinux CROSS_PREFIX='' loop_fn watch_console "$WORK/loop" 2> "$WORK/loop/stderr"
	echo "$((SECONDS - start))"
	cat "$WORK/loop/stderr" >&2
}

# The loop stops a kernel that reported a bug and went silent within
# seconds, naming the report and the case that was running; one silent
# for the stall bound too; a kernel that goes on printing is left alone.
t_loop_stops_stalled_kernel() {
	local took
	mkdir -p "$WORK/loop"
	local -a ktap=("KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: vmalloc_free_space"
		       "    1..3" "    ok 1 alloc_smallest_fits")
	took=$(watched 30 "${ktap[@]}" "BUG: kernel NULL pointer dereference, address: 0000000000000000" \
		"RIP: 0010:0xffffffff81234567")
	echo "report then silence: stopped after ${took}s"
	[[ $took -le 8 ]]
	grep -q "STOPPED: a kernel report (running: suite vmalloc_free_space, the case after alloc_smallest_fits), then 5s of silence" "$WORK/loop/stderr"
	grep -q "running: suite vmalloc_free_space, the case after alloc_smallest_fits" "$WORK/loop/stderr"
	grep -q "| BUG: kernel NULL pointer dereference" "$WORK/loop/stderr"
	took=$(KUNIT52_LOOP_STALL=3 watched 30 "${ktap[@]}")
	echo "silence: stopped after ${took}s"
	[[ $took -le 6 ]]
	grep -q "STOPPED: no console line for 3s" "$WORK/loop/stderr"
	took=$(KUNIT52_LOOP_STALL=3 watched 0 "${ktap[@]}" "    ok 2 x" "    ok 3 y" "ok 1 vmalloc_free_space")
	[[ -z "$(cat "$WORK/loop/stderr")" ]]
}

# The loop's configuration check: the symbols that the objects compiling
# a test file read (their fixdep lists) and whose value is not the gate's.
t_loop_config_agreement() {
	local b=$WORK/loop-agree
	mkdir -p "$b/reference" "$b/mm"
	cat > "$b/mm/.vmalloc.o.cmd" <<-'EOF'
	savedcmd_mm/vmalloc.o := gcc -c ../mm/vmalloc.c
	deps_mm/vmalloc.o := \
	  ../mm/tests/vmalloc_kunit.c \
	  $(wildcard include/config/MEMCG) \
	  $(wildcard include/config/KALLSYMS) \
	  $(wildcard include/config/NUMA) \
	  $(wildcard include/config/SMP) \
	EOF
	cat > "$b/mm/.other.o.cmd" <<-'EOF'
	savedcmd_mm/other.o := gcc -c ../mm/other.c
	  $(wildcard include/config/NET) \
	EOF
	printf '%s\n' CONFIG_SMP=y '# CONFIG_MEMCG is not set' CONFIG_NET=y > "$b/.config"
	printf '%s\n' CONFIG_SMP=y CONFIG_MEMCG=y CONFIG_KALLSYMS=y > "$b/reference/.config"
	loop_fn read_symbols "$b" mm/tests/vmalloc_kunit.c > "$b/syms"
	printf '%s\n' KALLSYMS MEMCG NUMA SMP | diff - "$b/syms"
	printf '%s\t%s\n' KALLSYMS CONFIG_KALLSYMS=y MEMCG CONFIG_MEMCG=y |
		diff - <(loop_fn disagreements "$b" "$b/syms")
	# A subset kernel: what it sets, the gate's sets alike, but for what
	# the arch's loop options bring (here PVH, absent from base/).
	mkdir -p "$b/base"
	printf '%s\n' CONFIG_SMP=y CONFIG_NET=y > "$b/base/.config"
	printf '%s\n' CONFIG_SMP=y CONFIG_NET=y CONFIG_PVH=y > "$b/.config"
	printf '%s\n' CONFIG_SMP=y CONFIG_NET=y CONFIG_MEMCG=y > "$b/reference/.config"
	loop_fn check_subset "$b"
	printf '%s\n' CONFIG_SMP=y CONFIG_NET=m > "$b/reference/.config"
	fails loop_fn check_subset "$b" 2> "$b/err"
	cat "$b/err"
	grep -q "not a subset of the gate's kernel: CONFIG_NET=y" "$b/err"
}

main() {
	rm -rf "$WORK"
	mkdir -p "$WORK"
	[[ "$KUNIT52_RESULTS" != "$WORK/results.jsonl" ]] || : > "$KUNIT52_RESULTS"

	check shellcheck t_shellcheck
	check unknown-arch t_unknown_arch
	check unknown-suite t_unknown_suite
	check make-unknown-arch t_make_unknown_arch
	check expected-reports t_expected_reports
	check new-arch-is-one-file t_new_arch
	check soak-bad-input t_soak_bad_input
	check prepare-tree-keeps-edits t_prepare_tree
	check series-folds-tests t_series_folds_tests
	check fixes-checked t_fixes_checked
	check summary-counts-failures t_summary
	check ccache-fallback t_ccache_fallback
	check ccache-sees-incbin t_ccache_incbin
	check tree-cache-rebuilds-what-changed t_tree_cache
	check booted-kernel-guard t_booted_kernel_guard
	check mutants-apply t_mutants_apply
	check coverage-input-and-summary t_coverage
	check lava-monitors-match-ktap t_lava_monitors
	check loop-refuses-unknown-suite t_loop_bad_suite
	check loop-stops-a-stalled-kernel t_loop_stops_stalled_kernel
	check loop-config-agrees-with-gate t_loop_config_agreement
	if have_kernel; then
		check boot-without-ktap-fails t_boot_no_ktap
		if have_gate_builds; then
			check lava-jobs-valid t_lava_jobs
		else
			record lava-jobs-valid skip
		fi
		check boot-hang-times-out t_boot_hang
		check system-panic-fails t_system_panic
		check system-hang-fails t_system_hang
	else
		record boot-without-ktap-fails skip
		record lava-jobs-valid skip
		record boot-hang-times-out skip
		record system-panic-fails skip
		record system-hang-fails skip
	fi
	return "$FAILED"
}

main "$@"
