#!/usr/bin/env python3
"""tools/gentopo.py: the shipped machines it wrote regenerate byte for byte
from the command in their header; a machine of each shape (full, ring,
mesh2) loads and runs (ccbench matches its table, MCS runs 64 threads); an
8192-core machine loads; what the loader or the generator refuses is
refused with exit status 2.

usage: unit_gentopo.py BIN  (the directory holding locklab-sim)
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENTOPO = os.path.join(ROOT, 'tools', 'gentopo.py')
SHIPPED = ['uv4096']
COSTS = ['-protocol', 'MESIF', '-row', 'lat.load.M=44', '-row', 'lat.load.S=18', '-row', 'lat.load.I=135',
         '-row', 'lat.store.M=47', '-row', 'lat.store.S=47', '-row', 'lat.atomic.M=49',
         '-row', 'lat.atomic.S=46', '-prop', 'hit.load=1.4', '-prop', 'pause=50']
SHAPES = {
    'full8': ['-sockets', '8', '-cores', '8', '-shape', 'full', '-link-lat', '40', '-link-bw', '20.8GBps'],
    'ring6': ['-sockets', '6', '-cores', '16', '-shape', 'ring', '-link-lat', '40', '-link-bw', '16GBps'],
    'mesh16': ['-sockets', '16', '-cores', '4', '-shape', 'mesh2', '-group', '4', '-link-lat', '40',
               '-link-bw', '20.8GBps', '-group-lat', '100', '-group-bw', '6.7GBps'],
}

failures = []


def check(what, ok, detail=''):
    """One line per check; a failure also prints what the command said."""
    print(('ok   ' if ok else 'FAIL ') + what + ('' if ok or not detail else '\n' + detail))
    if not ok:
        failures.append(what)


def run(argv):
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode, p.stdout


def gentopo(name, args, path):
    return run([sys.executable, GENTOPO, '-name', name] + args + ['-o', path])


def header_command(text):
    """The command in a generated file's header, as argv."""
    lines = text.split('\n')
    start = next(i for i, l in enumerate(lines) if 'regenerate with' in l) + 1
    cmd = ''
    for l in lines[start:]:
        cmd += l.strip()
        if not cmd.endswith('\\'):
            break
        cmd = cmd[:-1] + ' '
    return shlex.split(cmd)


def test_regenerate():
    for name in SHIPPED:
        path = os.path.join(ROOT, 'topologies', name + '.xml')
        with open(path) as f:
            text = f.read()
        argv = header_command(text)
        check('%s: its header holds a gentopo command' % name, argv[0] == 'tools/gentopo.py', argv[0])
        rc, out = run([sys.executable, os.path.join(ROOT, argv[0])] + argv[1:])
        check('%s: the header command regenerates it byte for byte' % name, rc == 0 and out == text,
              'rc=%d, %d of %d bytes' % (rc, len(out), len(text)))


def loads(sim, path, what):
    rc, out = run([sim, 'ccbench', '--topo', path])
    check('%s: ccbench exits 0 and matches the table' % what,
          rc == 0 and re.search(r'max error against the topology: 0\.00% .*ok', out), out[-2000:])
    return out


def test_shapes(sim, tmp):
    table = {}
    for name, args in sorted(SHAPES.items()):
        path = os.path.join(tmp, name + '.xml')
        rc, out = gentopo(name, args + COSTS, path)
        check('%s: generated' % name, rc == 0, out)
        if rc:
            continue
        table[name] = loads(sim, path, name)
        rc, out = run([sim, 'run', '--topo', path, '--lock', 'mcs', '--threads', '64', '--ops', '10',
                       '--runs', '1'])
        check('%s: mcs runs 64 threads' % name, rc == 0, out)
    out = table.get('ring6', '')
    check('ring6: opposite sockets are 3 hops (classes 40, 80, 120 ns)', 'route 120 ns' in out, out[:600])
    out = table.get('mesh16', '')
    check('mesh16: classes 40 (group), 100 (across), 140 ns (two hops)',
          all(('route %d ns' % c) in out for c in (40, 100, 140)), out[:600])


