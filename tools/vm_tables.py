#!/usr/bin/env python3
"""tools/vm_tables.py - the tables of docs/vm.md's sweep, from its two CSVs.

docs/vm.md shows the sweep's throughput per lock and overcommit, and the
hypervisor's counters at 1x, 2x and 4x, for `--co-guests busy` and for the
guest alone (`none`).  Each cell is the mean over the runs of a CSV column
(`throughput_per_s`, `holder_preemptions`, `waiter_preemptions`,
`holder_lost_ns_per_acq`, `waiter_lost_ns_per_acq`, `ple_exits`,
`ple_yields`, `halts`, `kicks`, `wake_latency_ns` over the kicks of the runs
that woke a vCPU, `misses_per_acq`, `jain`).  Markdown on stdout:

    python3 tools/vm_tables.py results/vm-4socket-busy.csv results/vm-4socket-none.csv

--change BASE,VARIANT prints instead the change from lock BASE to lock
VARIANT at each overcommit of one or more sweeps, a row per CSV (labelled
by its non-critical length and its runs' length): the variant's mean throughput
over the base's, less one, and, in brackets, each lock's sigma/mean over
the runs (the population sigma, as the run table's); - where a sweep did not
run that overcommit:

    python3 tools/vm_tables.py --change ticket,pv-ticket A.csv B.csv ...
"""

import csv
import math
import os
import sys

sys.dont_write_bytecode = True  # the helper beside this file, not cached
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from args_oneline import one_line, run_main  # noqa: E402

LOCKS = ('ticket', 'pv-ticket', 'qspinlock', 'pv-qspinlock')
ALL_X = ('0.50', '1.00', '1.50', '2.00', '3.00', '4.00')
COUNTER_X = ('1.00', '2.00', '4.00')
# The columns the tables read: each a finite number >= 0 (wake_latency_ns
# also empty or nan, where a run woke no vCPU); overcommit above 0.
NUMBERS = ('throughput_per_s', 'holder_preemptions', 'waiter_preemptions',
           'holder_lost_ns_per_acq', 'waiter_lost_ns_per_acq', 'ple_exits', 'ple_yields',
           'halts', 'kicks', 'wake_latency_ns', 'misses_per_acq', 'jain', 'ncs_ns',
           'duration_s', 'overcommit')


def checked(path, line, r, head):
    """The row r of path's line, or ValueError naming file, line and column:
    every field there, each number of NUMBERS a finite one."""
    if None in r:
        raise ValueError('%s:%d: %d fields where the header has %d'
                         % (path, line, len(head) + len(r[None]), len(head)))
    short = [k for k in head if r[k] is None]
    if short:
        raise ValueError('%s:%d: column %s: missing (a row of %d fields where the header '
                         'has %d)' % (path, line, short[0], len(head) - len(short), len(head)))
    for col in NUMBERS:
        text = r.get(col)
        if text is None or (col == 'wake_latency_ns' and text in ('', 'nan')):
            continue
        try:
            v = float(text)
        except ValueError:
            v = None
        if v is None or not math.isfinite(v) or v < 0 or (col == 'overcommit' and v == 0):
            raise ValueError('%s:%d: column %s: %r is not a finite number %s'
                             % (path, line, col, text,
                                'above 0' if col == 'overcommit' else '>= 0'))
    return r


def load(path):
    """{(lock, overcommit): [rows]} of one sweep's CSV."""
    by = {}
    with open(path, newline='') as f:
        reader = csv.DictReader(f)
        for r in reader:
            r = checked(path, reader.line_num, r, reader.fieldnames)
            by.setdefault((r['lock'], r['overcommit']), []).append(r)
    return by


def mean(rows, col):
    return sum(float(r[col]) for r in rows) / len(rows)


def wake_ns(rows):
    """The mean wake latency over the runs that woke a vCPU, each run's mean
    weighted by its kicks (the table's vm line weighs by the wake-ups, which
    the CSV does not count; a kick wakes one halted vCPU, so they differ by
    a kick still on its way at the run's end), or '-'."""
    w = [(float(r['wake_latency_ns']), float(r['kicks'])) for r in rows
         if r['wake_latency_ns'] not in ('', 'nan')]
    kicks = sum(k for _, k in w)
    return '%.0f' % (sum(ns * k for ns, k in w) / kicks) if kicks else '-'


def cells(by, lock, x):
    rows = by.get((lock, x))
    if not rows:
        raise ValueError('no rows of %s at overcommit %s' % (lock, x))
    return rows


def throughput_table(name, by):
    head = '| `--co-guests %s` | %s |' % (
        name, ' | '.join('%gx' % float(x) for x in ALL_X))
    lines = [head, '|---|' + '---:|' * len(ALL_X)]
    for lock in LOCKS:
        lines.append('| %s | %s |' % (lock, ' | '.join(
            '%.3f' % (mean(cells(by, lock, x), 'throughput_per_s') / 1e6) for x in ALL_X)))
    return '\n'.join(lines)


def count(x):
    """A count's mean over the runs: below 10 to a tenth (one event in
    three runs reads 0.3, not 0; fewer than one in twenty, <0.1), else
    whole."""
    if x != x:  # NaN: no such count in the CSV
        return '-'
    if 0 < x < 0.05:
        return '<0.1'
    return '%.0f' % x if x == int(x) or x >= 9.95 else '%.1f' % x


