#!/usr/bin/env python3
"""tools/vm_tables.py: from two small sweeps of the simulator (the four
locks at every overcommit of docs/vm.md, busy co-guests and the guest
alone) it prints both throughput tables and both counter tables, each cell
the mean over the runs of its CSV column; a CSV that lacks a lock or an
overcommit is refused with one line and exit status 2.  With --change
BASE,VARIANT it prints a row per sweep: the variant's change of mean
throughput from the base at each overcommit, with both locks' sigma/mean.

usage: unit_vm_tables.py BIN  (the directory holding locklab-sim)
"""

import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, 'tools', 'vm_tables.py')
failures = []


def check(what, ok):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def sweep(binary, csv_path, guests):
    subprocess.run([binary, 'run', '--topo', '4socket', '--vm', '16', '--overcommit',
                    '0.5,1,1.5,2,3,4', '--lock', 'ticket,pv-ticket,qspinlock,pv-qspinlock',
                    '--ops', '20', '--runs', '2', '--co-guests', guests, '--csv', csv_path],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def tables(busy, none):
    return subprocess.run([sys.executable, TOOL, busy, none], capture_output=True, text=True)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    binary = os.path.join(os.path.abspath(sys.argv[1]), 'locklab-sim')
    with tempfile.TemporaryDirectory(prefix='unit_vm_tables.') as tmp:
        busy, none = os.path.join(tmp, 'busy.csv'), os.path.join(tmp, 'none.csv')
        sweep(binary, busy, 'busy')
        sweep(binary, none, 'none')
        p = tables(busy, none)
        out = p.stdout
        check('exit 0', p.returncode == 0)
        check('two throughput tables',
              '| `--co-guests busy` | 0.5x | 1x | 1.5x | 2x | 3x | 4x |' in out and
              '| `--co-guests none` | 0.5x | 1x | 1.5x | 2x | 3x | 4x |' in out)
        check('two counter tables, four locks at three overcommits each',
              out.count('`--co-guests busy`:') == 1 and out.count('`--co-guests none`:') == 1 and
              sum(1 for line in out.split('\n') if re.match(r'\| pv-ticket \| [124] \| ', line))
              == 2 * 3)
        with open(busy, newline='') as f:
            rows = [r for r in csv.DictReader(f)
                    if r['lock'] == 'ticket' and r['overcommit'] == '2.00']
        want = '%.3f' % (sum(float(r['throughput_per_s']) for r in rows) / len(rows) / 1e6)
        line = [x for x in out.split('\n') if x.startswith('| ticket | 2 | ')][0]
        check('a cell is the mean over the runs (%s)' % want, line.split(' | ')[2] == want)
        p = subprocess.run([sys.executable, TOOL, '--change', 'ticket,pv-ticket', busy, none],
                           capture_output=True, text=True)
        lines = p.stdout.split('\n')
        check('--change: a header and a row per sweep',
              p.returncode == 0 and lines[0] == '| ncs, run | 0.5x | 1x | 1.5x | 2x | 3x | 4x |'
              and sum(1 for x in lines if x.startswith('| 0.2 us, runs of ')) == 2)
        with open(busy, newline='') as f:
            two = [r for r in csv.DictReader(f) if r['overcommit'] == '2.00']
        t = [float(r['throughput_per_s']) for r in two if r['lock'] == 'ticket']
        v = [float(r['throughput_per_s']) for r in two if r['lock'] == 'pv-ticket']
        tm, vm = sum(t) / len(t), sum(v) / len(v)
        sd = (sum((x - tm) ** 2 for x in t) / len(t)) ** 0.5
        vsd = (sum((x - vm) ** 2 for x in v) / len(v)) ** 0.5
        want = '%+.1f%% (%.0f%% / %.0f%%)' % (100 * (vm / tm - 1), 100 * sd / tm, 100 * vsd / vm)
        check('--change: a cell is the change of means and sigma/mean (%s)' % want,
              lines[2].split(' | ')[4] == want)
        part = os.path.join(tmp, 'part.csv')
        subprocess.run([binary, 'run', '--topo', '4socket', '--vm', '16', '--overcommit', '1,2',
                        '--lock', 'ticket,pv-ticket', '--ops', '20', '--runs', '2', '--csv', part],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = subprocess.run([sys.executable, TOOL, '--change', 'ticket,pv-ticket', busy, part],
                           capture_output=True, text=True)
        cells_part = p.stdout.split('\n')[3].split(' | ')
        check('--change: - where a sweep did not run an overcommit',
              p.returncode == 0 and cells_part[1] == '-' and cells_part[3] == '-' and
              cells_part[2] != '-' and cells_part[4] != '-')
        for bad in (['--change', 'ticket', busy], ['--change', 'ticket,pv-ticket'],
                    ['--change', 'ticket,mcs', busy]):
            p = subprocess.run([sys.executable, TOOL] + bad, capture_output=True, text=True)
            check('--change %s refused in one line' % ' '.join(bad[1:2] + ['...']),
                  p.returncode == 2 and p.stderr.count('\n') == 1 and not p.stdout)
        with open(busy) as f:
            kept = [x for x in f if ',qspinlock,' not in x]
        with open(busy, 'w') as f:
            f.writelines(kept)
        p = tables(busy, none)
        check('a lock missing is refused in one line',
              p.returncode == 2 and p.stderr.count('\n') == 1 and 'qspinlock' in p.stderr)
        # a sweep without --vm has no overcommit column: named, one line
        plain = os.path.join(tmp, 'plain.csv')
        with open(plain, 'w') as f:
            f.write('backend,topo,lock,threads,throughput_per_s\nsim,4socket,ticket,4,1.0\n')
        p = tables(plain, plain)
        check('a CSV without --vm is named as such in one line',
              p.returncode == 2 and p.stderr.count('\n') == 1 and 'not a --vm sweep' in p.stderr)
    print('%d failed' % len(failures) if failures else 'all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
