#!/usr/bin/env python3
"""Who takes the lock next, over a sweep of the delay between acquisitions:
for each lock, thread count and --ncs of two CSV files (a native sweep and
a simulated one, each the rows of several `run --ncs N` commands), the mean
throughput and the share of acquisitions taken again by the thread that had
just released the lock (1 - handoff_frac), side by side (docs/mechanisms.md,
"The snoop's way").

usage: again_sweep.py --native FILE --sim FILE
"""

import csv
import math
import os
import sys

sys.dont_write_bytecode = True  # the helper beside this file, not cached
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from args_oneline import one_line, run_main  # noqa: E402


def fail(msg):
    sys.stderr.write('again_sweep.py: %s\n' % one_line(msg))
    sys.exit(2)


def read(path):
    """{(lock, threads, ncs): (mean throughput, mean again, runs)}"""
    try:
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail('%s: %s' % (path, e.strerror))
    except UnicodeDecodeError as e:
        fail('%s: not a CSV file (not UTF-8 text at byte %d)' % (path, e.start))
    except csv.Error as e:
        fail('%s: not a CSV file it can read (%s)' % (path, e))
    need = ('lock', 'threads', 'ncs_ns', 'throughput_per_s', 'handoff_frac')
    if not rows or any(k not in rows[0] for k in need):
        fail('%s: not a run CSV with %s' % (path, ', '.join(need)))
    acc = {}
    for n, r in enumerate(rows, 2):
        try:
            key = (r['lock'], int(r['threads']), int(r['ncs_ns']))
            tput, frac = float(r['throughput_per_s']), float(r['handoff_frac'])
        except (ValueError, TypeError):  # TypeError: a short row's missing fields
            fail('%s:%d: threads, ncs_ns, throughput_per_s or handoff_frac does not read'
                 % (path, n))
        if not math.isfinite(tput) or tput < 0:
            fail('%s:%d: throughput_per_s %s is not a finite number >= 0'
                 % (path, n, r['throughput_per_s']))
        if not 0 <= frac <= 1:
            fail('%s:%d: handoff_frac %s is outside 0..1' % (path, n, r['handoff_frac']))
        a = acc.setdefault(key, [0.0, 0.0, 0])
        a[0] += tput
        a[1] += 1 - frac
        a[2] += 1
    return {k: (v[0] / v[2], v[1] / v[2], v[2]) for k, v in acc.items()}


def main(argv):
    args = dict(zip(argv[1::2], argv[2::2]))
    if len(argv) != 5 or set(args) != {'--native', '--sim'}:
        fail('usage: again_sweep.py --native FILE --sim FILE')
    nat, sim = read(args['--native']), read(args['--sim'])
    keys = sorted(set(nat) & set(sim))
    if not keys:
        fail('no lock, threads and ncs_ns in both files')
    print('%-10s %7s %6s   %13s %7s   %10s %7s'
          % ('lock', 'threads', 'ncs ns', 'native Macq/s', 'again', 'sim Macq/s', 'again'))
    for k in keys:
        (nt, na, _), (st, sa, _) = nat[k], sim[k]
        print('%-10s %7d %6d   %13.2f %6.1f%%   %10.2f %6.1f%%'
              % (k[0], k[1], k[2], nt / 1e6, 100 * na, st / 1e6, 100 * sa))
    left = len(set(nat) ^ set(sim))
    if left:
        print('(%d lock, threads and ncs_ns in one file only: left out)' % left)


if __name__ == '__main__':
    sys.exit(run_main('again_sweep.py', main, sys.argv))
