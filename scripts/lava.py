#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kunit52's matrix as LAVA jobs, and LAVA's results as ours.

A shard is one boot of "make test": an arch's KUnit boot, its
full-system boot (every guest test) or one of its extra boots, on the
kernel the gate runs it on (gate_variant).  Each shard becomes one LAVA
job definition for LAVA's own "qemu" device type: a tmpfs deploy of the
kernel (and initramfs and scratch disk), a "qemu" boot with the arch's
QEMU arguments (in the job's context, which the device type renders),
and a test action of "monitors": one per suite, in the order the boot
prints them, whose pattern records one LAVA test case per KTAP leaf.

Runs under Debian's python3 (/usr/bin/python3: python3-jinja2,
python3-voluptuous, python3-pexpect from "scripts/deps.sh lava") with
LAVA's own modules (lava-common, lava-server's device types) unpacked by
scripts/lava.sh into --lava-root.

  lava.py jobs --out DIR --artifacts URL --lava-root ROOT --boots TSV
               [--kernel-args ARGS] [--timeout S] [--only SHARD] ARCH...
      Write DIR/SHARD.yaml for every shard of ARCH (gate variant), each
      validated with LAVA's job schema first.  TSV: "scripts/system.sh
      --boots ARCH" of every ARCH, concatenated, each line prefixed by
      the arch and a tab.  Artifact URLs are URL + the file's path
      below the repository's build/.  --kernel-args, --timeout: appended
      to each job's kernel command line, its time limit (lava.sh check's
      hang probe).  Prints the shards written.
  lava.py device --lava-root ROOT --out FILE JOB
      Render LAVA's qemu device type with JOB's context, as lava-server
      does for a job, into the device dictionary lava-run reads.
  lava.py results --area A --config C --log LOG --out FILE LAVA_LOG
      The LAVA test cases in lava-run's log, as results.py leaves.
  lava.py compare --job JOB OURS LAVA
      Compare two results files in each suite of JOB, case by case, in
      order; print a summary (and our rows outside any suite: a kernel
      report).  Exit 1 (and say where) if they differ.
  lava.py scan KTAP_FILE SUITE...
      Feed KTAP_FILE through the monitors of SUITE..., in chunks of
      seeded random size, with pexpect as lava-dispatcher does; print
      the cases found as results.py leaves (suite, case, status only).

