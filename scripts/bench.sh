#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/bench.sh [--cold | --tdd] [ARCH...]   (default: every arch)
#
# make bench: measure and print, then write to docs/benchmarks.md, each
# arch between its own "bench:ARCH:begin/end" markers, with the machine
# and the command (a run for some arches leaves the others' figures):
#   1. the vmalloc_bench suite: find_vmap_lowest_match() and allocate+free
#      pairs on fragmented trees of N = 100 .. 100,000 free blocks, next to
#      a linear scan of the address-sorted list, in one boot per arch;
#   2. lib/test_vmalloc.c, the driver the 5.2 commit was measured with:
#      built as a module (kunitconfigs/variants/bench, build/<arch>-bench) and
#      loaded in the guest with test_vmalloc.sh's "performance" parameters
#      (one worker, sequential order, 3 repeats; KUNIT52_VMALLOC_LOOPS
#      loops per test, default 10000 instead of 1000000 under TCG); the
#      verdict of each test is its "Summary:" line (guest/
#      vmalloc_perf_test.c), the average time per test goes to the table;
#   3. the TDD loop against plain kunit.py on x86_64 and arm64
#      (scripts/bench-loop.sh);
#      --tdd: this one only;
#      with --cold, a cold `make run` in a fresh clone (about 12 minutes);
#      the cold `make test` figure is the last gate's, from
#      build/gate/times.tsv, if there is one.
# Figures only: no timing ever fails anything.  Exit status is non-zero
# only if a benchmark could not run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

DOC=$REPO/docs/benchmarks.md
OUT=$REPO/build/bench
COLD=0
# --tdd: only the TDD loop against plain kunit.py (make bench BENCH_TDD=1).
TDD_ONLY=0
LOOPS=${KUNIT52_VMALLOC_LOOPS:-10000}
BACKTICKED=$'\x60make bench\x60'
CMD="make bench"

# Boot the vmalloc_bench suite on $1; print "N tree linear tree linear" rows.
bench_rows() {
	local arch=$1
	KUNIT52_KERNEL_ARGS=vmalloc.kunit_bench=1 KUNIT52_RESULTS=$OUT/results.jsonl \
		"$REPO/scripts/kunit.sh" "$arch" 'vmalloc_bench' > "$OUT/$arch.log" 2>&1 ||
		die "vmalloc_bench did not run on $arch (log: $OUT/$arch.log)"
	grep -o $'bench\t[0-9]*\t[0-9]*\t[0-9]*\t[0-9]*\t[0-9]*' "$REPO/build/$arch/test.log" |
		cut -f2- | tr '\t' ' '
}

# Build the bench variant of $1 and run test_vmalloc in its guest; print
# "test usec" rows.  Dies if any test failed or did not report.
perf_rows() {
	local arch=$1 sys
	sys=$(KUNIT52_VARIANT=bench build_dir "$arch")/system
	KUNIT52_VARIANT=bench KUNIT52_KUNIT_MODE=build \
		"$REPO/scripts/kunit.sh" "$arch" > "$OUT/perf-build-$arch.log" 2>&1 ||
		die "bench kernel for $arch did not build (log: $OUT/perf-build-$arch.log)"
	KUNIT52_VARIANT=bench KUNIT52_RESULTS=$OUT/results.jsonl \
	KUNIT52_SYSTEM_ARGS="kunit52.vmalloc_loops=$LOOPS" \
		"$REPO/scripts/system.sh" "$arch" 'vmalloc_perf*' > "$OUT/perf-$arch.log" 2>&1 ||
		die "test_vmalloc failed on $arch (log: $OUT/perf-$arch.log, KTAP: $sys/ktap.log)"
	tr -d '\r' < "$sys/ktap.log" |
		sed -n 's/^ *# perf \([a-z0-9_]*\) \([0-9]*\)$/\1 \2/p'
}

# Markdown rows for one arch, with the ratios.
bench_table() {
	local arch=$1
	awk -v arch="$arch" '{
		printf "| %s | %d | %d | %d | %.0fx | %d | %d | %.0fx |\n",
			arch, $1, $2, $3, $3 / $2, $4, $5, $5 / $4
	}'
}

