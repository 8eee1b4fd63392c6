# SPDX-License-Identifier: GPL-2.0
# x86_64: kunit.py's --qemu_config, and kunit52's facts about the arch
# (KUNIT52_ARCH, read through scripts/arch.py, which documents the fields).
# TCG (nested KVM hangs on our machines), two CPUs, and panic=-1 so a
# panic ends the run at once.
from ..qemu_config import QemuArchParams



def _mds_boot(name, cpu, args):
	"""An extra boot that runs mds_test alone on QEMU CPU model @cpu."""
	return {'name': name, 'test': 'mds_test', 'qemu': ['-cpu', cpu],
		'args': args}


KUNIT52_ARCH = {
	'debian_arch': 'amd64',
	'gnu_triplet': 'x86_64-linux-gnu',
	'cross_compile': '',
	'host_packages': ['gcc', 'libc6-dev', 'qemu-system-x86'],
	'qemu_arch': 'x86_64',
	'kernel_path': 'arch/x86/boot/bzImage',
	'console': 'ttyS0',
	'machine': ['-accel', 'tcg', '-smp', '2'],
	# qboot boots faster than SeaBIOS, but sets up no PCI interrupt
	# routing: the full-system boots' virtio-pci devices need SeaBIOS's
	# MP table ("virtio-pci: can't find IRQ for PCI INT A" under qboot).
	'kunit_machine': ['-bios', 'qboot.rom'],
	'virtio': 'pci',
	# Under TCG the hardened kernel's AML interpreter ran past its loop
	# timeout in _PRT and left virtio-pci without interrupts.
	'system_args': 'acpi=off',
	# "make run" builds the plain kernel; the gate reuses it.
	'gate_variant': '',
	# The TDD loop's kernel (make kunit): vmlinux itself, booted through
	# its PVH entry point; no compressed image to make or unpack.
	# HYPERVISOR_GUEST only shows PVH (PARAVIRT stays off).
	'loop': {'target': 'vmlinux', 'kernel_path': 'vmlinux',
		 'kconfig': 'CONFIG_HYPERVISOR_GUEST=y\nCONFIG_PVH=y'},
	# The MDS report (guest/mds_test.c holds what each must read) under
	# CPU models that differ in it: the default qemu64 (AMD: not
	# affected) is the full-system boot; kvm64 is an Intel CPU without
	# md-clear (TCG cannot offer it); Skylake-Client is also affected by
	# MMIO Stale Data, whose buffer clearing overrides mds=off.  One more
	# boot has PSI off.
	'extra_boots': [
		_mds_boot('mds-kvm64', 'kvm64', ''),
		_mds_boot('mds-kvm64-off', 'kvm64', 'mds=off'),
		_mds_boot('mds-kvm64-nosmt', 'kvm64', 'mds=full,nosmt'),
		_mds_boot('mds-kvm64-unknown', 'kvm64', 'mds=bogus'),
		_mds_boot('mds-skylake-off', 'Skylake-Client', 'mds=off'),
		_mds_boot('mds-skylake-all-off', 'Skylake-Client',
			  'mds=off mmio_stale_data=off'),
		# psi=0: no pressure files anywhere (psi_test's psi_off cases).
		{'name': 'psi-off', 'test': 'psi_test', 'qemu': [],
		 'args': 'psi=0'},
	],
}

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SMP=y
# virtio transport for the full-system boots (scripts/system.sh)
CONFIG_PCI=y
CONFIG_VIRTIO_PCI=y
# The guests boot with acpi=off (system_args above): no ACPI to build.
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
# CONFIG_PERF_EVENTS_AMD_POWER is not set
# fprobe events for the error_log tests (kunitconfigs/guest says why
# only here).
CONFIG_FPROBE=y
CONFIG_FPROBE_EVENTS=y''',
			   qemu_arch=KUNIT52_ARCH['qemu_arch'],
			   kernel_path=KUNIT52_ARCH['kernel_path'],
			   kernel_command_line=f"console={KUNIT52_ARCH['console']} panic=-1",
			   extra_qemu_params=(KUNIT52_ARCH['machine'] +
					      KUNIT52_ARCH['kunit_machine']))
