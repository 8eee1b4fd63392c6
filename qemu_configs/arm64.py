# SPDX-License-Identifier: GPL-2.0
# arm64: kunit.py's --qemu_config, and kunit52's facts about the arch
# (KUNIT52_ARCH, read through scripts/arch.py, which documents the fields).
# qemu-system-aarch64 -machine virt under TCG, two CPUs, and panic=-1 so
# a panic ends the run at once.
from ..qemu_config import QemuArchParams

KUNIT52_ARCH = {
	'debian_arch': 'arm64',
	'gnu_triplet': 'aarch64-linux-gnu',
	'cross_compile': 'aarch64-linux-gnu-',
	'host_packages': ['gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross',
			  'qemu-system-arm'],
	'qemu_arch': 'aarch64',
	'kernel_path': 'arch/arm64/boot/Image.gz',
	'console': 'ttyAMA0',
	'machine': ['-machine', 'virt', '-accel', 'tcg',
		    '-cpu', 'max,pauth-impdef=on', '-smp', '2'],
	'kunit_machine': [],
	'virtio': 'mmio',
	'system_args': '',
	# The hardened kernel (kunitconfigs/variants/debug): with x86_64 on
	# the plain one, two builds cover both arches and the sanitizers.
	'gate_variant': 'debug',
	# The TDD loop's kernel (make kunit): the uncompressed Image.
	'loop': {'target': 'Image', 'kernel_path': 'arch/arm64/boot/Image',
		 'kconfig': ''},
}

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_SMP=y
# virtio transport for the full-system boots (scripts/system.sh)
CONFIG_VIRTIO_MMIO=y
# QEMU loads the kernel directly: no EFI (kunitconfigs/lean has the rest).
# CONFIG_EFI is not set''',
			   qemu_arch=KUNIT52_ARCH['qemu_arch'],
			   kernel_path=KUNIT52_ARCH['kernel_path'],
			   kernel_command_line=f"console={KUNIT52_ARCH['console']} panic=-1",
			   extra_qemu_params=(KUNIT52_ARCH['machine'] +
					      KUNIT52_ARCH['kunit_machine']))
