# SPDX-License-Identifier: GPL-2.0
# kunit.py --qemu_config for x86_64: TCG (nested KVM hangs on our
# machines), two CPUs, and panic=-1 so a panic ends the run at once.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SMP=y
# virtio transport for the full-system boots (scripts/system.sh)
CONFIG_PCI=y
CONFIG_VIRTIO_PCI=y
# The guests boot with acpi=off (scripts/system.sh): no ACPI to build.
# CONFIG_ACPI is not set
# What an emulated machine does not need (kunitconfigs/lean has the rest).
# CONFIG_X86_MCE is not set
# CONFIG_SCHED_MC_PRIO is not set
# CONFIG_CPU_FREQ is not set
# CONFIG_PCIEASPM is not set
# CONFIG_INTEL_MEI is not set
# CONFIG_X86_PLATFORM_DEVICES is not set
# CONFIG_PERF_EVENTS_INTEL_UNCORE is not set
# CONFIG_PERF_EVENTS_INTEL_RAPL is not set
# CONFIG_PERF_EVENTS_INTEL_CSTATE is not set
# CONFIG_PERF_EVENTS_AMD_UNCORE is not set
# CONFIG_PERF_EVENTS_AMD_POWER is not set''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic=-1',
			   extra_qemu_params=['-bios', 'qboot.rom',
					      '-accel', 'tcg', '-smp', '2'])