def test_limits(sim, tmp):
    path = os.path.join(tmp, 'big.xml')
    rc, out = gentopo('big', SHAPES['mesh16'][4:] + ['-sockets', '256', '-cores', '32'] + COSTS, path)
    check('256 x 32 generated', rc == 0, out)
    out = loads(sim, path, '8192 cores')
    check('8192 cores, 256 sockets', '8192 cores, 256 sockets' in out, out[:300])
    # beyond the loader's limits nothing is written (the loader's own
    # refusals are tests/sim_topology.c's)
    over = os.path.join(tmp, 'over.xml')
    rc, out = gentopo('over', SHAPES['full8'][4:] + ['-sockets', '257', '-cores', '1'] + COSTS, over)
    check('257 sockets refused, one line', rc == 2 and out.count('\n') == 1 and
          'at most 256 sockets' in out and not os.path.exists(over), out[-500:])
    rc, out = gentopo('over', SHAPES['full8'][4:] + ['-sockets', '2', '-cores', '4097'] + COSTS, over)
    check('8194 cores refused, one line', rc == 2 and out.count('\n') == 1 and
          '8192 cores in all' in out and not os.path.exists(over), out[-500:])
    # property values the loader would refuse, and argparse's errors: one line
    for extra, want in ((['-prop', 'arbitration=banana'], 'arbitration=banana'),
                        (['-prop', 'smt.issue_share=0'], 'smt.issue_share'),
                        (['-prop', 'hit.load=-1'], 'hit.load'),
                        (['-prop', 'assumed=pause foo'], "'foo' is not a property"),
                        (['-link-bw'], 'expected one argument'),
                        (['-link-bw', '0GBps'], 'outside 1MBps..1PBps'),
                        (['-cite', 'a\x01b'], 'control character')):
        shape = SHAPES['full8'][4:]
        if extra[0] == '-link-bw':  # in place of the shape's (an option given twice is refused)
            shape = shape[:shape.index('-link-bw')] + shape[shape.index('-link-bw') + 2:]
        rc, out = gentopo('bad', shape + ['-sockets', '2', '-cores', '2'] + COSTS + extra, over)
        check('%s refused, one line' % ' '.join(extra),
              rc == 2 and out.count('\n') == 1 and want in out and not os.path.exists(over), out)
    # the file is written whole or not at all, over a regular file only
    base = SHAPES['full8'][4:] + ['-sockets', '2', '-cores', '2'] + COSTS
    target = os.path.join(tmp, 'target.xml')
    with open(target, 'w') as f:
        f.write('kept\n')
    link = os.path.join(tmp, 'link.xml')
    os.symlink(target, link)
    for out_path, want, code in ((link, 'a symbolic link', 2), (tmp, 'a directory', 2),
                                 ('/dev/null', 'not a regular file', 2), ('', 'empty file name', 2),
                                 (os.path.join(tmp, 'no', 'x.xml'), 'cannot write', 1)):
        rc, out = gentopo('w', base, out_path)
        check('-o %r refused, one line' % out_path,
              rc == code and out.count('\n') == 1 and want in out, out)
    with open(target) as f:
        check('the file a link names is left alone', f.read() == 'kept\n')
    check('no temporary file left', not [n for n in os.listdir(tmp) if n.startswith('.gentopo-')])
    # assumed takes what the loader takes: rows, families, link attributes
    rc, out = gentopo('assumed', SHAPES['full8'][4:] + ['-sockets', '2', '-cores', '2'] + COSTS +
                      ['-prop', 'assumed=lat.load.M lat.store.* pause link.latency'], path)
    check('assumed with a row, a family and a link attribute generated', rc == 0, out)
    out = loads(sim, path, 'assumed')
    rc, out = run([sim, 'run', '--topo', path, '--lock', 'mcs',
                   '--threads', '2', '--duration', '1', '--runs', '1'])
    check('a run on it names them', rc == 0 and
          'lat.load.M, lat.store.*, pause, link.latency' in out, out[:400])
    # a long list (the names the file may call assumed, each once, but for
    # home.occupancy, which a run leaves out where the machine has no home
    # agents; the loader takes 511 characters) is printed whole, by a run,
    # by filelock and in the JSON
    names = (['lat.*', 'lat.load.*', 'lat.store.*', 'lat.atomic.*', 'hit.*', 'msg.*'] +
             ['lat.%s.%s' % (o, st) for o in ('load', 'store', 'atomic') for st in 'MESI'] +
             ['hit.load', 'hit.store', 'hit.atomic', 'msg.data_bytes', 'msg.ctrl_bytes',
              'inval_per_sharer', 'directory', 'memory_model',
              'storebuf.fill_buffers', 'snoop.travel', 'latency.spread', 'park.kick',
              'freq_ghz', 'protocol', 'unit', 'link.latency', 'link.bandwidth', 'pause'])
    long = ' '.join(names)
    rc, out = gentopo('assumed', SHAPES['full8'][4:] + ['-sockets', '2', '-cores', '2'] + COSTS +
                      ['-prop', 'assumed=' + long], path)
    check('a list of %d characters generated' % len(long), rc == 0 and len(long) > 400, out)
    rc, out = run([sim, 'run', '--topo', path, '--lock', 'mcs', '--threads', '2', '--duration',
                   '1', '--runs', '1', '--pin', 'none'])
    whole = ', '.join(names)
    check('a run prints the long list whole, the noise after it', rc == 0 and
          whole + '; and ' in out, out[-1500:])
    rc, out = run([sim, 'filelock', '--topo', path, '--test', 'flock', '--procs', '2',
                   '--iterations', '5', '--runs', '1'])
    check('filelock prints the long list whole', rc == 0 and whole in out, out[-1500:])
    rc, out = run([sim, 'explain', '--topo', path, '--lock', 'mcs', '--threads', '2',
                   '--duration', '1', '--runs', '1', '--pin', 'none'])
    check('explain prints the long list whole, the noise after it', rc == 0 and
          whole + '; and ' in out, out[:2500])
    rc, out = run([sim, 'run', '--topo', path, '--lock', 'mcs', '--threads', '2', '--duration',
                   '1', '--runs', '1', '--format', 'json'])
    check('the JSON lists it whole', rc == 0 and
          '"assumed": [' + ', '.join('"%s"' % n for n in names) + ']' in out, out[-1500:])
    rc, out = gentopo('ring16', SHAPES['ring6'][2:] + ['-sockets', '16'] + COSTS, path)
    check('a ring of 16 (8 classes) refused by the generator', rc == 2 and 'at most 7' in out, out)
    # what the loader refuses of SMT and idle states, the generator refuses
    for extra, words in ((['-prop', 'smt.issue_share=0.5'], 'only with smt above 1'),
                         (['-prop', 'assumed=smt.* lat.*'], 'where the machine has no SMT'),
                         (['-prop', 'assumed=idle.states'], 'no idle table')):
        rc, out = gentopo('smt', SHAPES['full8'] + COSTS + extra, path)
        check('%s refused, one line' % ' '.join(extra),
              rc == 2 and out.count('\n') == 1 and words in out, out)
    rc, out = gentopo('rows', SHAPES['full8'] + COSTS + ['-row', 'lat.load.E=1,2,3'], path)
    check('a row of the wrong length refused', rc == 2 and 'give 1' in out, out)
    # a class's value below its route's latency: the loader would refuse it
    rc, out = gentopo('rows', SHAPES['full8'] + COSTS + ['-row', 'lat.load.E=10,20'], over)
    check('a row below its route latency refused, one line',
          rc == 2 and out.count('\n') == 1 and 'less than its route' in out and
          not os.path.exists(over), out)


def main():
    sim = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'bin'), 'locklab-sim')
    with tempfile.TemporaryDirectory(prefix='unit_gentopo.') as tmp:
        test_regenerate()
        test_shapes(sim, tmp)
        test_limits(sim, tmp)
    print('%d failed' % len(failures) if failures else 'all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