def counter_table(name, by):
    lines = ['`--co-guests %s`:' % name, '',
             '| lock | x | Macq/s | preempted holding / waiting | lost ns/acq holding / '
             'waiting | PLE exits (yields) | halts / kicks | wake ns | misses/acq | Jain |',
             '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for lock in LOCKS:
        for x in COUNTER_X:
            rows = cells(by, lock, x)
            m = lambda col: mean(rows, col)  # noqa: E731
            lines.append(
                '| %s | %d | %.3f | %s / %s | %.0f / %.0f | %s (%s) | %s / %s '
                '| %s | %.2f | %.3f |' % (
                    lock, int(float(x)), m('throughput_per_s') / 1e6,
                    count(m('holder_preemptions')), count(m('waiter_preemptions')),
                    m('holder_lost_ns_per_acq'), m('waiter_lost_ns_per_acq'),
                    count(m('ple_exits')), count(m('ple_yields')), count(m('halts')),
                    count(m('kicks')),
                    wake_ns(rows), m('misses_per_acq'), m('jain')))
    return '\n'.join(lines)


def spread(rows):
    """sigma/mean of throughput_per_s over the runs (population sigma)."""
    t = [float(r['throughput_per_s']) for r in rows]
    m = sum(t) / len(t)
    return (sum((x - m) ** 2 for x in t) / len(t)) ** 0.5 / m if m else float('nan')


def sweep_label(by):
    """The non-critical length all of a sweep's rows share, and their runs'
    length (measured: a --duration run's is the duration, an --ops run's
    varies)."""
    rows = [r for rs in by.values() for r in rs]
    ncs = {('exp:' if r['ncs_exp'] == 'true' else '') + '%g us' % (float(r['ncs_ns']) / 1e3)
           for r in rows}
    if len(ncs) != 1:
        raise ValueError('rows of more than one ncs (%s)' % ', '.join(sorted(ncs)))
    ms = [float(r['duration_s']) * 1e3 for r in rows]
    if max(ms) <= min(ms) * 1.001:
        return '%s, %.4g ms' % (ncs.pop(), min(ms))
    return '%s, runs of %.3g to %.3g ms' % (ncs.pop(), min(ms), max(ms))


def change_table(base, variant, sweeps):
    xs = sorted({x for by in sweeps for (_, x) in by}, key=float)
    lines = ['| ncs, run | %s |' % ' | '.join('%gx' % float(x) for x in xs),
             '|---|' + '---:|' * len(xs)]
    for by in sweeps:
        row, present = [], {x for (_, x) in by}
        for x in xs:
            if x not in present:  # a sweep without this overcommit
                row.append('-')
                continue
            b, v = cells(by, base, x), cells(by, variant, x)
            base_mean = mean(b, 'throughput_per_s')
            if not base_mean:
                raise ValueError('%s made no acquisitions at overcommit %s: no change from it'
                                 % (base, x))
            row.append('%+.1f%% (%.0f%% / %.0f%%)' % (
                100 * (mean(v, 'throughput_per_s') / base_mean - 1),
                100 * spread(b), 100 * spread(v)))
        lines.append('| %s | %s |' % (sweep_label(by), ' | '.join(row)))
    return '\n'.join(lines)


def failed(e):
    """One line for an input that cannot be read; status 2.  A missing
    column is named as such (a sweep without --vm has no overcommit)."""
    if isinstance(e, KeyError):
        sys.stderr.write('vm_tables: a CSV has no column %s: not a --vm sweep\'s CSV of '
                         'locklab-sim run\n' % e)
    else:
        sys.stderr.write('vm_tables: %s\n' % one_line(e))
    return 2


def change_main(argv):
    locks = argv[2].split(',') if len(argv) > 2 else []
    if len(locks) != 2 or not all(locks) or len(argv) < 4:
        sys.stderr.write('vm_tables: --change BASE,VARIANT CSV... (two locks, then one CSV '
                         'or more)\n')
        return 2
    try:
        sweeps = [load(path) for path in argv[3:]]
        table = change_table(locks[0], locks[1], sweeps)
    except (OSError, KeyError, ValueError, csv.Error) as e:
        return failed(e)
    print(table)
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == '--change':
        return change_main(argv)
    if len(argv) != 3:
        sys.stderr.write('vm_tables: give two CSVs, the busy sweep\'s and the none sweep\'s '
                         '(%d given; the file\'s header says more)\n' % (len(argv) - 1))
        return 2
    try:
        sweeps = (('busy', load(argv[1])), ('none', load(argv[2])))
        text = ['Throughput (Macq/s, mean of the 3 runs):\n']
        text += [throughput_table(name, by) + '\n' for name, by in sweeps]
        text.append('The counters at 1x, 2x and 4x (per run, means of the 3 runs; preemptions,\n'
                    'exits, halts and kicks are counts over the 100 ms):\n')
        text += [counter_table(name, by) + '\n' for name, by in sweeps]
    except (OSError, KeyError, ValueError, csv.Error) as e:
        return failed(e)
    print('\n'.join(text))
    return 0


if __name__ == '__main__':
    sys.exit(run_main('vm_tables', main, sys.argv))
