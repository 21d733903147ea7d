#!/usr/bin/env python3
"""tools/vm_tables.py: from two small sweeps of the simulator (the four
locks at every overcommit of docs/vm.md, busy co-guests and the guest
alone) it prints both throughput tables and both counter tables, each cell
the mean over the runs of its CSV column; a CSV that lacks a lock or an
overcommit is refused with one line and exit status 2.

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
        with open(busy) as f:
            kept = [x for x in f if ',qspinlock,' not in x]
        with open(busy, 'w') as f:
            f.writelines(kept)
        p = tables(busy, none)
        check('a lock missing is refused in one line',
              p.returncode != 0 and p.stderr.count('\n') == 1 and 'qspinlock' in p.stderr)
    print('%d failed' % len(failures) if failures else 'all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
