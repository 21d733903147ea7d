#!/usr/bin/env python3
"""tools/scoreboard.py: the entry parser (a good file; each kind of malformed
entry is one line on stderr and exit status 2), the three rules on made-up
numbers at their boundaries, the board of tests/fixtures/scoreboard run
end to end through the real locklab-sim, and docs/scoreboard.md's board block
against scoreboard/*.sb (every entry shown, the table at a glance in step with
it, every failure explained).

usage: unit_scoreboard.py BIN  (the directory holding locklab-sim)
"""

import csv
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, 'tools', 'scoreboard.py')
FIXTURE = os.path.join(ROOT, 'tests', 'fixtures', 'scoreboard')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import scoreboard as sb  # noqa: E402

GOOD = """# a comment
id        = 001-good
source    = seed 001, table 2
machine   = 1socket
baseline  = run --lock ticket --threads 2
variant   = run --lock mcs --threads 2
metric    = throughput_per_s
published = +64.2%
rule      = change
mapping   = jobs per minute is a rate:
            throughput_per_s

# between entries
id        = 001-neutral
source    = seed 001
machine   = 1socket
baseline  = run --lock ticket
variant   = run --lock mcs
metric    = inv(throughput_per_s)
published = -1.4%
rule      = neutral
lacks     = nothing

id        = 001-var
source    = seed 001
machine   = 1socket
baseline  = run --lock ticket --pin none --runs 5
variant   = run --lock ticket --pin socket:0 --runs 5
metric    = cv(throughput_per_s)
published = 112% / 4%
rule      = variance
"""

ENTRY = dict(l.split('=', 1) for l in """id=002-x
source=s
machine=1socket
baseline=run --lock ticket
variant=run --lock mcs
metric=throughput_per_s
published=+20%
rule=change""".split('\n'))

failures = []


def check(what, ok, detail=''):
    print(('ok   ' if ok else 'FAIL ') + what + ('' if ok or not detail else '\n' + detail))
    if not ok:
        failures.append(what)


def entry_text(**change):
    """ENTRY with keys changed (None drops a key), as .sb text."""
    e = dict(ENTRY)
    e.update(change)
    return ''.join('%s = %s\n' % (k, v) for k, v in e.items() if v is not None)


def tool(board, *args, bindir=None):
    argv = [sys.executable, TOOL, '--board', board] + list(args)
    if bindir:
        argv += ['--bin', bindir]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def write_board(tmp, name, files):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for fname, text in files.items():
        with open(os.path.join(d, fname), 'w') as f:
            f.write(text)
    return d


def but_wrote(out):
    """A board's lines but the one naming the files written (their folder differs)."""
    return [l for l in out.splitlines() if not l.startswith('wrote ')]


def listed(p):
    """The entry lines of a --list, without its heading."""
    return [l for l in p.stdout.splitlines() if not l.startswith('#')]


def test_good(tmp):
    d = write_board(tmp, 'good', {'001-x.sb': GOOD})
    p = tool(d, '--list')
    ids = [l.split()[0] for l in listed(p)]
    check('a good file lists its 3 entries', p.returncode == 0 and
          ids == ['001-good', '001-neutral', '001-var'], p.stdout + p.stderr)
    check('--list says whose figure is published', p.stdout.startswith(
        "# id  rule  published (the seed's figure"), p.stdout)
    es = sb.parse_file(os.path.join(d, '001-x.sb'), os.path.join(ROOT, 'topologies'))
    check('continuation lines join with one space',
          es[0]['mapping'] == 'jobs per minute is a rate: throughput_per_s')
    check('published parsed', abs(es[0]['pub'] - 0.642) < 1e-12 and
          abs(es[1]['pub'] + 0.014) < 1e-12 and es[2]['pub'] == (1.12, 0.04))
    check('metrics parsed', [(e['fn'], e['column']) for e in es] ==
          [('mean', 'throughput_per_s'), ('inv', 'throughput_per_s'),
           ('cv', 'throughput_per_s')])
    p = tool(d, '--list', '--only', '001-var')
    check('--only selects', p.returncode == 0 and [l.split()[0] for l in listed(p)] == ['001-var'])
    p = tool(d, '--list', '--only', 'nope')
    check('--only of an unknown id: status 2', p.returncode == 2)


