#!/usr/bin/env python3
"""plots/plots.py - locklab's charts: reads the CSV files under results/,
averages the repetitions, writes small data tables and draws them with the
gnuplot scripts next to this file (PNG and SVG of each).

`scons plots` runs it; by hand:

    python3 plots/plots.py [--results DIR] [--out DIR] [--bin DIR]
                           [--topo NAME] [--locks a,b] [--threads N]
                           [--only throughput,jain,...] [--no-sweeps]

Charts (NAME is the topology of each results/sim-NAME.csv):

  throughput-NAME   throughput against threads per lock; the rows of every
                    results/native-*.csv are overlaid, dashed (and each
                    validate-HOST-sim.csv gets a chart with its -native.csv)
  jain-NAME         Jain's fairness index against threads
  waits-NAME        wait median, 99th percentile and maximum against threads
  traffic-NAME      cache-line transfers per acquisition by distance class,
                    at the largest thread count of the file
  acquisitions-T    acquisitions of each thread (results/threads-sim-T.csv,
                    made with `locklab-sim run --threads-csv` when missing)
  crossover-T       the best lock for each cell of threads x critical-section
                    length (results/crossover-sim-T.csv, a small simulated
                    sweep made when missing)

The two sweeps need --bin (the directory of locklab-sim); --no-sweeps skips
them.  Exit status 0, 1 when gnuplot or a sweep failed, 2 on bad arguments.
"""

import argparse
import csv
import glob
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SWEEP_LOCKS = ['ttas', 'ttas-backoff', 'ticket', 'mcs', 'clh', 'qspinlock']
SWEEP_THREADS = [2, 4, 8, 16, 32]
SWEEP_CS = [0, 100, 400, 1600]
SWEEP_DURATION_MS = '1'
CHARTS = ['throughput', 'jain', 'waits', 'traffic', 'acquisitions', 'crossover']


def fail(msg, status=2):
    sys.stderr.write('plots.py: %s\n' % msg)
    sys.exit(status)


def read_csv(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def num(row, key):
    v = row.get(key, '')
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def mean(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


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


def gnuplot(script, out, **vars):
    """Run plots/SCRIPT with the variables; True when both files exist."""
    out = os.path.abspath(out)
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
    """The workload columns that tell two series of one lock apart."""
    return (row.get('cs_ns', ''), row.get('ncs_ns', ''), row.get('cs_lines', ''),
            row.get('locks', ''), row.get('read_pct', ''))


def series_of(rows):
    """{(backend, lock, workload): {threads: [rows]}} in first-seen order."""
    out = {}
    for r in rows:
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
    titles = []
    for backend, lock, wl in keys:
        t = '%s:%s' % (backend, lock)
        if len(workloads) > 1:
            t += ':cs=%s,ncs=%s' % (wl[0], wl[1])
        titles.append(t)
    return titles


def write_series(path, groups):
    with open(path, 'w') as f:
        f.write('# threads throughput_mean throughput_sd jain wait_p50 wait_p99 wait_max\n')
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
                                  fmt(max([num(r, 'wait_max_ns') for r in rs]))]) + '\n')


def colour_indexes(keys):
    locks = []
    for k in keys:
        if k[1] not in locks:
            locks.append(k[1])
    return [locks.index(k[1]) + 1 for k in keys]


def series_charts(name, rows, outdir, tmp, only):
    groups = series_of(rows)
    if not groups:
        return True
    keys = list(groups)
    data = os.path.join(tmp, 'series-%s.dat' % name)
    write_series(data, groups)
    backends = sorted({k[0] for k in keys})
    common = dict(data=data, titles=' '.join(series_titles(keys)),
                  kinds=' '.join(k[0] for k in keys),
                  colours=' '.join(str(c) for c in colour_indexes(keys)))
    what = '%s (%s)' % (name, ', '.join(backends))
    ok = True
    if 'throughput' in only:
        ok &= gnuplot('throughput.gp', os.path.join(outdir, 'throughput-' + name),
                      heading='throughput against threads: %s' % what, **common)
    if 'jain' in only:
        ok &= gnuplot('jain.gp', os.path.join(outdir, 'jain-' + name),
                      heading="fairness (Jain's index) against threads: %s" % what, **common)
    if 'waits' in only:
        ok &= gnuplot('waits.gp', os.path.join(outdir, 'waits-' + name),
                      heading='wait times against threads: %s' % what, **common)
    return ok