Exit status 2 with one line on bad input.
"""
import argparse
import fnmatch
import json
import os
import random
import re
import struct
import sys

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(SCRIPTS)
BUILD = os.path.join(REPO, 'build')
sys.path.insert(0, SCRIPTS)
import arch as archtable  # noqa: E402  pylint: disable=wrong-import-position

# LAVA's name of each qemu_arch (the qemu device type's "arch"), and the
# template variables the device type renders into -machine and -cpu
# options for that arch (our own values go there, not in extra_options).
LAVA_ARCH = {'x86_64': 'x86_64', 'aarch64': 'arm64', 'ppc': 'ppc'}
TEMPLATE_OPTIONS = {'x86_64': (), 'aarch64': ('-machine', '-cpu'),
                    'ppc': ('-machine',)}
# kunit.py's boots: its memory (kunit_kernel.py) and the kernel
# arguments it appends to the arch's kernel_command_line.  halt, not
# kunit.py's reboot: LAVA's monitor must read the end, not an EOF.
KUNIT_MEMORY = 1024
KUNIT_ARGS = 'kunit.enable=1 kunit_shutdown=halt'
# Margin of the job's time limit over the boot's, for deploy and boot.
JOB_MARGIN = 120
# The scratch disk of a full-system boot (scripts/system.sh, fresh_scratch).
SCRATCH_MIB = 64
SCRATCH = os.path.join(os.environ.get('KUNIT52_LAVA_DIR') or os.path.join(BUILD, 'lava'),
                       'artifacts', 'scratch.img')

# KTAP as KUnit and guest/init print it: a suite is "# Subtest: NAME"
# at indent 4 and ends with "ok N NAME" at indent 0; its cases are at
# indent 4, and the parameters of a parameterised case (or the tests of
# a guest test's group) at indent 8, followed by the case's own result
# line at indent 4.  A leaf is a result line at indent 4 or 8 that is
# not such a parent: after a line at indent 8, the pattern also takes
# the diagnostic lines and the parent's line that follow, unless the
# next result is another line at indent 8.  Either way the next complete
# line must be there, so a line still arriving never decides.  The
# result comes from a look-ahead: "SKIP" after "# ", else "not ok"/"ok".
NL = r'\r*\n'
# Lines between a parameter and what decides it: diagnostics, kernel
# messages; never a result line, nor a suite's start.
OTHER = (r'(?:(?!(?:not )?ok | *# Subtest:| {4}(?:not )?ok | {8}(?:not )?ok )'
         r'[^\r\n]*' + NL + r')*')
LEAF_PATTERN = (
    r'(?:^|\n)(?P<ind> {4}(?P<deep> {4})?)'
    r'(?=(?:[^\r\n]*?# )?(?P<result>SKIP|not ok|ok))'
    r'(?:not )?ok [0-9]+ (?:- )?(?P<test_case_id>[^#\r\n]*?) *(?:#[^\r\n]*)?' + NL +
    r'(?(deep)(?:(?=' + OTHER + r' {8}(?:not )?ok )|' + OTHER +
    r' {4}(?:not )?ok [^\r\n]*' + NL + r'))')
FIXUP = {'ok': 'pass', 'not ok': 'fail', 'SKIP': 'skip'}
LAVA_STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP'}


def die(msg):
    print(f'lava.py: error: {msg}', file=sys.stderr)
    sys.exit(2)


def lava_modules(root):
    """Put the unpacked lava-common (and lava-dispatcher) on sys.path."""
    path = os.path.join(root, 'usr', 'lib', 'python3', 'dist-packages')
    if not os.path.isdir(os.path.join(path, 'lava_common')):
        die(f'no lava-common unpacked in {root} (run: scripts/lava.sh jobs)')
    sys.path.insert(0, path)


def monitor_name(suite):
    """A suite's monitor name: LAVA allows [-_a-zA-Z0-9.] only."""
    return re.sub(r'[^-_a-zA-Z0-9.]', '_', suite)


def definition(suite):
    """The LAVA test definition that a suite's cases are recorded in."""
    return monitor_name(suite).lower()


def monitor(suite):
    """The LAVA monitor of one suite: its cases, one per KTAP leaf."""
    name = re.escape(suite)
    return {'name': monitor_name(suite),
            'start': r'(?:^|\n) {4}# Subtest: ' + name + NL,
            'end': r'(?:^|\n)(?:not )?ok [0-9]+ ' + name + r'(?: #[^\r\n]*)?' + NL,
            'pattern': LEAF_PATTERN,
            'fixupdict': dict(FIXUP)}


# -- the suites a boot prints, in order --------------------------------

