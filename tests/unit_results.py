#!/usr/bin/env python3
"""tools/results.py, as `scons sim` uses it: two sweeps with different
locks keep both results, the same sweep again is kept beside the first,
results/index.csv has a line per run, results/sim-TOPO.csv links to the
latest complete sweep, a file of the former naming is kept, and an
interrupted sweep keeps its rows without moving the link; an index of runs
that cannot take a line (a FIFO, a directory, a link to nothing) and a
leftover .csv.partial that is not text are refused before the sweep.  SCons refuses
an unknown variable, and an empty TOPO, with one line on stderr naming it and
exit status 2.

usage: unit_results.py BIN  (the directory holding locklab-sim)
"""

import contextlib
import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import results  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: %s' % what)


def index(res):
    with open(os.path.join(res, 'index.csv'), newline='') as f:
        return list(csv.DictReader(f))


def sweep(binary, lock):
    return [binary, 'run', '--topo', '2socket', '--lock', lock, '--threads', '2', '--runs', '1',
            '--duration', '1']


def two_locks_keep_both(binary, res):
    check(results.run_sweep(res, 'sim', '2socket', sweep(binary, 'tas')) == 0, 'tas sweep ran')
    check(results.run_sweep(res, 'sim', '2socket', sweep(binary, 'mcs')) == 0, 'mcs sweep ran')
    check(results.run_sweep(res, 'sim', '2socket', sweep(binary, 'tas')) == 0, 'tas again ran')
    files = sorted(f for f in os.listdir(res) if f.endswith('.csv') and f != 'index.csv'
                   and not os.path.islink(os.path.join(res, f)))
    check(len(files) == 3, 'three result files, not %s' % files)
    locks = sorted(open(os.path.join(res, f)).read().splitlines()[1].split(',')[2] for f in files)
    check(locks == ['mcs', 'tas', 'tas'], 'both locks kept: %s' % locks)
    rows = index(res)
    check([r['status'] for r in rows] == ['ok'] * 3, 'three ok lines in the index: %s' % rows)
    check(all(r['rows'] == '1' and r['files'].endswith('.json') for r in rows), 'index rows/files')
    link = os.path.join(res, 'sim-2socket.csv')
    check(os.path.islink(link) and os.path.realpath(link) ==
          os.path.realpath(os.path.join(res, rows[-1]['files'].split()[0])), 'latest link')


def former_file_is_kept(binary, res):
    old = os.path.join(res, 'sim-2socket.csv')
    os.unlink(old)  # the link, as if the file were of the former naming
    with open(old, 'w') as f:
        f.write('backend,topo,lock\nsim,2socket,old\n')
    check(results.run_sweep(res, 'sim', '2socket', sweep(binary, 'ttas')) == 0, 'ttas sweep ran')
    kept = [f for f in os.listdir(res) if f.startswith('sim-2socket-old-')]
    check(len(kept) == 1 and 'old' in open(os.path.join(res, kept[0])).read(),
          'the former file kept: %s' % kept)


def interrupted_keeps_rows(binary, res):
    before = os.path.realpath(os.path.join(res, 'sim-2socket.csv'))
    argv = [binary, 'run', '--topo', '4socket', '--lock', 'tas,ttas,mcs', '--threads', '16,32',
            '--runs', '4']
    stem = results.free_stem(res, 'sim-4socket', argv[2:])
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, 'tools', 'results.py'), res, 'sim',
                          '4socket', '--'] + argv, stdout=subprocess.DEVNULL)
    for _ in range(6000):
        if os.path.exists(stem + '.csv.partial') and \
           len(open(stem + '.csv.partial').read().splitlines()) >= 2:
            break
        time.sleep(0.01)
    # the sweep, not the recording script, gets the signal
    subprocess.call(['pkill', '-INT', '-P', str(p.pid)])
    check(p.wait() == 130, 'interrupted: exit status 130')
    last = index(res)[-1]
    check(last['status'] == 'interrupted' and int(last['rows']) >= 1,
          'index line of the interrupted sweep: %s' % last)
    check(os.path.realpath(os.path.join(res, 'sim-2socket.csv')) == before, 'link unmoved')
    check(not os.path.exists(os.path.join(res, 'sim-4socket.csv')), 'no link to a partial sweep')


