#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/system.sh ARCH [TEST_GLOB]    run guest tests, print KTAP results
#        scripts/system.sh --shell ARCH        interactive shell in the guest
#
# Full-system boots: the kernel that the KUnit runs built in build/ARCH
# (with kunit.enable=0), the initramfs from scripts/initramfs.sh, and a
# fresh 64 MiB scratch virtio disk, under QEMU (TCG).  The guest's /init
# runs the test programs, whose KTAP arrives on a virtio console of its
# own; kunit.py parses it.  A panic, oops, WARNING, BUG, KASAN/UBSAN or
# lockdep report on the console, a missing end marker (hang, crash) or a
# boot past the time limit fails the run.  Logs stay in build/ARCH/system.
# Rows go to $KUNIT52_ROWS (default build/ARCH/system/rows.tsv).
#
# KUNIT52_VARIANT=debug boots the hardened kernel of build/ARCH-debug
# instead, with kunit.enable=1: the KUnit suites run first (their KTAP is
# parsed from the console), then the guest tests, then /init asks kmemleak
# for a scan, so one boot covers both under KASAN, UBSAN, KFENCE, lockdep,
# kmemleak, DEBUG_LIST, DEBUG_VM and DEBUG_OBJECTS.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

BOOT_TIMEOUT=${KUNIT52_SYSTEM_TIMEOUT:-900}
# Extra kernel arguments (harness self-tests use kunit52.inject=...).
EXTRA_ARGS=${KUNIT52_SYSTEM_ARGS:-}

kernel_image() {
	case $1 in
	x86_64) echo "$(build_dir x86_64)/arch/x86/boot/bzImage" ;;
	arm64) echo "$(build_dir arm64)/arch/arm64/boot/Image.gz" ;;
	esac
}

# With the debug variant, KUnit runs in the same boot.
kunit_enable() {
	[[ "${KUNIT52_VARIANT:-}" == debug ]] && echo 1 || echo 0
}

# QEMU command line for ARCH, without the kernel arguments.
qemu_cmd() {
	local arch=$1 sys=$2 ktap=$3
	case $arch in
	x86_64)
		printf '%s\n' qemu-system-x86_64 -accel tcg -m 1024 -smp 2 \
			-drive "file=$sys/scratch.img,format=raw,if=none,id=d0" \
			-device virtio-blk-pci,drive=d0 \
			-device virtio-serial-pci \
			-chardev "file,id=ktap,path=$ktap" -device virtconsole,chardev=ktap ;;
	arm64)
		printf '%s\n' qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
			-accel tcg -m 1024 -smp 2 \
			-drive "file=$sys/scratch.img,format=raw,if=none,id=d0" \
			-device virtio-blk-device,drive=d0 \
			-device virtio-serial-device \
			-chardev "file,id=ktap,path=$ktap" -device virtconsole,chardev=ktap ;;
	esac
	printf '%s\n' -nographic -no-reboot -kernel "$(kernel_image "$arch")" \
		-initrd "$sys/initramfs.cpio.gz"
}

console_arg() {
	case $1 in x86_64) echo ttyS0 ;; arm64) echo ttyAMA0 ;; esac
}

# Kernel arguments for ARCH.  x86_64 boots without ACPI: under TCG the
# debug kernel's AML interpreter runs past its loop timeout in _PRT and
# leaves virtio-pci without interrupt routing (MP tables and MSI-X serve).
# KUnit prints its KTAP at KERN_INFO, so a KUnit boot keeps every message.
kernel_args() {
	local arch=$1 glob=$2 args
	args="console=$(console_arg "$arch") panic=-1 oops=panic kunit.enable=$(kunit_enable)"
	[[ $arch == x86_64 ]] && args+=" acpi=off"
	[[ $(kunit_enable) == 1 ]] || args+=" loglevel=5"
	echo "$args kunit52.tests=$glob $EXTRA_ARGS"
}

prepare_boot() {
	local arch=$1 sys=$2
	[[ -f "$(kernel_image "$arch")" ]] ||
		die "no $arch kernel in $(build_dir "$arch") (run: make kunit ARCH=$arch${KUNIT52_VARIANT:+ VARIANT=$KUNIT52_VARIANT})"
	"$REPO/scripts/initramfs.sh" "$arch"
	rm -f "$sys/scratch.img"
	truncate -s 64M "$sys/scratch.img"
}

