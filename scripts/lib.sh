# SPDX-License-Identifier: GPL-2.0
# Shared helpers for kunit52 scripts. Source it; do not run it.
# shellcheck shell=bash

# Repository root, whatever the caller's working directory.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO

# The prepared kernel tree (KUNIT52_TREE overrides it, for self-tests).
# shellcheck disable=SC2034 # used by the scripts that source this file
TREE=${KUNIT52_TREE:-$REPO/work/linux}

# Architectures we build and boot: one file each in qemu_configs/, read
# through scripts/arch.py (README, "Adding an architecture").
mapfile -t KUNIT52_ARCHES < <("$REPO/scripts/arch.py" --list)

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

info() {
	printf '==> %s\n' "$*" >&2
}

# check_arch ARCH: die unless ARCH is one we support.
check_arch() {
	local a
	for a in "${KUNIT52_ARCHES[@]}"; do
		[[ "$1" == "$a" ]] && return 0
	done
	die "unknown ARCH '$1' (supported: ${KUNIT52_ARCHES[*]})"
}

# suites_in FILE...: the .name of every struct kunit_suite in FILE...
suites_in() {
	awk '
		/struct kunit_suite [a-z0-9_]+ = \{/ { in_suite = 1 }
		in_suite && /\.name *= *"/ {
			sub(/.*\.name *= *"/, ""); sub(/".*/, ""); print; in_suite = 0
		}' "$@"
}

