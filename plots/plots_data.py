#!/usr/bin/env python3
"""plots/plots_data.py - the rows of locklab's CSV files as the charts read
them: a file read (or skipped with one line), the numbers of a row, the
runs grouped into series (a lock and its workload) and their data table,
the starved and cut-short runs, and the units the axes scale to.
plots/plots.py draws the charts.
"""

import csv
import json
import math
import re
import sys

RUN_COLUMNS = ('lock', 'threads', 'throughput_per_s')


def read_csv(path, need=()):
    """The rows of a CSV, or None after one line on stderr: a file that is
    not text, not CSV, or lacks a column of need."""
    try:
        with open(path, newline='', encoding='utf-8') as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            fields = reader.fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        sys.stderr.write('plots.py: %s: cannot read it as a CSV (%s): skipped\n' % (path, e))
        return None
    missing = [c for c in need if c not in fields]
    if missing:
        sys.stderr.write('plots.py: %s: not a run CSV of locklab (no column %s): skipped\n'
                         % (path, missing[0]))
        return None
    for i, row in enumerate(rows):
        why = spoiled(row)
        if why:
            sys.stderr.write('plots.py: %s: line %d: %s: skipped\n' % (path, i + 2, why))
            return None
    return rows


# Columns read as numbers, and their range (empty: a failed run's, or not
# the row's kind): a CSV edited or cut short is skipped here, and refused
# by tools/report.py, which asks the same of its rows.
NUMBER_RANGES = {'throughput_per_s': (0.0, math.inf), 'duration_s': (0.0, math.inf),
                 'jain': (0.0, 1.0), 'handoff_local_frac': (0.0, 1.0),
                 'acquisitions': (0.0, math.inf)}


def spoiled(row):
    """Why row (a dict of csv.DictReader) is not one locklab wrote, or None."""
    if None in row or None in row.values():
        return '%s fields than the header' % ('more' if None in row else 'fewer')
    if 'threads' in row and not (row['threads'].isdigit() and int(row['threads']) > 0):
        return 'threads %r is not a thread count' % row['threads']
    for col, (lo, hi) in NUMBER_RANGES.items():
        v = num(row, col)
        if row.get(col, '') != '' and not (math.isfinite(v) and lo <= v <= hi):
            return '%s %r is not %s' % (col, row[col], 'a finite number >= 0' if hi == math.inf
                                        else 'a number in 0..1')
    return None


