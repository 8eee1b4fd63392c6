#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages kunit52 needs, if any is missing.
# Nothing else is downloaded; nothing is loaded into the host kernel.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

PACKAGES=(
	# kernel source and build
	linux-source-6.12 make gcc libc6-dev flex bison bc libelf-dev libssl-dev
	perl python3 xz-utils git ccache
	# arm64 cross build and both QEMUs
	gcc-aarch64-linux-gnu qemu-system-x86 qemu-system-arm
	# harness self-tests
	shellcheck
	# full-system boots: initramfs assembly, static guest programs
	cpio binutils libc6-dev-arm64-cross
)

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qx installed || echo "$p"
	done
}

# The arm64 guest's Debian packages are downloaded (never installed) with
# apt-get download PKG:arm64, which needs arm64 package lists.
enable_arm64_lists() {
	dpkg --print-foreign-architectures | grep -qx arm64 && return 0
	[[ $(id -u) -eq 0 ]] || die "arm64 package lists missing; as root: dpkg --add-architecture arm64 && apt-get update"
	info "adding arm64 package lists (dpkg --add-architecture arm64)"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null || die "apt-get update failed"
}

main() {
	local -a missing
	enable_arm64_lists
	mapfile -t missing < <(missing_packages)
	[[ ${#missing[@]} -eq 0 ]] && return 0
	[[ $(id -u) -eq 0 ]] || die "missing Debian packages (${missing[*]}); run as root or: apt-get install ${missing[*]}"
	info "installing Debian packages: ${missing[*]}"
	apt-get update -q >/dev/null || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null ||
		die "could not install Debian packages: ${missing[*]}"
}

main "$@"
