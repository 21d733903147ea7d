#!/usr/bin/env python3
"""tools/ranges.py - the spread over runs of a locklab CSV, a row per lock.

Reads the CSV of `locklab-sim run --format csv` (or a results file) on
stdin and prints, for each lock in the order of its first row, the least and
the greatest value of each column asked for over the runs of that lock
(`0.05-0.09`; one figure where they agree).  A column is NAME, or
NAME/SCALE:FORMAT to divide by SCALE and print with FORMAT (Python's format
spec, `.2f` by default): `throughput_per_s/1e6:.2f` is the throughput in
M acquisitions per second.  --label TEXT puts TEXT before each row (the
setting the rows were run under).  The docs use it so that a table of
ranges is a command that `scons doccheck` reruns:

    bin/locklab-sim run --lock tas,mcs --threads 8 --runs 3 --format csv | \\
        python3 tools/ranges.py jain throughput_per_s/1e6:.2f

A lock whose rows differ in what was run (the thread count, the topology,
the workload's columns, the overcommit), or a column the CSV lacks or
leaves empty, is refused (exit 2, one line).
"""

import csv
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # the helper beside this file, not cached
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from args_oneline import OneLineParser, one_line, run_main  # noqa: E402


# What the rows of one lock must share (those the CSV has).
SAME = ('backend', 'topo', 'threads', 'cs_ns', 'ncs_ns', 'ncs_exp', 'cs_lines', 'locks',
        'read_pct', 'overcommit')
MAX_WIDTH = 40  # of a FORMAT's width and precision: a cell, not a 100 MB line


def die(msg):
    sys.stderr.write('ranges.py: %s\n' % one_line(msg))
    sys.exit(2)


def parse_column(spec):
    """NAME[/SCALE][:FORMAT] -> (name, scale, format, heading)."""
    name, _, fmt = spec.partition(':')
    heading = name  # with its scale: throughput_per_s/1e6 is not per second
    name, _, scale = name.partition('/')
    if any(len(d) > 3 or int(d) > MAX_WIDTH for d in re.findall(r'[0-9]+', fmt)):
        die('%s: a FORMAT of width or precision over %d' % (spec, MAX_WIDTH))
    try:
        scale = float(scale) if scale else 1.0
        format(1.0, fmt or '.2f')
    except (ValueError, MemoryError, OverflowError):
        die('%s: not NAME[/SCALE][:FORMAT]' % spec)
    if not name or not math.isfinite(scale) or scale <= 0:
        die('%s: not NAME[/SCALE][:FORMAT] (a SCALE is a finite number above 0)' % spec)
    return name, scale, fmt or '.2f', heading


def spread(values, scale, fmt):
    lo, hi = format(min(values) / scale, fmt), format(max(values) / scale, fmt)
    return lo if lo == hi else '%s-%s' % (lo, hi)


def main():
    ap = OneLineParser(prog='ranges.py', description='the spread over runs of a locklab CSV')
    ap.add_argument('--label', help='a first column, the same on every row')
    ap.add_argument('columns', nargs='+', metavar='NAME[/SCALE][:FORMAT]')
    args = ap.parse_args()
    if args.label is not None and re.search(r'[\x00-\x1f\x7f]', args.label):
        die('--label %r: a control character (a line break would break the table)' % args.label)
    cols = [parse_column(c) for c in args.columns]
    if sys.stdin is None:
        die('no standard input (the CSV comes on stdin)')
    try:
        reader = csv.DictReader(sys.stdin)
        twice = [n for i, n in enumerate(reader.fieldnames or []) if n in reader.fieldnames[:i]]
        if twice:
            die('stdin: the CSV has two columns named %s (which one is meant?)' % twice[0])
        rows = list(reader)
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        die('stdin is not a CSV it can read (%s)' % (e.strerror if isinstance(e, OSError) else e))
    if not rows:
        die('no rows on stdin')
    by = {}
    for r in rows:
        lock = r.get('lock')
        if lock is None:
            die('stdin has no lock column: not a locklab CSV')
        by.setdefault(lock, []).append(r)
    table = []
    for lock, rs in by.items():
        for key in SAME:  # the runs of one configuration, or the spread means nothing
            seen = sorted({r.get(key) for r in rs}, key=str)
            if len(seen) > 1:
                die('%s has rows of %s %s: give one' % (lock, key, ', '.join(map(str, seen))))
        cells = [args.label] if args.label else []
        cells.append(lock)
        for name, scale, fmt, _ in cols:
            try:
                values = [float(r[name]) for r in rs]
            except KeyError:
                die('the CSV has no column %s' % name)
            except (TypeError, ValueError):
                die('%s of %s is empty or no number in a run' % (name, lock))
            if not all(math.isfinite(v) for v in values):
                die('%s of %s is not finite in a run' % (name, lock))
            cells.append(spread(values, scale, fmt))
        table.append(cells)
    head = (['setting'] if args.label else []) + ['lock'] + [c[3] for c in cols]
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    for line in [head] + table:
        print('  '.join(x.ljust(w) for x, w in zip(line, widths)).rstrip())


if __name__ == '__main__':
    sys.exit(run_main('ranges.py', main))
