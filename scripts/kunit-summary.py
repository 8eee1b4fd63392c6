#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize the JSON that kunit.py --json writes, one row per suite.

Usage: kunit-summary.py RESULTS.json ARCH ROWS.tsv LOG

Appends "AREA<TAB>ARCH/SUITE<TAB>passed<TAB>failed<TAB>skipped<TAB>LOG"
rows to ROWS.tsv and prints a table.  Every parameter of a parameterized
case counts as one test.  No results at all is one failure (missing KTAP
output).  AREA is $KUNIT52_AREA (default kunit).  Exit status: 0 if
nothing failed.
"""
import json
import os
import sys


def leaves(group):
    """Yield the status of every leaf test below a JSON group."""
    for case in group.get('test_cases', []):
        yield case['status']
    for sub in group.get('sub_groups', []):
        yield from leaves(sub)


def main():
    path, arch, rows_path, log = sys.argv[1:5]
    area = os.environ.get('KUNIT52_AREA', 'kunit')
    try:
        with open(path, encoding='utf-8') as f:
            top = json.load(f)
        suites = top.get('sub_groups', [])
    except (OSError, ValueError):
        suites = []

    rows = []
    for suite in suites:
        status = list(leaves(suite))
        if not status:
            status = ['FAIL']  # a suite that ran no test crashed
        passed = status.count('PASS')
        skipped = status.count('SKIP')
        rows.append((suite['name'], len(status), passed, skipped,
                     len(status) - passed - skipped))
    if not rows:
        rows.append(('(no KTAP output)', 1, 0, 0, 1))

    print(f'{"arch":8} {"suite":32} {"tests":>6} {"passed":>7} {"failed":>7} {"skipped":>8}')
    with open(rows_path, 'a', encoding='utf-8') as out:
        for name, total, passed, skipped, failed in rows:
            print(f'{arch:8} {name:32} {total:6} {passed:7} {failed:7} {skipped:8}')
            out.write(f'{area}\t{arch}/{name}\t{passed}\t{failed}\t{skipped}\t{log}\n')
    return 1 if any(r[4] for r in rows) else 0


if __name__ == '__main__':
    sys.exit(main())
