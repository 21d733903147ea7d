#!/usr/bin/env python3
"""tools/scoreboard.py on bad input beyond tests/unit_scoreboard.py's
malformed entries: what the parser refuses before anything runs (control
characters, empty values, a proxy naming no entry's test, a list where an
entry takes one configuration, cv() of one run), paths with a line break
said on one line, and metrics undefined on what the commands gave (an
error row and status 2, never a nan or inf row).

usage: unit_scoreboard_input.py BIN  (the directory holding locklab-sim)
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import unit_scoreboard as u  # noqa: E402

# Refused before anything runs, each with its line: (entry text, what stderr's one line holds).
REFUSED = {
    'a NUL byte in a command': (u.entry_text(baseline='run --lock ticket --threads 2\x00'),
                                '002-x.sb:4: baseline: a NUL byte (\\x00) at column 41'),
    'an escape in a continuation line': (u.entry_text(source='s\n  more\x1b'),
                                         '002-x.sb:3: source: a control character (\\x1b)'),
    'a CR inside a value': (u.entry_text(machine='1socket\rx'),
                            '002-x.sb:3: machine: a control character (\\r)'),
    'an empty source': (u.entry_text(source=''), '002-x.sb:2: source: an empty value'),
    'an empty mapping': (u.entry_text(mapping=''), '002-x.sb:9: mapping: an empty value'),
    'a proxy that is no entry\'s test': (
        u.entry_text(proxy='nosuch'),
        '002-x.sb:9: proxy: no other entry of the board runs test nosuch'),
    'a proxy that is the entry\'s own test': (
        u.entry_text(id='002-posix03-x', proxy='posix03'),
        '002-x.sb:9: proxy: no other entry of the board runs test posix03'),
    '--threads 1,2': (u.entry_text(baseline='run --lock ticket --threads 1,2'),
                      '002-x.sb:4: baseline: --threads 1,2: one configuration only'),
    '--threads=1,2': (u.entry_text(baseline='run --lock ticket --threads=1,2'),
                      '002-x.sb:4: baseline: --threads=1,2: one configuration only'),
    '--lock a,b': (u.entry_text(variant='run --lock mcs,ticket --threads 2'),
                   '002-x.sb:5: variant: --lock mcs,ticket: one configuration only'),
    '--overcommit 1,2': (u.entry_text(variant='run --lock mcs --vm 4 --overcommit 1,2'),
                         '002-x.sb:5: variant: --overcommit 1,2: one configuration only'),
    'filelock --test a,b': (
        u.entry_text(variant='filelock --test flock,posix --private --global lglock'),
        '002-x.sb:5: variant: --test flock,posix: one configuration only'),
    'filelock --shared --private': (
        u.entry_text(variant='filelock --test flock --shared --private --global lglock'),
        '002-x.sb:5: variant: --shared and --private: one configuration only'),
    'cv() with --runs 1': (
        u.entry_text(rule='variance', metric='cv(throughput_per_s)', published='0.5 / 0.1',
                   baseline='run --lock ticket --threads 2 --runs 1'),
        '002-x.sb:4: baseline: --runs 1: cv() needs at least 2 runs'),
    'published variance 0 / 0': (
        u.entry_text(rule='variance', metric='cv(throughput_per_s)', published='0 / 0'),
        "002-x.sb:7: published: '0 / 0': both sigma/means are 0"),
}



def test_refused(tmp):
    for i, (what, (text, words)) in enumerate(sorted(REFUSED.items())):
        d = u.write_board(tmp, 'refused%d' % i, {'002-x.sb': text})
        p = u.tool(d, '--list')
        lines = p.stderr.splitlines()
        u.check('refused before it runs (%s): one line, status 2' % what,
              p.returncode == 2 and len(lines) == 1 and words in lines[0] and p.stdout == '',
              'rc=%d\n%s' % (p.returncode, p.stderr))
    d = u.write_board(tmp, 'proxy', {'002-x.sb': u.entry_text(id='002-posix01-x') + '\n' +
                                   u.entry_text(id='002-posix03-x', proxy='posix01')})
    p = u.tool(d, '--list')
    u.check('a proxy that is another entry\'s test: listed', p.returncode == 0 and
          len(u.listed(p)) == 2, p.stdout + p.stderr)
    crlf = u.entry_text(mapping='a\n  rate').replace('\n', '\r\n')
    d = u.write_board(tmp, 'crlf', {'002-x.sb': crlf})
    es = u.sb.parse_file(os.path.join(d, '002-x.sb'), os.path.join(u.ROOT, 'topologies'))
    u.check('CRLF line ends are line ends, not control characters',
          es[0]['mapping'] == 'a rate' and es[0]['machine'] == '1socket', str(es))
    # a path with a line break: said escaped, on one line
    d = u.write_board(tmp, 'new\nline', {'002-x.sb': u.entry_text(baseline='run --threads 1,2')})
    p = u.tool(d, '--list')
    u.check('a board path with a line break: one line, the path escaped',
          p.returncode == 2 and len(p.stderr.splitlines()) == 1 and
          "$'%s/002-x.sb':4: baseline: --threads 1,2" % d.replace('\n', '\\n') in p.stderr,
          p.stderr)
    res_nl = os.path.join(tmp, 'no\nsuch', 'x')
    for args, what in ((('--results', res_nl), "--results $'%s'" % res_nl.replace('\n', '\\n')),
                       (('--bin', os.path.join(tmp, 'no\nbin'), '--results', tmp),
                        "no $'%s/no\\nbin/locklab-sim'" % tmp),
                       (('--board', os.path.join(tmp, 'no\nboard'), '--list'),
                        "--board $'%s/no\\nboard'" % tmp),
                       (('--list', '--only', 'no\nsuch'), "--only: no entry $'no\\nsuch'"),
                       (('--list', '--only', 'no\nsuch.sb'),
                        "--only: no file $'no\\nsuch.sb' on the board")):
        argv = [sys.executable, u.TOOL] + (['--board', os.path.join(u.ROOT, 'scoreboard')]
                                         if '--board' not in args else []) + list(args)
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        opt = [a for a in args if a in ('--results', '--bin', '--board', '--only')][0]
        kind = 'a file' if args[-1].endswith('.sb') else 'a path' if opt != '--only' else 'an id'
        u.check('%s %s with a line break: one line, status 2, escaped' % (opt, kind),
              p.returncode == 2 and len(p.stderr.splitlines()) == 1 and what in p.stderr,
              p.stderr)


def test_undefined_metric(tmp, res, bindir):
    """A metric undefined on what the commands gave (inv() of a mean of 0, a
    change from 0): the entry's fault, one line FILE:LINE: metric: ... and
    status 2, its row an error; never a nan or inf row."""
    quick = ' --threads 2 --runs 2 --duration 1'
    for what, change, words in (
            ('inv() of a column whose mean is 0',
             dict(metric='inv(starved)', rule='neutral', published='-1.4%'),
             '002-x.sb:6: metric: baseline: inv(starved): the mean of starved is 0'),
            ('a change from a baseline of 0', dict(metric='starved'),
             '002-x.sb:6: metric: baseline: starved is 0, so no change from it is defined')):
        d = u.write_board(tmp, 'undefined-' + change['metric'][:3], {'002-x.sb': u.entry_text(
            baseline='run --lock ticket' + quick, variant='run --lock mcs' + quick, **change)})
        p = u.tool(d, '--results', res, '--no-chart', bindir=bindir)
        u.check('%s: one line, status 2, an error row, no nan' % what,
              p.returncode == 2 and len(p.stderr.splitlines()) == 1 and words in p.stderr and
              ' error ' in p.stdout and not re.search(r'(nan|inf)%', p.stdout),
              p.stdout + p.stderr)
    rows = lambda *vals: [{'x': v} for v in vals]  # noqa: E731
    for what, fn, vals, words in (('cv() of a mean of 0', 'cv', ('0', '0'), 'sigma/mean'),
                                  ('a nan in the column', 'mean', ('1', 'nan'), 'not a finite'),
                                  ('an inf in the column', 'mean', ('inf', '1'), 'not a finite'),
                                  ('inv() of 0', 'inv', ('0', '0'), 'inverse is infinite')):
        try:
            v = u.sb.metric_value(fn, 'x', rows(*vals))
            u.check('metric: %s is an error' % what, False, 'got %r' % v)
        except u.sb.MetricError as e:
            u.check('metric: %s is the entry\'s error' % what, words in str(e), str(e))


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    bindir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='unit_scoreboard_input.') as tmp:
        res = os.path.join(tmp, 'res')
        os.mkdir(res)
        test_refused(tmp)
        test_undefined_metric(tmp, res, bindir)
    print('%d failed' % len(u.failures) if u.failures else 'all passed')
    return 1 if u.failures else 0


if __name__ == '__main__':
    sys.exit(main())