def signal_to_the_recorder(binary, res):
    """SIGINT to results.py itself (as `timeout -s INT` sends it) reaches
    the sweep once: the sweep stops with its rows kept and recorded, and
    the recorder prints no traceback."""
    argv = [binary, 'run', '--topo', '4socket', '--lock', 'tas,ttas', '--threads', '16,32',
            '--runs', '4']
    stem = results.free_stem(res, 'sim-4socket', argv[2:])
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, 'tools', 'results.py'), res, 'sim',
                          '4socket', '--'] + argv, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, universal_newlines=True)
    for _ in range(6000):
        if os.path.exists(stem + '.csv.partial') and \
           len(open(stem + '.csv.partial').read().splitlines()) >= 2:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    err = p.communicate()[1]
    check(p.returncode == 130, 'recorder interrupted: exit status %d' % p.returncode)
    check('Traceback' not in err and 'interrupted:' in err, 'recorder stderr: %r' % err)
    last = index(res)[-1]
    check(last['status'] == 'interrupted' and int(last['rows']) >= 1 and
          os.path.exists(stem + '.csv') and not os.path.exists(stem + '.csv.partial'),
          'recorder interrupted: %s' % last)


def killed_rows_are_found(binary, res):
    """A sweep killed before it recorded anything (SIGKILL) leaves a
    .csv.partial no index line names: the next sweep of the same options
    says so, records it as killed, and writes beside it, not over it."""
    argv = sweep(binary, 'clh')
    stem = results.free_stem(res, 'sim-2socket', argv[2:])
    with open(stem + '.csv.partial', 'w') as f:
        f.write('backend,topo,lock\nsim,2socket,clh\n')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = results.run_sweep(res, 'sim', '2socket', argv)
    check(rc == 0, 'the sweep after a killed one ran')
    check('%s.csv.partial: 1 row of an earlier sweep of these options, killed' % stem
          in out.getvalue(), 'the killed rows said: %r' % out.getvalue())
    rows = index(res)
    check(rows[-2]['status'] == 'killed' and rows[-2]['files'] == stem + '.csv.partial'
          and rows[-1]['status'] == 'ok' and stem + '.csv.partial' not in rows[-1]['files'],
          'index lines of the killed sweep and the next: %s' % rows[-2:])
    check(os.path.exists(stem + '.csv.partial'), 'the killed rows kept')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results.run_sweep(res, 'sim', '2socket', argv)
    check('killed' not in out.getvalue(), 'said once: %r' % out.getvalue())


def command_is_found(res):
    """command_of: the command index.csv recorded for a sweep's CSV, by
    its path as written or absolute, from here or elsewhere."""
    rows = index(res)
    ok = [r for r in rows if r['status'] == 'ok' and r['files']]
    csv_path = ok[-1]['files'].split()[0]
    check(results.command_of(res, csv_path) == ok[-1]['command'], 'command_of: as written')
    check(results.command_of(res, os.path.abspath(csv_path)) == ok[-1]['command'],
          'command_of: absolute')
    check(results.command_of(res, os.path.join(res, 'nothing.csv')) is None, 'command_of: none')
    here = os.getcwd()
    os.chdir(tempfile.gettempdir())
    try:
        check(results.command_of(os.path.join(here, res) if not os.path.isabs(res) else res,
                                 os.path.abspath(os.path.join(here, csv_path))) ==
              ok[-1]['command'], 'command_of: from another directory')
    finally:
        os.chdir(here)


def bad_arguments_one_line():
    """A missing binary, a results path that is a file, a name that is a
    path or holds a newline, a kind other than sim or native (it names the
    files too): one line each, exit 2, no traceback."""
    tool = [sys.executable, os.path.join(ROOT, 'tools', 'results.py')]
    for args, want in ((['res', 'sim', 'x', '--', '/nonexistent/locklab-sim', 'run'], 'cannot run'),
                       (['/dev/null', 'sim', 'x', '--', 'true', 'run'], 'not a directory'),
                       (['res', 'sim', '../x', '--', 'true', 'run'], 'not a path'),
                       (['res', 'sim', 'a\nb', '--', 'true', 'run'], 'not a path'),
                       (['res', '../out/x', 'x', '--', 'true', 'run'], 'sim or native'),
                       (['res', '', 'x', '--', 'true', 'run'], 'sim or native')):
        p = subprocess.run(tool + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, cwd=tempfile.gettempdir())
        lines = p.stderr.splitlines()
        check(p.returncode == 2 and len(lines) == 1 and want in lines[0],
              'results.py %s: %d %r' % (' '.join(args), p.returncode, p.stderr))


