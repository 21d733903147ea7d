#!/usr/bin/env python3
"""tools/ranges.py: the least and greatest value of each column over a lock's
runs, a row per lock in the order of its first row, scaled and formatted as
asked; a lock of two thread counts, a missing or empty column and a bad
column spec are refused with one line and exit status 2.

usage: unit_ranges.py BIN  (unused: the CSV is written here)
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, 'tools', 'ranges.py')
failures = []

CSV = '''lock,threads,jain,throughput_per_s,wait_p99_ns
mcs,8,1.0000,2520000.00,900
tas,8,0.8700,380000.00,
mcs,8,1.0000,2670000.00,950
tas,8,0.9300,390000.00,
'''


def check(what, ok):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def ranges(args, text=CSV):
    return subprocess.run([sys.executable, TOOL] + args, input=text, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def refused(what, args, needle, text=CSV):
    p = ranges(args, text)
    check('%s: exit 2, one line naming %s (got %d: %r)' % (what, needle, p.returncode, p.stderr),
          p.returncode == 2 and p.stderr.count('\n') == 1 and needle in p.stderr and
          not p.stdout)


p = ranges(['--label', 'fifo', 'jain', 'throughput_per_s/1e6:.2f'])
lines = p.stdout.splitlines()
check('exit 0', p.returncode == 0)
check('a heading and a row per lock, mcs first: %r' % lines,
      len(lines) == 3 and lines[0].split() == ['setting', 'lock', 'jain', 'throughput_per_s/1e6'] and
      lines[1].split() == ['fifo', 'mcs', '1.00', '2.52-2.67'] and
      lines[2].split() == ['fifo', 'tas', '0.87-0.93', '0.38-0.39'])
refused('an empty column', ['wait_p99_ns'], 'wait_p99_ns of tas is empty or no number')
refused('a column the CSV lacks', ['nosuch'], 'no column nosuch')
refused('a bad spec', ['jain/0'], 'jain/0')
refused('a bad format', ['jain:q'], 'jain:q')
refused('two thread counts', ['jain'], 'mcs has rows of threads 16, 8: give one',
        CSV + 'mcs,16,1.0000,2000000.00,1000\n')
refused('no rows', ['jain'], 'no rows', 'lock,threads,jain\n')
refused('an infinite value', ['throughput_per_s'], 'throughput_per_s of tas is not finite',
        CSV.replace('380000.00', 'inf'))
refused('a value that is no number', ['jain'], 'jain of tas is empty or no number',
        CSV.replace('0.8700', 'abc'))
refused('a negative scale', ['jain/-1'], 'jain/-1')
refused('a scale that is no number', ['jain/nan'], 'jain/nan')
refused('a format too wide', ['jain:>99999999999'], 'jain:>99999999999')
sys.exit(1 if failures else 0)
