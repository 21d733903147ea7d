#!/usr/bin/env python3
"""tools/again_sweep.py: a native and a simulated sweep of --ncs side by
side, a row per lock, thread count and ncs_ns that both files have (the mean
throughput over its runs and 1 - the mean handoff_frac); a point in one file
only is counted under the table; a file without the columns, a value that
does not read or lies outside 0..1, no common point and bad arguments are
refused with one line and exit status 2.

usage: unit_again_sweep.py BIN  (unused: the CSVs are written here)
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, 'tools', 'again_sweep.py')
failures = []

HEAD = 'backend,lock,threads,ncs_ns,throughput_per_s,handoff_frac\n'
NATIVE = HEAD + '''native,tas,2,0,6000000,0.002
native,tas,2,0,7000000,0.004
native,tas,2,80,3000000,0.65
native,ttas,2,0,6000000,0.5
'''
SIM = HEAD + '''sim,tas,2,0,6750000,0.0
sim,tas,2,80,3650000,1.0
sim,tas,2,160,5550000,1.0
'''


def check(what, ok):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def run(native, sim, args=None):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, text in (('n.csv', native), ('s.csv', sim)):
            paths.append(os.path.join(d, name))
            with open(paths[-1], 'w') as f:
                f.write(text)
        argv = args if args is not None else ['--native', paths[0], '--sim', paths[1]]
        return subprocess.run([sys.executable, TOOL] + argv, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)


def refused(what, native, sim, needle, args=None):
    p = run(native, sim, args)
    check('%s: exit 2, one line naming %s (got %d: %r)' % (what, needle, p.returncode, p.stderr),
          p.returncode == 2 and p.stderr.count('\n') == 1 and needle in p.stderr and
          not p.stdout)


p = run(NATIVE, SIM)
lines = p.stdout.splitlines()
check('exit 0, nothing on stderr', p.returncode == 0 and not p.stderr)
check('a heading, the two common points in order, the note: %r' % lines,
      len(lines) == 4 and lines[0].split()[:3] == ['lock', 'threads', 'ncs'] and
      lines[1].split() == ['tas', '2', '0', '6.50', '99.7%', '6.75', '100.0%'] and
      lines[2].split() == ['tas', '2', '80', '3.00', '35.0%', '3.65', '0.0%'] and
      lines[3] == '(2 lock, threads and ncs_ns in one file only: left out)')
refused('a file without handoff_frac', NATIVE, 'lock,threads,ncs_ns,throughput_per_s\n'
        'tas,2,0,1\n', 'not a run CSV')
refused('an empty handoff_frac', NATIVE, SIM + 'sim,tas,2,40,1000,\n',
        ':5: threads, ncs_ns, throughput_per_s or handoff_frac does not read')
refused('a short row', NATIVE, SIM + 'sim,tas,2,40\n',
        ':5: threads, ncs_ns, throughput_per_s or handoff_frac does not read')
refused('a share outside 0..1', NATIVE.replace('0.65', '1.5'), SIM, 'handoff_frac 1.5 is outside 0..1')
refused('no common point', NATIVE, HEAD + 'sim,mcs,2,0,1,0\n', 'no lock, threads and ncs_ns')
refused('a missing file', NATIVE, SIM, 'No such file', ['--native', '/nonexistent/x.csv',
                                                        '--sim', '/nonexistent/y.csv'])
refused('no arguments', NATIVE, SIM, 'usage', [])
refused('an unknown option', NATIVE, SIM, 'usage', ['--native', 'a', '--simx', 'b'])

if failures:
    print('%d failed' % len(failures))
    sys.exit(1)