class Elf:
    """Just enough of an ELF file to read a kernel's symbols and data."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        if self.data[:4] != b'\x7fELF':
            die(f'{path}: not an ELF file')
        self.wide = self.data[4] == 2
        self.end = '<' if self.data[5] == 1 else '>'
        if self.wide:
            shoff, = self.unpack('Q', 0x28)
            shentsize, shnum = self.unpack('HH', 0x3a)
            self.shdr = 'IIQQQQIIQQ'
        else:
            shoff, = self.unpack('I', 0x20)
            shentsize, shnum = self.unpack('HH', 0x2e)
            self.shdr = 'IIIIIIIIII'
        self.sections = [self.unpack(self.shdr, shoff + i * shentsize)
                         for i in range(shnum)]

    def unpack(self, fmt, offset):
        return struct.unpack_from(self.end + fmt, self.data, offset)

    def symbols(self, wanted):
        """{name: value} of the symbols named in WANTED."""
        found = {}
        for sec in self.sections:
            if sec[1] != 2:  # SHT_SYMTAB
                continue
            strtab = self.sections[sec[6]]
            fmt, size = ('IBBHQQ', 24) if self.wide else ('IIIBBH', 16)
            for i in range(sec[5] // size):
                sym = self.unpack(fmt, sec[4] + i * size)
                value = sym[4] if self.wide else sym[1]
                start = strtab[4] + sym[0]
                name = self.data[start:self.data.index(b'\0', start)].decode()
                if name in wanted:
                    found[name] = value
        return found

    def offset(self, vaddr):
        for sec in self.sections:
            # SHF_ALLOC, not SHT_NOBITS: the sections loaded from the file.
            if sec[2] & 2 and sec[1] != 8 and sec[3] <= vaddr < sec[3] + sec[5]:
                return sec[4] + vaddr - sec[3]
        die(f'address {vaddr:#x} is in no section')
        return None

    def addends(self, start, end):
        """{address: addend} of the RELA relocations for START..END: a
        relocatable kernel (arm64) leaves its pointers to them."""
        fmt, size = ('QQQ', 24) if self.wide else ('III', 12)
        found = {}
        for sec in self.sections:
            if sec[1] != 4 or not sec[2] & 2:  # SHT_RELA, allocated
                continue
            for i in range(sec[5] // size):
                where, _, addend = self.unpack(fmt, sec[4] + i * size)
                if start <= where < end:
                    found[where] = addend
        return found

    def pointers(self, start, end):
        fmt, size = ('Q', 8) if self.wide else ('I', 4)
        base = self.offset(start) if end > start else 0
        values = [self.unpack(fmt, base + i)[0] for i in range(0, end - start, size)]
        if not all(values):
            rela = self.addends(start, end)
            values = [v or rela.get(start + i * size, 0) for i, v in enumerate(values)]
        return values

    def string(self, vaddr):
        off = self.offset(vaddr)
        return self.data[off:self.data.index(b'\0', off)].decode()


def kunit_suites(vmlinux):
    """The KUnit suites built into VMLINUX, in the order they run: the
    .kunit_test_suites table, each entry a struct kunit_suite * whose
    first member is the name."""
    elf = Elf(vmlinux)
    syms = elf.symbols({'__kunit_suites_start', '__kunit_suites_end'})
    if len(syms) != 2:
        die(f'{vmlinux}: no KUnit suite table')
    return [elf.string(p) for p in elf.pointers(syms['__kunit_suites_start'],
                                                 syms['__kunit_suites_end'])]


def guest_suites(sys_dir, glob_):
    """The guest tests of the initramfs in SYS_DIR that GLOB_ runs, in
    the order guest/init prints them (name order)."""
    tests = os.path.join(sys_dir, 'initramfs', 'tests')
    if not os.path.isdir(tests):
        die(f'no initramfs in {sys_dir} (run: scripts/initramfs.sh)')
    return sorted(t for t in os.listdir(tests)
                  if fnmatch.fnmatchcase(t, glob_) and
                  os.access(os.path.join(tests, t), os.X_OK))


# -- the job definitions -----------------------------------------------

def artifact(url, path):
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(BUILD))
    if rel.startswith('..'):
        # Build directories are links into the prepared tree.
        rel = os.path.relpath(path, BUILD)
    if not os.path.exists(path):
        die(f'no {path} (build it first: make test, or make kunit/system ARCH=..)')
    return f'{url.rstrip("/")}/{rel}'


def make_scratch():
    """The scratch disk: SCRATCH_MIB of zeroes (sparse), as system.sh's."""
    os.makedirs(os.path.dirname(SCRATCH), exist_ok=True)
    with open(SCRATCH, 'wb') as f:
        f.truncate(SCRATCH_MIB << 20)


def split_machine(qemu_arch, args):
    """(context, extra_options): the options the device type renders
    itself for this arch go to its variables, the rest to extra_options
    (one option and its value per item)."""
    context, extra = {}, []
    i = 0
    while i < len(args):
        opt = args[i]
        val = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith('-') else None
        if opt in TEMPLATE_OPTIONS[qemu_arch] and val is not None:
            context[opt.lstrip('-')] = val
        else:
            extra.append(f'{opt} {val}' if val is not None else opt)
        i += 2 if val is not None else 1
    return context, extra


def timeout_s(seconds):
    return {'seconds': int(seconds)}