def unusable_index_or_partial(binary):
    """results/index.csv a FIFO (the append would hang), a directory or a
    link to nothing, and a leftover .csv.partial of these options that is
    not UTF-8 text: refused before the sweep runs, one line naming the
    file, exit 2, no sweep file written."""
    tool = [sys.executable, os.path.join(ROOT, 'tools', 'results.py')]
    argv = sweep(binary, 'tas')
    for kind in ('fifo', 'dir', 'dangling', 'partial'):
        with tempfile.TemporaryDirectory(prefix='locklab-results-') as res:
            index_path = os.path.join(res, 'index.csv')
            named = index_path
            if kind == 'fifo':
                os.mkfifo(index_path)
            elif kind == 'dir':
                os.mkdir(index_path)
            elif kind == 'dangling':
                os.symlink('nowhere', index_path)
            else:
                named = results.free_stem(res, 'sim-2socket', argv[2:]) + '.csv.partial'
                with open(named, 'wb') as f:
                    f.write(b'backend,topo\n\xff\xfe\x00\n')
            try:
                p = subprocess.run(tool + [res, 'sim', '2socket', '--'] + argv,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   universal_newlines=True, timeout=30)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = 'timeout', '', ''
            lines = err.splitlines()
            written = [f for f in os.listdir(res) if f.endswith(('.csv', '.json'))
                       and f != 'index.csv']
            check(rc == 2 and len(lines) == 1 and named in lines[0] and not out and not written,
                  'index %s: exit %s, stdout %r, stderr %r, written %r'
                  % (kind, rc, out, err, written))


def scons_refuses_unknown_variables():
    if not shutil.which('scons'):
        print('scons not on PATH: the SCons check skipped')
        return
    p = subprocess.run(['scons', '-Q', '-C', ROOT, 'sim', 'THREAD=8'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    lines = [l for l in p.stderr.splitlines() if l.startswith('locklab:')]
    check(p.returncode == 2 and len(lines) == 1 and 'THREAD ' in lines[0] and 'THREADS' in lines[0]
          and 'locklab:' not in p.stdout,
          'scons sim THREAD=8: %d, %r, %r' % (p.returncode, p.stdout, p.stderr))
    p = subprocess.run(['scons', '-Q', '-C', ROOT, 'sim', 'TOPO='], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    lines = [l for l in p.stderr.splitlines() if l.startswith('locklab:')]
    check(p.returncode == 2 and len(lines) == 1 and "TOPO=''" in lines[0],
          'scons sim TOPO=: %d, %r' % (p.returncode, p.stderr))


def sim_threads_fit_the_machine(binary):
    """`scons sim` without THREADS= runs the counts of 1..32 the machine has
    cpus for (cores, or hardware threads with SMT), as plots' own sweeps do:
    2socket's 16 cores stop at 16, where --threads 32 was refused."""
    sys.path.insert(0, os.path.join(ROOT, 'plots'))
    from plots_sweeps import counts_that_fit, topology_cpus
    cpus = {t: topology_cpus(binary, t) for t in ('1socket', '2socket', 'e5-4610-ht')}
    check(cpus == {'1socket': 8, '2socket': 16, 'e5-4610-ht': 48}, 'topology cpus: %r' % cpus)
    check(topology_cpus(binary, 'nosuchmachine') is None, 'an unknown topology has no cpus')
    fit = counts_that_fit([1, 2, 4, 8, 16, 32], cpus['2socket'])
    check(fit == [1, 2, 4, 8, 16], '2socket runs %r' % fit)


def own_file_named_like_a_machine():
    """TOPO=path/2socket.xml of one's own writes sim-2socket-file-*, not over
    the shipped 2socket's link; a shipped machine by name or path, or a file
    named like none, keeps its name."""
    shipped = os.path.join(ROOT, 'topologies')
    with tempfile.TemporaryDirectory() as tmp:
        own = os.path.join(tmp, '2socket.xml')
        other = os.path.join(tmp, 'mybox.xml')
        for path in (own, other):
            shutil.copy(os.path.join(shipped, '2socket.xml'), path)
        got = [results.machine_name(t, shipped) for t in
               (own, other, '2socket', os.path.join(shipped, '2socket.xml'))]
    check(got == ['2socket-file', 'mybox', '2socket', '2socket'], 'machine names: %r' % got)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    binary = os.path.join(os.path.abspath(argv[1]), 'locklab-sim')
    with tempfile.TemporaryDirectory(prefix='locklab-results-') as tmp:
        res = os.path.join(tmp, 'results')
        two_locks_keep_both(binary, res)
        former_file_is_kept(binary, res)
        interrupted_keeps_rows(binary, res)
        signal_to_the_recorder(binary, res)
        killed_rows_are_found(binary, res)
        command_is_found(res)
    bad_arguments_one_line()
    unusable_index_or_partial(binary)
    scons_refuses_unknown_variables()
    sim_threads_fit_the_machine(binary)
    own_file_named_like_a_machine()
    print('unit_results: %s' % ('FAILED: ' + '; '.join(failures) if failures else 'all passed'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
