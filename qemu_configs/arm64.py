# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for arm64: qemu-system-aarch64 -machine virt
# under TCG, two CPUs, and panic=-1 so a panic ends the run at once.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_SMP=y
# virtio transport for the full-system boots (scripts/system.sh)
CONFIG_VIRTIO_MMIO=y
# QEMU loads the kernel directly: no EFI (kunitconfigs/lean has the rest).
# CONFIG_EFI is not set''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0 panic=-1',
			   extra_qemu_params=['-machine', 'virt', '-accel', 'tcg',
					      '-cpu', 'max,pauth-impdef=on', '-smp', '2'])