def traffic_chart(name, rows, outdir, tmp):
    rows = [r for r in rows if r.get('backend') == 'sim']
    cols = ['transfers_class%d_per_acq' % k for k in range(4)]
    if not rows or cols[0] not in rows[0]:
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
        for l, v in per.items():
            f.write('%s %s\n' % (l, ' '.join(fmt(0.0 if math.isnan(x) else x) for x in v)))
    names = ['same-socket'] + ['class-%d' % k for k in range(1, 4)]
    return gnuplot('traffic.gp', os.path.join(outdir, 'traffic-' + name), data=data,
                   classes=classes, names=' '.join(names),
                   heading='cache-line transfers per acquisition by distance: %s, %d threads'
                   % (name, tmax))


# ------------------------------------------------------------ per thread

def acquisitions_chart(name, rows, outdir, tmp, threads=None):
    if not rows:
        return True
    tcounts = sorted({int(r['threads']) for r in rows})
    t = threads if threads in tcounts else tcounts[-1]
    by_lock = {}
    for r in rows:
        if int(r['threads']) == t:
            by_lock.setdefault(r['lock'], {}).setdefault(int(r['tid']), []).append(r)
    data = os.path.join(tmp, 'acq-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# tid acquisitions socket\n')
        for i, (lock, by_tid) in enumerate(by_lock.items()):
            if i:
                f.write('\n\n')
            for tid in sorted(by_tid):
                rs = by_tid[tid]
                f.write('%d %s %s\n' % (tid, fmt(mean([num(r, 'acquisitions') for r in rs])),
                                        rs[0].get('node', '0')))
    backend = rows[0].get('backend', 'sim')
    return gnuplot('acquisitions.gp', os.path.join(outdir, 'acquisitions-' + name), data=data,
                   titles=' '.join(by_lock),
                   heading='acquisitions per thread (colour: socket): %s %s, %d threads'
                   % (backend, name, t))


# ------------------------------------------------------------ crossover

def crossover_chart(name, rows, outdir, tmp):
    rows = [r for r in rows if r.get('backend') == 'sim']
    if not rows:
        return True
    cell = {}
    for r in rows:
        key = (int(r['threads']), int(r['cs_ns']))
        cell.setdefault(key, {}).setdefault(r['lock'], []).append(num(r, 'throughput_per_s'))
    xs = sorted({k[0] for k in cell})
    ys = sorted({k[1] for k in cell})
    locks = []
    for r in rows:
        if r['lock'] not in locks:
            locks.append(r['lock'])
    data = os.path.join(tmp, 'crossover-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# x y lock_index lock lead\n')
        for (t, cs), by_lock in sorted(cell.items()):
            ranked = sorted(((mean(v), l) for l, v in by_lock.items()), reverse=True)
            best, lock = ranked[0]
            lead = ''
            if len(ranked) > 1 and ranked[1][0] > 0:
                pct = 100.0 * (best / ranked[1][0] - 1)
                lead = '+%.0f%%' % pct if pct >= 1 else 'tie(%s)' % ranked[1][1]
            f.write('%d %d %d %s %s\n' % (xs.index(t), ys.index(cs), locks.index(lock) + 1, lock,
                                          lead or '-'))
    xt = '(%s)' % ', '.join('"%d" %d' % (t, i) for i, t in enumerate(xs))
    yt = '(%s)' % ', '.join('"%d" %d' % (c, i) for i, c in enumerate(ys))
    return gnuplot('crossover.gp', os.path.join(outdir, 'crossover-' + name), data=data,
                   xt=xt, yt=yt, locks=' '.join(locks),
                   heading='best lock by threads and critical section: sim %s '
                   '(lead over the second best)' % name)


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


def make_threads_csv(binary, topo, locks, threads, path):
    return run_sim([binary, 'run', '--topo', topo, '--lock', ','.join(locks), '--threads',
                    str(threads), '--runs', '1', '--format', 'csv', '--threads-csv', path])


