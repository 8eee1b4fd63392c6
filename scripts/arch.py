#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one reader of kunit52's architecture table.

Every architecture is one file, qemu_configs/ARCH.py: kunit.py's
--qemu_config (QEMU_ARCH) and a dict KUNIT52_ARCH holding the facts the
other scripts need.  QEMU_ARCH is made from KUNIT52_ARCH, and the
full-system boot's QEMU command line is made here from the same dict, so
the two agree by construction.  Adding an architecture is adding its
file (README, "Adding an architecture").

KUNIT52_ARCH fields:
  debian_arch     Debian's name (the guest's packages: apt-get download P:ARCH)
  gnu_triplet     the multiarch library directory of the guest's packages
  cross_compile   the compiler prefix ("" when the host builds natively)
  host_packages   Debian packages the host needs for this arch (list)
  qemu_arch       qemu-system-QEMU_ARCH runs it
  kernel_path     the boot image, relative to the build directory
  console         the serial console's device name
  machine         QEMU arguments for every boot of this arch (list)
  kunit_machine   QEMU arguments for kunit.py's boots only (list)
  virtio          "pci" or "mmio": the transport of the guest's disk and
                  KTAP console
  system_args     kernel arguments for the full-system boots
  gate_variant    the kernel configuration "make test" runs this arch's
                  tests on: "" (plain) or "debug" (hardened)
  linux_arch      (derived from QEMU_ARCH) the kernel's ARCH= for this arch
  kernel_command_line  (derived from QEMU_ARCH) kunit.py's kernel arguments
  kconfig         (derived from QEMU_ARCH) the arch's configuration lines
  guest_tests     (optional) for an arch that Debian has no packages for
                  (a ports arch): the guest tests its full-system boot
                  runs, on an initramfs of static programs only
                  (guest/static_init.c as /init); its kernel then leaves
                  out kunitconfigs/guest, the Debian guest's options.
                  Absent: every guest test, on the Debian guest
  extra_boots     (optional) short boots beside the full-system one, each
                  running one guest test under other QEMU or kernel
                  arguments (e.g. another CPU model): a list of dicts with
                  name, test (the program), qemu (a list) and args
  loop            the TDD loop's kernel (make kunit, scripts/loop.sh): a
                  dict with target (the one make target it builds),
                  kernel_path (what QEMU boots: an image it need not
                  unpack) and kconfig (what that image needs, added to
                  QEMU_ARCH's)

Usage:
  arch.py --list                 the architectures, one per line
  arch.py ARCH FIELD             a field (a list: one item per line); the
                                 derived fields qemu, guest_cc, linux_arch too
  arch.py ARCH system-qemu KERNEL INITRD SCRATCH KTAP
                                 the full-system boot's QEMU command
                                 line, one argument per line
  arch.py ARCH extra-boots       the extra boots' names, one per line
  arch.py ARCH extra-boot NAME FIELD
                                 a field of one (test, args; qemu: one
                                 argument per line)
  arch.py ARCH loop FIELD        a field of the loop's kernel
  arch.py ARCH loop-qemu-config  kunit.py's --qemu_config for the loop's
                                 kernel: the arch's file, its QEMU_ARCH
                                 booting the loop's image

KUNIT52_QEMU_CONFIGS names another directory of qemu_configs (self-tests).
Unknown ARCH or FIELD: one line on stderr, exit 2.
"""
import importlib.util
import os
import sys
import types

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.environ.get('KUNIT52_QEMU_CONFIGS') or os.path.join(REPO, 'qemu_configs')
# The full-system boots' memory, MiB.  1024 ran out under the hardened
# arm64 kernel's test_vmalloc stress run: four workers in random orders
# with KASAN's vmalloc shadow took 670 MiB in seconds, and the OOM killer,
# finding only kernel threads, panicked ("System is deadlocked on memory").
MEMORY = '2048'
FIELDS = ('debian_arch', 'gnu_triplet', 'cross_compile', 'host_packages',
	  'qemu_arch', 'kernel_path', 'console', 'machine', 'kunit_machine',
	  'virtio', 'system_args', 'gate_variant', 'loop')
LOOP_FIELDS = ('target', 'kernel_path', 'kconfig')
OPTIONAL_FIELDS = {'guest_tests': []}
VIRTIO_DEVICES = {
	'pci': ('virtio-blk-pci', 'virtio-serial-pci'),
	'mmio': ('virtio-blk-device', 'virtio-serial-device'),
}


def die(msg):
	print(f'{os.path.basename(sys.argv[0])}: error: {msg}', file=sys.stderr)
	sys.exit(2)


def _stub_kunit_package():
	"""Let 'from ..qemu_config import QemuArchParams' resolve without
	the kernel tree: QEMU_ARCH is kunit.py's business, not ours."""
	if 'kunit52_stub' in sys.modules:
		return
	pkg = types.ModuleType('kunit52_stub')
	pkg.__path__ = []
	cfg = types.ModuleType('kunit52_stub.qemu_configs')
	cfg.__path__ = []
	params = types.ModuleType('kunit52_stub.qemu_config')
	params.QemuArchParams = lambda **kwargs: kwargs
	sys.modules.update({'kunit52_stub': pkg,
			    'kunit52_stub.qemu_configs': cfg,
			    'kunit52_stub.qemu_config': params})


def arches():
	return sorted(f[:-3] for f in os.listdir(CONFIGS)
		      if f.endswith('.py') and not f.startswith('_'))


def load(arch):
	if arch not in arches():
		die(f"unknown ARCH '{arch}' (supported: {' '.join(arches())})")
	_stub_kunit_package()
	path = os.path.join(CONFIGS, arch + '.py')
	spec = importlib.util.spec_from_file_location(
		'kunit52_stub.qemu_configs.' + arch, path)
	mod = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(mod)
	table = getattr(mod, 'KUNIT52_ARCH', None)
	if not isinstance(table, dict):
		die(f'{path}: no KUNIT52_ARCH table')
	missing = [f for f in FIELDS if f not in table]
	if missing:
		die(f"{path}: KUNIT52_ARCH lacks {', '.join(missing)}")
	missing = [f for f in LOOP_FIELDS if f not in table['loop']]
	if missing:
		die(f"{path}: KUNIT52_ARCH['loop'] lacks {', '.join(missing)}")
	if table['virtio'] not in VIRTIO_DEVICES:
		die(f"{path}: virtio must be one of {', '.join(VIRTIO_DEVICES)}")
	return dict(table, linux_arch=mod.QEMU_ARCH['linux_arch'],
		    kernel_command_line=mod.QEMU_ARCH['kernel_command_line'],
		    kconfig=mod.QEMU_ARCH['kconfig'])


def field(table, name):
	if name == 'qemu':
		return 'qemu-system-' + table['qemu_arch']
	if name == 'guest_cc':
		return (table['cross_compile'] or '') + 'gcc'
	if name in ('linux_arch', 'kernel_command_line', 'kconfig'):
		return table[name]
	if name in OPTIONAL_FIELDS:
		return table.get(name, OPTIONAL_FIELDS[name])
	if name not in FIELDS:
		die(f"unknown field '{name}' (fields: {' '.join(FIELDS + tuple(OPTIONAL_FIELDS))}"
		    " qemu guest_cc linux_arch kernel_command_line kconfig)")
	return table[name]


EXTRA_BOOT_FIELDS = ('name', 'test', 'qemu', 'args')


def extra_boots(table):
	boots = table.get('extra_boots', [])
	for boot in boots:
		missing = [f for f in EXTRA_BOOT_FIELDS if f not in boot]
		if missing:
			die(f"extra boot {boot.get('name', '?')} lacks {', '.join(missing)}")
	return boots


def extra_boot(table, name, what):
	for boot in extra_boots(table):
		if boot['name'] == name:
			if what not in EXTRA_BOOT_FIELDS:
				die(f"unknown extra boot field '{what}' (fields: {' '.join(EXTRA_BOOT_FIELDS)})")
			return boot[what]
	die(f"unknown extra boot '{name}'")
	return None


def loop_qemu_config(arch):
	"""The arch's file, then its QEMU_ARCH made to boot the loop's image
	with the options that image needs."""
	with open(os.path.join(CONFIGS, arch + '.py'), encoding='utf-8') as f:
		text = f.read()
	return (f'# Generated by scripts/arch.py from qemu_configs/{arch}.py: the loop kernel.\n'
		+ text + '''
import dataclasses as _loop_dc
QEMU_ARCH = _loop_dc.replace(
	QEMU_ARCH, kernel_path=KUNIT52_ARCH['loop']['kernel_path'],
	kconfig=QEMU_ARCH.kconfig + '\\n' + KUNIT52_ARCH['loop']['kconfig'])
''')


def system_qemu(table, kernel, initrd, scratch, ktap):
	"""QEMU for a full-system boot: the machine kunit.py boots, plus a
	scratch disk and a second console for KTAP."""
	blk, serial = VIRTIO_DEVICES[table['virtio']]
	return ([field(table, 'qemu')] + table['machine'] +
		['-m', MEMORY,
		 '-drive', f'file={scratch},format=raw,if=none,id=d0',
		 '-device', f'{blk},drive=d0',
		 '-device', serial,
		 '-chardev', f'file,id=ktap,path={ktap}',
		 '-device', 'virtconsole,chardev=ktap',
		 '-nographic', '-no-reboot', '-kernel', kernel, '-initrd', initrd])


def show(value):
	"""A field on stdout: a list one item a line (nothing if empty)."""
	if isinstance(value, list):
		for item in value:
			print(item)
	else:
		print(value)


def main(argv):
	if argv == ['--list']:
		print('\n'.join(arches()))
		return 0
	if len(argv) == 2 and argv[1] not in ('extra-boots', 'loop-qemu-config'):
		show(field(load(argv[0]), argv[1]))
		return 0
	if len(argv) == 2 and argv[1] == 'extra-boots':
		for boot in extra_boots(load(argv[0])):
			print(boot['name'])
		return 0
	if len(argv) == 4 and argv[1] == 'extra-boot':
		show(extra_boot(load(argv[0]), argv[2], argv[3]))
		return 0
	if len(argv) == 3 and argv[1] == 'loop':
		if argv[2] not in LOOP_FIELDS:
			die(f"unknown loop field '{argv[2]}' (fields: {' '.join(LOOP_FIELDS)})")
		show(load(argv[0])['loop'][argv[2]])
		return 0
	if len(argv) == 2 and argv[1] == 'loop-qemu-config':
		load(argv[0])
		print(loop_qemu_config(argv[0]), end='')
		return 0
	if len(argv) == 6 and argv[1] == 'system-qemu':
		print('\n'.join(system_qemu(load(argv[0]), *argv[2:])))
		return 0
	die('usage: arch.py --list | ARCH FIELD | ARCH system-qemu KERNEL INITRD SCRATCH KTAP'
	    ' | ARCH extra-boots | ARCH extra-boot NAME FIELD | ARCH loop FIELD'
	    ' | ARCH loop-qemu-config')
	return 2


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