MALFORMED = {
    'unknown key': entry_text() + 'colour = red\n',
    'missing key': entry_text(metric=None),
    'key twice': entry_text() + 'rule = change\n',
    'bad id': entry_text(id='Lockref'),
    'unknown rule': entry_text(rule='better'),
    'unsigned published': entry_text(published='20%'),
    'published not a percentage': entry_text(published='+20'),
    'neutral over 5%': entry_text(rule='neutral'),
    'change under 5%': entry_text(published='+4.9%'),
    'variance with one value': entry_text(rule='variance', metric='cv(throughput_per_s)',
                                          published='0.5'),
    'variance without cv()': entry_text(rule='variance', published='0.5 / 0.1'),
    'cv() outside variance': entry_text(metric='cv(throughput_per_s)'),
    'bad metric': entry_text(metric='mean(throughput_per_s)'),
    'unknown machine': entry_text(machine='no-such-box'),
    'forbidden option': entry_text(variant='run --lock mcs --topo 2socket'),
    'forbidden --format=': entry_text(variant='run --lock mcs --format=csv'),
    'forbidden --csv': entry_text(variant='filelock --test flock --csv x.csv'),
    'forbidden --seed': entry_text(variant='run --lock mcs --seed 7'),
    'command without subcommand': entry_text(baseline='--lock ticket'),
    'unbalanced quote': entry_text(baseline='run --lock "ticket'),
    'line without =': entry_text() + 'just words\n',
    'continuation first': '  leading continuation\n' + entry_text(),
}

def test_malformed(tmp):
    for i, (what, text) in enumerate(sorted(MALFORMED.items())):
        d = write_board(tmp, 'bad%d' % i, {'002-x.sb': text})
        p = tool(d, '--list')
        lines = p.stderr.strip().splitlines()
        check('malformed (%s): one line, status 2' % what,
              p.returncode == 2 and len(lines) == 1 and '002-x.sb:' in lines[0]
              and p.stdout == '', 'rc=%d\n%s' % (p.returncode, p.stderr))
    # a key's fault is said at its own line, not at the entry's first
    text = entry_text(published='0%')
    line = 1 + [l.split(' =')[0] for l in text.splitlines()].index('published')
    d = write_board(tmp, 'lineno', {'002-x.sb': text})
    p = tool(d, '--list')
    check('the fault at its line', '002-x.sb:%d: published' % line in p.stderr, p.stderr)
    # an empty board, an empty --only, an option twice: one line, status 2
    d = write_board(tmp, 'empty', {})
    for args, what in (((), 'no entries'), (('--only', ','), 'no entry named'),
                       (('--list', '--list'), 'given twice'), (('--jobs', '0'), '--jobs'),
                       (('--jobs', '100000'), 'from 1 to 4096'),
                       (('--jobs', '99999999999999999999'), 'from 1 to 4096'),
                       (('--only', '004-lockref-snb,'), 'a comma too many'),
                       (('--only', '004-lockref-snb,004-lockref-snb'), 'named twice'),
                       (('--seeds', '0'), '--seeds'), (('--seeds', 'x'), '--seeds'),
                       (('--only', '--no-chart'), '--only: needs a value'),
                       (('--results', '--no-chart'), '--results: needs a value'),
                       (('--results', ''), '--results: an empty value'),
                       (('--results', os.path.join(tmp, 'no', 'such')), 'parent directory'),
                       (('--results', os.path.join(ROOT, 'README.md')), 'not a directory')):
        p = tool(d if what == 'no entries' else os.path.join(ROOT, 'scoreboard'), *args)
        lines = p.stderr.strip().splitlines()
        check('%s: one line, status 2' % what,
              p.returncode == 2 and len(lines) == 1 and what in lines[0], p.stderr)
    d = write_board(tmp, 'latin1', {})
    with open(os.path.join(d, '002-x.sb'), 'wb') as f:
        f.write(entry_text().encode('utf-8').replace(b'=', b'\xff=', 1))
    p = tool(d, '--list')
    check('a file not UTF-8: one line, status 2', p.returncode == 2 and
          len(p.stderr.strip().splitlines()) == 1 and 'not UTF-8' in p.stderr, p.stderr)
    d = write_board(tmp, 'dupid', {'002-a.sb': entry_text(), '002-b.sb': entry_text()})
    p = tool(d, '--list')
    check('an id in two files: one line, status 2',
          p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and
          'given twice' in p.stderr, p.stderr)


def test_help():
    """--help says what is refused and what is written: the range of
    --seeds, and the files of --only and --append given together."""
    p = tool(os.path.join(ROOT, 'scoreboard'), '--help')
    flat = ' '.join(p.stdout.split())
    check('--help: the range of --seeds', 'N from 1 to %d' % sb.MAX_SEEDS in flat, p.stdout)
    check('--help: --only with --append writes scoreboard-only-append.*',
          'with both scoreboard-only-append.*' in flat, p.stdout)


