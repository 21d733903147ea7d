#!/usr/bin/env python3
"""Bad input to the Python tools (tools/vm_tables.py, again_sweep.py,
doccheck.py, ranges.py, gentopo.py, plots/plots.py): one line on stderr
naming the problem and exit status 2 (1 for a write that failed), never a
traceback, a usage dump or junk taken unsaid; a standard output that is
full (/dev/full) is one line and status 1, one whose reader went away
(`| head -0`) ends the command quietly (tools/args_oneline.py).

usage: unit_tools_input.py BIN  (the directory of locklab-sim)
"""

import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, 'tools')
failures = []

VM_HEAD = ['lock', 'threads', 'overcommit', 'ncs_ns', 'ncs_exp', 'duration_s',
           'throughput_per_s', 'holder_preemptions', 'waiter_preemptions',
           'holder_lost_ns_per_acq', 'waiter_lost_ns_per_acq', 'ple_exits', 'ple_yields',
           'halts', 'kicks', 'wake_latency_ns', 'misses_per_acq', 'jain']
AGAIN_HEAD = 'lock,threads,ncs_ns,throughput_per_s,handoff_frac\n'


def check(what, ok, detail=''):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        print('     %r' % (detail,))
        failures.append(what)


def run(argv, stdin=None, cwd=ROOT, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable] + argv, input=stdin, cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, universal_newlines=True)


def refused(what, argv, needle, stdin=None, status=2, cwd=ROOT):
    p = run(argv, stdin, cwd)
    check('%s: exit %d, one line naming %r' % (what, status, needle),
          p.returncode == status and p.stderr.count('\n') == 1 and needle in p.stderr and
          'Traceback' not in p.stderr, (p.returncode, p.stderr[-600:]))


def vm_csv(path, rows):
    """A --vm sweep's CSV of the four locks at 0.5x to 4x, rows changed by
    rows(list of rows) before it is written."""
    out = [VM_HEAD]
    for lock in ('ticket', 'pv-ticket', 'qspinlock', 'pv-qspinlock'):
        for x in ('0.50', '1.00', '1.50', '2.00', '3.00', '4.00'):
            out.append([lock, '16', x, '200', 'false', '0.1', '1000000', '0', '0', '0', '0',
                        '3', '0', '2', '2', '', '10.5', '1.0'])
    rows(out)
    with open(path, 'w', newline='') as f:
        csv.writer(f).writerows(out)


def test_vm_tables(tmp):
    tool = os.path.join(TOOLS, 'vm_tables.py')
    good = os.path.join(tmp, 'vm.csv')
    vm_csv(good, lambda rows: None)
    p = run([tool, good, good])
    check('vm_tables: a good pair of CSVs, exit 0', p.returncode == 0, p.stderr)
    short = os.path.join(tmp, 'vm-short.csv')
    vm_csv(short, lambda rows: rows.__setitem__(3, rows[3][:3]))
    refused('vm_tables: a row of 3 fields', [tool, short, good], 'vm-short.csv:4: column ncs_ns')
    refused('vm_tables --change: a row of 3 fields', [tool, '--change', 'ticket,pv-ticket', short],
            'vm-short.csv:4: column ncs_ns')
    for col, val in (('halts', 'inf'), ('jain', 'nan'), ('throughput_per_s', '-5'),
                     ('kicks', 'x')):
        bad = os.path.join(tmp, 'vm-%s.csv' % col)
        vm_csv(bad, lambda rows: rows[2].__setitem__(VM_HEAD.index(col), val))
        refused('vm_tables: %s=%s' % (col, val), [tool, bad, good],
                'vm-%s.csv:3: column %s' % (col, col))
    output_checks('vm_tables', [tool, good, good], 'vm_tables')