# One markdown row per test_vmalloc test of $1: "| test | usec |".
perf_table() {
	awk '{ printf "| %s | %s |\n", $1, $2 }' "$OUT/$1.perf"
}

# How the tree's search cost grows: cost at the largest N over cost at 1000.
growth() {
	awk '$1 == 1000 { base = $2 } { last = $2; n = $1 }
	     END { if (base) printf "%.2f", last / base; else print "n/a" }'
}

# A cold `make run`: a fresh clone with caches of its own, empty (the
# machine's shared compiler cache would make it warm).
cold_make_run() {
	local d t0
	d=$(mktemp -d)
	git clone -q "$REPO" "$d/kunit52"
	t0=$SECONDS
	XDG_CACHE_HOME=$d/cache KUNIT52_CCACHE_DIR='' KUNIT52_DEBS_DIR='' \
		make -C "$d/kunit52" run > "$OUT/cold-run.log" 2>&1 ||
		die "cold make run failed (log: $OUT/cold-run.log; clone kept in $d)"
	echo $((SECONDS - t0))
	rm -rf "$d"
}

machine() {
	echo "- CPU: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "- memory: $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- host: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -r)"
	echo "- QEMU: $(qemu-system-x86_64 --version | head -1) (TCG)"
	echo "- kunit52: $(git -C "$REPO" describe --always --dirty), linux-source-6.12"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
}

# write_block NAME: replace the block NAME of docs/benchmarks.md (between
# "<!-- bench:NAME:begin -->" and "<!-- bench:NAME:end -->", inside the
# generated section) with stdin; a new block goes at the section's end.
write_block() {
	local name=$1 new begin end
	begin="<!-- bench:$name:begin -->"
	end="<!-- bench:$name:end -->"
	new=$(mktemp)
	cat > "$new"
	if ! grep -q '^<!-- bench:begin -->$' "$DOC" 2>/dev/null; then
		printf '\n## %s\n\n<!-- bench:begin -->\n<!-- bench:end -->\n' "$BACKTICKED" >> "$DOC"
	fi
	if ! grep -qxF "$begin" "$DOC"; then
		# Before the loop block, or at the end of the section.
		awk -v b="$begin" -v e="$end" '
			!done && (/^<!-- bench:loop:begin -->$/ || /^<!-- bench:end -->$/) {
				print b; print e; done = 1
			}
			{ print }' "$DOC" > "$DOC.new"
		mv "$DOC.new" "$DOC"
	fi
	awk -v f="$new" -v b="$begin" -v e="$end" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$DOC" > "$DOC.new"
	mv "$DOC.new" "$DOC"
	rm -f "$new"
}

# arch_section ARCH: ARCH's figures, in markdown.
arch_section() {
	local arch=$1
	echo
	echo "### $arch"
	echo
	echo "Written by \`$CMD\`; figures only, nothing fails on a timing."
	echo
	machine
	echo
	echo "Free-space search: tree against a linear scan (ns per operation):"
	echo
	echo "| arch | N | tree search | linear search | ratio | tree pair | linear pair | ratio |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	bench_table "$arch" < "$OUT/$arch.rows"
	echo
	echo "Tree search at the largest N costs $(growth < "$OUT/$arch.rows")x its cost at N = 1,000 (goal: within 3x)."
	echo
	echo "lib/test_vmalloc.c, performance mode (usec per test, average of 3 runs):"
	echo
	echo "| test | $arch |"
	echo "|---|---:|"
	perf_table "$arch"
	echo
}

# tdd_section ARCH...: the TDD loop against plain kunit.py, in markdown.
tdd_section() {
	echo
	echo "### The TDD loop"
	echo
	echo "Written by \`$CMD\` (scripts/bench-loop.sh); figures only. Seconds from a"
	echo "one-line edit (a new constant: a real compile, no cache hit) to the verdict of"
	echo "the vmalloc suite, 5 times each, alternating between the two tools."
	echo
	machine
	echo
	"$REPO/scripts/bench-loop.sh" "$@"
	echo
}