def job(name, table, memory, machine, images, kernel_args, suites, limit,
        metadata):
    qemu_arch = table['qemu_arch']
    context, extra = split_machine(qemu_arch, machine + ['-no-reboot'])
    context.update({'arch': LAVA_ARCH[qemu_arch], 'no_kvm': True,
                    'memory': memory, 'extra_options': extra})
    deploy = {}
    for label, (url, arg) in images.items():
        deploy[label] = {'url': url, 'image_arg': arg}
    deploy['kernel']['image_arg'] += f' -append "{kernel_args}"'
    return {
        'job_name': f'kunit52 {name}',
        'device_type': 'qemu',
        'priority': 'medium',
        'visibility': 'public',
        'metadata': metadata,
        'timeouts': {'job': timeout_s(limit + JOB_MARGIN),
                     'action': timeout_s(limit),
                     'connection': timeout_s(limit)},
        'context': context,
        'actions': [
            {'deploy': {'to': 'tmpfs', 'timeout': timeout_s(JOB_MARGIN / 2),
                        'images': deploy}},
            {'boot': {'method': 'qemu', 'media': 'tmpfs',
                      'timeout': timeout_s(JOB_MARGIN / 2)}},
            {'test': {'timeout': timeout_s(limit),
                      'monitors': [monitor(s) for s in suites]}},
        ],
    }


def build_dir(arch, variant):
    return os.path.join(BUILD, arch + (f'-{variant}' if variant else ''))


def shards(arch, boots, url, kunit_limit):
    """(name, job) of every shard of ARCH, on its gate kernel."""
    table = archtable.load(arch)
    variant = table['gate_variant']
    bdir = build_dir(arch, variant)
    label = os.path.basename(bdir)
    kernel = artifact(url, os.path.join(bdir, table['kernel_path']))
    vmlinux = os.path.join(bdir, 'vmlinux')
    meta = {'kunit52.arch': arch, 'kunit52.variant': variant or 'plain'}
    kernel_image = {'kernel': (kernel, '-kernel {kernel}')}
    out = []
    if not variant:
        # kunit.py's boot (a hardened kernel runs its suites in its
        # full-system boot instead, as the gate does).
        out.append((f'{label}-kunit', job(
            f'{label} KUnit', table, KUNIT_MEMORY,
            table['machine'] + table['kunit_machine'], dict(kernel_image),
            f"{table['kernel_command_line']} {KUNIT_ARGS}",
            kunit_suites(vmlinux), kunit_limit,
            dict(meta, **{'kunit52.shard': 'kunit'}))))
    sys_dir = os.path.join(bdir, 'system')
    initrd = artifact(url, os.path.join(sys_dir, 'initramfs.cpio.gz'))
    blk = archtable.VIRTIO_DEVICES[table['virtio']][0]
    images = dict(kernel_image)
    images['ramdisk'] = (initrd, '-initrd {ramdisk}')
    images['scratch'] = (artifact(url, SCRATCH),
                         f'-drive file={{scratch}},format=raw,if=none,id=d0 -device {blk},drive=d0')
    for boot in boots:
        name, glob_, limit, args = boot[:4]
        suites = guest_suites(sys_dir, glob_)
        if 'kunit.enable=1' in args.split():
            suites = kunit_suites(vmlinux) + suites
        shard = 'system' if name == '-' else f'system-{name}'
        out.append((f'{label}-{shard}', job(
            f'{label} {shard}', table, int(archtable.MEMORY),
            table['machine'] + list(boot[4:]), images, args, suites,
            int(limit), dict(meta, **{'kunit52.shard': shard,
                                      'kunit52.tests': glob_}))))
    return out


def read_boots(path):
    boots = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            if len(fields) < 5:
                die(f'{path}: bad boot line: {line.strip()}')
            boots.setdefault(fields[0], []).append(fields[1:])
    return boots


