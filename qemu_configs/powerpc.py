# SPDX-License-Identifier: GPL-2.0
# powerpc: 32-bit big-endian PowerPC, kunit.py's --qemu_config, and
# kunit52's facts about the arch (KUNIT52_ARCH, read through
# scripts/arch.py, which documents the fields).
#
# qemu-system-ppc -machine mac99 (a PowerMac G4: book3s/32, hash MMU,
# 4K pages) under TCG.  book3s/32 because it is the 32-bit family QEMU
# emulates that both 5.2 features build on: KASAN (PPC32 with pages of
# 16K or less; 44x has 64K pages) and KUAP (segment registers,
# arch/powerpc/include/asm/book3s/32/kup.h).  This kernel is always the
# KASAN kernel: KASAN on 32-bit PowerPC is what the arch is here for.
from ..qemu_config import QemuArchParams

KUNIT52_ARCH = {
	'debian_arch': 'powerpc',
	'gnu_triplet': 'powerpc-linux-gnu',
	'cross_compile': 'powerpc-linux-gnu-',
	'host_packages': ['gcc-powerpc-linux-gnu', 'libc6-dev-powerpc-cross',
			  'qemu-system-ppc'],
	'qemu_arch': 'ppc',
	'kernel_path': 'vmlinux',
	'console': 'ttyPZ0',
	'machine': ['-machine', 'mac99', '-cpu', 'g4', '-accel', 'tcg'],
	'kunit_machine': [],
	'virtio': 'pci',
	'system_args': '',
	# Plain kunit.py runs, with KASAN in this kernel (below).
	'gate_variant': '',
	# The TDD loop's kernel (make kunit): vmlinux, as always here.
	'loop': {'target': 'vmlinux', 'kernel_path': 'vmlinux', 'kconfig': ''},
	# Debian 12 has no powerpc packages (a ports arch): the guest is
	# static programs built with Debian's cross compiler and libc, the
	# tests that need nothing else (vmalloc_perf_test runs in make bench).
	'guest_tests': ['kuap_test', 'vmalloc_perf_test'],
	'extra_boots': [
		# KUAP off: the same write goes through.
		{'name': 'kuap-nosmap', 'test': 'kuap_test', 'qemu': [],
		 'args': 'nosmap'},
	],
}

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
# CONFIG_PPC64 is not set
CONFIG_PPC_BOOK3S_32=y
CONFIG_PPC_PMAC=y
CONFIG_SERIAL_PMACZILOG=y
CONFIG_SERIAL_PMACZILOG_CONSOLE=y
# The machine's Cuda: reboot (kunit_shutdown=reboot, with -no-reboot
# QEMU ends) goes through it.
CONFIG_ADB=y
CONFIG_ADB_CUDA=y
CONFIG_PCI=y
CONFIG_VIRTIO_PCI=y
# KASAN on 32-bit PowerPC, and the kernel's own KASAN suite.
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_VMALLOC=y
CONFIG_KASAN_KUNIT_TEST=y
# KUAP (and KUEP), and lkdtm to provoke the accesses they stop.
CONFIG_PPC_KUAP=y
CONFIG_PPC_KUEP=y
CONFIG_DEBUG_FS=y
CONFIG_LKDTM=y
# The vmalloc suite's fault-injection cases (kunitconfigs/variants/debug
# has them for the other arches' hardened kernels).
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FAIL_PAGE_ALLOC=y
# The KASAN suite counts reports through a tracepoint.
CONFIG_FTRACE=y
CONFIG_ENABLE_DEFAULT_TRACERS=y
# The static guest (guest_tests above): an initramfs, devtmpfs, a virtio
# console for KTAP and a virtio scratch disk; no Debian guest options
# (kunitconfigs/guest).
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_BINFMT_ELF=y
CONFIG_BLK_DEV=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_CONSOLE=y''',
			   qemu_arch=KUNIT52_ARCH['qemu_arch'],
			   kernel_path=KUNIT52_ARCH['kernel_path'],
			   kernel_command_line=f"console={KUNIT52_ARCH['console']} panic=-1",
			   extra_qemu_params=(KUNIT52_ARCH['machine'] +
					      KUNIT52_ARCH['kunit_machine']))
