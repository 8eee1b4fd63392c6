#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a gate's time went: its longest steps and its critical path.

  gate-times.py TIMES_TSV

TIMES_TSV is build/gate/times.tsv (scripts/gate.sh): one step a line,
NAME, SECONDS, START, END (seconds since the gate began) and AFTER, the
steps it waited for (comma-separated, "-" for none); the line "total"
has the gate's wall time.  The critical path runs back from the step
that ended last, each time through the step it waited for that ended
last: the chain that a faster step shortens the gate by being on.
"""
import sys

LONGEST = 3


def read_steps(path):
    steps, total = {}, None
    with open(path, encoding='utf-8') as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if cols[0] == 'total':
                total = int(cols[1])
            elif len(cols) >= 5:
                steps[cols[0]] = {
                    'secs': int(cols[1]), 'start': int(cols[2]),
                    'end': int(cols[3]),
                    'after': [a for a in cols[4].split(',') if a and a != '-']}
    return steps, total


def critical_path(steps):
    if not steps:
        return []
    name = max(steps, key=lambda n: steps[n]['end'])
    path = [name]
    while True:
        before = [a for a in steps[name]['after'] if a in steps]
        if not before:
            return path[::-1]
        name = max(before, key=lambda n: steps[n]['end'])
        path.append(name)


def main():
    if len(sys.argv) != 2:
        sys.exit(f'usage: {sys.argv[0]} TIMES_TSV')
    steps, total = read_steps(sys.argv[1])
    longest = sorted(steps, key=lambda n: -steps[n]['secs'])[:LONGEST]
    print('longest steps: ' +
          ', '.join(f'{n} {steps[n]["secs"]} s' for n in longest))
    path = critical_path(steps)
    busy = sum(steps[n]['secs'] for n in path)
    wall = total if total is not None else max(s['end'] for s in steps.values())
    print(f'critical path: {busy} s of the gate\'s {wall} s: ' +
          ' > '.join(f'{n} {steps[n]["secs"]} s' for n in path))
    return 0


if __name__ == '__main__':
    sys.exit(main())
