#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/initramfs.sh ARCH [DIR]
#
# Assemble DIR/initramfs.cpio.gz (default DIR: build/ARCH/system) for the
# full-system boots: busybox-static and the guest tools we need (dmsetup; nfs-utils' server
# programs, rpcbind and sqlite3 for the NFS tests; with the shared
# libraries they link) from Debian packages for ARCH, unpacked with
# "dpkg -x" (nothing is installed on the host), our /init, our guest
# test programs (guest/*_test.c, linked with guest/lib) and the kernel's own selftests
# listed in SELFTESTS and SELFTEST_PROGRAMS (from the prepared tree, against its
# UAPI headers), all built static for ARCH, and the script selftests of
# SELFTEST_SCRIPTS with our wrappers.  An arch that Debian has no packages
# for (guest_tests in its qemu_configs/ table) gets static programs only:
# guest/static_init.c as /init and the guest tests its table lists.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# Debian packages whose files the guest uses; libraries are found by
# following each program's DT_NEEDED entries through these.
GUEST_DEBS=(busybox-static coreutils dmsetup libdevmapper1.02.1 libc6 libselinux1 libudev1
	    libpcre2-8-0 libcap2
	    nfs-kernel-server nfs-common rpcbind sqlite3 libtirpc3 libwrap0 libnsl2
	    libblkid1 libuuid1 libevent-core-2.1-7 libsqlite3-0 libsystemd0
	    liblzma5 libzstd1 liblz4-1 libgcrypt20 libgpg-error0
	    libgssapi-krb5-2 libkrb5-3 libk5crypto3 libcom-err2 libkrb5support0
	    libkeyutils1 libreadline8 libtinfo6 zlib1g e2fsprogs libext2fs2)
# Architecture-independent packages (configuration files).
GUEST_DEBS_ALL=(netbase libtirpc-common)
# Programs copied from the packages, with their libraries.  coreutils'
# dd prints what dm-dust.rst shows (busybox's differs), and goes in /bin
# before /init links busybox's applets there; so does e2fsprogs' mke2fs,
# which makes ext4 for gup_longterm_test (busybox's makes ext2 only).
GUEST_TOOLS=(sbin/dmsetup bin/dd
	     usr/sbin/rpc.nfsd usr/sbin/rpc.mountd usr/sbin/exportfs
	     usr/sbin/nfsdcld sbin/rpcbind usr/bin/sqlite3
	     sbin/mke2fs)
# Plain files copied from the packages: libtirpc's transports, RPC
# program numbers and services for rpcbind, mountd and nfsd; the file
# system types mke2fs knows.
GUEST_FILES=(etc/netconfig etc/rpc etc/services etc/protocols etc/mke2fs.conf)
# Kernel selftests run as guest tests: "name: sources" under
# tools/testing/selftests.  They keep their names (test_freezer looks for
# "(test_freezer)" in /proc/PID/stat).
SELFTESTS=("test_freezer: cgroup/test_freezer.c cgroup/cgroup_util.c")
# Kernel selftests that a guest test of ours runs (guest/gup_longterm_test.c):
# "name: sources", built to /selftests/DIR/name, DIR the first source's
# directory.
SELFTEST_PROGRAMS=("gup_longterm: mm/gup_longterm.c mm/vm_util.c"
		   "gup_test: mm/gup_test.c mm/vm_util.c")
# Kernel selftests that are scripts: "name: directory" under
# tools/testing/selftests.  The directory is copied to /selftests, and
# guest/NAME, our wrapper that names the cases to run, is the test.
SELFTEST_SCRIPTS=("ftracetest_errlog: ftrace")
# Documents whose examples guest/doc_examples_test.c replays: copied from
# the prepared tree to /docs.
GUEST_DOCS=(Documentation/admin-guide/device-mapper/dm-dust.rst
      Documentation/accounting/psi.rst
      Documentation/admin-guide/cgroup-v2.rst)
# Example programs built from a document, as written: "name: document:
# title", the literal block under that section title, to /docs/name.
DOC_PROGRAMS=("psi_example: Documentation/accounting/psi.rst: Userspace monitor usage example")