def test_rules():
    ch = sb.judge_change
    check('change +64%: +32% and +128% pass', ch(0.64, 0.32)[0] and ch(0.64, 1.28)[0])
    check('change +64%: +31% and +129% fail', not ch(0.64, 0.31)[0] and not ch(0.64, 1.29)[0])
    check('change +64%: -64% and 0 fail', not ch(0.64, -0.64)[0] and not ch(0.64, 0.0)[0])
    check('change -20%: -10% and -40% pass, -9% and -41% fail',
          ch(-0.2, -0.1)[0] and ch(-0.2, -0.4)[0] and not ch(-0.2, -0.09)[0]
          and not ch(-0.2, -0.41)[0])
    check('change error is simulated / published', abs(ch(0.64, 0.32)[1] - 0.5) < 1e-12)
    ne = sb.judge_neutral
    check('neutral: +-15% pass', ne(-0.014, 0.15)[0] and ne(-0.014, -0.15)[0])
    check('neutral: +15.1% and -15.1% fail', not ne(-0.014, 0.151)[0] and not ne(-0.014, -0.151)[0])
    check('neutral error is the simulated change the band judges',
          abs(ne(-0.014, -0.072)[1] + 0.072) < 1e-12)
    va = sb.judge_variance
    check('variance: order kept, larger within 2x pass',
          va((1.12, 0.04), (0.56, 0.1))[0] and va((1.12, 0.04), (2.24, 0.5))[0]
          and va((0.04, 1.12), (0.01, 0.6))[0])
    check('variance: larger beyond 2x fails',
          not va((1.12, 0.04), (0.55, 0.1))[0] and not va((1.12, 0.04), (2.25, 0.1))[0])
    check('variance: order reversed or tied fails',
          not va((1.12, 0.04), (0.1, 1.0))[0] and not va((1.12, 0.04), (0.8, 0.8))[0])
    check('variance error is larger / larger', abs(va((1.0, 0.1), (0.5, 0.2))[1] - 0.5) < 1e-12)


def test_end_to_end(tmp, bindir):
    res = os.path.join(tmp, 'res')
    p = tool(FIXTURE, '--results', res, '--no-chart', bindir=bindir)
    out = p.stdout.splitlines()
    check('fixture board runs: status 0', p.returncode == 0, p.stdout + p.stderr)
    check('one row per entry, the legend, the files written and the count', len(out) == 8 and
          out[-3].startswith('published, simulated: the change') and
          out[-2] == 'wrote ' + os.path.join(res, 'scoreboard.csv') and
          out[-1].endswith('of 4 pass'), p.stdout)
    path = os.path.join(res, 'scoreboard.csv')
    if not os.path.exists(path):
        check('results/scoreboard.csv written', False)
        return
    with open(path) as f:
        rows = list(csv.DictReader(f))
    check('scoreboard.csv: 4 rows', [r['id'] for r in rows] ==
          ['900-ticket-mcs', '900-ticket-mcs-time', '900-ncs-variance',
           '900-filelock-global'])
    fl = [r for r in rows if r['id'] == '900-filelock-global']
    check('a filelock entry runs: seconds of both commands', fl and
          float(fl[0]['baseline']) > 0 and float(fl[0]['variant']) > 0, str(fl))
    npass = sum(r['pass'] == 'true' for r in rows)
    check('the count is the rows that pass', out[-1] == '%d of 4 pass' % npass, out[-1])
    for r in rows:
        b, v = float(r['baseline']), float(r['variant'])
        if r['rule'] == 'variance':
            pub = sb.parse_published('variance', r['published'], '')
            ok, _ = sb.judge('variance', pub, (b, v))
        else:
            ok, _ = sb.judge(r['rule'], float(r['published_change']), (v - b) / b)
        check('%s: pass column follows the rule' % r['id'], ok == (r['pass'] == 'true'))
    check('no temporary file left', os.listdir(res) == ['scoreboard.csv'], str(os.listdir(res)))
    d = write_board(tmp, 'fails', {'002-x.sb': entry_text(variant='run --lock no-such-lock')})
    p = tool(d, '--results', res, '--no-chart', bindir=bindir)
    check('a failing command: its row says error, FAIL, status 1',
          p.returncode == 1 and 'error' in p.stdout and 'FAIL' in p.stdout and
          p.stdout.splitlines()[-1] == '0 of 1 pass', p.stdout + p.stderr)
    check('a command of the default --threads 1,2,4: the parser\'s words, found once it ran',
          'baseline: more than one threads: one configuration only' in p.stdout, p.stdout)
    d = write_board(tmp, 'refused', {'002-x.sb': entry_text(
        baseline='run --lock ticket --threads 2', variant='run --lock no-such-lock --threads 2')})
    p = tool(d, '--results', res, '--no-chart', bindir=bindir)
    check('a command locklab-sim refuses: the entry\'s fault, FILE:LINE, status 2',
          p.returncode == 2 and p.stderr.count('\n') == 1 and
          "002-x.sb:5: variant: locklab-sim refused it (exit 2: " in p.stderr and
          'no-such-lock' in p.stderr, p.stdout + p.stderr)
    d = write_board(tmp, 'typo', {'002-x.sb': entry_text(metric='throughput')})
    p = tool(d, '--results', res, '--no-chart', bindir=bindir)
    check('a metric with no such column: the entry\'s fault, FILE:LINE, status 2',
          p.returncode == 2 and '002-x.sb:' in p.stderr and
          'metric: baseline: no column throughput in the CSV (did you mean throughput_per_s?)'
          in p.stderr, p.stdout + p.stderr)
    only = os.path.join(tmp, 'only')
    umask = os.umask(0o022)  # the runner's: a mode that mkstemp's 0600 is not
    try:
        p = tool(FIXTURE, '--results', only, '--no-chart', '--only', '900-ticket-mcs',
                 bindir=bindir)
    finally:
        os.umask(umask)
    check('--only writes scoreboard-only.csv, not the board\'s file',
          p.returncode == 0 and os.listdir(only) == ['scoreboard-only.csv'], str(os.listdir(only)))
    check('the CSV has a results file\'s mode (0644, as tools/report.py writes them), not a temporary '
          'file\'s 0600', os.stat(os.path.join(only, 'scoreboard-only.csv')).st_mode & 0o777 == 0o644)
    p = tool(FIXTURE, '--list', '--only', '900-fixture.sb')
    check('--only FILE.sb: every entry of the file', p.returncode == 0 and
          len(listed(p)) == 4, p.stdout + p.stderr)
    p = tool(FIXTURE, '--list', '--only', 'nope.sb')
    check('--only with a file not on the board: status 2', p.returncode == 2 and
          'no file nope.sb' in p.stderr, p.stderr)
    p = tool(FIXTURE, '--results', res, '--no-chart', '--only', '900-ticket-mcs',
             bindir=os.path.join(tmp, 'nobin'))
    check('a missing binary: status 2', p.returncode == 2, p.stderr)
    test_shared_command(tmp, bindir)
    test_seeds(tmp, bindir, rows)
    test_append(tmp, bindir)


