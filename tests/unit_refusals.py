#!/usr/bin/env python3
"""A refusal is one line whatever the user typed: a value holding a newline,
a tab or an escape sequence is shown escaped (\\n, \\t, \\x1b), so that it
cannot break the line or reach the terminal raw (core/args.c, ll_bad).
Each bad command must exit 2 with exactly one line on stderr, free of
control characters, that shows the value escaped.

usage: unit_refusals.py BIN  (the directory holding locklab-sim and
locklab-native)
"""

import os
import subprocess
import sys

CASES = [
    ('locklab-sim', ['run', '--lock', 'x\ny'], "'x\\ny'"),
    ('locklab-sim', ['run', '--topo', 'a\nb'], "'a\\nb'"),
    ('locklab-sim', ['run', '--threads', '1\n2'], "'1\\n2'"),
    ('locklab-sim', ['run', '--lock', '\x1b[31mred'], "'\\x1b[31mred'"),
    ('locklab-sim', ['run', '--out', '/nonexistent\tdir/x.csv'], '/nonexistent\\tdir'),
    ('locklab-sim', ['filelock', '--test', 'a\nb'], "'a\\nb'"),
    ('locklab-sim', ['a\nb'], "'a\\nb'"),
    ('locklab-native', ['run', '--pin', 'a\nb'], "'a\\nb'"),
    ('locklab-native', ['a\x7fb'], "'a\\x7fb'"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    failures = []
    for binary, args, shown in CASES:
        p = subprocess.run([os.path.join(sys.argv[1], binary)] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode(errors='replace')
        lines = err.split('\n')
        raw = [c for c in err.rstrip('\n') if ord(c) < 0x20 or ord(c) == 0x7f]
        if p.returncode != 2 or len(lines) != 2 or lines[1] or raw or shown not in err:
            failures.append('%s %r: exit %d, stderr %r (one line showing %s wanted)'
                            % (binary, args, p.returncode, err, shown))
    for f in failures:
        print('FAIL: %s' % f)
    if failures:
        sys.exit(1)
    print('unit_refusals: %d refusals of values with control characters, each one line '
          'with the value escaped' % len(CASES))


if __name__ == '__main__':
    main()