# What each table means, once for every arch.
common_section() {
	echo
	echo "Free-space search: a private tree of N free blocks; a 2-page request fits"
	echo "only in the upper half (\`vmalloc_bench\` in kunit/mm/tests/vmalloc_kunit.c)."
	echo "Search: \`find_vmap_lowest_match()\` against a walk of the address-sorted"
	echo "list. Pair: \`__alloc_vmap_area()\` + free, against list walk + \`va_clip()\` +"
	echo "free."
	echo
	echo "lib/test_vmalloc.c: loaded in the guest as \`test_vmalloc.sh performance\`"
	echo "does (one worker, sequential order, \`test_repeat_count=3\`) but with"
	echo "\`test_loop_count=$LOOPS\` instead of 1,000,000 (QEMU TCG). Every test reported"
	echo "\`failed: 0\`, except \`align_shift_alloc_test\`, which lib/test_vmalloc.c says"
	echo "\"is supposed to be failed\" (it asks for every alignment up to 1 << 63) and"
	echo "failed every time. On a 32-bit kernel \`long_busy_list_alloc_test\` is left"
	echo "out (it keeps 117 MiB of vmalloc space at once; 32-bit PowerPC has 75 MiB),"
	echo "and on a uniprocessor kernel (powerpc's) \`pcpu_alloc_test\` is compiled out"
	echo "(\`CONFIG_NEED_PER_CPU_KM\`), so its time is that of an empty test."
	echo
}

main() {
	local arch cold_run="" gate_total=""
	local -a arches=() tdd
	while (($#)); do
		case $1 in
		--cold) COLD=1; CMD="make bench BENCH_COLD=1" ;;
		--tdd) TDD_ONLY=1; CMD="make bench BENCH_TDD=1" ;;
		*) check_arch "$1"; arches+=("$1") ;;
		esac
		shift
	done
	((${#arches[@]})) || arches=("${KUNIT52_ARCHES[@]}")
	mkdir -p "$OUT"
	rm -f "$OUT/results.jsonl"

	((TDD_ONLY)) || for arch in "${arches[@]}"; do
		info "bench $arch: vmalloc_bench (one boot)"
		bench_rows "$arch" > "$OUT/$arch.rows"
		[[ -s $OUT/$arch.rows ]] || die "no bench lines in build/$arch/test.log"
		info "bench $arch: lib/test_vmalloc.c (bench kernel build + one boot)"
		perf_rows "$arch" > "$OUT/$arch.perf"
		[[ -s $OUT/$arch.perf ]] || die "no test_vmalloc summaries for $arch"
	done
	((TDD_ONLY)) || common_section | write_block about
	((TDD_ONLY)) || for arch in "${arches[@]}"; do
		arch_section "$arch" | tee "$OUT/$arch.md" | write_block "$arch"
		cat "$OUT/$arch.md"
	done
	# The loop's targets are for x86_64 and arm64.
	mapfile -t tdd < <(printf '%s\n' "${arches[@]}" | grep -x -e x86_64 -e arm64 || true)
	if [[ ${#tdd[@]} -gt 0 ]]; then
		info "bench: the TDD loop against plain kunit.py on ${tdd[*]}"
		tdd_section "${tdd[@]}" | tee "$OUT/tdd.md" | write_block tdd
	fi
	if ((TDD_ONLY)); then
		info "written to $DOC"
		return 0
	fi
	if ((COLD)); then
		info "bench: cold make run in a fresh clone"
		cold_run=$(cold_make_run)
	fi
	[[ -s $REPO/build/gate/times.tsv ]] &&
		gate_total=$(awk -F'\t' '$1 == "total" { print $2 }' "$REPO/build/gate/times.tsv")
	if [[ -n $cold_run || -n $gate_total ]]; then
		{
			echo
			echo "### The whole loop"
			echo
			machine
			echo
			echo "| measure | seconds |"
			echo "|---|---:|"
			[[ -z $cold_run ]] || echo "| cold \`make run\` in a fresh clone | $cold_run |"
			[[ -z $gate_total ]] || echo "| last \`make test\` in this checkout, warm or cold (build/gate/times.tsv) | $gate_total |"
			echo
		} | tee "$OUT/loop.md" | write_block loop
	fi
	info "written to $DOC"
}

main "$@"