def cmd_jobs(args):
    lava_modules(args.lava_root)
    # pylint: disable=import-outside-toplevel
    import yaml
    from lava_common.schemas import validate
    from voluptuous import Invalid
    boots = read_boots(args.boots)
    written, served = [], set()
    os.makedirs(args.out, exist_ok=True)
    make_scratch()
    for arch in args.arches:
        if arch not in boots:
            die(f'no boots of {arch} in {args.boots}')
        for name, definition in shards(arch, boots[arch], args.artifacts,
                                       args.kunit_timeout):
            if args.only and name != args.only:
                continue
            if args.kernel_args:
                definition['actions'][0]['deploy']['images']['kernel']['image_arg'] = \
                    definition['actions'][0]['deploy']['images']['kernel']['image_arg'][:-1] + \
                    f' {args.kernel_args}"'
            if args.timeout:
                definition['timeouts'] = {'job': timeout_s(args.timeout + JOB_MARGIN),
                                          'action': timeout_s(args.timeout),
                                          'connection': timeout_s(args.timeout)}
                definition['actions'][2]['test']['timeout'] = timeout_s(args.timeout)
            try:
                validate(definition, strict=True)
            except Invalid as exc:
                die(f'{name}: LAVA rejects the job: {exc}')
            served.update(image['url'] for image in
                          definition['actions'][0]['deploy']['images'].values())
            with open(os.path.join(args.out, name + '.yaml'), 'w', encoding='utf-8') as f:
                f.write(f'# kunit52 shard {name}: written by scripts/lava.py\n')
                yaml.safe_dump(definition, f, sort_keys=False, width=1000)
            written.append(name)
    if args.only and not written:
        die(f"no shard '{args.only}'")
    with open(os.path.join(args.out, 'artifacts.txt'), 'w', encoding='utf-8') as f:
        f.write(''.join(url + '\n' for url in sorted(served)))
    for name in written:
        print(name)
    return 0


# -- lava-run: its device, its results ---------------------------------

def cmd_device(args):
    # pylint: disable=import-outside-toplevel
    import yaml
    from jinja2 import FileSystemLoader
    from jinja2.sandbox import SandboxedEnvironment
    with open(args.job, encoding='utf-8') as f:
        context = yaml.safe_load(f).get('context', {})
    types = os.path.join(args.lava_root, 'usr', 'share', 'lava-server', 'device-types')
    if not os.path.isfile(os.path.join(types, 'qemu.jinja2')):
        die(f"no LAVA device types in {types} (run: scripts/lava.sh jobs)")
    devices = os.path.dirname(os.path.abspath(args.out))
    with open(args.out + '.jinja2', 'w', encoding='utf-8') as f:
        f.write("{% extends 'qemu.jinja2' %}\n")
    env = SandboxedEnvironment(loader=FileSystemLoader([devices, types]),
                               autoescape=False, trim_blocks=True)
    text = env.get_template(os.path.basename(args.out) + '.jinja2').render(**context)
    yaml.safe_load(text)
    with open(args.out, 'w', encoding='utf-8') as f:
        f.write(text)
    return 0


def lava_cases(log):
    """(suite, case, result) of every test case in a lava-run log."""
    # pylint: disable=import-outside-toplevel
    import yaml
    cases = []
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            if '"lvl": "results"' not in line:
                continue
            msg = yaml.safe_load(line.lstrip('- '))['msg']
            if msg.get('definition') == 'lava':
                continue
            cases.append((msg['definition'], msg['extra']['test_case_id'],
                          msg['result']))
    return cases


def cmd_results(args):
    with open(args.out, 'a', encoding='utf-8') as out:
        for suite, case, result in lava_cases(args.lava_log):
            out.write(json.dumps({'area': args.area, 'config': args.config,
                                  'suite': suite, 'case': case,
                                  'status': LAVA_STATUS[result], 'diag': [],
                                  'log': args.log}, sort_keys=True) + '\n')
    return 0


def slug(name):
    """LAVA's test case name of a KTAP name (lava-test-monitor), with
    every number made 0: some guest tests name a case after what they
    measured (processes forked, addresses), which differs boot to boot."""
    name = re.sub(r'\W+', '_', name.strip().lower())
    return re.sub(r'(?:0x)?[0-9a-f]*[0-9][0-9a-f]*', '0', name)


def by_suite(path):
    suites = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                item = json.loads(line)
                suites.setdefault(definition(item['suite']), []).append(item)
    return suites