def logging_bin(tmp, bindir, name):
    """A directory whose locklab-sim logs each command line to a file, then
    runs the real one: (the directory, the log's path)."""
    wrap = os.path.join(tmp, 'wrapbin-' + name)
    log = os.path.join(tmp, 'invocations-' + name)
    os.makedirs(wrap)
    with open(os.path.join(wrap, 'locklab-sim'), 'w') as f:
        f.write('#!/bin/sh\necho "$*" >> %s\nexec %s "$@"\n'
                % (shlex.quote(log), shlex.quote(os.path.join(bindir, 'locklab-sim'))))
    os.chmod(os.path.join(wrap, 'locklab-sim'), 0o755)
    return wrap, log


def test_seeds(tmp, bindir, rows):
    """--seeds 3: the board is seed 1's (the same values as without it),
    each command also runs with --seed 2 and 3, and a column counts the
    seeds an entry passes with."""
    wrap, log = logging_bin(tmp, bindir, 'seeds')
    res = os.path.join(tmp, 'res-seeds')
    p = tool(FIXTURE, '--results', res, '--no-chart', '--seeds', '3', bindir=wrap)
    out = p.stdout.splitlines()
    check('--seeds 3: status 0, a seeds column, a line that counts them',
          p.returncode == 0 and out[0].split()[-2:] == ['seeds', 'passing'] and
          out[-1].startswith('with seeds 1 to 3: '), p.stdout + p.stderr)
    with open(log) as f:
        runs = f.read().splitlines()
    check('--seeds 3: each of the 8 commands three times, seed 1 as given',
          len(runs) == 24 and sum('--seed 2' in r for r in runs) == 8 and
          sum('--seed 3' in r for r in runs) == 8 and
          sum('--seed' not in r for r in runs) == 8, '\n'.join(runs))
    with open(os.path.join(res, 'scoreboard.csv')) as f:
        seeded = list(csv.DictReader(f))
    same = all(a['id'] == b['id'] and a['baseline'] == b['baseline'] and
               a['variant'] == b['variant'] and a['pass'] == b['pass']
               for a, b in zip(rows, seeded)) and len(rows) == len(seeded)
    check('--seeds 3: the board is seed 1\'s, value for value', same,
          str(rows) + '\n' + str(seeded))
    cells = [r['seeds_passed'] for r in seeded]
    check('--seeds 3: seeds_passed k/3, at least 1 where seed 1 passes, at most 2 where it fails',
          all(c in ('0/3', '1/3', '2/3', '3/3') for c in cells) and
          all((int(c[0]) >= 1) if r['pass'] == 'true' else (int(c[0]) <= 2)
              for c, r in zip(cells, seeded)), str(cells))
    check('without --seeds the column is empty', all(r['seeds_passed'] == '' for r in rows),
          str(rows))