def num(row, key):
    v = row.get(key, '')
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def mean(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def most(xs):
    """The largest finite value (a run that timed no wait has none), or NaN."""
    xs = [x for x in xs if not math.isnan(x)]
    return max(xs) if xs else math.nan


def sd(xs):
    xs = [x for x in xs if not math.isnan(x)]
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def fmt(x):
    return 'NaN' if math.isnan(x) else '%.6g' % x


def workload_of(row):
    """The columns that tell two series of one lock apart: the workload's,
    and a --vm sweep's overcommit (its levels are the effect measured)."""
    return (row.get('cs_ns', ''), row.get('ncs_ns', ''), row.get('cs_lines', ''),
            row.get('locks', ''), row.get('read_pct', ''), row.get('overcommit', ''),
            row.get('ncs_exp', ''))


def json_env(csv_path):
    """The environment of the JSON file written beside a run CSV (same name,
    .json), or {} when there is none (a CSV made with --csv alone)."""
    try:
        with open(csv_path[:-len('.csv')] + '.json', encoding='utf-8') as f:
            env = json.load(f).get('environment', {})
    except (OSError, ValueError, AttributeError):
        return {}
    return env if isinstance(env, dict) else {}


def ran(row):
    """A run that has figures: not failed (a failed run's row is empty)."""
    return not row.get('failure') and not math.isnan(num(row, 'throughput_per_s'))


def series_of(rows):
    """{(backend, lock, workload): {threads: [rows]}} in first-seen order,
    of the runs that have figures."""
    out = {}
    for r in rows:
        if not ran(r):
            continue
        key = (r.get('backend', '?'), r.get('lock', '?'), workload_of(r))
        try:
            t = int(r.get('threads', ''))
        except ValueError:
            continue
        out.setdefault(key, {}).setdefault(t, []).append(r)
    return out


def starved_of(row):
    """The threads that never got the lock in the run: the CSV's starved, or
    in a CSV from before that column at least one where acq_min is 0."""
    n = num(row, 'starved')
    if not math.isnan(n):
        return n
    return 1.0 if num(row, 'acq_min') == 0 else 0.0


def starves(rows):
    """True when some run of rows left a thread without the lock: its
    throughput is that of the threads that got it, and it wins nothing."""
    return any(starved_of(r) > 0 for r in rows)


def max_cut_short(row):
    """True when the run's longest wait was cut short by its end: the CSV's
    wait_max_censored (also where a thread never got the lock and its wait
    is not the maximum shown: natively, one that never had a CPU to begin
    it); a CSV without it
    (made before the column): a thread never got the lock, so its wait ran
    until the end, and the longest wait is that long, the run's length."""
    if row.get('wait_max_censored') in ('true', 'false'):
        return row['wait_max_censored'] == 'true'
    run_ns = num(row, 'duration_s') * 1e9
    return starved_of(row) > 0 and num(row, 'wait_max_ns') >= 0.99 * run_ns


def write_blocks(path, head, blocks):
    """A data table for gnuplot: the head line, then the lines of each
    block (a series, a lock's panel), two blank lines between blocks, as
    gnuplot's index counts them."""
    with open(path, 'w') as f:
        f.write(head)
        for i, lines in enumerate(blocks):
            if i:
                f.write('\n\n')
            f.writelines(lines)


def series_line(t, rs):
    """The line of a series' table for its runs rs at t threads (or, drawn
    against overcommit, at overcommit t)."""
    tp = [num(r, 'throughput_per_s') for r in rs]
    return ' '.join([fmt(t), fmt(mean(tp)), fmt(sd(tp)),
                     fmt(mean([num(r, 'jain') for r in rs])),
                     fmt(mean([num(r, 'wait_p50_ns') for r in rs])),
                     fmt(mean([num(r, 'wait_p99_ns') for r in rs])),
                     fmt(most([num(r, 'wait_max_ns') for r in rs])),
                     '1' if any(r.get('wait_p99_censored') == 'true' for r in rs) else '0',
                     fmt(max(starved_of(r) for r in rs)),
                     '1' if any(max_cut_short(r) for r in rs) else '0',
                     fmt(min(tp)), fmt(max(tp))]) + '\n'


def write_series(path, groups, x='threads'):
    """The series' table, a block each, its first column x: the threads, or
    a --vm sweep's overcommit (plots_charts.py's overcommit_groups)."""
    write_blocks(path, '# %s throughput_mean throughput_sd jain wait_p50 wait_p99 wait_max '
                 'p99_lower_bound starved max_lower_bound throughput_min throughput_max\n' % x,
                 ([series_line(t, by_t[t]) for t in sorted(by_t)] for by_t in groups.values()))


def scaled_unit(values, units):
    """(factor, name) of the largest unit not above the largest value."""
    top = max([v for v in values if v > 0 and not math.isnan(v)] or [0])
    best = units[0]
    for u in units:
        if u[0] <= top:
            best = u
    return best


TIME_UNITS = [(1.0, 'ns'), (1e3, 'us'), (1e6, 'ms'), (1e9, 's')]
RATE_UNITS = [(1.0, 'acq/s'), (1e3, 'kacq/s'), (1e6, 'Macq/s'), (1e9, 'Gacq/s')]


def series_values(groups, key):
    return [num(r, key) for by_t in groups.values() for rs in by_t.values() for r in rs]


# What ends a result NAME after its machine: the sweep's hash (tools/results.py)
# and, for the same arguments again, -2, -3 ...
RUN_SUFFIX = re.compile(r'-[0-9a-f]{8}(-[0-9]+)?$')