# known_suites: the names of the suites under kunit/, sorted.
known_suites() {
	local -a files
	mapfile -t files < <(find "$REPO/kunit" -name '*.c')
	[[ ${#files[@]} -eq 0 ]] || suites_in "${files[@]}" | sort -u
}

# check_suite GLOB: die unless the suite part of GLOB (before any '.')
# matches a suite under kunit/.
check_suite() {
	local glob=${1%%.*} s
	local -a suites
	mapfile -t suites < <(known_suites)
	for s in "${suites[@]}"; do
		# shellcheck disable=SC2053 # glob match is the point
		[[ "$s" == $glob ]] && return 0
	done
	die "unknown SUITE '$1' (suites: ${suites[*]})"
}

# list_sources DIR: files under DIR (the kunit/ test sources), relative to
# it, sorted; nothing if DIR does not exist.
list_sources() {
	[[ -d "$1" ]] || return 0
	(cd "$1" && find . -type f ! -name '*~' | sed 's|^\./||' | LC_ALL=C sort)
}

# Build variants, set by KUNIT52_VARIANT: "" (the suites, the guest and
# the lean fragment of kunitconfigs/), "debug" (plus
# kunitconfigs/variants/debug: KASAN, UBSAN, KFENCE, lockdep, kmemleak, ...)
# "bench" (plus kunitconfigs/variants/bench: the test_vmalloc module) or
# "coverage" (plus kunitconfigs/variants/coverage: a Clang build with gcov
# on the objects below, for make coverage).
# Each arch and variant has its own build directory.
check_variant() {
	case ${KUNIT52_VARIANT:-} in
	""|debug|bench|coverage) ;;
	*) die "unknown VARIANT '${KUNIT52_VARIANT}' (supported: debug, bench, coverage)" ;;
	esac
}

# The objects make coverage profiles (GCOV_PROFILE_<name>.o := y for each,
# not GCOV_PROFILE_ALL): the code our suites are about.  Kbuild matches the
# object's base name, so kernel/freezer.o is profiled too (harmless; the
# report keeps the sources listed here).
KUNIT52_COVERAGE_OBJECTS=(mm/vmalloc.o drivers/md/dm-dust.o kernel/cgroup/freezer.o)

# One kunit.py QEMU boot's time limit, seconds (scripts/kunit.sh; the
# KUnit shard of a LAVA job, scripts/lava.sh).
# shellcheck disable=SC2034 # used by the scripts that source this file
KUNIT_BOOT_TIMEOUT=${KUNIT52_BOOT_TIMEOUT:-600}

# gate_kunitconfigs ARCH: the kunitconfig fragments of ARCH's kernel
# (scripts/kunit.sh, the gate's), composed by kunit.py: every suite's,
# the Debian guest's (unless ARCH's guest is static programs only:
# guest_tests in its table), the lean one, and the variant's.
gate_kunitconfigs() {
	local k=$REPO/kunitconfigs
	find "$k/suites" -type f | LC_ALL=C sort
	static_guest "$1" || echo "$k/guest"
	echo "$k/lean"
	[[ -z "${KUNIT52_VARIANT:-}" ]] || echo "$k/variants/$KUNIT52_VARIANT"
}

# variant_make_options: the kernel make options of this build's variant,
# one per line (kunit.py --make_options).
variant_make_options() {
	local obj
	[[ "${KUNIT52_VARIANT:-}" == coverage ]] || return 0
	echo "LLVM=1"
	for obj in "${KUNIT52_COVERAGE_OBJECTS[@]}"; do
		echo "GCOV_PROFILE_${obj##*/}=y"
	done
}

# arch_fact ARCH FIELD: a fact of ARCH's table (qemu_configs/ARCH.py);
# lists come one item per line.
arch_fact() {
	"$REPO/scripts/arch.py" "$1" "$2"
}

# static_guest ARCH: is ARCH's guest static programs only (guest_tests in
# its table: Debian has no packages for it)?
static_guest() {
	[[ -n $(arch_fact "$1" guest_tests) ]]
}

# gate_variant ARCH: the kernel configuration "make test" runs ARCH's
# suites and guest tests on (README, "Which kernel runs where").
gate_variant() {
	arch_fact "$1" gate_variant
}

# build_dir ARCH: build/ARCH, or build/ARCH-VARIANT.
build_dir() {
	echo "$REPO/build/$1${KUNIT52_VARIANT:+-$KUNIT52_VARIANT}"
}

# make_build_dir DIR: make build/LABEL a link to the kernel build
# directory, which lives in the prepared tree as .build-LABEL.  A build
# directory that is a direct child of the source tree makes Kbuild use
# relative paths (srctree := ..), so the compiler's command lines are the
# same in every clone and the shared compiler cache hits (and __FILE__ is
# "mm/vmalloc.c", as in a build in the tree).  The kernel's .gitignore
# keeps .build-* out of the tree's git status.
make_build_dir() {
	local dir=$1 real
	real=$TREE/.build-${dir##*/}
	mkdir -p "$real" "$(dirname "$dir")"
	[[ -L "$dir" && "$(readlink "$dir")" == "$real" ]] && return 0
	if [[ -d "$dir" && ! -L "$dir" ]]; then
		info "removing $dir, a build directory of the old layout (builds go to $real)"
		rm -rf "$dir"
	fi
	ln -sfn "$real" "$dir"
}

# Results: every script records them through scripts/results.py, one
# JSON line per test case, into $KUNIT52_RESULTS (each script has its own
# default); the gate gives each step a file of its own.
# result AREA CONFIG SUITE CASE STATUS LOG [DIAG]: record one result
# (STATUS: PASS, FAIL, SKIP or ERROR).
result() {
	python3 "$REPO/scripts/results.py" add --area "$1" --config "$2" \
		--suite "$3" --case "$4" --status "$5" --log "$6" \
		${7:+--diag "$7"} --out "${KUNIT52_RESULTS:?}"
}

# results_of_ktap AREA CONFIG KTAP_LOG [--quiet]: record every case of
# the KTAP in KTAP_LOG, print a table; non-zero if any failed or none ran.
results_of_ktap() {
	python3 "$REPO/scripts/results.py" ktap --area "$1" --config "$2" \
		--log "$3" --out "${KUNIT52_RESULTS:?}" ${4:+"$4"} "$3"
}

# The compiler cache, one per machine, shared by every clone: the same
# objects compiled in another clone (another path) are hits, because
# ccache rewrites the absolute paths under the clone (base_dir: the kernel
# is built with O= and an absolute source tree) into relative ones.
KUNIT52_CCACHE_DIR=${KUNIT52_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kunit52/ccache}
# ccache runs in its direct mode, never in depend mode: depend mode keys
# an object by the files of the compiler's dependency list, which leaves
# out what the assembler reads with .incbin.  x86's
# arch/x86/boot/compressed/piggy.S names the compressed kernel it
# .incbin's and holds only its two sizes, so after an edit that kept
# both, the bzImage came from the cache with an earlier kernel in it
# (docs/design.md, "The compiler cache").  Direct mode preprocesses
# what it has not seen and refuses to cache a source that uses .incbin.
# The namespace puts every entry that depend mode stored out of reach.
KUNIT52_CCACHE_NAMESPACE=kunit52-direct
# Below this much free space (KiB) the cache is bypassed, not filled.
KUNIT52_CCACHE_MIN_FREE_KB=${KUNIT52_CCACHE_MIN_FREE_KB:-1048576}

# ccache_env STATSLOG: export what the compiler wrappers need to use the
# shared cache, recording this build's hits and misses in STATSLOG.  A
# cache directory that cannot be made, written or is full is bypassed,
# with one line that says so; the build goes on without it.
ccache_env() {
	local log=$1 dir=$KUNIT52_CCACHE_DIR why="" free
	rm -f "$log" "$log.off"
	if ! mkdir -p "$dir" 2>/dev/null; then
		why="cannot create it"
	elif ! touch "$dir/.kunit52-probe" 2>/dev/null; then
		why="it is not writable"
	else
		rm -f "$dir/.kunit52-probe"
		free=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
		[[ ${free:-0} -ge $KUNIT52_CCACHE_MIN_FREE_KB ]] ||
			why="its file system is full (${free:-0} KiB free)"
	fi
	if [[ -n "$why" ]]; then
		printf '%s: warning: compiler cache %s: %s; building without it\n' \
			"${0##*/}" "$dir" "$why" >&2
		echo "$why" > "$log.off"
		export CCACHE_DISABLE=1
		return 0
	fi
	unset CCACHE_DEPEND
	export PATH="/usr/lib/ccache:$PATH" CCACHE_DIR=$dir CCACHE_BASEDIR=$REPO \
		CCACHE_NOHASHDIR=1 CCACHE_NODEPEND=1 CCACHE_DIRECT=1 \
		CCACHE_NAMESPACE=$KUNIT52_CCACHE_NAMESPACE CCACHE_STATSLOG=$log
}

# ccache_summary STATSLOG: "hits H/N (P%)" for the build that wrote
# STATSLOG ("cache off" when it was bypassed, "no compilation" when
# everything was up to date).
ccache_summary() {
	local log=$1
	[[ ! -e "$log.off" ]] || { echo "cache off: $(cat "$log.off")"; return 0; }
	[[ -s "$log" ]] || { echo "no compilation"; return 0; }
	CCACHE_STATSLOG=$log ccache --show-log-stats -v 2>/dev/null | awk '
		/^ *Hits:/ && !h { h = $2 }
		/^ *Misses:/ && !m { m = $2 }
		END { n = h + m
		      if (n) printf "hits %d/%d (%.0f%%)\n", h, n, 100 * h / n
		      else print "no compilation" }'
}

# A verdict comes only from the kernel built from the sources on disk.
# Each link of vmlinux gets its own banner ("Linux version ... #N SMP ...
# DATE": N counts the links of the build directory), which the booted
# kernel prints (the full-system /init copies /proc/version to the KTAP
# channel, as loglevel=5 hides the kernel's own line on the console).  A
# boot whose banner is not the one of the build's vmlinux ran some other
# kernel: the boot image was not made from this vmlinux (docs/design.md,
# "The compiler cache", has the case that made this guard).  kunit.sh and system.sh then
# record one failure, give no verdict and exit with this status.
export KUNIT52_NO_VERDICT_STATUS=3

# vmlinux_banner BUILD: the banner linked into BUILD/vmlinux.  vmlinux
# also holds init/version.o's stub ("... # SMP ...", no number, no date),
# which the real one, made at the link, overrides.
vmlinux_banner() {
	[[ -f "$1/vmlinux" ]] || return 0
	LC_ALL=C grep -a -o 'Linux version [[:print:]]*' "$1/vmlinux" |
		grep -m1 ' #[0-9]' || true
}

# booted_banners LOG...: the distinct banners in the boot's logs.
booted_banners() {
	local log
	for log in "$@"; do
		[[ ! -f "$log" ]] || LC_ALL=C grep -a -o 'Linux version [[:print:]]*' "$log" || true
	done | LC_ALL=C sort -u
}

# check_booted_kernel BUILD LOG...: is the kernel that wrote the boot's
# logs (its console, its KTAP) the one of BUILD/vmlinux?  If not, prints
# why on one line and fails.
check_booted_kernel() {
	local build=$1 want b
	local -a got
	shift
	want=$(vmlinux_banner "$build")
	[[ -n "$want" ]] || { echo "no kernel banner in $build/vmlinux"; return 1; }
	mapfile -t got < <(booted_banners "$@")
	[[ ${#got[@]} -gt 0 ]] ||
		{ echo "no kernel banner in $*: no kernel is known to have booted"; return 1; }
	for b in "${got[@]}"; do
		[[ "$b" != "$want" ]] || continue
		if [[ "${b##* #}" != "${want##* #}" ]]; then
			echo "the booted kernel is #${b##* #}, not this build's #${want##* #}"
		else
			echo "the booted kernel is '${b#Linux version }', not this build's '${want#Linux version }'"
		fi
		return 1
	done
}

# refuse_verdict AREA LABEL LOG WHY: say that a boot gives no verdict and
# record the one failure that stands for its results (with the first
# kernel report of the console LOG, if any: a kernel that died before it
# printed a banner).
refuse_verdict() {
	local why=$4 report
	report=$(first_report "$3")
	[[ -z "$report" ]] || why+="; the console shows: $report"
	echo "$1 $2: NO VERDICT: $why" >&2
	result "$1" "$2" booted-kernel "the booted kernel is this build's vmlinux" FAIL "$3" "$why"
}

# Console lines that mean the kernel reported a bug: panics, oopses,
# WARN()s and the reports of KASAN, UBSAN, KFENCE, lockdep, kmemleak,
# DEBUG_LIST and DEBUG_OBJECTS (the last two report through WARN or BUG).
export KUNIT52_REPORT_RE='Kernel panic|Oops|(^|\] )WARNING:|BUG:|KASAN:|UBSAN:|KFENCE:|unreferenced object|suspected memory leak|possible recursive locking|possible circular locking|inconsistent lock state|INFO: task .* blocked|Unable to handle kernel|general protection fault'

# Where a report is expected, the console says so, and first_report
# skips it: a guest test provoking one on purpose (guest/kuap_test.c)
# logs these two markers around it, and the KASAN suite (kasan, its
# KUnit section) provokes its reports by design.  A panic is never
# expected: "Kernel panic" counts anywhere.
export KUNIT52_EXPECTED_BEGIN='kunit52: expected kernel report begins'
export KUNIT52_EXPECTED_END='kunit52: expected kernel report ends'

# first_report FILE: the first line of the console log FILE that reports
# a bug outside the expected reports (nothing if none).
first_report() {
	[[ -f "$1" ]] || return 0
	awk -v re="$KUNIT52_REPORT_RE" -v begin="$KUNIT52_EXPECTED_BEGIN" \
	    -v end="$KUNIT52_EXPECTED_END" '
		index($0, begin) { expected = 1; next }
		index($0, end) { expected = 0; next }
		/# Subtest: kasan\r?$/ { expected = 1; next }
		/ok [0-9]+ kasan\r?$/ { expected = 0; next }
		$0 ~ re && (!expected || /Kernel panic/) { print; exit }' "$1"
}

# Downloaded packages, shared by every clone on the machine (the
# compiler cache's neighbour), or build/debs if that cannot be made.
# debs_dir: that directory, made if needed.
debs_dir() {
	local dir=${KUNIT52_DEBS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kunit52/debs}
	if ! mkdir -p "$dir" 2>/dev/null || ! touch "$dir/.lock" 2>/dev/null; then
		printf '%s: warning: package cache %s is not writable; using build/debs\n' \
			"${0##*/}" "$dir" >&2
		dir=$REPO/build/debs
		mkdir -p "$dir"
	fi
	echo "$dir"
}

# The .deb files of the candidate versions of the packages SPEC..., as
# apt-get download names them (NAME_VERSION_ARCH.deb), one per line (run
# where no .deb lies: apt-get leaves out the files already there).
candidate_debs() {
	(cd / && apt-get download --print-uris "$@" 2>/dev/null) | awk '{ print $2 }'
}

# The apt-get download SPEC of a .deb file name: NAME:ARCH, or NAME.
deb_spec() {
	local name=${1%%_*} arch=${1##*_}
	arch=${arch%.deb}
	[[ $arch == all ]] && echo "$name" || echo "$name:$arch"
}

# fetch_debs DIR SPEC...: make DIR hold the candidate .deb of every SPEC,
# downloading (in one apt-get call) only those that are not there yet.
# DIR is shared by every clone on the machine; a file name carries the
# package's version, so a newer candidate is downloaded beside the old.
fetch_debs() {
	local dir=$1 f
	local -a files missing=()
	shift
	mapfile -t files < <(candidate_debs "$@")
	[[ ${#files[@]} -eq $# ]] ||
		die "cannot find Debian packages $* (apt-get update? for a foreign arch: dpkg --add-architecture DEBIAN_ARCH)"
	for f in "${files[@]}"; do
		[[ -s "$dir/$f" ]] || missing+=("$(deb_spec "$f")")
	done
	[[ ${#missing[@]} -eq 0 ]] && return 0
	info "downloading ${#missing[@]} Debian package(s) into $dir"
	(cd "$dir" && apt-get download -q "${missing[@]}" > /dev/null 2>&1) ||
		die "cannot download Debian packages ${missing[*]} (apt-get update? for a foreign arch: dpkg --add-architecture DEBIAN_ARCH)"
	for f in "${files[@]}"; do
		[[ -s "$dir/$f" ]] || die "apt-get download did not write $dir/$f"
	done
}

# A child in a process group of its own, so that every compiler it
# starts can be stopped with it (make mutants, scripts/verdict-repro.sh).
CHILD=""

# run_child LOG CMD...: run CMD (a function too) in a process group of its
# own, output to LOG, and return its status.
run_child() {
	local log=$1 rc=0
	shift
	set -m
	"$@" < /dev/null > "$log" 2>&1 &
	CHILD=$!
	set +m
	wait "$CHILD" || rc=$?
	CHILD=""
	return "$rc"
}

# stop_child: stop every process of the running child, compilers
# included, and wait (up to STOP_WAIT s) until they are gone.  Restoring
# an edited file under a compiler still reading it could let ccache store
# the object of one text under the other text's key.
STOP_WAIT=10
stop_child() {
	local i
	[[ -n "$CHILD" ]] || return 0
	kill -TERM -- "-$CHILD" 2>/dev/null || true
	wait "$CHILD" 2>/dev/null || true
	for ((i = 0; i < STOP_WAIT * 10; i++)); do
		kill -0 -- "-$CHILD" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL -- "-$CHILD" 2>/dev/null || true
	CHILD=""
}

# kernel_built LOG: did the kunit.sh run that wrote LOG build its kernel
# (kunit.py got to the build and no compiler error stopped it)?  A mutant
# that does not build says nothing about the tests.
kernel_built() {
	grep -q 'Building KUnit Kernel' "$1" && ! grep -q 'ERROR:root:.*error:' "$1"
}

# mutate PATH OLD NEW: replace the single occurrence of OLD in PATH with
# NEW (escapes: \t tab, \n newline, \\ backslash); fails, and says so,
# unless OLD occurs exactly once.  The mutation lists' format (mutations/).
mutate() {
	MUTANT_FILE=$1 MUTANT_OLD=$2 MUTANT_NEW=$3 perl -e '
		sub unescape { my $s = shift; $s =~ s/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1/ge; $s }
		my ($f, $old, $new) = ($ENV{MUTANT_FILE}, unescape($ENV{MUTANT_OLD}),
				       unescape($ENV{MUTANT_NEW}));
		local $/; open(my $in, "<", $f) or die "$f: $!\n"; my $src = <$in>; close $in;
		my $n = () = $src =~ /\Q$old\E/g;
		die "expected one match in $f, found $n\n" unless $n == 1;
		$src =~ s/\Q$old\E/$new/;
		open(my $out, ">", $f) or die "$f: $!\n"; print $out $src; close $out;'
}

# The arches of this gate: KUNIT52_GATE_ARCHES (make test GATE_ARCHES=..,
# a subset by hand), each checked, or by default every arch.
gate_arches() {
	local a
	local -a arches
	if [[ -n "${KUNIT52_GATE_ARCHES:-}" ]]; then
		read -ra arches <<< "$KUNIT52_GATE_ARCHES"
		for a in "${arches[@]}"; do
			check_arch "$a"
		done
	else
		arches=("${KUNIT52_ARCHES[@]}")
	fi
	[[ ${#arches[@]} -gt 0 ]] || die "no arch to gate (GATE_ARCHES is blank)"
	printf '%s\n' "${arches[@]}"
}
