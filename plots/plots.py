#!/usr/bin/env python3
"""plots/plots.py - locklab's charts: reads the CSV files under results/,
averages the repetitions, writes small data tables and draws them with the
gnuplot scripts next to this file (PNG and SVG of each).

`scons plots` runs it; by hand:

    python3 plots/plots.py [--results DIR] [--out DIR] [--bin DIR]
                           [--topo NAME] [--locks a,b] [--threads N]
                           [--only throughput,jain,...] [--no-sweeps]
                           [--overlay-native]

Charts (NAME is what follows sim- in each results/sim-NAME.csv: the topology
and the hash of the sweep's arguments that `scons sim` names its files by,
tools/results.py; the links sim-TOPO.csv and native-HOST.csv to the latest
sweep are not charted twice):

  throughput-NAME   throughput against threads per lock.  Simulated and
                    native lines share a chart only for one machine:
                    sim-host-HOST.csv (the calibrated host) with
                    native-HOST.csv, validate-HOST-sim.csv with its
                    -native.csv; --overlay-native puts every native-*.csv
                    on every simulated chart.  Each native-HOST.csv also
                    gets charts of its own (NAME native-HOST).  A cross
                    marks a point where some run starved threads (the CSV's
                    starved: threads that never got the lock).
  jain-NAME         Jain's fairness index against threads, crossed as well
  waits-NAME        wait median, 99th percentile and maximum against threads;
                    a thread still waiting at the end counts with its wait
                    so far (censored); an open triangle marks a figure that
                    is only a lower bound: a p99 (the CSV's
                    wait_p99_censored), a longest wait the run's end cut
                    short (wait_max_censored; max_cut_short)
  traffic-NAME      cache-line transfers per acquisition by distance class,
                    at the largest thread count of the file
  acquisitions-T    acquisitions of each thread (results/threads-sim-T.csv,
                    made with `locklab-sim run --threads-csv`)
  crossover-T       the best lock for each cell of threads x critical-section
                    length, of the locks that starved no thread there
                    (results/crossover-sim-T.csv, a small simulated sweep)

A lock has one colour in every chart (LOCK_COLOURS below).  The two sweeps
need --bin (the directory of locklab-sim); each is recorded in a sidecar
file next to its CSV (CSV.sweep.json: the commands, the binary's size and
mtime, the topology file's) and made again when that record differs from
what would be run now.  --no-sweeps uses the CSV files as they are.
Exit status 0, 1 when gnuplot or a sweep failed, 2 on bad arguments.
"""

import argparse
import csv
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# One colour per lock, the same in every chart and never shared by two locks
# (pairwise apart in CIELAB); greys are kept for sockets and distances.
# A lock missing here gets a colour of SPARE_COLOURS by a hash of its name:
# add it to the table.
LOCK_COLOURS = {
    'tas': '#e6194b', 'ttas': '#f58231', 'ttas-backoff': '#e5bf00',
    'ticket': '#9a6324', 'ticket-prop': '#e5bb67', 'anderson': '#808000',
    'mcs': '#4363d8', 'clh': '#42d4f4', 'qspinlock': '#3cb44b',
    'cna': '#911eb4', 'cohort': '#f032e6', 'hmcs': '#000075',
    'hticket': '#800000', 'pv-ticket': '#bf5667', 'pv-qspinlock': '#3e7233',
    'rwlock': '#e52600', 'qrwlock': '#006599', 'qrwlock-steal': '#0000e5',
    'percpu-rwsem': '#9fbf00', 'brlock': '#2fbf8f', 'spinlock-ref': '#72335d',
    'lockref': '#e567bb', 'pthread-mutex': '#469990', 'pthread-spin': '#00e500',
    'pv-qspinlock-noearly': '#723e33', 'qrwlock-2013': '#6791e5', 'qrwlock-2013-rs': '#9900e5',
    'qrwlock-3.16': '#bf005f', 'qrwlock-4.2': '#7c4499', 'rwlock-rlf': '#99007f',
    'rwsem': '#c0e080', 'rwsem-pv': '#0040e0', 'mutex': '#404000', 'mutex-pv': '#e0a0e0',
}
SPARE_COLOURS = ['#ffb07c', '#7fdfa0', '#f7a1c4', '#b39ddb', '#d4c200', '#5f9ea0']
# One marker per lock, the same in every chart (gnuplot point types: 4/5
# square, 6/7 circle, 9 triangle, 10/11 triangle down, 12/13 diamond, 14/15
# pentagon, open/filled; 2, a cross, marks starved points and 8, an open
# triangle, a lower bound).  Two locks whose colours are near (CIELAB
# distance under NEAR_COLOURS, colour_distance) have markers of different
# shapes, so that no two series of a chart look alike (tests/plots_check.sh).
LOCK_MARKERS = {
    'tas': 7, 'ttas': 5, 'ttas-backoff': 9, 'ticket': 11, 'ticket-prop': 13, 'anderson': 15,
    'mcs': 6, 'clh': 4, 'qspinlock': 10, 'cna': 12, 'cohort': 14, 'hmcs': 5, 'hticket': 9,
    'pv-ticket': 11, 'pv-qspinlock': 7, 'rwlock': 13, 'qrwlock': 15, 'qrwlock-steal': 6,
    'percpu-rwsem': 4, 'brlock': 12, 'spinlock-ref': 14, 'lockref': 7, 'pthread-mutex': 10,
    'pthread-spin': 5, 'pv-qspinlock-noearly': 13, 'qrwlock-2013': 9, 'qrwlock-2013-rs': 11,
    'qrwlock-3.16': 4, 'qrwlock-4.2': 10, 'rwlock-rlf': 9, 'rwsem': 9, 'rwsem-pv': 15,
    'mutex': 5, 'mutex-pv': 13,
}
SPARE_MARKERS = [7, 5, 9, 11, 13, 15, 6, 4, 10, 12, 14]
NEAR_COLOURS = 40.0
# Sockets (acquisitions chart) and distance classes (traffic chart): greys.
SOCKET_COLOURS = ['#1a1a1a', '#8c8c8c', '#4d4d4d', '#bfbfbf',
                  '#333333', '#a6a6a6', '#666666', '#d9d9d9']
