# SPDX-License-Identifier: GPL-2.0
# Shared helpers for kunit52 scripts. Source it; do not run it.
# shellcheck shell=bash

# Repository root, whatever the caller's working directory.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO

# The prepared kernel tree (KUNIT52_TREE overrides it, for self-tests).
# shellcheck disable=SC2034 # used by the scripts that source this file
TREE=${KUNIT52_TREE:-$REPO/work/linux}

# Architectures we build and boot.
KUNIT52_ARCHES=(x86_64 arm64)

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

# list_sources DIR: files under DIR (the kunit/ test sources), relative to
# it, sorted; nothing if DIR does not exist.
list_sources() {
	[[ -d "$1" ]] || return 0
	(cd "$1" && find . -type f ! -name '*~' | sed 's|^\./||' | LC_ALL=C sort)
}

# Build variants, set by KUNIT52_VARIANT: "" (kunitconfigs/all), "debug"
# (plus kunitconfigs/debug: KASAN, UBSAN, KFENCE, lockdep, kmemleak, ...)
# or "bench" (plus kunitconfigs/bench: the test_vmalloc module).  Each arch
# and variant has its own build directory.
check_variant() {
	case ${KUNIT52_VARIANT:-} in
	""|debug|bench) ;;
	*) die "unknown VARIANT '${KUNIT52_VARIANT}' (supported: debug, bench)" ;;
	esac
}

# build_dir ARCH: build/ARCH, or build/ARCH-VARIANT.
build_dir() {
	echo "$REPO/build/$1${KUNIT52_VARIANT:+-$KUNIT52_VARIANT}"
}

# Console lines that mean the kernel reported a bug: panics, oopses,
# WARN()s and the reports of KASAN, UBSAN, KFENCE, lockdep, kmemleak,
# DEBUG_LIST and DEBUG_OBJECTS (the last two report through WARN or BUG).
export KUNIT52_REPORT_RE='Kernel panic|Oops|WARNING:|BUG:|KASAN:|UBSAN:|KFENCE:|unreferenced object|suspected memory leak|possible recursive locking|possible circular locking|inconsistent lock state|INFO: task .* blocked|Unable to handle kernel|general protection fault'
