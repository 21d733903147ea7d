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
                    A --vm sweep whose series of a lock share one thread
                    count is drawn against its overcommit (vCPUs per
                    pCPU), as are its jain and waits charts.
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

A lock has one colour in every chart (LOCK_COLOURS, in plots_colours.py).
The two sweeps need --bin (the directory of locklab-sim); each is recorded
in a sidecar file next to its CSV (CSV.sweep.json: the commands, the
binary's size and mtime, the topology file's) and made again when that
record differs from what would be run now.  --no-sweeps uses the CSV files
as they are.
Exit status 0, 1 when gnuplot or a sweep failed, 2 on bad arguments.

This file holds the command line and chooses the charts of each result
file; beside it, plots_data.py reads the CSV files, plots_charts.py draws
the charts, plots_colours.py holds the colours and markers and
plots_sweeps.py runs the sweeps.
"""

import glob
import os
import re
import sys
import tempfile

# the modules beside this file, read and not cached: nothing is written
# into the source tree (tests/plots_check.sh imports this file so too)
sys.dont_write_bytecode = True
sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'tools'))
from args_oneline import OneLineParser, one_line, run_main  # noqa: E402
from plots_charts import (acquisitions_chart, crossover_chart, series_charts,  # noqa: E402
                          traffic_chart)
from plots_data import RUN_COLUMNS, RUN_SUFFIX, json_env, read_csv  # noqa: E402
from plots_sweeps import (cached_sweep, catalogue, crossover_argvs, make_crossover_csv,  # noqa: E402
                          make_threads_csv, sweep_locks, threads_argv, topology_cpus)
# more names of those modules, as tests/plots_check.sh reads them
from plots_charts import thread_rows  # noqa: E402,F401
from plots_colours import (LOCK_COLOURS, LOCK_MARKERS, NEAR_COLOURS,  # noqa: E402,F401
                           colour_distance)

CHARTS = ['throughput', 'jain', 'waits', 'traffic', 'acquisitions', 'crossover']
MAX_THREADS = 8192  # locklab-sim run --threads: 1..8192


def fail(msg, status=2):
    sys.stderr.write('plots.py: %s\n' % one_line(msg))
    sys.exit(status)


def names_of(text, opt):
    """The comma-separated names of an option: none empty, each once."""
    names = text.split(',')
    if '' in names:
        fail('%s %r: an empty name (NAME,NAME...)' % (opt, text))
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        fail('%s %s: %s given twice' % (opt, text, twice[0]))
    return names


# ------------------------------------------------------------ main

def parse_args(argv):
    # (OneLineParser: one line for bad input, no abbreviation, an option
    # given twice refused)
    ap = OneLineParser(prog='plots.py', description='charts from locklab CSV files (gnuplot)')
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
    ap.add_argument('--locks', default=None, help='the locks of those two sweeps')
    ap.add_argument('--threads', default=None,
                    help='the thread count of the acquisitions chart (of a list, the last; '
                    'default 32)')
    ap.add_argument('--only', default=','.join(CHARTS),
                    help='charts to draw, of %s (default: all)' % ', '.join(CHARTS))
    ap.add_argument('--no-sweeps', action='store_true',
                    help='chart the sweep CSV files as they are, never run a sweep')
    ap.add_argument('--overlay-native', action='store_true',
                    help='overlay every results/native-*.csv on every simulated chart')
    a = ap.parse_args(argv)
    for opt in ('results', 'out', 'bin', 'topo'):
        if getattr(a, opt) == '':  # given, but empty: never a default in its place
            fail('--%s: an empty value' % opt)
    a.only = names_of(a.only, '--only')
    for c in a.only:
        if c not in CHARTS:
            fail('--only: unknown chart %r (%s)' % (c, ', '.join(CHARTS)))
    if not os.path.isdir(a.results):
        fail('--results %s: not a directory' % a.results)
    a.thread_count = None
    if a.threads is not None:
        counts = a.threads.split(',')
        for c in counts:
            if not re.fullmatch(r'[0-9]+', c) or not 1 <= int(c) <= MAX_THREADS:
                fail('--threads %r: want whole numbers (digits only) from 1 to %d, comma-separated'
                     % (a.threads, MAX_THREADS))
        a.thread_count = int(counts[-1])
        if ',' in a.threads and 'acquisitions' in a.only:
            print('--threads %s: the acquisitions chart is drawn at %d threads, the last' %
                  (a.threads, a.thread_count))
    a.lock_list = names_of(a.locks, '--locks') if a.locks is not None else []
    return a


def check_locks(binary, locks):
    """Each of --locks a mutex of the binary's catalogue (`locklab-sim list`)."""
    known = catalogue(binary)
    if not known:
        fail('--bin: %s list names no lock (the binary does not run?)' % binary)
    for l in locks:
        if l not in known:
            fail('--locks: unknown lock %r (`%s list` names them)' % (l, binary))
        if known[l] != 'mutex':
            fail('--locks: %s is a%s %s, and the acquisitions and crossover sweeps take mutexes '
                 'only' % (l, 'n' if known[l][:1] in 'aeiou' else '', known[l]))


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
        # --threads, or 32 threads where the machine has as many, else all it has
        cpus = topology_cpus(binary, a.topo) if binary and not a.thread_count else None
        count = a.thread_count or min(32, cpus or 32)
        argv = threads_argv(binary, a.topo, locks, count, path) if binary else []
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
    if a.bin and not a.no_sweeps and not os.access(os.path.join(a.bin, 'locklab-sim'), os.X_OK):
        sys.stderr.write('plots.py: --bin %s: no locklab-sim there (the directory of the built '
                         'binaries, bin)\n' % a.bin)
        return 2
    if a.bin and not a.no_sweeps and a.lock_list:
        check_locks(os.path.join(a.bin, 'locklab-sim'), a.lock_list)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        sys.stderr.write('plots.py: --out %s: not a directory it can write charts in (%s)\n'
                         % (outdir, e.strerror or e))
        return 2
    with tempfile.TemporaryDirectory(prefix='locklab-plots-') as tmp:
        ok = file_charts(a, outdir, tmp)
        ok &= sweep_charts(a, outdir, tmp)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(run_main('plots.py', main, sys.argv[1:]))
