#!/usr/bin/env python3
"""SConstruct's bad input: an unknown target, a variable given twice, one
the targets do not use, a bad boolean, VARIANTS, TEST_JOBS, an empty CC or
TOPO, a LOCKLAB_BUILD that is no directory, workload values the binary
refuses (`scons validate` before it calibrates): each is refused as the
SConstruct is read, before anything is built, measured or run, with one
line on stderr naming it, nothing on stdout and exit status 2.  The
documented file targets and variables are still taken (`scons -n`).

usage: unit_scons_input.py BIN  (the directory holding locklab-sim and
locklab-native)
"""

import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []

# (scons arguments, extra environment, what the one line names)
REFUSED = [
    (['sim', 'nosuchtarget', 'LOCKS=tas', 'THREADS=2', 'DURATION=1', 'RUNS=1'], {},
     'nosuchtarget: no such target'),
    (['test', 'TEST_JOBS=abc'], {}, 'TEST_JOBS=abc'),
    (['validate', 'THREADS=abc', 'CALIBRATE=1'], {}, "'abc'"),
    (['sim', 'CC='], {}, 'CC='),
    (['WERROR=maybe'], {}, 'WERROR=maybe: not a boolean'),
    (['validate', 'CALIBRATE=false-ish'], {}, 'CALIBRATE=false-ish: not a boolean'),
    (['sim', 'THREADS=2', 'LOCKS=tas', 'THREADS=4'], {}, 'THREADS given twice'),
    (['check', 'LOCKS=nosuch', 'SEED=abc'], {}, 'LOCKS: not a variable of `scons check`'),
    (['report', 'TOPO=4socket', 'THREADS=abc'], {}, 'THREADS: not a variable of `scons report`'),
    (['VARIANTS=native,nosuch', 'bin'], {}, 'nosuch is not a variant'),
    (['sim', 'LOCK=tas'], {}, '`scons sim` takes LOCKS=tas'),
    (['report', 'TOPO='], {}, "TOPO=''"),
    (['sim', 'LOCKS=nosuch', 'THREADS=2'], {}, "unknown lock 'nosuch'"),
    (['bin'], {'LOCKLAB_BUILD': '/proc/locklab-no'}, 'LOCKLAB_BUILD=/proc/locklab-no'),
]
# documented commands, dry runs: taken
TAKEN = [
    ['-j2', 'VARIANTS=native,sim', 'WERROR=1', 'bin', 'build/native/tests', 'build/sim/tests'],
    ['validate', 'CALIBRATE=off', 'LOCKS=mcs,qspinlock', 'THREADS=1,2', 'CS=200', 'NCS=exp:1000'],
]


def scons(args, env=None):
    p = subprocess.run(['scons', '-Q', '-C', ROOT] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, errors='replace',
                       env=dict(os.environ, **(env or {})), timeout=120)
    return args, p


def stale(binary):
    """Whether a C source is newer than binary: then the SConstruct lets the
    build and the sweep judge the workload's values (a stale binary would
    refuse a lock just added), and those two cases are not run."""
    own = 'sim' if binary.endswith('locklab-sim') else 'native'
    built = os.stat(os.path.join(ROOT, 'bin', binary)).st_mtime
    return any(os.stat(os.path.join(r, f)).st_mtime > built
               for d in ('algorithms', 'core', own, 'include')
               for r, _, fs in os.walk(os.path.join(ROOT, d)) for f in fs
               if f.endswith(('.c', '.h')))


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: %s' % what)


def host_files():
    return {p: os.path.getmtime(p) for p in glob.glob(os.path.join(ROOT, 'results', 'host-*'))}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    if not shutil.which('scons'):
        print('unit_scons_input: scons not on PATH: skipped')
        return 0
    before = host_files()
    judged = {'validate': 'locklab-native', 'sim': 'locklab-sim'}
    cases = [c for c in REFUSED if not (c[2] in ("'abc'", "unknown lock 'nosuch'") and
                                        stale(judged[c[0][0]]))]
    if len(cases) < len(REFUSED):
        print('unit_scons_input: bin/ is older than a source: the workload checks are not run')
    with tempfile.NamedTemporaryFile(prefix='locklab-build-') as f:  # LOCKLAB_BUILD a file
        cases = cases + [(['bin'], {'LOCKLAB_BUILD': f.name}, 'a file is there')]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            refused = list(pool.map(lambda c: scons(c[0], c[1]) + (c[2],), cases))
            taken = list(pool.map(lambda a: scons(['-n'] + a), TAKEN))
    for args, p, want in refused:
        lines = p.stderr.splitlines()
        check(p.returncode == 2 and len(lines) == 1 and want in lines[0] and not p.stdout
              and 'Traceback' not in p.stderr,
              'scons %s: exit %d, stdout %r, stderr %r (one line naming %r wanted)'
              % (' '.join(args), p.returncode, p.stdout[-300:], p.stderr[-600:], want))
    for args, p in taken:
        check(p.returncode == 0 and 'locklab:' not in p.stderr,
              'scons -n %s: exit %d, stderr %r' % (' '.join(args), p.returncode, p.stderr[-600:]))
    check(host_files() == before, 'scons validate THREADS=abc CALIBRATE=1 calibrated: %r'
          % host_files())
    print('unit_scons_input: %s' % ('FAILED: %d' % len(failures) if failures else
                                    '%d refusals, one line each; %d documented commands taken'
                                    % (len(refused), len(taken))))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