def make_crossover_csv(binary, topo, locks, path, tmp):
    parts = []
    for cs in SWEEP_CS:
        part = os.path.join(tmp, 'crossover-cs%d.csv' % cs)
        if not run_sim([binary, 'run', '--topo', topo, '--lock', ','.join(locks), '--threads',
                        ','.join(str(t) for t in SWEEP_THREADS), '--cs', str(cs), '--runs',
                        '1', '--duration', SWEEP_DURATION_MS, '--format', 'csv', '--csv', part]):
            return False
        parts.append(part)
    with open(path + '.tmp', 'w') as out:
        for i, part in enumerate(parts):
            with open(part) as f:
                lines = f.readlines()
            out.writelines(lines if i == 0 else lines[1:])
    os.replace(path + '.tmp', path)
    return True


# ------------------------------------------------------------ main

def main(argv):
    ap = argparse.ArgumentParser(description='charts from locklab CSV files (gnuplot)')
    ap.add_argument('--results', default='results')
    ap.add_argument('--out', default=None)
    ap.add_argument('--bin', default=None, help='directory of locklab-sim (for the sweeps)')
    ap.add_argument('--topo', default='4socket')
    ap.add_argument('--locks', default='')
    ap.add_argument('--threads', default='')
    ap.add_argument('--only', default=','.join(CHARTS))
    ap.add_argument('--no-sweeps', action='store_true')
    a = ap.parse_args(argv)
    outdir = a.out or a.results
    only = [c for c in a.only.split(',') if c]
    for c in only:
        if c not in CHARTS:
            fail('--only: unknown chart %r (%s)' % (c, ', '.join(CHARTS)))
    if not os.path.isdir(a.results):
        fail('--results %s: not a directory' % a.results)
    threads = None
    if a.threads:
        try:
            threads = int(a.threads.split(',')[-1])
        except ValueError:
            fail('--threads %r: not a number' % a.threads)
    os.makedirs(outdir, exist_ok=True)
    locks = [l for l in a.locks.split(',') if l]
    ok = True
    natives = []
    for p in sorted(glob.glob(os.path.join(a.results, 'native-*.csv'))):
        natives += read_csv(p)
    with tempfile.TemporaryDirectory(prefix='locklab-plots-') as tmp:
        sims = sorted(glob.glob(os.path.join(a.results, 'sim-*.csv')))
        if not sims and not natives:
            print('no results/sim-*.csv or native-*.csv: run `scons sim` or `scons native` first')
        for p in sims:
            name = os.path.basename(p)[len('sim-'):-len('.csv')]
            rows = read_csv(p)
            ok &= series_charts(name, rows + natives, outdir, tmp, only)
            if 'traffic' in only:
                ok &= traffic_chart(name, rows, outdir, tmp)
        if not sims and natives:
            ok &= series_charts('native', natives, outdir, tmp, only)
        for p in sorted(glob.glob(os.path.join(a.results, 'validate-*-sim.csv'))):
            twin = p[:-len('-sim.csv')] + '-native.csv'
            if os.path.exists(twin):
                name = os.path.basename(p)[:-len('-sim.csv')]
                ok &= series_charts(name, read_csv(p) + read_csv(twin), outdir, tmp, only)
        binary = os.path.join(a.bin, 'locklab-sim') if a.bin else None
        topo = os.path.splitext(os.path.basename(a.topo))[0]
        if 'acquisitions' in only:
            path = os.path.join(a.results, 'threads-sim-%s.csv' % topo)
            if not os.path.exists(path) and binary and not a.no_sweeps:
                ok &= make_threads_csv(binary, a.topo, sweep_locks(binary, locks), threads or 32,
                                       path)
            if os.path.exists(path):
                ok &= acquisitions_chart(topo, read_csv(path), outdir, tmp, threads)
        if 'crossover' in only:
            path = os.path.join(a.results, 'crossover-sim-%s.csv' % topo)
            if not os.path.exists(path) and binary and not a.no_sweeps:
                ok &= make_crossover_csv(binary, a.topo, sweep_locks(binary, locks), path, tmp)
            if os.path.exists(path):
                ok &= crossover_chart(topo, read_csv(path), outdir, tmp)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
