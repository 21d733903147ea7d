#!/usr/bin/env python3
"""The catalogue as the tree and the README state it, so that a lock added
by the README's "A lock" steps cannot be left half added:

  - every `const struct lock_algo lock_X` of algorithms/*.c is in
    core/registry.c's table (an algorithm left out links without a word:
    the library is a static archive) and `locklab-sim list` shows it;
  - the README's counts of the catalogue are `list`'s: "the N mutexes"
    of the default sweep and its "R runs" (N x 6 thread counts x 3 runs),
    and the native list's "runs M (the simulator's N and those two)".

usage: unit_catalogue.py BIN  (the directory holding locklab-sim and
locklab-native)
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def listed(binary):
    """{name: kind} of `BINARY list`."""
    out = subprocess.run([binary, 'list'], stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    return {f[0]: f[1] for f in (line.split() for line in out.splitlines()) if len(f) >= 2}


def defined_locks():
    """{C name: file} of the lock_algo structs the algorithms define."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'algorithms', '*.c'))):
        with open(path) as f:
            for name in re.findall(r'^const struct lock_algo (lock_\w+) =', f.read(), re.M):
                found[name] = os.path.relpath(path, ROOT)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    failures = []
    with open(os.path.join(ROOT, 'core', 'registry.c')) as f:
        registry = re.sub(r'/\*.*?\*/|//[^\n]*', '', f.read(), flags=re.S)
    table = set(re.findall(r'&(lock_\w+)', registry))
    defined = defined_locks()
    for name, path in sorted(defined.items()):
        if name not in table:
            failures.append('%s defines %s, which core/registry.c\'s table does not hold '
                            '(README.md, "A lock")' % (path, name))
    sim = listed(os.path.join(sys.argv[1], 'locklab-sim'))
    native = listed(os.path.join(sys.argv[1], 'locklab-native'))
    if len(sim) < len(defined):
        failures.append('locklab-sim list shows %d locks, algorithms/ defines %d'
                        % (len(sim), len(defined)))
    mutexes = sum(1 for kind in sim.values() if kind == 'mutex')
    native_mutexes = sum(1 for kind in native.values() if kind == 'mutex')
    with open(os.path.join(ROOT, 'README.md')) as f:
        readme = f.read()
    said = re.search(r'The default sweep is the (\d+) mutexes .*? 3 runs each: (\d+) runs', readme,
                     re.S)
    if not said:
        failures.append('README.md no longer says "The default sweep is the N mutexes ... '
                        '3 runs each: R runs": this test reads it')
    elif (int(said.group(1)), int(said.group(2))) != (mutexes, mutexes * 6 * 3):
        failures.append('README.md says the default sweep is %s mutexes, %s runs; list gives '
                        '%d mutexes, so %d runs' % (said.group(1), said.group(2), mutexes,
                                                    mutexes * 6 * 3))
    said = re.search(r'a native run of every mutex runs (\d+) \(the simulator\'s (\d+) and those '
                     r'two\)', readme)
    if not said:
        failures.append('README.md no longer says "a native run of every mutex runs M (the '
                        'simulator\'s N and those two)": this test reads it')
    elif (int(said.group(1)), int(said.group(2))) != (native_mutexes, mutexes):
        failures.append('README.md says a native run of every mutex runs %s (the simulator\'s '
                        '%s); the lists give %d and %d' % (said.group(1), said.group(2),
                                                          native_mutexes, mutexes))
    for f in failures:
        print('FAIL: %s' % f)
    if failures:
        sys.exit(1)
    print('unit_catalogue: %d locks defined, each in the registry and listed; the README\'s '
          'counts are list\'s (%d mutexes, %d natively)' % (len(defined), mutexes, native_mutexes))


if __name__ == '__main__':
    main()