def test_again_sweep(tmp):
    tool = os.path.join(TOOLS, 'again_sweep.py')
    good = os.path.join(tmp, 'again.csv')
    with open(good, 'w') as f:
        f.write(AGAIN_HEAD + 'tas,2,0,1000000,0.5\n')
    for val in ('nan', 'inf', '-5'):
        bad = os.path.join(tmp, 'again-%s.csv' % val)
        with open(bad, 'w') as f:
            f.write(AGAIN_HEAD + 'tas,2,0,%s,0.5\n' % val)
        refused('again_sweep: throughput %s' % val, [tool, '--native', good, '--sim', bad],
                'throughput_per_s %s is not a finite number' % val)
    binary = os.path.join(tmp, 'again-bin.csv')
    with open(binary, 'wb') as f:
        f.write(b'lock,\xff\xfe\x00\x01\n')
    refused('again_sweep: a binary file', [tool, '--native', binary, '--sim', good],
            'not UTF-8 text')
    long_field = os.path.join(tmp, 'again-long.csv')
    with open(long_field, 'w') as f:
        f.write(AGAIN_HEAD + 'tas,2,0,%s,0.5\n' % ('1' * 140000))
    refused('again_sweep: a field over 131072 characters',
            [tool, '--native', long_field, '--sim', good], 'field larger than field limit')
    output_checks('again_sweep', [tool, '--native', good, '--sim', good], 'again_sweep.py')


def test_doccheck(tmp, bindir):
    tool = os.path.join(TOOLS, 'doccheck.py')
    doc = os.path.join(tmp, 'doc.md')
    with open(doc, 'w') as f:
        f.write('```\n$ bin/locklab-sim list | head -1\nnot what it prints\n```\n')
    notutf8 = os.path.join(tmp, 'latin1.md')
    with open(notutf8, 'wb') as f:
        f.write(b'caf\xe9\n')
    refused('doccheck: a file that does not exist', [tool, os.path.join(tmp, 'nosuch.md')],
            'nosuch.md: No such file or directory')
    refused('doccheck: a directory', [tool, tmp], 'a directory')
    refused('doccheck: /dev/null', [tool, '/dev/null'], '/dev/null: not a regular file')
    refused('doccheck: a file not UTF-8', [tool, notutf8], 'latin1.md: not UTF-8 text')
    refused('doccheck: --bin that does not exist', [tool, '--bin', os.path.join(tmp, 'nosuch'),
                                                    doc], 'not a directory')
    refused('doccheck: --bin empty', [tool, '--bin', '', doc], '--bin: an empty directory name')
    refused('doccheck: --bin a regular file', [tool, '--bin', doc, doc], 'not a directory')
    refused('doccheck: --bin without locklab-sim', [tool, '--bin', tmp, doc],
            'no locklab-sim there')
    refused('doccheck: --bin twice', [tool, '--bin', bindir, '--bin', bindir, doc],
            '--bin given twice')
    refused('doccheck: an abbreviation', [tool, '--updat', doc],
            '--updat: not an option (abbreviations are not taken: --update)')
    # --update that cannot write: one line, status 1, no FILE.doccheck-tmp
    # left (here a directory stands in its way, as root writes any file)
    os.mkdir(doc + '.doccheck-tmp')
    refused('doccheck --update: a file it cannot write', [tool, '--bin', bindir, '--update', doc],
            'cannot write', status=1)
    os.rmdir(doc + '.doccheck-tmp')
    os.chmod(tmp, 0o555)
    try:
        if not os.access(tmp, os.W_OK):  # not root
            refused('doccheck --update: a directory it cannot write',
                    [tool, '--bin', bindir, '--update', doc], 'cannot write', status=1)
            check('doccheck --update: no .doccheck-tmp left',
                  not os.path.exists(doc + '.doccheck-tmp'))
    finally:
        os.chmod(tmp, 0o755)
    output_checks('doccheck', [tool, '--bin', bindir, doc], 'doccheck.py', status=1)


def test_ranges():
    tool = os.path.join(TOOLS, 'ranges.py')
    text = 'lock,threads,jain\nmcs,8,1.0\nmcs,8,0.9\n'
    refused('ranges: a format 100 MB wide', [tool, 'jain:>99999999'], 'width or precision over 40',
            text)
    refused('ranges: a precision too great', [tool, 'jain:.999f'], 'width or precision over 40',
            text)
    p = run([tool, 'jain:>12.3f'], text)
    check('ranges: a format 12 wide taken',
          p.returncode == 0 and '       0.900-       1.000' in p.stdout,
          p.stderr)
    refused('ranges: two columns of one name', [tool, 'jain'], 'two columns named jain',
            'lock,jain,jain\nmcs,1,1\n')
    refused('ranges: a --label with a line break', [tool, '--label', 'a\nb', 'jain'],
            'a control character', text)
    refused('ranges: --label twice', [tool, '--label', 'a', '--label', 'b', 'jain'],
            '--label given twice', text)
    refused('ranges: an abbreviation', [tool, '--lab', 'a', 'jain'],
            'abbreviations are not taken: --label', text)
    output_checks('ranges', [tool, 'jain'], 'ranges.py', stdin=text)


