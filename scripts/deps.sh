#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/deps.sh [coverage|lava]
#
# Install the Debian packages kunit52 needs, if any is missing; with
# "coverage", also those of make coverage (Clang, LLVM, lcov); with
# "lava", the Python libraries Debian's lava-dispatcher imports (which
# scripts/lava.sh unpacks, without installing it).
# Nothing else is downloaded; nothing is loaded into the host kernel.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# A check that found nothing missing holds while dpkg's database, its
# architectures and the lists of packages (this file, the arch tables)
# are as they were: make kunit runs this before every loop.
STAMP=$REPO/build/.deps-checked

# stamp_key GROUP: what the last check's verdict depends on.
stamp_key() {
	{
		echo "$1"
		stat -c %Y /var/lib/dpkg/status /var/lib/dpkg/arch 2>/dev/null || true
		cat "$0" "${KUNIT52_QEMU_CONFIGS:-$REPO/qemu_configs}"/*.py
	} | sha256sum
}

if [[ -f "$STAMP" ]] && stamp_key "${1:-}" | cmp -s - "$STAMP"; then
	exit 0
fi

PACKAGES=(
	# kernel source and build
	linux-source-6.12 make gcc libc6-dev flex bison bc libelf-dev libssl-dev
	perl python3 xz-utils git ccache
	# harness self-tests (the LAVA jobs' checks run under Debian's python3)
	shellcheck python3-yaml python3-voluptuous python3-pexpect
	# full-system boots: initramfs assembly
	cpio binutils
	# make watch
	inotify-tools
)
# make coverage: Debian's Clang toolchain (LLVM=1; llvm-cov reads its
# gcov data) and lcov's geninfo/genhtml.
COVERAGE_PACKAGES=(clang lld llvm lcov)
# make lava-check: lava-run's imports (lava-dispatcher's Depends, less
# the worker's system packages; scripts/lava.sh says why).
LAVA_PACKAGES=(python3-jinja2 python3-requests python3-setproctitle
	python3-magic python3-netifaces python3-configobj python3-tz
	python3-pyudev)
# Each architecture's compiler and QEMU: host_packages of its table.
for a in "${KUNIT52_ARCHES[@]}"; do
	mapfile -t -O "${#PACKAGES[@]}" PACKAGES < <(arch_fact "$a" host_packages)
done

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qx installed || echo "$p"
	done
}

# A foreign guest's Debian packages are downloaded (never installed) with
# apt-get download PKG:DEBIAN_ARCH, which needs that arch's package lists;
# an arch whose guest is static programs only (guest_tests in its table:
# Debian has no packages for it) needs none.
enable_foreign_lists() {
	local a darch
	for a in "${KUNIT52_ARCHES[@]}"; do
		! static_guest "$a" || continue
		darch=$(arch_fact "$a" debian_arch)
		[[ $darch != "$(dpkg --print-architecture)" ]] || continue
		dpkg --print-foreign-architectures | grep -qx "$darch" && continue
		[[ $(id -u) -eq 0 ]] || die "$darch package lists missing; as root: dpkg --add-architecture $darch && apt-get update"
		info "adding $darch package lists (dpkg --add-architecture $darch)"
		dpkg --add-architecture "$darch"
		apt-get update -q >/dev/null || die "apt-get update failed"
	done
}

main() {
	local -a missing
	case ${1:-} in
	"") ;;
	coverage) PACKAGES+=("${COVERAGE_PACKAGES[@]}") ;;
	lava) PACKAGES+=("${LAVA_PACKAGES[@]}") ;;
	*) die "unknown package group '$1' (supported: coverage lava)" ;;
	esac
	enable_foreign_lists
	mapfile -t missing < <(missing_packages)
	if [[ ${#missing[@]} -eq 0 ]]; then
		mkdir -p "$(dirname "$STAMP")"
		stamp_key "${1:-}" > "$STAMP"
		return 0
	fi
	[[ $(id -u) -eq 0 ]] || die "missing Debian packages (${missing[*]}); run as root or: apt-get install ${missing[*]}"
	info "installing Debian packages: ${missing[*]}"
	apt-get update -q >/dev/null || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null ||
		die "could not install Debian packages: ${missing[*]}"
}

main "$@"
