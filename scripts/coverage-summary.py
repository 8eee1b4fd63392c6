#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise an lcov tracefile for kunit52's coverage goals.

Usage: coverage-summary.py INFO SOURCE...

Prints, for each SOURCE (a path relative to the kernel tree, matched as a
suffix of the tracefile's SF: lines), its line, function and branch
coverage against the goal in GOALS; then, per function, the free-space
functions of mm/vmalloc.c; then every line and branch not reached in the
goal functions (or files), which docs/coverage.md explains.  A function's
lines are those from its FN: line up to the next function's.  Exit status
is 0: the goals are a report, not a gate (issue 15).
"""
import collections
import os
import sys

# file: (lines %, branches %, the functions the goal is about; None: all)
GOALS = {
	'mm/vmalloc.c': (100.0, 95.0, (
		'va_size', 'get_subtree_max_size',
		'free_vmap_area_rb_augment_cb_compute_max',
		'free_vmap_area_rb_augment_cb_propagate',
		'free_vmap_area_rb_augment_cb_copy',
		'free_vmap_area_rb_augment_cb_rotate',
		'find_va_links', 'get_va_next_sibling', '__link_va', 'link_va',
		'link_va_augment', '__unlink_va', 'unlink_va', 'unlink_va_augment',
		'compute_subtree_max_size', 'augment_tree_propagate_from',
		'insert_vmap_area', 'insert_vmap_area_augment',
		'__merge_or_add_vmap_area', 'merge_or_add_vmap_area',
		'merge_or_add_vmap_area_augment', 'is_within_this_va',
		'find_vmap_lowest_match', 'classify_va_fit_type', 'va_clip',
		'va_alloc', '__alloc_vmap_area')),
	'drivers/md/dm-dust.c': (95.0, 90.0, None),
	'kernel/cgroup/freezer.c': (95.0, 90.0, None),
}


class Source:
	def __init__(self):
		self.lines = {}			# line -> hits
		self.functions = {}		# name -> first line
		self.fn_hits = {}		# name -> hits
		self.branches = collections.defaultdict(list)	# line -> [taken]

	def label(self, name):
		"""Functions a macro generates share its line (the augment
		callbacks of RB_DECLARE_CALLBACKS_MAX): gcov cannot tell their
		lines apart, so they are reported as one."""
		return self.label_names(name)[0]

	def label_names(self, name):
		"""(label, names): names of the functions starting on @name's
		line; label is their common prefix and '*' when more than one."""
		first = self.functions[name]
		names = sorted(n for n, f in self.functions.items() if f == first)
		if len(names) == 1:
			return names[0], names
		return os.path.commonprefix(names) + '*', names

	def function_of(self, line):
		best = None
		for name, first in self.functions.items():
			if first <= line and (best is None or first > self.functions[best]):
				best = name
		return best and self.label(best)


def parse(path):
	sources = {}
	cur = None
	with open(path) as f:
		for raw in f:
			tag, _, val = raw.strip().partition(':')
			if tag == 'SF':
				cur = sources.setdefault(val, Source())
			elif tag == 'FN':
				line, name = val.split(',', 1)
				cur.functions[name] = int(line)
			elif tag == 'FNDA':
				hits, name = val.split(',', 1)
				cur.fn_hits[name] = cur.fn_hits.get(name, 0) + int(hits)
			elif tag == 'DA':
				line, hits = val.split(',')[:2]
				cur.lines[int(line)] = cur.lines.get(int(line), 0) + int(hits)
			elif tag == 'BRDA':
				line, _, _, taken = val.split(',')
				cur.branches[int(line)].append(0 if taken == '-' else int(taken))
	return sources


def pct(hit, total):
	return 100.0 * hit / total if total else 100.0


def counts(src, only=None):
	"""(lines hit, lines, branches hit, branches) of src, or of the
	functions in only."""
	def keep(line):
		return only is None or src.function_of(line) in only
	lines = [h for ln, h in src.lines.items() if keep(ln)]
	br = [t for ln, ts in src.branches.items() if keep(ln) for t in ts]
	return (sum(1 for h in lines if h), len(lines),
		sum(1 for t in br if t), len(br))


def row(name, c, fn=None):
	lh, lt, bh, bt = c
	text = f'{name:<44} {lh:>4}/{lt:<4} {pct(lh, lt):5.1f}%  {bh:>4}/{bt:<4} {pct(bh, bt):5.1f}%'
	if fn is not None:
		text += f'  {fn[0]:>3}/{fn[1]:<3}'
	return text


def missed(src, only):
	out = []
	for ln in sorted(src.lines):
		if only is not None and src.function_of(ln) not in only:
			continue
		if not src.lines[ln]:
			out.append(f'    line {ln} ({src.function_of(ln)}): not run')
		ts = src.branches.get(ln, [])
		if src.lines[ln] and any(t == 0 for t in ts):
			out.append(f'    line {ln} ({src.function_of(ln)}): '
				   f'{sum(1 for t in ts if t == 0)} of {len(ts)} branches never taken')
	return out


def main():
	if len(sys.argv) < 3:
		sys.exit('usage: coverage-summary.py INFO SOURCE...')
	sources = parse(sys.argv[1])
	print(f'{"file / function":<44} {"lines":>10} {"":6}  {"branches":>10} {"":6}  functions')
	report = []
	for want in sys.argv[2:]:
		match = [sf for sf in sources if sf.endswith('/' + want)]
		if not match:
			print(f'{want}: no coverage data')
			continue
		src = sources[match[0]]
		fns = (sum(1 for n in src.functions if src.fn_hits.get(n)), len(src.functions))
		print(row(want, counts(src), fns))
		line_goal, branch_goal, only = GOALS.get(want, (0.0, 0.0, None))
		labels = None
		if only is not None:
			labels = []
			for name in only:
				if name in src.functions and src.label(name) not in labels:
					labels.append(src.label(name))
			for lab in labels:
				names = next(src.label_names(n)[1] for n in only
					     if n in src.functions and src.label(n) == lab)
				hit = sum(1 for n in names if src.fn_hits.get(n))
				print(row('  ' + lab, counts(src, {lab}), (hit, len(names))))
			c = counts(src, set(labels))
			print(row('  (the free-space functions)', c))
		else:
			c = counts(src)
		met = pct(c[0], c[1]) >= line_goal and pct(c[2], c[3]) >= branch_goal
		report.append((want, line_goal, branch_goal, c, met,
			       missed(src, None if labels is None else set(labels))))
	print()
	for want, lg, bg, c, met, gaps in report:
		print(f'{want}: goal lines >= {lg:g}%, branches >= {bg:g}%: '
		      f'{"met" if met else "NOT met"} '
		      f'({pct(c[0], c[1]):.1f}%, {pct(c[2], c[3]):.1f}%)')
		print('\n'.join(gaps))


if __name__ == '__main__':
	main()