def test_append(tmp, bindir):
    """--append: every command ends with the options, the output says it is
    not the board, and the board's own files are left alone."""
    wrap, log = logging_bin(tmp, bindir, 'append')
    res = os.path.join(tmp, 'res-append')
    p = tool(FIXTURE, '--results', res, '--no-chart', '--only', '900-ticket-mcs,900-ncs-variance',
             '--append', '--cs 100', bindir=wrap)
    out = p.stdout.splitlines()
    with open(log) as f:
        runs = f.read().splitlines()
    check('--append: each command ends with the options (then the CSV\'s)',
          p.returncode == 0 and len(runs) == 4 and
          all(' --cs 100 --format csv --out ' in r for r in runs), '\n'.join(runs) + p.stderr)
    check('--append: the first and the last line say what was appended',
          out and out[0] == 'not the board: every command with --cs 100 appended' and
          out[-1].endswith('of 2 pass with --cs 100 appended to every command'), p.stdout)
    names = os.listdir(res) if os.path.isdir(res) else []
    rows = []
    if names == ['scoreboard-only-append.csv']:
        with open(os.path.join(res, names[0])) as f:
            rows = list(csv.DictReader(f))
    check('--append: its own CSV, every row naming the options',
          len(rows) == 2 and all(r['appended'] == '--cs 100' for r in rows), str(names) + str(rows))
    for bad, why in (('--seed 2', '--seed is the runner\'s'), ('', 'no option'),
                     ('run --cs 1', 'not an option'),
                     ('--threads 1,2', "--append '--threads 1,2': 900-ticket-mcs: baseline: "
                      "--threads 1,2: one configuration only"),
                     ('--runs 1', "--append '--runs 1': 900-ncs-variance: baseline: --runs 1: "
                      "cv() needs at least 2 runs")):
        p = tool(FIXTURE, '--results', res, '--append', bad, bindir=bindir)
        check('--append %r: one line, status 2' % bad,
              p.returncode == 2 and len(p.stderr.splitlines()) == 1 and why in p.stderr,
              p.stderr)
    wrap2, log2 = logging_bin(tmp, bindir, 'append-over')
    p = tool(FIXTURE, '--results', os.path.join(tmp, 'res-over'), '--no-chart', '--only',
             '900-ticket-mcs', '--append', '--runs 3 --cs 100', bindir=wrap2)
    with open(log2) as f:
        runs = f.read().splitlines()
    check('--append an option the command gives: its value replaced, not given twice',
          p.returncode == 0 and len(runs) == 2 and
          all(' --runs 3 ' in r and '--runs 2' not in r and r.count('--runs') == 1 and
              ' --cs 100 ' in r for r in runs), '\n'.join(runs) + p.stderr)
    p = tool(FIXTURE, '--results', os.path.join(tmp, 'res-bogus'), '--no-chart', '--only',
             '900-ticket-mcs,900-ncs-variance', '--append', '--bogus', bindir=bindir)
    check('--append \'--bogus\', refused by every command: one line, status 2, no board',
          p.returncode == 2 and not p.stdout and len(p.stderr.splitlines()) == 1 and
          'every command refused it' in p.stderr and '--bogus: unknown option' in p.stderr,
          p.stdout + p.stderr)


def test_shared_command(tmp, bindir):
    """Two entries with the same baseline: it runs once, both rows use it."""
    wrap, log = logging_bin(tmp, bindir, 'shared')
    quick = ' --ops 200 --runs 1 --threads 2'
    d = write_board(tmp, 'shared', {
        '002-a.sb': entry_text(id='002-a', baseline='run --lock ticket' + quick,
                               variant='run --lock mcs' + quick),
        '002-b.sb': entry_text(id='002-b', baseline='run --lock ticket' + quick,
                               variant='run --lock tas' + quick)})
    res = os.path.join(tmp, 'res-shared')
    p = tool(d, '--results', res, bindir=wrap)
    with open(log) as f:
        runs = f.read().splitlines()
    with open(os.path.join(res, 'scoreboard.csv')) as f:
        rows = list(csv.DictReader(f))
    check('a command two entries share runs once', p.returncode == 0 and len(runs) == 3 and
          sum('--lock ticket' in r for r in runs) == 1, '\n'.join(runs) + p.stderr)
    check('both rows have its value', len(rows) == 2 and
          rows[0]['baseline'] == rows[1]['baseline'] != '', str(rows))
    check('the chart is drawn', all(os.path.getsize(os.path.join(res, 'scoreboard.' + x)) > 0
                                    for x in ('png', 'svg')), str(os.listdir(res)))
    check_chart_layout(os.path.join(res, 'scoreboard.svg'))


