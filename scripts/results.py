#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one writer and reader of kunit52's test results.

A result is one JSON object per line ("leaf") in a results file:

  {"area": "kunit", "config": "x86_64", "suite": "dm_dust",
   "case": "dust_message_test.addbadblock 16384", "status": "PASS",
   "diag": ["# ..."], "log": "build/x86_64/test.log"}

status is PASS, FAIL, SKIP or ERROR (a crash).  Every script that has a
result writes it through this program; the gate's summary, its
"N passed, N failed" line and its JUnit XML are read from these files.

  results.py ktap --area A --config C --log LOG --out FILE KTAP_LOG
      Parse KTAP_LOG with the kernel's own KTAP parser (kunit_parser.py
      of the prepared tree), append one leaf per test case to FILE and
      print a table per suite.  No KTAP at all is one failed leaf.
      --quiet: do not print the parser's own report.
  results.py add --area A --config C --suite S --case NAME
                 --status PASS|FAIL|SKIP|ERROR [--log LOG] [--diag TEXT]
                 --out FILE
      Append one leaf (a harness self-test, a kernel report, a step that
      crashed).
  results.py report FILE...
      The gate's table (one row per area, config and suite), the failed
      cases with their logs and first diagnostic lines, and the last line
      "N passed, N failed".
  results.py has [--suite S] [--case C] --status S1,S2 FILE...
      Exit 0 if some result matches (the harness self-tests use it).
  results.py junit --out XML FILE...
      JUnit XML: one testsuite per config and suite, one testcase per
      leaf; the failure text is the case's KTAP diagnostic lines.

Exit status of ktap, report: 0 if nothing failed (and, for report,
something passed).
"""
import argparse
import io
import json
import os
import sys
import xml.etree.ElementTree as ET

STATUSES = ('PASS', 'FAIL', 'SKIP', 'ERROR')
# Diagnostic lines of a failed case that the gate's report repeats.
REPORT_DIAG_LINES = 12


def tree_parser():
    """kunit_parser from the prepared tree, its report going to OUT."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = os.environ.get('KUNIT52_TREE', os.path.join(repo, 'work', 'linux'))
    sys.path.insert(0, os.path.join(tree, 'tools', 'testing', 'kunit'))
    # pylint: disable=import-outside-toplevel
    import kunit_parser
    import kunit_printer
    kunit_parser.Printer = kunit_printer.Printer
    return kunit_parser


def leaf(args, suite, case, status, diag=()):
    return {'area': args.area, 'config': args.config, 'suite': suite,
            'case': case, 'status': status, 'diag': list(diag),
            'log': args.log or '-'}


def ktap_leaves(args, test, suite, path):
    """Yield a leaf for every test below TEST (a suite or a group)."""
    kp = args.kunit_parser
    for sub in test.subtests:
        name = f'{path}.{sub.name}' if path else sub.name
        if sub.subtests:
            yield from ktap_leaves(args, sub, suite, name)
            continue
        if sub.status == kp.TestStatus.SUCCESS:
            status = 'PASS'
        elif sub.status == kp.TestStatus.SKIPPED:
            status = 'SKIP'
        elif sub.status == kp.TestStatus.FAILURE:
            status = 'FAIL'
        else:
            status = 'ERROR'
        yield leaf(args, suite, name or '(unnamed)', status,
                   [line.strip() for line in sub.log])


def write_leaves(path, leaves):
    with open(path, 'a', encoding='utf-8') as out:
        for item in leaves:
            out.write(json.dumps(item, sort_keys=True) + '\n')