DEBS=$(debs_dir)

# Unpack the candidate versions of the guest packages into STAGE/root.
stage_debs() {
	local arch=$1 stage=$2 darch f
	local -a specs
	darch=$(arch_fact "$arch" debian_arch)
	specs=("${GUEST_DEBS[@]/%/:$darch}" "${GUEST_DEBS_ALL[@]}")
	mkdir -p "$stage"
	(
		flock 9
		fetch_debs "$DEBS" "${specs[@]}"
	) 9> "$DEBS/.lock"
	rm -rf "$stage/root"
	mkdir -p "$stage/root"
	while read -r f; do
		dpkg -x "$DEBS/$f" "$stage/root"
	done < <(candidate_debs "${specs[@]}")
}

# Find a library by soname in the staged packages.
find_lib() {
	local stage=$1 tri=$2 name=$3 d
	for d in "lib/$tri" "usr/lib/$tri" lib usr/lib; do
		if [[ -e "$stage/root/$d/$name" ]]; then
			echo "$d/$name"
			return 0
		fi
	done
	return 1
}

# Copy ELF file REL (relative to the staged root) into ROOT with every
# library it needs, recursively, and its interpreter.
copy_with_libs() {
	local stage=$1 tri=$2 root=$3 rel=$4 lib interp
	[[ -e "$root/$rel" ]] && return 0
	mkdir -p "$root/$(dirname "$rel")"
	cp -L "$stage/root/$rel" "$root/$rel"
	interp=$(readelf -l "$stage/root/$rel" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	if [[ -n "$interp" && ! -e "$root$interp" ]]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$stage/root$interp" "$root$interp"
	fi
	while read -r lib; do
		local found
		found=$(find_lib "$stage" "$tri" "$lib") ||
			die "$rel needs $lib, which no staged package provides (add it to GUEST_DEBS)"
		copy_with_libs "$stage" "$tri" "$root" "$found"
	done < <(readelf -d "$stage/root/$rel" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
}

# The guest tests' library (guest/lib/*.c) as an archive for ARCH in DIR.
build_guest_lib() {
	local arch=$1 dir=$2 cc src obj
	local -a objs=()
	cc=$(arch_fact "$arch" guest_cc)
	mkdir -p "$dir"
	for src in "$REPO"/guest/lib/*.c; do
		obj=$dir/$(basename "${src%.c}").o
		"$cc" -O2 -Wall -Wextra -Werror -c -o "$obj" "$src" ||
			die "cannot build guest library $(basename "$src") for $arch"
		objs+=("$obj")
	done
	rm -f "$dir/libguest.a"
	"$(arch_fact "$arch" cross_compile)ar" rcs "$dir/libguest.a" "${objs[@]}" ||
		die "cannot archive the guest library for $arch"
}

# build_guest_program ARCH SRC OUT LIB: guest program SRC, static, linked
# with the library archive in LIB, as OUT.  The markers of an expected
# kernel report come from scripts/lib.sh, which reads them on the console.
build_guest_program() {
	local arch=$1 src=$2 out=$3 lib=$4
	"$(arch_fact "$arch" guest_cc)" -static -O2 -Wall -Wextra -Werror -I"$REPO/guest/lib" \
		-DEXPECTED_BEGIN="\"$KUNIT52_EXPECTED_BEGIN\"" \
		-DEXPECTED_END="\"$KUNIT52_EXPECTED_END\"" \
		-o "$out" "$src" "$lib/libguest.a" ||
		die "cannot build guest program $(basename "$src") for $arch"
}

# Every guest/*_test.c into OUT, its library built in LIB.
build_guest_tests() {
	local arch=$1 out=$2 lib=$3 src
	build_guest_lib "$arch" "$lib"
	mkdir -p "$out"
	for src in "$REPO"/guest/*_test.c; do
		build_guest_program "$arch" "$src" "$out/$(basename "${src%.c}")" "$lib"
	done
}

# The initramfs tree ROOT of an arch that Debian has no packages for
# (guest_tests in its table): guest/static_init.c as /init, the guest
# tests of its table in /tests, all static (their library built in
# STAGE), and the build's test modules.
static_root() {
	local arch=$1 root=$2 stage=$3 t
	local -a tests
	mapfile -t tests < <(arch_fact "$arch" guest_tests)
	build_guest_lib "$arch" "$stage/guest-lib"
	rm -rf "$root"
	mkdir -p "$root/tests"
	build_guest_program "$arch" "$REPO/guest/static_init.c" "$root/init" "$stage/guest-lib"
	for t in "${tests[@]}"; do
		[[ -f "$REPO/guest/$t.c" ]] || die "$arch's guest_tests names $t: no guest/$t.c"
		build_guest_program "$arch" "$REPO/guest/$t.c" "$root/tests/$t" "$stage/guest-lib"
	done
	copy_modules "$arch" "$root"
}

# The prepared tree's UAPI headers for ARCH ("make headers", out of tree
# in DIR): the selftests use what the distribution's headers may lack.
# DIR lies in the arch's build directory, so that every initramfs of that
# build (the harness self-tests' too, at the same time as the gate's
# boot) shares one copy, made under a lock.  Prints the include directory.
uapi_headers() {
	local arch=$1 dir=$2
	mkdir -p "$dir"
	flock "$dir.lock" make -s -C "$TREE" O="$dir" \
		ARCH="$(arch_fact "$arch" linux_arch)" headers > "$dir.log" 2>&1 ||
		die "cannot make the UAPI headers for $arch (log: $dir.log)"
	echo "$dir/usr/include"
}

# The local_config.h that tools/testing/selftests/mm's Makefile generates
# (check_config.sh), in DIR: no liburing for the guest, so gup_longterm's
# io_uring cases are left out when it is compiled.
selftest_local_config() {
	mkdir -p "$1"
	echo '/* kunit52: no liburing in the guest */' > "$1/local_config.h"
}

# build_selftest ARCH OUT HEADERS CONFIG "name: sources": OUT/name, with
# the UAPI headers in HEADERS, local_config.h in CONFIG and the tree
# itself on the include path, compiled in the sources' directory, as the
# selftests' Makefiles do (gup_longterm names its temporary file after
# __FILE__, which must not hold a directory of this machine).
build_selftest() {
	local arch=$1 out=$2 headers=$3 config=$4 name=${5%%:*}
	local dir=$TREE/tools/testing/selftests cc sub
	local -a srcs
	read -ra srcs <<< "${5#*:}"
	sub=$(dirname "${srcs[0]}")
	cc=$(arch_fact "$arch" guest_cc)
	mkdir -p "$out"
	(cd "$dir/$sub" &&
	 "$cc" -static -O2 -pthread -isystem "$headers" -I"$TREE" -I"$dir" -I"$config" \
		-o "$out/$name" "${srcs[@]#"$sub"/}") ||
		die "cannot build selftest $name for $arch"
}

# SELFTESTS to ROOT/tests, SELFTEST_PROGRAMS to ROOT/selftests/DIR, for ARCH;
# their local_config.h goes to STAGE (the headers, to the build directory).
build_selftests() {
	local arch=$1 root=$2 stage=$3 config=$3/selftest-config st headers srcs
	[[ -d "$TREE/tools/testing/selftests" ]] || die "no prepared tree at $TREE (run: make prepare)"
	headers=$(uapi_headers "$arch" "$(build_dir "$arch")/uapi")
	selftest_local_config "$config"
	for st in "${SELFTESTS[@]}"; do
		build_selftest "$arch" "$root/tests" "$headers" "$config" "$st"
	done
	for st in "${SELFTEST_PROGRAMS[@]}"; do
		read -r _ srcs _ <<< "$st"
		build_selftest "$arch" "$root/selftests/$(dirname "$srcs")" "$headers" "$config" "$st"
	done
}

copy_selftest_scripts() {
	local out=$1 root=$2 st name dir src=$TREE/tools/testing/selftests
	for st in "${SELFTEST_SCRIPTS[@]}"; do
		name=${st%%:*}
		dir=${st#*: }
		[[ -d "$src/$dir" ]] || die "no selftest directory $src/$dir (run: make prepare)"
		mkdir -p "$root/selftests"
		cp -r "$src/$dir" "$root/selftests/$dir"
		install -m 0755 "$REPO/guest/$name" "$out/$name"
	done
}

# The C program in the first literal block ("::", indented) under the
# section titled TITLE of the .rst file DOC, without the block's indent.
doc_program() {
	awk -v title="$2" '
		$0 == title { found = 1; next }
		found && !inblock && /::$/ { inblock = 1; next }
		inblock && NF && /^[^ \t]/ { exit }
		inblock { sub(/^  /, ""); print }' "$1"
}

# GUEST_DOCS to ROOT/docs, and DOC_PROGRAMS built there for ARCH.
copy_docs() {
	local arch=$1 root=$2 doc entry name file title cc
	cc=$(arch_fact "$arch" guest_cc)
	mkdir -p "$root/docs"
	for doc in "${GUEST_DOCS[@]}"; do
		[[ -f "$TREE/$doc" ]] || die "no $TREE/$doc (run: make prepare)"
		cp "$TREE/$doc" "$root/docs/"
	done
	for entry in "${DOC_PROGRAMS[@]}"; do
		name=${entry%%: *}
		file=${entry#*: }
		title=${file#*: }
		file=${file%%: *}
		doc_program "$TREE/$file" "$title" > "$root/docs/$name.c"
		[[ -s "$root/docs/$name.c" ]] || die "no program under '$title' in $file"
		"$cc" -static -O2 -o "$root/docs/$name" "$root/docs/$name.c" ||
			die "cannot build $file's example program for $arch"
	done
}

# Test modules of this build (the bench variant builds test_vmalloc.ko).
copy_modules() {
	local ko
	ko=$(build_dir "$1")/lib/test_vmalloc.ko
	[[ -f "$ko" ]] || return 0
	mkdir -p "$2/lib/modules"
	cp "$ko" "$2/lib/modules/"
}

# The initramfs tree ROOT of the Debian guest: busybox and the tools of
# GUEST_DEBS, /init, every guest test and selftest, the documents and
# modules; the packages staged in STAGE.
debian_root() {
	local arch=$1 root=$2 stage=$3 tri t
	tri=$(arch_fact "$arch" gnu_triplet)
	stage_debs "$arch" "$stage"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,tests}
	cp "$stage/root/bin/busybox" "$root/bin/busybox"
	for t in "${GUEST_TOOLS[@]}"; do
		copy_with_libs "$stage" "$tri" "$root" "$t"
	done
	for t in "${GUEST_FILES[@]}"; do
		install -D -m 0644 "$stage/root/$t" "$root/$t"
	done
	install -m 0755 "$REPO/guest/init" "$root/init"
	build_guest_tests "$arch" "$root/tests" "$stage/guest-lib"
	build_selftests "$arch" "$root" "$stage"
	copy_selftest_scripts "$root/tests" "$root"
	copy_docs "$arch" "$root"
	copy_modules "$arch" "$root"
}

main() {
	local arch=${1:-} sys stage root
	[[ $# -ge 1 && $# -le 2 ]] || die "usage: ${0##*/} ARCH [DIR]"
	check_arch "$arch"
	sys=${2:-$(build_dir "$arch")/system}
	stage=$sys/stage
	root=$sys/initramfs

	if static_guest "$arch"; then
		static_root "$arch" "$root" "$stage"
	else
		debian_root "$arch" "$root" "$stage"
	fi
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio -o -0 -H newc --quiet -R 0:0) | gzip -1 > "$sys/initramfs.cpio.gz"
	info "initramfs for $arch: $sys/initramfs.cpio.gz ($(du -h "$sys/initramfs.cpio.gz" | cut -f1))"
}

main "$@"