def check_chart_layout(svg):
    """A chart of two entries reads: its pass band (the plot's height) is
    tall, its row labels apart, the title and caption above the plot and
    the legend at the foot, under the axis label, where neither can meet it
    (it once stood over the title, the two labels overlapped and the band
    was 6 px tall)."""
    with open(svg) as f:
        text = f.read()
    at = re.findall(r'<g transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*>\s*<text>([^<]*)</text>',
                    text)
    y = {t: float(ty) for _, ty, t in at}
    band = re.search(r"fill = 'rgb\(217, 240, 211\)' points = '([^']*)'", text)
    ys = [float(pt.split(',')[1]) for pt in band.group(1).split()] if band else [0.0]
    top, bottom = min(ys), max(ys)
    rows = [y.get(t, 0.0) for t in ('002-a', '002-b')]
    heads = [y[t] for t in y if t.startswith('locklab scoreboard') or ' of 2 pass' in t]
    xlabel = [y[t] for t in y if t.startswith('log2(simulated')]
    detail = 'band %.0f..%.0f, rows %s, title %s, xlabel %s, legend %s' % (
        top, bottom, rows, heads, xlabel, y.get('passes'))
    check('chart of 2 entries: a band 150 px tall or more, rows 40 px apart',
          bottom - top >= 150 and abs(rows[0] - rows[1]) >= 40, detail)
    check('chart of 2 entries: title and count above the plot, the legend under the axis label',
          len(heads) == 2 and max(heads) < top and len(xlabel) == 1 and
          bottom < xlabel[0] < y.get('passes', 0.0), detail)


def test_error_text():
    """The board's error column: a factor, points, or what is wrong when a
    factor would be read as one (x-0.00 for a change of the other sign)."""
    f = lambda rule, pub, sim: sb.fmt_error(rule, pub, sim, sb.judge(rule, pub, sim)[1])
    check('error: a change as a factor', f('change', 0.64, 0.32) == 'x0.50')
    check('error: a change of the other sign', f('change', 0.475, -0.002) == 'wrong sign')
    check('error: no change at all is a factor of 0', f('change', 0.475, 0.0) == 'x0.00')
    check('error: a neutral entry against the band it is judged by',
          f('neutral', -0.021, -0.002) == '-0.2% of +-15%')
    e = {'id': '002-x', 'proxy': 'posix01'}
    check('result: a proxy says so', sb.verdict(e, True) == 'pass (proxy: posix01)')
    entries = [e, {'id': '002-y'}, {'id': '002-z'}]
    res = {'002-x': {'passed': True}, '002-y': {'passed': True}, '002-z': {'passed': False}}
    check('count: the passes by a proxy are said and taken out',
          sb.count_line(entries, res) == '2 of 3 pass; 1 of them by a proxy (another '
          "test's workload: 002-x), so 1 of the 2 entries that run their own test pass")
    long_ids = [{'id': '002-%s-%d' % ('posix' * 4, i), 'proxy': 'posix01'} for i in range(6)]
    cap = sb.chart_caption(sb.count_line(long_ids + entries, dict(
        res, **{e['id']: {'passed': True} for e in long_ids})))
    check('chart caption: every part on lines of its own, none wider than the canvas allows',
          cap.startswith('8 of 9 pass\n7 of them by a proxy') and
          all(len(l) <= 96 for l in cap.split('\n')) and cap.count('\n') >= 3, cap)
    cap = sb.chart_caption('y' * 60 + ' 002-posix03-unpinned, 003-pvticket-dbench-hton-nople-1.5x')
    check('chart caption: an entry id is never broken at its hyphens',
          '003-pvticket-dbench-hton-nople-1.5x' in cap.split('\n')[-1] and
          not any(l.endswith('-') for l in cap.split('\n')), cap)
    check('error: a variance as a factor', f('variance', (0.25, 2.44), (0.0, 0.028)) == 'x0.01')
    check('error: a variance in the other order',
          f('variance', (0.25, 2.44), (0.3, 0.1)) == 'wrong order')


def test_band():
    """The chart's scale: the pass band is [-1, 1] whatever the rule."""
    b = sb.band
    check('band: change x2 and x1/2 at the edges, x1 at 0',
          abs(b('change', 0.64, 1.28) - 1) < 1e-12 and abs(b('change', 0.64, 0.32) + 1) < 1e-12
          and b('change', 0.64, 0.64) == 0)
    check('band: a change of the wrong sign has none', b('change', 0.64, -0.1) is None)
    check('band: neutral is the change over 15%', abs(b('neutral', -0.02, -0.15) + 1) < 1e-12)
    check('band: variance is log2 of larger / larger, none in the wrong order',
          abs(b('variance', (0.25, 2.44), (0.1, 4.88)) - 1) < 1e-12 and
          b('variance', (0.25, 2.44), (0.3, 0.2)) is None)
    for rule, pub, sim in (('change', 0.3, 0.61), ('change', 0.3, 0.59), ('neutral', 0.01, 0.149),
                           ('neutral', 0.01, -0.151), ('variance', (0.2, 1.0), (0.1, 2.1)),
                           ('variance', (0.2, 1.0), (0.1, 1.9))):
        x = b(rule, pub, sim)
        check('band: |band| <= 1 exactly when %s %r against %r passes' % (rule, sim, pub),
              (x is not None and abs(x) <= 1 + 1e-9) == sb.judge(rule, pub, sim)[0])


