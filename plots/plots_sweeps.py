#!/usr/bin/env python3
"""plots/plots_sweeps.py - the small simulated sweeps of the acquisitions
and crossover charts: their commands, their CSV files made (a part file,
then renamed), and the sidecar CSV.sweep.json that records each sweep so
that it is made again only when the command, the binary or the topology
file differ.  plots/plots.py draws the charts.
"""

import json
import os
import re
import subprocess
import sys

SWEEP_LOCKS = ['ttas', 'ttas-backoff', 'ticket', 'mcs', 'clh', 'qspinlock']
SWEEP_THREADS = [2, 4, 8, 16, 32]
SWEEP_CS = [0, 100, 400, 1600]
SWEEP_DURATION_MS = '1'


def catalogue(binary):
    """{lock: kind (mutex, rwlock, ...)} of `locklab-sim list`; empty when
    it cannot be run."""
    try:
        p = subprocess.run([binary, 'list'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
    except OSError:
        return {}
    return {l.split()[0]: l.split()[1] for l in p.stdout.splitlines() if len(l.split()) > 1}


def known_locks(binary):
    return [name for name, kind in catalogue(binary).items() if kind == 'mutex']


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


def topology_cpus(binary, topo):
    """The threads topo can run, one a core or a hardware thread, from
    ccbench's first line ("... 16 cores, ..." or "... 48 hardware threads
    (24 cores x 2), ..."); None if it cannot say."""
    p = subprocess.run([binary, 'ccbench', '--topo', topo], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    m = re.search(r': (\d+) (?:cores|hardware threads)\b', p.stdout)
    return int(m.group(1)) if p.returncode == 0 and m else None


def counts_that_fit(counts, cpus):
    """The thread counts a machine of cpus can run (all, if cpus is None)."""
    return [t for t in counts if cpus is None or t <= cpus]


def crossover_argvs(binary, topo, locks):
    """The sweep's thread counts, those the machine has cores for (2socket's
    16 stop at 16)."""
    threads = counts_that_fit(SWEEP_THREADS, topology_cpus(binary, topo))
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