# Decide the run from the logs; append rows; return non-zero on failure.
judge() {
	local arch=$1 sys=$2 rc=$3 rows=$4 report failed=0
	report=$(grep -a -m1 -E "$KUNIT52_REPORT_RE" "$sys/console.log" || true)
	if [[ -n "$report" ]]; then
		echo "system $arch: kernel report on the console: $report" >&2
		printf 'system\t%s/kernel-report\t0\t1\t0\t%s\n' "$arch" "$sys/console.log" >> "$rows"
		failed=1
	fi
	if [[ $(kunit_enable) == 1 ]]; then
		(cd "$TREE" && timeout 120 python3 tools/testing/kunit/kunit.py parse \
			--json="$sys/kunit-results.json" "$sys/console.log") > "$sys/kunit-parse.log" 2>&1 || true
		grep -a -E '^\[..:..:..\] (Testing complete|# Totals)' "$sys/kunit-parse.log" || true
		python3 "$REPO/scripts/kunit-summary.py" "$sys/kunit-results.json" \
			"$arch" "$rows" "$sys/console.log" || failed=1
	fi
	if ! grep -q 'kunit52: all tests done' "$sys/console.log"; then
		if [[ $rc -eq 124 ]]; then
			echo "system $arch: timed out after ${BOOT_TIMEOUT}s" >&2
		else
			echo "system $arch: the guest stopped before its tests ended (qemu exit $rc)" >&2
		fi
		printf 'system\t%s/boot (did not finish)\t0\t1\t0\t%s\n' "$arch" "$sys/console.log" >> "$rows"
		failed=1
	fi
	(cd "$TREE" && timeout 120 python3 tools/testing/kunit/kunit.py parse \
		--json="$sys/results.json" "$sys/ktap.log") > "$sys/parse.log" 2>&1 || true
	grep -v '^\[..:..:..\] *$' "$sys/parse.log" | sed -n '/====/,$p' || true
	KUNIT52_AREA=system python3 "$REPO/scripts/kunit-summary.py" "$sys/results.json" \
		"$arch" "$rows" "$sys/ktap.log" || failed=1
	if [[ $failed -ne 0 ]]; then
		echo "system $arch: FAILED; console: $sys/console.log, KTAP: $sys/ktap.log" >&2
	fi
	return "$failed"
}

run_tests() {
	local arch=$1 glob=$2 sys rows label rc=0
	local -a qemu
	sys=$(build_dir "$arch")/system
	label=$(basename "$(build_dir "$arch")")
	rows=${KUNIT52_ROWS:-$sys/rows.tsv}
	mkdir -p "$sys"
	prepare_boot "$arch" "$sys"
	: > "$sys/ktap.log"
	mapfile -t qemu < <(qemu_cmd "$arch" "$sys" "$sys/ktap.log")
	info "booting $arch with tests '$glob' (console: $sys/console.log)"
	timeout -k 10 "$BOOT_TIMEOUT" "${qemu[@]}" -append "$(kernel_args "$arch" "$glob")" \
		< /dev/null > "$sys/console.log" 2>&1 || rc=$?
	judge "$label" "$sys" "$rc" "$rows"
}

shell() {
	local arch=$1 sys
	local -a qemu
	sys=$(build_dir "$arch")/system
	mkdir -p "$sys"
	prepare_boot "$arch" "$sys"
	mapfile -t qemu < <(qemu_cmd "$arch" "$sys" "$sys/ktap.log")
	info "interactive $arch guest: tests in /tests, scratch disk /dev/vda; 'reboot -f' or Ctrl-A X to leave"
	exec "${qemu[@]}" -append "console=$(console_arg "$arch") panic=-1 kunit.enable=0 kunit52.mode=shell"
}

main() {
	check_variant
	if [[ "${1:-}" == --shell ]]; then
		[[ $# -eq 2 ]] || die "usage: ${0##*/} --shell ARCH"
		check_arch "$2"
		shell "$2"
	fi
	[[ $# -ge 1 && $# -le 2 ]] || die "usage: ${0##*/} ARCH [TEST_GLOB]"
	check_arch "$1"
	run_tests "$1" "${2:-*}"
}

main "$@"