def cmd_compare(args):
    """Ours name a case by its path (group.case), LAVA by the leaf alone:
    LAVA's name must end ours (numbers aside, see slug), and the results
    be equal, in order, in every suite of JOB.  Our runner's own checks
    outside the KTAP (a kernel report, a boot that did not finish) are
    not LAVA's: they are listed apart."""
    # pylint: disable=import-outside-toplevel
    import yaml
    with open(args.job, encoding='utf-8') as f:
        job_ = yaml.safe_load(f)
    monitored = {definition(m['name']) for action in job_['actions']
                 for m in action.get('test', {}).get('monitors', [])}
    ours, lava = by_suite(args.ours), by_suite(args.lava)
    diffs, apart, same = [], [], 0
    for suite in sorted(set(ours) | set(lava)):
        a, b = ours.get(suite, []), lava.get(suite, [])
        if suite not in monitored and not b:
            apart += [f"{x['suite']}: {x['case']} {x['status']}" for x in a]
            continue
        if len(a) != len(b):
            diffs.append(f'{suite}: {len(a)} cases ours, {len(b)} LAVA\'s')
            continue
        for x, y in zip(a, b):
            if not slug(x['case']).endswith(slug(y['case'])) or x['status'] != y['status']:
                diffs.append(f"{suite}: ours {x['case']} {x['status']}, "
                             f"LAVA's {y['case']} {y['status']}")
            else:
                same += 1
    for line in diffs[:20]:
        print(f'  differs: {line}')
    summary = f'{same} cases the same, in order' if not diffs else f'{len(diffs)} differences'
    if apart:
        summary += '; ours alone (no KTAP: not read by LAVA): ' + ', '.join(apart)
    print(summary)
    return 1 if diffs else 0


# -- self-test of the patterns ----------------------------------------

def cmd_scan(args):
    # pylint: disable=import-outside-toplevel
    import pexpect
    import pexpect.fdpexpect
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print(f'# scan seed: {seed}', file=sys.stderr)
    rng = random.Random(seed)
    with open(args.ktap, encoding='utf-8') as f:
        text = f.read().replace('\n', '\r\n')
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        i = 0
        while i < len(text):
            n = rng.randint(1, 64)
            os.write(wfd, text[i:i + n].encode())
            i += n
        os._exit(0)  # pylint: disable=protected-access
    os.close(wfd)
    conn = pexpect.fdpexpect.fdspawn(rfd, encoding='utf-8', timeout=10)
    for suite in args.suites:
        mon = monitor(suite)
        conn.expect(mon['start'])
        patterns = [pexpect.EOF, pexpect.TIMEOUT, mon['end'], mon['pattern']]
        while True:
            i = conn.expect(patterns)
            if i < 2:
                print(f'{suite}: no end line', file=sys.stderr)
                return 1
            if i == 2:
                break
            m = conn.match.groupdict()
            print(json.dumps({'suite': suite, 'case': m['test_case_id'].strip(),
                              'status': LAVA_STATUS[FIXUP[m['result']]]}))
    os.waitpid(pid, 0)
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog='lava.py')
    sub = p.add_subparsers(dest='cmd', required=True)
    j = sub.add_parser('jobs')
    j.add_argument('--out', required=True)
    j.add_argument('--artifacts', required=True)
    j.add_argument('--lava-root', required=True)
    j.add_argument('--boots', required=True)
    j.add_argument('--kunit-timeout', type=int, required=True)
    j.add_argument('--kernel-args', default='')
    j.add_argument('--timeout', type=int)
    j.add_argument('--only')
    j.add_argument('arches', nargs='+')
    d = sub.add_parser('device')
    d.add_argument('--lava-root', required=True)
    d.add_argument('--out', required=True)
    d.add_argument('job')
    r = sub.add_parser('results')
    for opt in ('--area', '--config', '--log', '--out'):
        r.add_argument(opt, required=True)
    r.add_argument('lava_log')
    c = sub.add_parser('compare')
    c.add_argument('--job', required=True)
    c.add_argument('ours')
    c.add_argument('lava')
    s = sub.add_parser('scan')
    s.add_argument('--seed', type=int)
    s.add_argument('ktap')
    s.add_argument('suites', nargs='+')
    args = p.parse_args(argv)
    return {'jobs': cmd_jobs, 'device': cmd_device, 'results': cmd_results,
            'compare': cmd_compare, 'scan': cmd_scan}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