CLASS_COLOURS = ['#d9d9d9', '#a6a6a6', '#666666', '#1a1a1a']
# A crossover cell where every lock starved threads: no best lock, a grey.
NO_WINNER_COLOUR = '#d9d9d9'
CENSORED = 'waits include threads still waiting at the end (censored)'
# The cross of the throughput and jain charts, as the acquisitions chart's:
# a lock that starves threads reports the throughput of those that got it.
STARVED = 'x: in some run threads never got the lock (starved)'

SWEEP_LOCKS = ['ttas', 'ttas-backoff', 'ticket', 'mcs', 'clh', 'qspinlock']
SWEEP_THREADS = [2, 4, 8, 16, 32]
SWEEP_CS = [0, 100, 400, 1600]
SWEEP_DURATION_MS = '1'
CHARTS = ['throughput', 'jain', 'waits', 'traffic', 'acquisitions', 'crossover']


def fail(msg, status=2):
    sys.stderr.write('plots.py: %s\n' % msg)
    sys.exit(status)


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
    return rows


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


def gp_str(s):
    return '"%s"' % s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def wrap_heading(text, width):
    """Each line of a heading broken at its spaces to at most width
    characters: gnuplot centres a title over the plot and cuts off what
    is wider than the canvas."""
    return '\n'.join('\n'.join(textwrap.wrap(line, width, break_on_hyphens=False) or [''])
                      for line in text.split('\n'))


# the characters of a heading's line at 11 points over a chart's plot
HEADING_WIDTH = {'waits.gp': 190, 'acquisitions.gp': 180}