def read_leaves(paths):
    leaves = []
    for path in paths:
        try:
            with open(path, encoding='utf-8') as f:
                leaves += [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            pass
    return leaves


def suite_rows(leaves):
    """(area, config, suite) -> [passed, failed, skipped, log], in order."""
    rows = {}
    for item in leaves:
        key = (item['area'], item['config'], item['suite'])
        row = rows.setdefault(key, [0, 0, 0, item['log']])
        if item['status'] == 'PASS':
            row[0] += 1
        elif item['status'] == 'SKIP':
            row[2] += 1
        else:
            row[1] += 1
    return rows


def cmd_ktap(args):
    args.kunit_parser = tree_parser()
    kp = args.kunit_parser
    out = io.StringIO()
    kp.stdout = kp.Printer(out if args.quiet else sys.stdout)
    try:
        with open(args.ktap_log, encoding='utf-8', errors='replace') as f:
            top = kp.parse_run_tests(f.readlines())
    except FileNotFoundError:
        top = kp.Test()
    leaves = []
    for suite in top.subtests:
        found = list(ktap_leaves(args, suite, suite.name, ''))
        if not found:  # a suite that ran no test crashed
            found = [leaf(args, suite.name, '(no test ran)', 'ERROR',
                          [line.strip() for line in suite.log])]
        leaves += found
    if not leaves:
        leaves = [leaf(args, '(no KTAP output)', '(no KTAP output)',
                       'ERROR', [f'no KTAP in {args.ktap_log}'])]
    write_leaves(args.out, leaves)
    print(f'{"config":14} {"suite":32} {"tests":>6} {"passed":>7} '
          f'{"failed":>7} {"skipped":>8}')
    for (_, config, suite), (p, f, s, _) in suite_rows(leaves).items():
        print(f'{config:14} {suite:32} {p + f + s:6} {p:7} {f:7} {s:8}')
    return 1 if any(x['status'] in ('FAIL', 'ERROR') for x in leaves) else 0


def cmd_add(args):
    write_leaves(args.out, [leaf(args, args.suite, args.case, args.status,
                                 [args.diag] if args.diag else [])])
    return 0


def print_diag(diag):
    """The first REPORT_DIAG_LINES diagnostic lines of a failed case.

    A CI log may be all a developer gets of a run: the failed expectation
    belongs there, not only in the log it points to.
    """
    for line in diag[:REPORT_DIAG_LINES]:
        print(f'    {line}')
    if len(diag) > REPORT_DIAG_LINES:
        print(f'    ... {len(diag) - REPORT_DIAG_LINES} more lines in the log')


def cmd_report(args):
    leaves = read_leaves(args.files)
    rows = suite_rows(leaves)
    print(f'{"area":10} {"config":14} {"suite":34} {"passed":>7} '
          f'{"failed":>7} {"skipped":>8}')
    for (area, config, suite), (p, f, s, _) in rows.items():
        print(f'{area:10} {config:14} {suite:34} {p:7} {f:7} {s:8}')
    for item in leaves:
        if item['status'] in ('FAIL', 'ERROR'):
            print(f'failed: {item["config"]} {item["suite"]}: {item["case"]} '
                  f'(log: {item["log"]})')
            print_diag(item['diag'])
    passed = sum(r[0] for r in rows.values())
    failed = sum(r[1] for r in rows.values())
    skipped = sum(r[2] for r in rows.values())
    if skipped:
        print(f'({skipped} skipped)')
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 and passed > 0 else 1


def cmd_has(args):
    wanted = args.status.split(',')
    return 0 if any(x['status'] in wanted and
                    args.suite in (None, x['suite']) and
                    args.case in (None, x['case'])
                    for x in read_leaves(args.files)) else 1


def cmd_junit(args):
    leaves = read_leaves(args.files)
    root = ET.Element('testsuites', name='kunit52')
    suites = {}
    for item in leaves:
        key = (item['area'], item['config'], item['suite'])
        if key not in suites:
            suites[key] = ET.SubElement(
                root, 'testsuite',
                name=f'{item["config"]}/{item["suite"]}',
                package=item['area'])
            suites[key].set('file', item['log'])
        case = ET.SubElement(suites[key], 'testcase', name=item['case'],
                             classname=f'{item["area"]}.{item["config"]}.'
                                       f'{item["suite"]}')
        text = '\n'.join(item['diag'])
        if item['status'] == 'SKIP':
            ET.SubElement(case, 'skipped', message=text[:200]).text = text
        elif item['status'] == 'FAIL':
            ET.SubElement(case, 'failure', message='failed',
                          type='FAIL').text = text
        elif item['status'] == 'ERROR':
            ET.SubElement(case, 'error', message='crashed or missing',
                          type='ERROR').text = text
    for el in [root] + list(suites.values()):
        cases = el.iter('testcase')
        counts = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
        for case in cases:
            counts['tests'] += 1
            for tag, key in (('failure', 'failures'), ('error', 'errors'),
                             ('skipped', 'skipped')):
                counts[key] += case.find(tag) is not None
        for key, value in counts.items():
            el.set(key, str(value))
    ET.indent(root)
    ET.ElementTree(root).write(args.out, encoding='utf-8',
                               xml_declaration=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('ktap')
    for name in ('--area', '--config', '--out'):
        p.add_argument(name, required=True)
    p.add_argument('--log')
    p.add_argument('--quiet', action='store_true')
    p.add_argument('ktap_log')
    p = sub.add_parser('add')
    for name in ('--area', '--config', '--suite', '--case', '--out'):
        p.add_argument(name, required=True)
    p.add_argument('--status', required=True, choices=STATUSES)
    p.add_argument('--log')
    p.add_argument('--diag')
    p = sub.add_parser('report')
    p.add_argument('files', nargs='+')
    p = sub.add_parser('has')
    p.add_argument('--suite')
    p.add_argument('--case')
    p.add_argument('--status', required=True)
    p.add_argument('files', nargs='+')
    p = sub.add_parser('junit')
    p.add_argument('--out', required=True)
    p.add_argument('files', nargs='+')
    args = parser.parse_args()
    return {'ktap': cmd_ktap, 'add': cmd_add, 'report': cmd_report,
            'has': cmd_has, 'junit': cmd_junit}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