def test_doc_explains_failures():
    """docs/scoreboard.md: its board block shows every entry of scoreboard/*.sb; the
    table at a glance puts each in one group with the block's count of passes; and
    every entry it shows failing is named again under "## Failing entries", where
    the mechanism it lacks is said (issue 10: each failing entry explained)."""
    with open(os.path.join(ROOT, 'docs', 'scoreboard.md')) as f:
        doc = f.read()
    cmd = '$ python3 tools/scoreboard.py --bin bin --no-chart\n'
    at = doc.find(cmd)
    check('doc: the board block is there', at >= 0)
    if at < 0:
        return
    block = doc[at + len(cmd):doc.index('```', at)]
    rows = [l.split() for l in block.split('\n') if re.match(r'\d{3}-\S+ ', l)]
    ids = set()
    for path in sorted(glob.glob(os.path.join(ROOT, 'scoreboard', '*.sb'))):
        ids |= {e['id'] for e in sb.parse_file(path, os.path.join(ROOT, 'topologies'))}
    shown = [r[0] for r in rows]
    check('doc: the board block shows every entry of scoreboard/*.sb, once each',
          sorted(shown) == sorted(ids),
          'not shown: %s; not on the board: %s' % (sorted(ids - set(shown)),
                                                 sorted(set(shown) - ids)))
    glance = doc[doc.find('### The board at a glance'):]
    glance = glance[:glance.find('\n### ', 1)]
    grouped, miscounted = [], []
    passing = {r[0] for r in rows if r[-1] != 'FAIL'}  # 'pass', or 'pass (proxy: ...)'
    for line in glance.split('\n'):
        cells = [c.strip() for c in line.split('|')]
        if len(cells) < 5 or not re.match(r'\d+$', cells[3]):
            continue
        members = re.findall(r'`(\d{3}-[^`]+)`', cells[2])
        grouped += members
        if int(cells[3]) != sum(m in passing for m in members):
            miscounted.append(cells[1])
    check('doc: the table at a glance names every entry once, with the board\'s passes',
          sorted(grouped) == sorted(shown) and not miscounted,
          'missing: %s; twice: %s; counts off: %s' % (
              sorted(set(shown) - set(grouped)),
              sorted({g for g in grouped if grouped.count(g) > 1}), miscounted))
    tail = doc[doc.find('\n## Failing entries'):]
    unexplained = [r[0] for r in rows if r[-1] == 'FAIL' and
                   not re.search(re.escape(r[0]) + r'(?![\w.-])', tail)]
    check('doc: every failing entry of the board is named under "## Failing entries"',
          '\n## Failing entries' in doc and not unexplained, 'unexplained: %s' % unexplained)


def test_readme_count():
    """README.md gives the board's count and a pass count per seed: both must be
    those of the board block in docs/scoreboard.md (a board that moves and a
    README that does not would say two things)."""
    with open(os.path.join(ROOT, 'docs', 'scoreboard.md')) as f:
        doc = f.read()
    with open(os.path.join(ROOT, 'README.md')) as f:
        readme = f.read()
    cmd = '$ python3 tools/scoreboard.py --bin bin --no-chart\n'
    at = doc.find(cmd)
    if at < 0:
        check('README: the board block of docs/scoreboard.md is there', False)
        return
    block = doc[at + len(cmd):doc.index('```', at)]
    rows = [l.split() for l in block.split('\n') if re.match(r'\d{3}-\S+ ', l)]
    passing = [r[0] for r in rows if r[-1] != 'FAIL']
    m = re.search(r'\*\*(\d+) of (\d+) pass\*\*', readme)
    check('README: the count is the board\'s', m is not None and
          (int(m.group(1)), int(m.group(2))) == (len(passing), len(rows)),
          'README %s, board %d of %d' % (m and m.group(0), len(passing), len(rows)))
    off = []
    for line in readme.split('\n'):
        cells = [c.strip() for c in line.split('|')]
        if len(cells) < 6 or not re.match(r'\d{3}(, \d{3})*$', cells[1]):
            continue
        seeds = cells[1].split(', ')
        mine = [r for r in rows if r[0][:3] in seeds]
        if (int(cells[3]), int(cells[4])) != (len(mine), sum(r[0] in passing for r in mine)):
            off.append(cells[1])
    check('README: each seed\'s entries and passes are the board\'s', not off,
          'off: %s' % off)