def test_gentopo(tmp):
    tool = os.path.join(TOOLS, 'gentopo.py')
    base = ['-name', 'x', '-sockets', '2', '-cores', '2', '-shape', 'full', '-link-lat', '40',
            '-link-bw', '6.7GBps', '-protocol', 'MESI', '-row', 'lat.load.M=44']
    p = run([tool] + base)
    check('gentopo: a machine file', p.returncode == 0 and '<platform' in p.stdout, p.stderr)
    for opt, val in (('-sockets', '4'), ('-shape', 'ring'), ('-name', 'y'), ('-protocol', 'MOESI'),
                     ('-link-lat', '30'), ('--cores', '4')):
        refused('gentopo: %s twice' % opt, [tool] + base + [opt, val], '%s given twice' % opt)
    out = os.path.join(tmp, 'o.xml')
    refused('gentopo: -o twice', [tool] + base + ['-o', out, '-o', out], '-o given twice')
    refused('gentopo: -group 0 with -shape full', [tool] + base + ['-group', '0'],
            'are for --shape mesh2')
    refused('gentopo: an empty value of a row', [tool] + base + ['-row', 'lat.load.S=5,,205,405'],
            'an empty value')
    for word in ('1_0', ' 3', '+2'):
        refused('gentopo: -sockets %r' % word,
                [tool] + base[:2] + ['-sockets', word] + base[4:], 'digits only')


def test_plots(tmp, bindir):
    tool = os.path.join(ROOT, 'plots', 'plots.py')
    res = os.path.join(tmp, 'results')
    os.mkdir(res)
    base = [tool, '--results', res, '--out', os.path.join(tmp, 'charts'), '--topo', '2socket']
    sweep = base + ['--bin', bindir, '--only', 'acquisitions']
    for locks, needle in (('nosuch', "unknown lock 'nosuch'"), ('tas,nosuch', "unknown lock 'nosuch'"),
                          ('rwlock', 'mutexes only'), ('tas,', 'an empty name'),
                          ('tas,tas', 'tas given twice')):
        refused('plots: --locks %s' % locks, sweep + ['--locks', locks], needle)
    for threads in ('0', '-5', '99999', '1_0', ' 3', ''):
        refused('plots: --threads %r' % threads, sweep + ['--threads', threads],
                'want whole numbers')
    for only in ('', ','):
        refused('plots: --only %r' % only, base + ['--only', only], 'an empty name')
    refused('plots: --bin empty', base + ['--bin', ''], '--bin: an empty value')
    refused('plots: an abbreviation', base + ['--res', res], 'abbreviations are not taken')
    refused('plots: --topo twice', base + ['--topo', '4socket'], '--topo given twice')
    output_checks('plots', base + ['--no-sweeps', '--only', 'throughput'], 'plots.py')


def output_checks(name, argv, prog, stdin=None, status=0):
    """A full standard output: one line, status 1; a closed one: quiet."""
    with open('/dev/full', 'w') as full:
        p = run(argv, stdin, stdout=full)
    check('%s > /dev/full: exit 1, one line' % name,
          p.returncode == 1 and p.stderr == '%s: cannot write the standard output: No space left '
          'on device\n' % prog, (p.returncode, p.stderr[-600:]))
    r, w = os.pipe()
    os.close(r)  # `| head -0`, the reader gone before the first write
    try:
        p = subprocess.run([sys.executable] + argv, input=stdin, cwd=ROOT, stdout=w,
                           stderr=subprocess.PIPE, universal_newlines=True)
    finally:
        os.close(w)
    check('%s | head -0: no traceback, no message' % name,
          p.returncode in (status, 1, -13, 141) and p.stderr == '', (p.returncode, p.stderr[-600:]))


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    bindir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='unit_tools_input.') as tmp:
        for name in ('vm', 'again', 'doc', 'gentopo', 'plots'):
            os.mkdir(os.path.join(tmp, name))
        test_vm_tables(os.path.join(tmp, 'vm'))
        test_again_sweep(os.path.join(tmp, 'again'))
        test_doccheck(os.path.join(tmp, 'doc'), bindir)
        test_ranges()
        test_gentopo(os.path.join(tmp, 'gentopo'))
        test_plots(os.path.join(tmp, 'plots'), bindir)
    if failures:
        print('%d failed: %s' % (len(failures), '; '.join(failures)))
        return 1
    print('all passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