def gnuplot(script, out, **vars):
    """Run plots/SCRIPT with the variables; True when both files exist."""
    out = os.path.abspath(out)
    if 'heading' in vars:
        vars['heading'] = wrap_heading(vars['heading'], HEADING_WIDTH.get(script, 96))
    assigns = ['out=%s' % gp_str(out)]
    for k, v in vars.items():
        assigns.append('%s=%s' % (k, gp_str(v) if isinstance(v, str) else repr(v)))
    argv = ['gnuplot', '-e', '; '.join(assigns), os.path.join(HERE, script)]
    try:
        p = subprocess.run(argv, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    except OSError as e:
        sys.stderr.write('plots.py: cannot run gnuplot: %s\n' % e)
        return False
    if p.returncode != 0:
        sys.stderr.write('plots.py: gnuplot %s failed:\n%s' % (script, p.stderr))
        return False
    ok = all(os.path.exists(out + ext) and os.path.getsize(out + ext) > 0
             for ext in ('.png', '.svg'))
    if not ok:
        sys.stderr.write('plots.py: gnuplot %s wrote no %s.png/.svg\n' % (script, out))
    else:
        print('wrote %s.png and %s.svg' % (out, out))
    return ok


# ------------------------------------------------------------ series

def workload_of(row):
    """The columns that tell two series of one lock apart: the workload's,
    and a --vm sweep's overcommit (its levels are the effect measured)."""
    return (row.get('cs_ns', ''), row.get('ncs_ns', ''), row.get('cs_lines', ''),
            row.get('locks', ''), row.get('read_pct', ''), row.get('overcommit', ''),
            row.get('ncs_exp', ''))


def workload_text(keys):
    """The workload every series shares, for the heading ("cs 50 ns, ncs
    200 ns, 1 line, 1 lock"); where the series differ, their titles say it."""
    wls = {k[2] for k in keys}
    if len(wls) != 1:
        return 'workloads: in the titles'
    cs, ncs, lines, locks, read, x, exp = next(iter(wls))
    text = 'cs %s ns writing %s shared line%s, ncs %s%s ns, %s lock%s' % (
        cs or '?', lines or '?', '' if lines == '1' else 's',
        'exp:' if exp == 'true' else '', ncs or '?', locks or '?', '' if locks == '1' else 's')
    if read:
        text += ', %s%% reads' % read
    if x:
        text += ', overcommit x%s' % x
    return text


def json_env(csv_path):
    """The environment of the JSON file written beside a run CSV (same name,
    .json), or {} when there is none (a CSV made with --csv alone)."""
    try:
        with open(csv_path[:-len('.csv')] + '.json', encoding='utf-8') as f:
            env = json.load(f).get('environment', {})
    except (OSError, ValueError, AttributeError):
        return {}
    return env if isinstance(env, dict) else {}


PIN_SAYS = {'compact': 'threads fill socket 0, then socket 1, ...',
            'scatter': 'threads dealt round the sockets'}


def context_text(rows, env):
    """What a chart's numbers rest on, for its heading: simulated or
    measured, the machine's shape and placement, the runs' length, and the
    model's assumed constants ("" where the CSV and its JSON say nothing)."""
    parts = []
    backends = sorted({r.get('backend', '') for r in rows} - {''})
    topo = env.get('topology') if isinstance(env.get('topology'), dict) else {}
    if topo.get('cores') and topo.get('sockets'):
        smt = topo.get('smt', 1)
        shape = '%d sockets x %d cores%s' % (topo['sockets'], topo['cores'] // topo['sockets'],
                                             ' x %d threads' % smt if smt > 1 else '')
        parts.append('%s %s (%s)' % ('simulated' if backends == ['sim'] else '+'.join(backends),
                                     topo.get('name', '?'), shape))
    elif backends:
        parts.append(' and '.join({'sim': 'simulated', 'native': 'measured natively'}.get(b, b)
                                  for b in backends))
    pin = env.get('pinning')
    if pin:
        parts.append('pinning %s' % pin + (' (%s)' % PIN_SAYS[pin] if pin in PIN_SAYS else ''))
    lengths = sorted({num(r, 'duration_s') for r in rows if not math.isnan(num(r, 'duration_s'))})
    if lengths:
        parts.append('runs of %s' % fmt_seconds(lengths[0]) if len(lengths) == 1 else
                     'runs of %s to %s' % (fmt_seconds(lengths[0]), fmt_seconds(lengths[-1])))
    text = ', '.join(parts)
    assumed = topo.get('assumed')
    if assumed:
        text += ('\nassumed (no source; topologies/README.md): %s'
                 % ', '.join(str(a) for a in assumed))
    return text


def fmt_seconds(s):
    scale, unit = scaled_unit([s * 1e9], TIME_UNITS)
    return '%g %s' % (float('%.3g' % (s * 1e9 / scale)), unit)


def rows_workload_text(rows):
    """workload_text of rows read straight from a CSV (not grouped into
    series: a per-thread CSV has no throughput to group by)."""
    return workload_text([(None, None, workload_of(r)) for r in rows])


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


def series_titles(keys):
    """Short titles: the workload is named only when the file mixes several."""
    workloads = {k[2] for k in keys}
    backends = {k[0] for k in keys}
    titles = []
    for backend, lock, wl in keys:
        t = '%s:%s' % (backend, lock) if len(backends) > 1 else lock
        if len({w[:5] + w[6:] for w in workloads}) > 1:
            t += ':cs=%s,ncs=%s' % (wl[0], wl[1])
        if len({w[5] for w in workloads}) > 1:
            t += ':x%s' % wl[5]
        titles.append(t)
    return titles


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
    wait_max_censored (also where a thread never got the lock and its wait,
    untimed under --time-every, is not the maximum shown); a CSV without it
    (made before the column): a thread never got the lock, so its wait ran
    until the end, and the longest wait is that long, the run's length."""
    if row.get('wait_max_censored') in ('true', 'false'):
        return row['wait_max_censored'] == 'true'
    run_ns = num(row, 'duration_s') * 1e9
    return starved_of(row) > 0 and num(row, 'wait_max_ns') >= 0.99 * run_ns


def write_series(path, groups):
    with open(path, 'w') as f:
        f.write('# threads throughput_mean throughput_sd jain wait_p50 wait_p99 wait_max '
                'p99_lower_bound starved max_lower_bound throughput_min throughput_max\n')
        for i, (key, by_t) in enumerate(groups.items()):
            if i:
                f.write('\n\n')
            for t in sorted(by_t):
                rs = by_t[t]
                tp = [num(r, 'throughput_per_s') for r in rs]
                f.write(' '.join([str(t), fmt(mean(tp)), fmt(sd(tp)),
                                  fmt(mean([num(r, 'jain') for r in rs])),
                                  fmt(mean([num(r, 'wait_p50_ns') for r in rs])),
                                  fmt(mean([num(r, 'wait_p99_ns') for r in rs])),
                                  fmt(most([num(r, 'wait_max_ns') for r in rs])),
                                  '1' if any(r.get('wait_p99_censored') == 'true' for r in rs)
                                  else '0',
                                  fmt(max(starved_of(r) for r in rs)),
                                  '1' if any(max_cut_short(r) for r in rs) else '0',
                                  fmt(min(tp)), fmt(max(tp))]) + '\n')


def lock_colour(lock):
    """The lock's colour, "#rrggbb", the same in every chart."""
    if lock in LOCK_COLOURS:
        return LOCK_COLOURS[lock]
    return SPARE_COLOURS[zlib.crc32(lock.encode()) % len(SPARE_COLOURS)]


def lock_marker(lock):
    """The lock's gnuplot point type, the same in every chart."""
    if lock in LOCK_MARKERS:
        return LOCK_MARKERS[lock]
    return SPARE_MARKERS[zlib.crc32(lock.encode()) % len(SPARE_MARKERS)]


def colour_distance(a, b):
    """CIELAB (D65) distance of two "#rrggbb" colours: under about 40, two
    lines are told apart by their markers rather than their colours."""
    def lab(c):
        rgb = [int(c[i:i + 2], 16) / 255.0 for i in (1, 3, 5)]
        r, g, b = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
        xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
               0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
        fx, fy, fz = [v ** (1.0 / 3) if v > 0.008856 else 7.787 * v + 16.0 / 116 for v in xyz]
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    return math.dist(lab(a), lab(b))


def rgb_int(colour):
    return int(colour[1:], 16)


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


def rows_text(by_lock):
    """How many rows a lock's bar is the mean of: "3 rows", "1 to 3 rows"."""
    counts = [len(rs) for rs in by_lock.values()]
    lo, hi = min(counts), max(counts)
    return '%d row%s' % (hi, '' if hi == 1 else 's') if lo == hi else '%d to %d rows' % (lo, hi)


def runs_text(groups):
    """How many runs a point is the mean of: "3 runs", "2 to 3 runs"."""
    counts = [len(rs) for by_t in groups.values() for rs in by_t.values()]
    lo, hi = min(counts), max(counts)
    return '%d run%s' % (hi, '' if hi == 1 else 's') if lo == hi else '%d to %d runs' % (lo, hi)


def bars_text(groups):
    """What the error bars are: none where a point is a single run."""
    counts = [len(rs) for by_t in groups.values() for rs in by_t.values()]
    if max(counts) < 2:
        return 'single runs: no bars'
    return 'bars: lowest to highest run' + ('' if min(counts) > 1 else ' (none for a single run)')


def display_name(name):
    """A result NAME as a heading gives it: the machine, then the sweep's
    hash apart ("4socket, sweep 4c7cf0c6"), so that the hash is not read as
    part of the machine's name."""
    m = RUN_SUFFIX.search(name)
    return '%s, sweep %s' % (name[:m.start()], m.group(0)[1:]) if m else name


SIDEWAYS = 'series moved sideways by at most 7%, each lock with its own colour and marker'


def series_charts(name, rows, outdir, tmp, only, env=None):
    groups = series_of(rows)
    lost = {(r.get('backend'), r.get('lock'), workload_of(r), r.get('threads')) for r in rows}
    lost -= {(k[0], k[1], k[2], str(t)) for k, by_t in groups.items() for t in by_t}
    if lost:
        sys.stderr.write('plots.py: %s: %d configuration(s) whose runs all failed are not '
                         'drawn\n' % (name, len(lost)))
    if not groups:
        return True
    keys = list(groups)
    data = os.path.join(tmp, 'series-%s.dat' % name)
    write_series(data, groups)
    backends = sorted({k[0] for k in keys})
    common = dict(data=data, titles=' '.join(series_titles(keys)),
                  kinds=' '.join(k[0] for k in keys),
                  colours=' '.join(lock_colour(k[1]) for k in keys),
                  markers=' '.join(str(lock_marker(k[1])) for k in keys))
    what = '%s (%s; %s)' % (display_name(name), ', '.join(backends), workload_text(keys))
    context = context_text(rows, env or {})
    if context:
        what += '\n' + context
    # the cross and its key entry only on a chart that has one
    starved = int(any(starves(rs) for by_t in groups.values() for rs in by_t.values()))
    note = '\n' + STARVED if starved else ''
    tnote = note and note + ": its throughput is only the others'"
    ok = True
    if 'throughput' in only:
        scale, unit = scaled_unit(series_values(groups, 'throughput_per_s'), RATE_UNITS)
        ok &= gnuplot('throughput.gp', os.path.join(outdir, 'throughput-' + name),
                      heading='throughput of all threads together against threads: %s\n'
                      'points: means of %s; %s; %s%s'
                      % (what, runs_text(groups), bars_text(groups), SIDEWAYS, tnote),
                      tscale=scale, tunit=unit, starved=starved, **common)
    if 'jain' in only:
        ok &= gnuplot('jain.gp', os.path.join(outdir, 'jain-' + name),
                      heading="fairness (Jain's index) against threads: %s\npoints: means of %s; "
                      "%s%s" % (what, runs_text(groups), SIDEWAYS, note),
                      starved=starved, **common)
    if 'waits' in only:
        # one unit for the three panels, so that a tick reads the same in
        # each: the medians', the smallest figures, which a larger unit would
        # give as 1e-06
        unit = scaled_unit(series_values(groups, 'wait_p50_ns'), TIME_UNITS)
        wnote = note and note + ': the waits are those of the threads that got it (and one '\
            'wait each, cut short by the end, of those that did not)'
        ok &= gnuplot('waits.gp', os.path.join(outdir, 'waits-' + name),
                      heading='wait times against threads: %s\nmedian and p99: means of %s; '
                      'longest: the largest of any run, at most the run\'s length; %s\n'
                      '%s; an open triangle marks a figure that is only a lower bound:\n'
                      'a p99 (in some run, half or more of the waits at or above it were cut '
                      'short), a longest wait the run\'s end cut short (a thread still waited)%s'
                      % (what, runs_text(groups), SIDEWAYS, CENSORED, wnote),
                      wscales=' '.join(['%d' % unit[0]] * 3), wunits=' '.join([unit[1]] * 3),
                      starved=starved, **common)
    return ok


def traffic_chart(name, rows, outdir, tmp, env=None):
    rows = [r for r in rows if r.get('backend') == 'sim' and ran(r)]
    cols = ['transfers_class%d_per_acq' % k for k in range(4)]
    if not rows:
        print('traffic-%s: no simulated run with figures: skipped' % name)
        return True
    if cols[0] not in rows[0]:
        print('traffic-%s: the CSV has no transfers_class*_per_acq columns: skipped' % name)
        return True
    tmax = max(int(r['threads']) for r in rows)
    by_lock = {}
    for r in rows:
        if int(r['threads']) == tmax:
            by_lock.setdefault(r['lock'], []).append(r)
    per = {l: [mean([num(r, c) for r in rs]) for c in cols] for l, rs in by_lock.items()}
    classes = max([k + 1 for v in per.values() for k, x in enumerate(v) if x > 0] or [1])
    data = os.path.join(tmp, 'traffic-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# lock class0 class1 class2 class3 (transfers per acquisition)\n')
        for l, v in per.items():  # a lock whose runs all failed has no bar, not 0
            if not all(math.isnan(x) for x in v):
                label = l + ('(x)' if starves(by_lock[l]) else '')
                f.write('%s %s\n' % (label, ' '.join(fmt(0.0 if math.isnan(x) else x)
                                                     for x in v)))
    names = ['same-socket'] + ['remote-class-%d' % k for k in range(1, 4)]
    starved = any(starves(rs) for rs in by_lock.values())
    context = context_text(rows, env or {})
    return gnuplot('traffic.gp', os.path.join(outdir, 'traffic-' + name), data=data,
                   classes=classes, names=' '.join(names), colours=' '.join(CLASS_COLOURS),
                   heading='cache-line transfers per acquisition by distance: %s, %d threads '
                   '(%s)%s\nbars: means of the %s at %d threads, a lock (each its run\'s '
                   'figure); remote-class-k: a transfer between sockets of the topology\'s '
                   'distance class k (1 the nearest; explain gives each class\'s latency)%s'
                   % (display_name(name), tmax,
                      rows_workload_text(rows),
                      '\n' + context if context else '', rows_text(by_lock), tmax,
                      '\n(x) after a lock: in some run threads never got it (starved): its '
                      'transfers are those of the threads that got it' if starved else ''))


# ------------------------------------------------------------ per thread

def thread_rows(rows):
    """The per-thread rows to draw and what the bars are: the mean over the
    runs, unless some thread ran on another socket in another run (--pin
    none), where a mean would mix sockets under one shade: then the first
    run's rows alone."""
    runs = sorted({r.get('run', '1') for r in rows}, key=lambda v: int(v) if v.isdigit() else 0)
    placed = {}
    for r in rows:
        placed.setdefault((r['lock'], r['tid']), set()).add(r.get('node', '0'))
    if any(len(nodes) > 1 for nodes in placed.values()):
        return ([r for r in rows if r.get('run', '1') == runs[0]],
                'the first of %d runs (threads placed anew each run)' % len(runs))
    return rows, 'one run' if len(runs) == 1 else 'mean of %d runs' % len(runs)


# A bar under this share of its panel's tallest is drawn with its count
# printed above it: on a linear scale 3 acquisitions look like none.
SMALL_BAR = 0.03


def acquisitions_chart(name, rows, outdir, tmp, threads=None, own_run=False):
    if not rows:
        return True
    tcounts = sorted({int(r['threads']) for r in rows})
    t = threads if threads in tcounts else tcounts[-1]
    rows, what = thread_rows([r for r in rows if int(r['threads']) == t])
    by_lock = {}
    for r in rows:
        by_lock.setdefault(r['lock'], {}).setdefault(int(r['tid']), []).append(r)
    data = os.path.join(tmp, 'acq-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# tid acquisitions socket fewest (in one run: 0 draws an x) '
                'small (1: a bar too short to see, its count printed)\n')
        for i, (lock, by_tid) in enumerate(by_lock.items()):
            if i:
                f.write('\n\n')
            peak = max(mean([num(r, 'acquisitions') for r in rs]) for rs in by_tid.values())
            for tid in sorted(by_tid):
                rs = by_tid[tid]
                acq = [num(r, 'acquisitions') for r in rs]
                small = 0 < mean(acq) < SMALL_BAR * peak
                f.write('%d %s %d %s %d\n' % (tid, fmt(mean(acq)),
                                              rgb_int(socket_colour(rs[0].get('node', '0'))),
                                              fmt(min(acq)), small))
    sockets = sorted({socket_of(r) for r in rows})
    backend = rows[0].get('backend', 'sim')
    several = any(len(rs) > 1 for by_tid in by_lock.values() for rs in by_tid.values())
    starved = ('; x: none acquired%s' % (' in some run' if several else '')
               if any(num(r, 'acquisitions') == 0 for r in rows) else '')
    return gnuplot('acquisitions.gp', os.path.join(outdir, 'acquisitions-' + name), data=data,
                   titles=' '.join(by_lock),
                   sockets=' '.join('socket-%d' % k for k in sockets),
                   socket_colours=' '.join(socket_colour(k) for k in sockets),
                   heading='acquisitions per thread, %s (shade: the thread\'s socket%s; a bar '
                   'under %d%% of its panel\'s tallest has its count printed; each panel its own '
                   'scale): %s %s, %d threads, %s; %s' % (what, starved, round(100 * SMALL_BAR),
                                                         backend, name, t,
                                                         rows_workload_text(rows),
                                                         run_of_chart(rows, own_run)))


def run_of_chart(rows, own_run):
    """What the bars' counts scale with: the chart's own run (plots.py's,
    threads_argv), its length and seed; or, charted from a per-thread CSV
    that was already there (no --bin, --no-sweeps), whose length the CSV
    does not give, only that."""
    seeds = sorted({r.get('seed', '') for r in rows} - {''})
    seed = ', seed %s' % seeds[0] if len(seeds) == 1 else ''
    if not own_run:
        return 'counts of the run of the per-thread CSV found (its length not recorded)%s' % seed
    return 'counts of a run of %d ms (simulated)%s of its own' % (THREADS_RUN_MS, seed)


def socket_of(row):
    try:
        return int(row.get('node', '0'))
    except ValueError:
        return 0


def socket_colour(node):
    try:
        k = int(node)
    except ValueError:
        k = 0
    return SOCKET_COLOURS[k % len(SOCKET_COLOURS)]


# ------------------------------------------------------------ crossover

def crossover_chart(name, rows, outdir, tmp):
    rows = [r for r in rows if r.get('backend') == 'sim']
    if not rows:
        return True
    cell = {}
    for r in rows:
        key = (int(r['threads']), int(r['cs_ns']))
        cell.setdefault(key, {}).setdefault(r['lock'], []).append(r)
    xs = sorted({k[0] for k in cell})
    ys = sorted({k[1] for k in cell})
    winners = []
    data = os.path.join(tmp, 'crossover-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# x y lock lead colour text_colour starved (the faster locks left out)\n')
        for (t, cs), by_lock in sorted(cell.items()):
            lock, lead, left_out = best_of(by_lock)
            if lock == '-' and not left_out:  # every run of the cell failed: left blank
                continue
            note = 'starved: ' + ', '.join(left_out) if left_out else '-'
            if lock == '-':  # every lock that ran starved threads: a grey cell says so
                lock, lead, note, colour = 'none', 'all starved', '-', NO_WINNER_COLOUR
            else:
                colour = lock_colour(lock)
                if lock not in winners:
                    winners.append(lock)
            f.write('%d %d %s %s %d %d %s\n' % (xs.index(t), ys.index(cs), lock, gp_str(lead),
                                                 rgb_int(colour), text_on(colour), gp_str(note)))
    xt = '(%s)' % ', '.join('"%d" %d' % (t, i) for i, t in enumerate(xs))
    yt = '(%s)' % ', '.join('"%d" %d' % (c, i) for i, c in enumerate(ys))
    return gnuplot('crossover.gp', os.path.join(outdir, 'crossover-' + name), data=data,
                   xt=xt, yt=yt, nx=len(xs), ny=len(ys), locks=' '.join(winners),
                   colours=' '.join(lock_colour(l) for l in winners),
                   heading='best of %s by threads and critical section: sim %s (ncs %s)\n'
                   'only these locks were swept; a cell is one run each (%s), so a lead of a '
                   'few %% is one draw; the lead is over the second best, tie(L) when less '
                   'than 1%% ahead of L\n'
                   'a lock that starved threads in a cell is left out of it; "starved:" names '
                   'those faster than the best'
                   % (', '.join(dict.fromkeys(r['lock'] for r in rows)), name,
                      '/'.join(sorted({r.get('ncs_ns', '?') + ' ns' for r in rows})),
                      context_text(rows, {})))


def best_of(by_lock):
    """The lock of highest mean throughput in a cell of those that starved no
    thread there (a starving lock's throughput is that of the threads that got
    it: it wins nothing), its lead over the second best, and the starving
    locks that were faster, fastest first.  A lock whose runs there all failed
    has no mean and is not ranked; no lock to rank: '-', '-'."""
    means = []
    for l, rs in by_lock.items():
        rs = [r for r in rs if ran(r)]
        m = mean([num(r, 'throughput_per_s') for r in rs])
        if not math.isnan(m):
            means.append((m, l, starves(rs)))
    ranked = sorted(((m, l) for m, l, s in means if not s), reverse=True)
    starving = sorted(((m, l) for m, l, s in means if s), reverse=True)
    if not ranked:
        return '-', '-', [l for m, l in starving]
    best, lock = ranked[0]
    lead = '-'
    if len(ranked) > 1 and ranked[1][0] > 0:
        pct = 100.0 * (best / ranked[1][0] - 1)
        lead = '+%.0f%%' % pct if pct >= 1 else 'tie(%s)' % ranked[1][1]
    return lock, lead, [l for m, l in starving if m > best]


def text_on(colour):
    """Black or white, whichever reads better on the colour."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0x000000 if 0.299 * r + 0.587 * g + 0.114 * b > 140 else 0xffffff


# ------------------------------------------------------------ sweeps

def known_locks(binary):
    p = subprocess.run([binary, 'list'], stdout=subprocess.PIPE, universal_newlines=True)
    return [l.split()[0] for l in p.stdout.splitlines() if len(l.split()) > 1
            and l.split()[1] == 'mutex']


def sweep_locks(binary, wanted):
    known = known_locks(binary)
    return [l for l in (wanted or SWEEP_LOCKS) if l in known]


def run_sim(argv):
    print(' '.join(argv))
    sys.stdout.flush()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL)
    return p.returncode == 0


def file_stamp(path):
    """Size and mtime of a file, or None: what tells two builds apart."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return {'path': os.path.abspath(path), 'size': st.st_size, 'mtime_ns': st.st_mtime_ns}


def topology_file(binary, topo):
    """The file locklab-sim reads for --topo TOPO: a path as it is, a name
    under topologies/ of the current directory, $LOCKLAB_TOPODIR or a
    directory above the binary."""
    if '/' in topo or topo.endswith('.xml'):
        return topo
    dirs = ['topologies']
    if os.environ.get('LOCKLAB_TOPODIR'):
        dirs.append(os.environ['LOCKLAB_TOPODIR'])
    d = os.path.dirname(os.path.realpath(binary))
    for _ in range(5):
        dirs.append(os.path.join(d, 'topologies'))
        d = os.path.dirname(d)
    for d in dirs:
        if os.path.isfile(os.path.join(d, topo + '.xml')):
            return os.path.join(d, topo + '.xml')
    return topo


def sweep_record(binary, topo, argvs):
    """What a sweep is made of: its commands, the binary, the topology file."""
    return {'commands': argvs, 'binary': file_stamp(binary),
            'topology': file_stamp(topology_file(binary, topo)) or topo}


def sidecar(path):
    return path + '.sweep.json'


def sweep_is_current(path, record):
    """True when PATH exists and was made by the sweep RECORD describes."""
    if not os.path.exists(path):
        return False
    try:
        with open(sidecar(path)) as f:
            return json.load(f) == record
    except (OSError, ValueError):
        return False


def write_sidecar(path, record):
    with open(sidecar(path) + '.tmp', 'w') as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write('\n')
    os.replace(sidecar(path) + '.tmp', sidecar(path))


# The acquisitions chart's own run: its bars are counts, which scale with it.
THREADS_RUN_MS = 2


def threads_argv(binary, topo, locks, threads, path):
    return [binary, 'run', '--topo', topo, '--lock', ','.join(locks), '--threads',
            str(threads), '--runs', '1', '--duration', str(THREADS_RUN_MS), '--format', 'csv',
            '--threads-csv', path]


def make_threads_csv(argv, path):
    part = path + '.part'
    if not run_sim(argv[:-1] + [part]):
        if os.path.exists(part):
            os.remove(part)
        return False
    os.replace(part, path)
    return True


def topology_cores(binary, topo):
    """The cores of topo, from ccbench's first line ("... 16 cores, ..."); None
    if it cannot say."""
    p = subprocess.run([binary, 'ccbench', '--topo', topo], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    m = re.search(r': (\d+) cores,', p.stdout)
    return int(m.group(1)) if p.returncode == 0 and m else None


def crossover_argvs(binary, topo, locks):
    """The sweep's thread counts, those the machine has cores for (2socket's
    16 stop at 16)."""
    cores = topology_cores(binary, topo)
    threads = [t for t in SWEEP_THREADS if cores is None or t <= cores]
    return [[binary, 'run', '--topo', topo, '--lock', ','.join(locks), '--threads',
             ','.join(str(t) for t in threads), '--cs', str(cs), '--runs', '1',
             '--duration', SWEEP_DURATION_MS, '--format', 'csv', '--csv', 'crossover-cs%d.csv' % cs]
            for cs in SWEEP_CS]


def make_crossover_csv(argvs, path, tmp):
    parts = []
    for argv in argvs:
        part = os.path.join(tmp, argv[-1])
        if not run_sim(argv[:-1] + [part]):
            return False
        parts.append(part)
    with open(path + '.tmp', 'w') as out:
        for i, part in enumerate(parts):
            with open(part) as f:
                lines = f.readlines()
            out.writelines(lines if i == 0 else lines[1:])
    os.replace(path + '.tmp', path)
    return True


def cached_sweep(path, binary, topo, argvs, make):
    """Make PATH with MAKE unless its sidecar shows the same sweep; True
    when PATH may be charted.  Without a binary PATH is taken as it is."""
    if not binary:
        if not os.path.exists(path):
            print('%s: absent, and no sweep is run without --bin (or with --no-sweeps): '
                  'its chart is not drawn' % path)
            return False
        return True
    record = sweep_record(binary, topo, argvs)
    if sweep_is_current(path, record):
        print('%s: made by the same sweep (%s): reused' % (path, sidecar(path)))
        return True
    if not make():
        sys.stderr.write('plots.py: the sweep for %s failed: not charted\n' % path)
        return False
    write_sidecar(path, record)
    return True


# ------------------------------------------------------------ main

def parse_args(argv):
    ap = argparse.ArgumentParser(description='charts from locklab CSV files (gnuplot)')
    ap.add_argument('--results', default='results',
                    help='directory of the sweeps\' CSV files (sim-*.csv, native-*.csv, '
                    'validate-*.csv), every one charted (default: results)')
    ap.add_argument('--out', default=None, help='directory of the charts (default: --results)')
    ap.add_argument('--bin', default=None,
                    help='directory of locklab-sim, to run the sweeps of the acquisitions and '
                    'crossover charts (without it those two are drawn from earlier sweeps only)')
    ap.add_argument('--topo', default='4socket',
                    help='the machine of the acquisitions and crossover sweeps (the other '
                    'charts follow their CSV files)')
    ap.add_argument('--locks', default='', help='the locks of those two sweeps')
    ap.add_argument('--threads', default='',
                    help='the thread count of the acquisitions chart (of a list, the last; '
                    'default 32)')
    ap.add_argument('--only', default=','.join(CHARTS),
                    help='charts to draw, of %s (default: all)' % ', '.join(CHARTS))
    ap.add_argument('--no-sweeps', action='store_true',
                    help='chart the sweep CSV files as they are, never run a sweep')
    ap.add_argument('--overlay-native', action='store_true',
                    help='overlay every results/native-*.csv on every simulated chart')
    a = ap.parse_args(argv)
    a.only = [c for c in a.only.split(',') if c]
    for c in a.only:
        if c not in CHARTS:
            fail('--only: unknown chart %r (%s)' % (c, ', '.join(CHARTS)))
    if not os.path.isdir(a.results):
        fail('--results %s: not a directory' % a.results)
    a.thread_count = None
    if a.threads:
        try:
            a.thread_count = int(a.threads.split(',')[-1])
        except ValueError:
            fail('--threads %r: not a number' % a.threads)
        if ',' in a.threads and 'acquisitions' in a.only:
            print('--threads %s: the acquisitions chart is drawn at %d threads, the last' %
                  (a.threads, a.thread_count))
    a.lock_list = [l for l in a.locks.split(',') if l]
    return a


RUN_SUFFIX = re.compile(r'-[0-9a-f]{8}(-[0-9]+)?$')


def result_files(results, kind):
    """(NAME, path) of every results/KIND-NAME.csv that is a file of its
    own (a symbolic link to the latest sweep is one of the others)."""
    for p in sorted(glob.glob(os.path.join(results, kind + '-*.csv'))):
        if not os.path.islink(p):
            yield os.path.basename(p)[len(kind) + 1:-len('.csv')], p


def machine_of(name):
    """The topology or host of a result NAME: without the sweep's hash."""
    return RUN_SUFFIX.sub('', name)


def native_files(results):
    """{NAME: rows} of every results/native-NAME.csv (NAME: HOST-HASH),
    oldest first."""
    files = sorted(result_files(results, 'native'), key=lambda f: os.path.getmtime(f[1]))
    out = {name: read_csv(p, RUN_COLUMNS) for name, p in files}
    return {name: rows for name, rows in out.items() if rows is not None}


def natives_for(name, natives, overlay):
    """The native rows that belong on the simulated chart NAME: those of
    the same machine (NAME host-HOST[-HASH]; of the newest native file of
    that host), or all of them on request."""
    if overlay:
        return [r for rows in natives.values() for r in rows]
    if name.startswith('host-'):
        host = machine_of(name)[len('host-'):]
        mine = [n for n in natives if machine_of(n) == host]
        return natives[mine[-1]] if mine else []
    return []


def file_charts(a, outdir, tmp):
    """The charts of sim-*.csv, native-*.csv and validate-*-sim.csv."""
    ok = True
    natives = native_files(a.results)
    sims = list(result_files(a.results, 'sim'))
    if not sims and not natives:
        print('no results/sim-*.csv or native-*.csv: run `scons sim` or `scons native` first')
    for name, p in sims:
        rows = read_csv(p, RUN_COLUMNS)
        if rows is None:
            ok = False
            continue
        ok &= series_charts(name, rows + natives_for(name, natives, a.overlay_native),
                            outdir, tmp, a.only, json_env(p))
        if 'traffic' in a.only:
            ok &= traffic_chart(name, rows, outdir, tmp, json_env(p))
    for host, rows in natives.items():
        ok &= series_charts('native-' + host, rows, outdir, tmp, a.only,
                            json_env(os.path.join(a.results, 'native-%s.csv' % host)))
    for p in sorted(glob.glob(os.path.join(a.results, 'validate-*-sim.csv'))):
        twin = p[:-len('-sim.csv')] + '-native.csv'
        if os.path.exists(twin):
            name = os.path.basename(p)[:-len('-sim.csv')]
            sim, nat = read_csv(p, RUN_COLUMNS), read_csv(twin, RUN_COLUMNS)
            if sim is None or nat is None:
                ok = False
                continue
            ok &= series_charts(name, sim + nat, outdir, tmp, a.only)
    return ok


def sweep_charts(a, outdir, tmp):
    """The charts that need a sweep of their own: acquisitions, crossover."""
    ok = True
    binary = os.path.join(a.bin, 'locklab-sim') if a.bin and not a.no_sweeps else None
    topo = os.path.splitext(os.path.basename(a.topo))[0]
    locks = sweep_locks(binary, a.lock_list) if binary else []
    if 'acquisitions' in a.only:
        path = os.path.join(a.results, 'threads-sim-%s.csv' % topo)
        argv = threads_argv(binary, a.topo, locks, a.thread_count or 32, path) if binary else []
        if cached_sweep(path, binary, a.topo, [argv], lambda: make_threads_csv(argv, path)):
            rows = read_csv(path, ('lock', 'threads', 'tid', 'acquisitions'))
            ok &= rows is not None and acquisitions_chart(topo, rows, outdir, tmp,
                                                          a.thread_count, binary is not None)
        elif binary:
            ok = False
    if 'crossover' in a.only:
        path = os.path.join(a.results, 'crossover-sim-%s.csv' % topo)
        argvs = crossover_argvs(binary, a.topo, locks) if binary else []
        if cached_sweep(path, binary, a.topo, argvs,
                        lambda: make_crossover_csv(argvs, path, tmp)):
            rows = read_csv(path, RUN_COLUMNS + ('cs_ns',))
            ok &= rows is not None and crossover_chart(topo, rows, outdir, tmp)
        elif binary:
            ok = False
    return ok


def main(argv):
    a = parse_args(argv)
    outdir = a.out or a.results
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='locklab-plots-') as tmp:
        ok = file_charts(a, outdir, tmp)
        ok &= sweep_charts(a, outdir, tmp)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