def test_board_hosts():
    """Every command of the board that runs guests (--vm) runs them on the
    host the seed had: KVM's directed yield at a PLE exit (--ple-yield guest,
    KVM's PLE handler since 2011) and a fixed PLE window (--ple-grow 1, before
    Linux 3.18); the simulator's defaults are neither, so an entry that drops
    either option silently models another host."""
    odd = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'scoreboard', '*.sb'))):
        for e in sb.parse_file(path, os.path.join(ROOT, 'topologies')):
            for side in ('baseline', 'variant'):
                argv = shlex.split(e[side])
                if '--vm' not in argv:
                    continue
                opts = dict(zip(argv, argv[1:]))
                if opts.get('--ple-yield') != 'guest' or opts.get('--ple-grow') != '1':
                    odd.append('%s %s' % (e['id'], side))
    check('board: every --vm command gives --ple-yield guest and --ple-grow 1',
          not odd, 'not so: %s' % odd)


def test_sim_command(tmp, bindir):
    """`locklab-sim scoreboard`: the runner with this binary's directory as
    --bin, its options passed on, from any working directory; --bin and
    unknown options refused with one line and status 2."""
    sim = os.path.join(bindir, 'locklab-sim')
    run = lambda *a: subprocess.run([sim, 'scoreboard'] + list(a), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, universal_newlines=True, cwd=tmp)
    res = os.path.join(tmp, 'res-cmd')
    p = run('--board', FIXTURE, '--results', res, '--no-chart', '--only', '900-ticket-mcs')
    direct = tool(FIXTURE, '--results', os.path.join(tmp, 'res-tool'), '--no-chart', '--only',
                  '900-ticket-mcs', bindir=bindir)
    check('locklab-sim scoreboard: the runner\'s rows and status, from another directory',
          p.returncode == 0 and but_wrote(p.stdout) == but_wrote(direct.stdout) and
          os.path.exists(os.path.join(res, 'scoreboard-only.csv')), p.stdout + p.stderr)
    p = run('--list')
    check('locklab-sim scoreboard --list: the board of the repository',
          p.returncode == 0 and '004-lockref-snb' in p.stdout, p.stdout + p.stderr)
    p = run('--list', '--only=004-lockref-snb', '--board=' + os.path.join(ROOT, 'scoreboard'))
    check('locklab-sim scoreboard --opt=VALUE: passed on as the runner takes it',
          p.returncode == 0 and [l.split() for l in listed(p)] ==
          [['004-lockref-snb', 'neutral', '-1.4%', 'snb-laptop', 'throughput_per_s']],
          p.stdout + p.stderr)
    p = run('--list', '--only', 'nope')
    check('locklab-sim scoreboard: the runner\'s own errors name locklab-sim, as the command\'s do',
          p.returncode == 2 and p.stderr.startswith('locklab-sim: scoreboard: --only: no entry nope'),
          p.stderr)
    p = run('--list', '--only', '--bin')
    check('locklab-sim scoreboard --only --bin: --only lacks its value (not the --bin line)',
          p.returncode == 2 and '--only: needs a value' in p.stderr, p.stdout + p.stderr)
    for bad in (['--bin', bindir], ['--bin=' + bindir], ['--frob'], ['--seeds']):
        p = run(*bad)
        check('locklab-sim scoreboard %s: one line, status 2' % ' '.join(bad[:1]),
              p.returncode == 2 and len(p.stderr.splitlines()) == 1 and not p.stdout,
              p.stdout + p.stderr)


def test_full_stdout():
    """A standard output that cannot be written: one line, status 1, no
    traceback (the C commands say it so too)."""
    if not os.path.exists('/dev/full'):
        return
    with open('/dev/full', 'w') as full:
        p = subprocess.run([sys.executable, TOOL, '--list'], stdout=full, stderr=subprocess.PIPE,
                           universal_newlines=True)
    check('scoreboard --list > /dev/full: one line, status 1',
          p.returncode == 1 and p.stderr.splitlines() ==
          ['scoreboard: cannot write the standard output: No space left on device'], p.stderr)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    bindir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='unit_scoreboard.') as tmp:
        test_good(tmp)
        test_malformed(tmp)
        test_help()
        test_rules()
        test_band()
        test_error_text()
        test_doc_explains_failures()
        test_board_hosts()
        test_readme_count()
        test_full_stdout()
        test_end_to_end(tmp, bindir)
        test_sim_command(tmp, bindir)
    print('%d failed' % len(failures) if failures else 'all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
