#!/usr/bin/env python3
"""tools/scoreboard.py - run the scoreboard: every published figure of the seeds
(scoreboard/*.sb, format in scoreboard/README.md) rendered by locklab-sim, and
judged against its published value by the rules of scoreboard/README.md.

usage: scoreboard.py [--list] [--only ID|FILE.sb,...] [--board DIR] [--bin DIR]
                     [--results DIR] [--jobs N] [--seeds N] [--append 'OPTIONS']
                     [--no-chart]

  --list      print the entries (id, rule, published, machine) and exit
  --only      run only these entries (ids, or .sb files of the board: all
              of each file's entries)
  --board     the directory of *.sb files (default scoreboard/)
  --bin       the directory of locklab-sim (default bin/)
  --results   where scoreboard.csv and the chart go (default results/)
  --jobs      commands run at once (default: the number of CPUs)
  --seeds N   run every command with the seeds 1 .. N as well (default 1):
              the board is still seed 1's, and a column says with how many
              of the N seeds each entry passes (how robust its pass or fail is)
  --append    options added to the end of every baseline and variant command
              ('--idle-states off'): what the board would be with them; not the
              board, so its files are scoreboard-append.* and every line printed
              says what was added
  --no-chart  write no chart

Prints one row per entry (id, published, simulated, error, pass/fail), then
"N of M pass" (with --seeds, then how many pass with every seed and with some). Exit status 0 when every entry ran, 1 when a command failed
or the chart could not be drawn, 2 on a malformed entry or bad arguments.
"""

import concurrent.futures
import csv
import difflib
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import report  # tools/report.py: write_whole, a results file written whole

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KEYS = ('id', 'source', 'machine', 'baseline', 'variant', 'metric',
        'published', 'rule', 'mapping', 'lacks', 'proxy')
REQUIRED = KEYS[:8]
RULES = ('change', 'neutral', 'variance')
FORBIDDEN = ('--topo', '--format', '--out', '--csv', '--json',
             '--threads-csv', '--graphs', '--progress', '--seed')
MAX_SEEDS = 20
# How errors name the runner: `locklab-sim scoreboard` says it ran it
# (sim/scoreboard_cmd.c sets this), as its own errors are said.
PROG = os.environ.get('LOCKLAB_SCOREBOARD_PROG', 'scoreboard')
APPEND_NOTE = 'not the board: every command with %s appended'
ONE_CONFIG = ('lock', 'threads', 'overcommit', 'test', 'mode', 'global',
              'procs')
# How each subcommand takes its output: `run` and the others write
# --format csv --out FILE; `filelock` writes lockperf tables on stdout and
# its rows (one per run) with --csv FILE.
CSV_OPTS = {'filelock': ['--csv']}
DEFAULT_CSV_OPTS = ['--format', 'csv', '--out']
NEUTRAL_BAND = 0.05
NEUTRAL_PASS = 0.15
FACTOR = 2.0
EPS = 1e-9

ID_RE = re.compile(r'^[0-9]{3}-[a-z0-9][a-z0-9.-]*$')
PCT_RE = re.compile(r'^([+-])(\d+(?:\.\d+)?)%$')
NUM_RE = re.compile(r'^(\d+(?:\.\d+)?)(%?)$')
METRIC_RE = re.compile(r'^(?:(inv|cv)\(([a-z0-9_]+)\)|([a-z0-9_]+))$')
PROXY_RE = re.compile(r'^[A-Za-z0-9_.-]+$')


class EntryError(Exception):
    """One malformed entry: its message is FILE:LINE: text."""


class MetricError(RuntimeError):
    """The metric names a column the command's CSV does not have: the
    entry's fault (a typo), found once the command ran."""


# ---- parsing ---------------------------------------------------------------

def parse_percent(text):
    """'+64.2%' -> 0.642; None when malformed (the sign is required)."""
    m = PCT_RE.match(text)
    if not m:
        return None
    v = float(m.group(2)) / 100.0
    return -v if m.group(1) == '-' else v


def parse_cv(text):
    """'0.12' or '12%' -> 0.12; None when malformed."""
    m = NUM_RE.match(text.strip())
    if not m:
        return None
    v = float(m.group(1))
    return v / 100.0 if m.group(2) else v


def parse_published(rule, text, where):
    if rule == 'variance':
        parts = text.split('/')
        vals = [parse_cv(p) for p in parts] if len(parts) == 2 else [None]
        if None in vals:
            raise EntryError('%s: published: want two sigma/mean values '
                             '"A / B", got %r' % (where, text))
        return tuple(vals)
    v = parse_percent(text)
    if v is None:
        raise EntryError('%s: published: want a signed percentage like '
                         '+64.2%%, got %r' % (where, text))
    if rule == 'neutral' and abs(v) >= NEUTRAL_BAND:
        raise EntryError('%s: published: %s is not neutral (|change| < 5%%):'
                         ' use rule = change' % (where, text))
    if rule == 'change' and abs(v) < NEUTRAL_BAND:
        raise EntryError('%s: published: %s is under 5%%: use rule = neutral'
                         % (where, text))
    return v


def parse_command(key, text, where):
    try:
        argv = shlex.split(text)
    except ValueError as e:
        raise EntryError('%s: %s: %s' % (where, key, e))
    if not argv or argv[0].startswith('-'):
        raise EntryError('%s: %s: must start with a subcommand (run, ...)'
                         % (where, key))
    opt = runners_option(argv)
    if opt:
        raise EntryError('%s: %s: %s is the runner\'s to give' % (where, key, opt))
    return argv


def runners_option(argv):
    """The first option of argv that only the runner gives (--topo, --seed,
    the output's), or None."""
    for a in argv:
        opt = a.split('=', 1)[0]
        if opt in FORBIDDEN:
            return opt
    return None


def check_entry(e, where, topodir):
    """WHERE: the entry's first line; each key's fault is said at its own."""
    at = lambda k: e.get('at', {}).get(k, where)  # noqa: E731
    for k in REQUIRED:
        if k not in e:
            raise EntryError('%s: entry %s has no %s'
                             % (where, e.get('id', '?'), k))
    if not ID_RE.match(e['id']):
        raise EntryError('%s: id: %r is not NNN-name (lowercase, digits, '
                         '-, .)' % (at('id'), e['id']))
    if e['rule'] not in RULES:
        raise EntryError('%s: rule: %r is not change, neutral or variance'
                         % (at('rule'), e['rule']))
    m = METRIC_RE.match(e['metric'])
    if not m:
        raise EntryError('%s: metric: %r is not COLUMN, inv(COLUMN) or '
                         'cv(COLUMN)' % (at('metric'), e['metric']))
    e['fn'] = m.group(1) or 'mean'
    e['column'] = m.group(2) or m.group(3)
    if (e['rule'] == 'variance') != (e['fn'] == 'cv'):
        raise EntryError('%s: metric: a variance entry, and only one, takes '
                         'cv(COLUMN)' % at('metric'))
    if not os.path.isfile(os.path.join(topodir, e['machine'] + '.xml')):
        raise EntryError('%s: machine: no topologies/%s.xml'
                         % (at('machine'), e['machine']))
    if 'proxy' in e and not PROXY_RE.match(e['proxy']):
        raise EntryError('%s: proxy: %r is not the name of the test whose workload the '
                         'entry runs (a word)' % (at('proxy'), e['proxy']))
    e['pub'] = parse_published(e['rule'], e['published'], at('published'))
    e['argv'] = {k: parse_command(k, e[k], at(k))
                 for k in ('baseline', 'variant')}


def parse_file(path, topodir):
    """The entries of one .sb file, in order; raises EntryError."""
    entries, cur, last = [], None, None
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, raw in enumerate(lines + [''], 1):
        line = raw.rstrip()
        where = '%s:%d' % (path, n)
        if line.startswith('#'):
            continue
        if not line:
            if cur is not None:
                check_entry(cur, cur['where'], topodir)
                entries.append(cur)
            cur, last = None, None
            continue
        if line[0] in ' \t':
            if last is None:
                raise EntryError('%s: a continuation line with no key above'
                                 % where)
            cur[last] += ' ' + line.strip()
            continue
        key, eq, value = line.partition('=')
        key = key.strip()
        if not eq or not key:
            raise EntryError('%s: want "key = value", got %r' % (where, line))
        if key not in KEYS:
            raise EntryError('%s: unknown key %r' % (where, key))
        if cur is None:
            cur = {'where': where, 'file': os.path.basename(path), 'at': {}}
        if key in cur:
            raise EntryError('%s: %s given twice in one entry' % (where, key))
        cur[key], last = value.strip(), key
        cur['at'][key] = where
    return entries


def parse_board(board, topodir):
    try:
        files = sorted(f for f in os.listdir(board) if f.endswith('.sb'))
    except OSError as e:
        raise EntryError('--board %s: %s' % (board, e.strerror))
    entries, seen = [], {}
    for f in files:
        for e in parse_file(os.path.join(board, f), topodir):
            if e['id'] in seen:
                raise EntryError('%s: id %s given twice (first at %s)'
                                 % (e['where'], e['id'], seen[e['id']]))
            seen[e['id']] = e['where']
            entries.append(e)
    return entries


# ---- rules -----------------------------------------------------------------

def within_factor(x, ref):
    """Same sign as ref and x/ref in [1/FACTOR, FACTOR], ends included."""
    if ref == 0:
        return False
    r = x / ref
    return 1.0 / FACTOR - EPS <= r <= FACTOR + EPS


def judge_change(pub, sim):
    """(passed, error): error is simulated / published."""
    return within_factor(sim, pub), sim / pub


def judge_neutral(pub, sim):
    """(passed, error): error is the simulated change itself, which the rule
    judges against +-15% (not its distance from the published change)."""
    return abs(sim) <= NEUTRAL_PASS + EPS, sim


def same_order(pub, sim):
    """pub, sim: (baseline, variant) pairs ordered alike (ties alike too)."""
    (pb, pv), (sb, sv) = pub, sim
    return (pb > pv) - (pb < pv) == (sb > sv) - (sb < sv)


def judge_variance(pub, sim):
    """pub, sim: (baseline cv, variant cv). (passed, error): error is the
    larger simulated / the larger published."""
    big_pub, big_sim = max(pub), max(sim)
    err = big_sim / big_pub if big_pub else float('inf')
    return same_order(pub, sim) and within_factor(big_sim, big_pub), err


def judge(rule, pub, sim):
    return {'change': judge_change, 'neutral': judge_neutral,
            'variance': judge_variance}[rule](pub, sim)


# ---- running ---------------------------------------------------------------

def read_csv_rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def metric_value(fn, column, rows):
    try:
        vals = [float(r[column]) for r in rows]
    except ValueError:
        raise MetricError('column %s holds no number (%r)' % (column, rows[0][column]))
    mean = sum(vals) / len(vals)
    if fn == 'mean':
        return mean
    if fn == 'inv':
        return 1.0 / mean if mean else float('inf')
    if len(vals) < 2:
        raise ValueError('cv() needs at least 2 runs')
    var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)
    return math.sqrt(var) / mean if mean else float('inf')


def run_command(binary, machine, argv, fn, column):
    """Runs one command; returns (value, wall seconds); raises RuntimeError."""
    fd, out = tempfile.mkstemp(prefix='scoreboard-', suffix='.csv')
    os.close(fd)
    cmd = [binary, argv[0], '--topo', machine] + argv[1:] + \
          CSV_OPTS.get(argv[0], DEFAULT_CSV_OPTS) + [out]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, cwd=ROOT)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            msg = (p.stderr.strip().splitlines() or ['no message'])[-1]
            raise RuntimeError('exit %d: %s' % (p.returncode, msg))
        rows = read_csv_rows(out)
    finally:
        os.unlink(out)
    if not rows:
        raise RuntimeError('no rows')
    if column not in rows[0]:
        near = difflib.get_close_matches(column, list(rows[0]), 1)
        raise MetricError('no column %s in the CSV%s' % (column, ' (did you mean %s?)' % near[0]
                                                         if near else ''))
    for c in ONE_CONFIG:
        if c in rows[0] and len({r[c] for r in rows}) > 1:
            raise RuntimeError('more than one %s: one configuration only' % c)
    try:
        return metric_value(fn, column, rows), wall
    except (ValueError, ZeroDivisionError) as e:
        raise RuntimeError('%s: %s' % (column, e))


def seeded(argv, seed):
    """argv with seed `seed`: as it stands for seed 1 (every subcommand's
    default), with --seed given for another."""
    return list(argv) if seed == 1 else list(argv) + ['--seed', str(seed)]


def try_command(binary, e, k, seed=1):
    """run_command for command k ('baseline' or 'variant') of entry e with
    that seed: its (value, wall) or the RuntimeError it raised."""
    try:
        return run_command(binary, e['machine'], seeded(e['argv'][k], seed), e['fn'],
                           e['column'])
    except RuntimeError as err:
        return err


def entry_result(e, outcome):
    """The result dict of entry e from the outcomes of its two commands."""
    res = {'id': e['id']}
    for k in ('baseline', 'variant'):
        if isinstance(outcome[k], RuntimeError):
            res.update(failed='%s: %s' % (k, outcome[k]), passed=False,
                       bad_metric=isinstance(outcome[k], MetricError))
            return res
    (b, wb), (v, wv) = outcome['baseline'], outcome['variant']
    res.update(baseline=b, variant=v, wall=wb + wv)
    if e['rule'] == 'variance':
        res['sim'] = (b, v)
    else:
        res['sim'] = (v - b) / b if b else float('inf')
    res['passed'], res['error'] = judge(e['rule'], e['pub'], res['sim'])
    return res


def previous_walls(csvpath):
    """Each entry's wall_s in an earlier scoreboard.csv ({} when none)."""
    try:
        return {r['id']: float(r['wall_s']) for r in read_csv_rows(csvpath)
                if r.get('wall_s') not in (None, '')}
    except (OSError, ValueError, KeyError):
        return {}


def command_key(e, k):
    """What identifies command k of entry e: two entries that run the same
    command on the same machine and read the same metric share one run
    (seed 003's HT-on tables compare two kernels with one baseline)."""
    return (e['machine'], tuple(e['argv'][k]), e['fn'], e['column'])


def run_board(binary, entries, jobs, walls, seeds=1):
    """Every distinct command of the board once per seed 1 .. seeds, `jobs`
    at once, the two commands of an entry apart, the longest first by the
    last run's times (walls), so that the board ends when its longest
    command does rather than when the last entry that happened to start
    late does.  Returns {id: result}, the results of seed 1, each with
    'seeds_passed': with how many of the seeds the entry passes."""
    cmds = {}
    for e in entries:
        for k in ('baseline', 'variant'):
            for seed in range(1, seeds + 1):
                key = command_key(e, k) + (seed,)
                cost = walls.get(e['id'], 0.0)
                if key not in cmds or cmds[key][2] < cost:
                    cmds[key] = (e, k, cost)
    order = sorted(cmds, key=lambda key: -cmds[key][2])
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        futs = {key: pool.submit(try_command, binary, cmds[key][0], cmds[key][1], key[-1])
                for key in order}
        done = {key: f.result() for key, f in futs.items()}
    results = {}
    for e in entries:
        by_seed = [entry_result(e, {k: done[command_key(e, k) + (seed,)]
                                    for k in ('baseline', 'variant')})
                   for seed in range(1, seeds + 1)]
        results[e['id']] = by_seed[0]
        by_seed[0]['seeds_passed'] = sum(1 for r in by_seed if r['passed'])
    return results


# ---- printing --------------------------------------------------------------

def fmt_pct(x):
    return '%+.1f%%' % (100.0 * x)


def fmt_sim(rule, sim):
    if rule == 'variance':
        return '%.3f / %.3f' % sim
    return fmt_pct(sim)


def wrong_way(rule, pub, sim):
    """'wrong sign' for a change of the other sign than the published one,
    'wrong order' for variances in the other order, else None: where no
    factor between simulated and published means anything."""
    if rule == 'change' and sim * pub < 0:
        return 'wrong sign'
    if rule == 'variance' and not same_order(pub, sim):
        return 'wrong order'
    return None


def fmt_error(rule, pub, sim, err):
    """The error as the board prints it: for a neutral entry the simulated
    change against the band it is judged by, a factor otherwise, or what is
    wrong when no factor means anything."""
    if rule == 'neutral':
        return '%s of +-%.0f%%' % (fmt_pct(sim), 100.0 * NEUTRAL_PASS)
    return wrong_way(rule, pub, sim) or 'x%.2f' % err


def verdict(e, passed):
    """pass or FAIL; a proxy entry (another test's workload) says so."""
    word = 'pass' if passed else 'FAIL'
    return word + ' (proxy: %s)' % e['proxy'] if 'proxy' in e else word


def board_rows(entries, results):
    rows = []
    for e in entries:
        r = results[e['id']]
        if 'failed' in r:
            rows.append((e['id'], e['published'], 'error', r['failed'],
                         verdict(e, False)))
            continue
        rows.append((e['id'], e['published'], fmt_sim(e['rule'], r['sim']),
                     fmt_error(e['rule'], e['pub'], r['sim'], r['error']),
                     verdict(e, r['passed'])))
    return rows


def print_board(entries, results, seeds=1, append=None):
    """The board; with seeds > 1, a column of how many seeds each entry
    passes with, and a line that counts them; with options appended to
    every command, a first and a last line that say so."""
    if append:
        print(APPEND_NOTE % append)
    head = ('id', 'published', 'simulated', 'error', 'result')
    rows = board_rows(entries, results)
    w = [max(len(x[i]) for x in rows + [head]) for i in range(4)]
    line = '%-*s  %*s  %*s  %*s  %s'
    if seeds > 1:
        w.append(max(len(x[4]) for x in rows + [head]))
        line = '%-*s  %*s  %*s  %*s  %-*s  %s'
        print(line % (w[0], head[0], w[1], head[1], w[2], head[2], w[3], head[3], w[4],
                      head[4], 'seeds passing'))
        for x, e in zip(rows, entries):
            print(line % (w[0], x[0], w[1], x[1], w[2], x[2], w[3], x[3], w[4], x[4],
                          seeds_cell(results[e['id']], seeds)))
    else:
        print(line % (w[0], head[0], w[1], head[1], w[2], head[2], w[3], head[3],
                      head[4]))
        for x in rows:
            print(line % (w[0], x[0], w[1], x[1], w[2], x[2], w[3], x[3], x[4]))
    print(count_line(entries, results, append), flush=True)
    if seeds > 1:
        print(seeds_line(entries, results, seeds), flush=True)


def seeds_cell(r, seeds):
    """'2/3': with how many of the seeds 1 .. seeds the entry passes."""
    return '%d/%d' % (r['seeds_passed'], seeds)


def seeds_line(entries, results, seeds):
    """How robust the count is: the entries that pass with every seed, and
    those whose pass or fail turns on the seed (seed 1's verdict not
    shared by every other)."""
    every = [e['id'] for e in entries if results[e['id']]['seeds_passed'] == seeds]
    some = [e['id'] for e in entries if 0 < results[e['id']]['seeds_passed'] < seeds]
    return ('with seeds 1 to %d: %d of %d pass with every seed; %d pass with some seeds '
            'and fail with others (%s)' % (seeds, len(every), len(entries), len(some),
                                           ', '.join(some) or 'none'))


def count_line(entries, results, append=None):
    """'14 of 48 pass', and how many of the passes are proxies: entries that
    run another test's workload, the seed's own not being modelled; with
    options appended, '... pass with --idle-states off appended'."""
    npass = sum(1 for e in entries if results[e['id']]['passed'])
    text = '%d of %d pass' % (npass, len(entries))
    if append:
        text += ' with %s appended to every command' % append
    proxies = [e for e in entries if 'proxy' in e]
    if proxies:
        won = [e['id'] for e in proxies if results[e['id']]['passed']]
        text += ('; %d of them by a proxy (another test\'s workload: %s), so %d of the %d '
                 'entries that run their own test pass' % (len(won), ', '.join(won) or 'none',
                                                      npass - len(won),
                                                      len(entries) - len(proxies)))
    return text


def chart_caption(text, width=96):
    """The count line as the chart's caption: a line for each of its parts,
    each wrapped to width characters, so that none runs off the canvas."""
    return '\n'.join(textwrap.fill(part, width, break_on_hyphens=False, break_long_words=False)
                     for part in text.split('; '))


CSV_HEAD = ('id,file,machine,rule,metric,published,published_change,'
            'baseline,variant,simulated_change,error,pass,wall_s,proxy,band,failure,'
            'seeds_passed,appended')


def csv_field(x):
    x = str(x)
    if any(c in x for c in ',"\n'):
        x = '"' + x.replace('"', '""') + '"'
    return x


def as_change(rule, x):
    """A change as the CSV gives it: '' for a variance entry, whose rule
    judges the two sigma/means (its published and simulated columns), not
    their change."""
    return '' if rule == 'variance' else '%.6f' % x


def band(rule, pub, sim):
    """Where sim lies against the rule's pass band, scaled so that the band
    is [-1, 1]: log2(simulated / published) for a change, log2(the larger
    simulated sigma/mean / the larger published) for a variance, the
    simulated change / 15% for a neutral entry.  None when the sign of a
    change or the order of a variance is wrong (no place on that scale)."""
    if rule == 'neutral':
        return sim / NEUTRAL_PASS
    if not pub or wrong_way(rule, pub, sim):
        return None
    err = judge(rule, pub, sim)[1]  # simulated / published
    return math.log2(err) if 0 < err < float('inf') else None


def csv_line(e, r, seeds=1, append=None):
    pub_change = as_change(e['rule'], e['pub'])
    if 'failed' in r:
        vals = ['', '', '', '', 'false', '', e.get('proxy', ''), '', r['failed']]
    else:
        sim = as_change(e['rule'], r['sim'])
        b = band(e['rule'], e['pub'], r['sim'])
        vals = ['%.6g' % r['baseline'], '%.6g' % r['variant'], sim,
                '%.6f' % r['error'], 'true' if r['passed'] else 'false',
                '%.2f' % r['wall'], e.get('proxy', ''), '' if b is None else '%.6f' % b, '']
    vals.append(seeds_cell(r, seeds) if seeds > 1 else '')
    vals.append(append or '')
    return ','.join(csv_field(x) for x in
                    [e['id'], e['file'], e['machine'], e['rule'], e['metric'],
                     e['published'], pub_change] + vals)


def write_csv(path, entries, results, seeds=1, append=None):
    """Writes the whole file under a temporary name, then renames it."""
    d = os.path.dirname(path) or '.'
    os.makedirs(d, exist_ok=True)
    lines = [CSV_HEAD] + [csv_line(e, results[e['id']], seeds, append) for e in entries]
    report.write_whole(path, '\n'.join(lines) + '\n')  # 0644, not mkstemp's 0600


def draw_chart(csvpath, out, count):
    """plots/scoreboard.gp: each entry against its pass band, the count line
    under the title; False on failure."""
    script = os.path.join(ROOT, 'plots', 'scoreboard.gp')
    argv = ['gnuplot', '-e', "datafile='%s'; out='%s'; count='%s'"
            % (csvpath, out, count.replace("'", "''")), script]
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    except OSError as e:
        sys.stderr.write(PROG + ': cannot run gnuplot: %s\n' % e)
        return False
    if p.returncode != 0:
        sys.stderr.write(PROG + ': gnuplot failed:\n%s' % p.stderr)
        return False
    return True


# ---- main ------------------------------------------------------------------

def usage_error(msg):
    sys.stderr.write(PROG + ': %s (--help: usage)\n' % msg)
    sys.exit(2)


def parse_args(argv):
    opts = {'board': os.path.join(ROOT, 'scoreboard'),
            'bin': os.path.join(ROOT, 'bin'),
            'results': os.path.join(ROOT, 'results'),
            'jobs': os.cpu_count() or 1, 'seeds': '1', 'only': None, 'list': False,
            'chart': True, 'append': None}
    i, seen = 0, set()
    while i < len(argv):
        a = argv[i]
        if a in seen and a not in ('-h', '--help'):
            usage_error('%s given twice (the second would silently win)' % a)
        seen.add(a)
        if a == '--list':
            opts['list'] = True
        elif a == '--no-chart':
            opts['chart'] = False
        elif a in ('--only', '--board', '--bin', '--results', '--jobs', '--seeds', '--append'):
            if i + 1 >= len(argv):
                usage_error('%s needs a value' % a)
            i += 1
            opts[a[2:]] = argv[i]
        elif a in ('-h', '--help'):
            print(__doc__.split('\n\n')[1])
            sys.exit(0)
        else:
            usage_error('unknown argument %r' % a)
        i += 1
    try:
        opts['jobs'] = int(opts['jobs'])
        if opts['jobs'] < 1:
            raise ValueError
    except ValueError:
        usage_error('--jobs: want a whole number >= 1')
    try:
        opts['seeds'] = int(opts['seeds'])
        if not 1 <= opts['seeds'] <= MAX_SEEDS:
            raise ValueError
    except ValueError:
        usage_error('--seeds: want a whole number from 1 to %d' % MAX_SEEDS)
    if opts['append'] is not None:
        opts['append_argv'] = parse_append(opts['append'])
        opts['append'] = ' '.join(shlex.quote(a) for a in opts['append_argv'])
    return opts


def parse_append(text):
    """--append's options as a list: options only (no subcommand), none that
    the runner gives."""
    try:
        argv = shlex.split(text)
    except ValueError as e:
        usage_error('--append: %s' % e)
    if not argv:
        usage_error('--append: no option given')
    if not argv[0].startswith('-'):
        usage_error('--append: %r is not an option (the entries give the subcommand)' % argv[0])
    opt = runners_option(argv)
    if opt:
        usage_error('--append: %s is the runner\'s to give' % opt)
    return argv


def option_groups(argv):
    """argv (options only) as [(name, tokens)]: each option with the words
    after it that are not options (its value), `--x=v` as one word."""
    groups = []
    for tok in argv:
        if tok.startswith('--') or not groups:
            groups.append((tok.split('=', 1)[0], [tok]))
        else:
            groups[-1][1].append(tok)
    return groups


def with_options(cmd, argv):
    """cmd (a subcommand and its options) with the options of argv: one
    that cmd already has takes argv's value in its place (locklab-sim
    refuses an option given twice), the others go at the end."""
    groups = option_groups(cmd[1:])
    names = [n for n, _ in groups]
    for name, toks in option_groups(argv):
        if name in names:
            groups[names.index(name)] = (name, toks)
        else:
            groups.append((name, toks))
            names.append(name)
    return cmd[:1] + [t for _, toks in groups for t in toks]


def append_options(entries, argv):
    """Every entry's two commands with the options of argv (with_options;
    a command that two entries share stays shared)."""
    for e in entries:
        for k in ('baseline', 'variant'):
            e['argv'][k] = with_options(e['argv'][k], argv)


def select(entries, only):
    """The entries --only names: ids, and .sb files of the board (every entry
    of the file), in board order."""
    if only is None:
        return entries
    want = [x for x in only.split(',') if x]
    if not want:
        usage_error('--only: no entry named')
    ids, files = {e['id'] for e in entries}, {e['file'] for e in entries}
    for w in want:
        if w.endswith('.sb') and w not in files:
            usage_error('--only: no file %s on the board' % w)
        if not w.endswith('.sb') and w not in ids:
            usage_error('--only: no entry %s' % w)
    return [e for e in entries if e['id'] in want or e['file'] in want]


def appended_refused(results):
    """The message of a command line refused (exit 2) by every command, or
    None: what --append added is then bad input, not a result."""
    msgs = [r.get('failed', '') for r in results.values()]
    if not msgs or not all(re.match(r'(baseline|variant): exit 2: ', m) for m in msgs):
        return None
    return msgs[0].split(': ', 2)[2]


def list_entries(entries):
    """A line an entry, under a heading that says whose figure 'published'
    is (the seed's, not a simulated one)."""
    print('# id  rule  published (the seed\'s figure; variance: the two sigma/means)  machine')
    for e in entries:
        print('%s  %s  %s  %s' % (e['id'], e['rule'], e['published'],
                                  e['machine']))


def main(argv):
    opts = parse_args(argv)
    try:
        entries = parse_board(opts['board'], os.path.join(ROOT, 'topologies'))
    except (EntryError, OSError) as e:
        sys.stderr.write(PROG + ': %s\n' % e)
        return 2
    if not entries:
        sys.stderr.write(PROG + ': %s: no entries (no .sb file, or only comments)\n'
                         % opts['board'])
        return 2
    entries = select(entries, opts['only'])
    if opts['list']:
        list_entries(entries)
        return 0
    binary = os.path.join(os.path.abspath(opts['bin']), 'locklab-sim')
    if not os.access(binary, os.X_OK):
        sys.stderr.write(PROG + ': no %s (build it: scons)\n' % binary)
        return 2
    # a part of the board (--only), or another board (--append), does not
    # replace the whole board's files
    name = 'scoreboard' + ('-only' if opts['only'] else '') + \
        ('-append' if opts['append'] else '')
    csvpath = os.path.join(opts['results'], name + '.csv')
    walls = previous_walls(os.path.join(opts['results'], 'scoreboard.csv'))
    if opts['append']:
        append_options(entries, opts['append_argv'])
    results = run_board(binary, entries, opts['jobs'], walls, opts['seeds'])
    refused = appended_refused(results) if opts['append'] else None
    if refused:  # a typo in --append, not entries that failed: one line, as for any bad input
        sys.stderr.write(PROG + ': --append %s: every command refused it: %s\n'
                         % (shlex.quote(opts['append']), refused))
        return 2
    print_board(entries, results, opts['seeds'], opts['append'])
    write_csv(csvpath, entries, results, opts['seeds'], opts['append'])
    ok = all('failed' not in r for r in results.values())
    bad = [e for e in entries if results[e['id']].get('bad_metric')]
    for e in bad:  # a typo in the board, not a failure of the model
        sys.stderr.write(PROG + ': %s: metric: %s\n' % (e['at'].get('metric', e['where']),
                                                          results[e['id']]['failed']))
    if opts['chart'] and entries:
        count = count_line(entries, results, opts['append'])
        if opts['only']:  # a part of the board: its count is not the board's
            count = 'a part of the board (--only): ' + count
        ok &= draw_chart(csvpath, os.path.join(opts['results'], name), chart_caption(count))
    return 2 if bad else 0 if ok else 1


class StdoutError(Exception):
    """A write to the standard output failed (a full disk, /dev/full)."""


class CheckedStdout:
    """sys.stdout whose write and flush failures are StdoutError, told apart
    from a result file that cannot be written."""

    def __init__(self, f):
        self.f = f

    def write(self, text):
        try:
            return self.f.write(text)
        except OSError as e:
            raise StdoutError(e.strerror) from e

    def flush(self):
        try:
            self.f.flush()
        except OSError as e:
            raise StdoutError(e.strerror) from e

    def __getattr__(self, name):
        return getattr(self.f, name)


def main_flushed(argv):
    """main, then stdout flushed: a standard output that cannot be written
    is one line and status 1, as the C commands say it, not a traceback."""
    sys.stdout = CheckedStdout(sys.stdout)
    try:
        rc = main(argv)
        sys.stdout.flush()
        return rc
    except StdoutError as e:
        try:
            sys.stdout = open(os.devnull, 'w')  # the interpreter's own flush at exit
        except OSError:
            pass
        sys.stderr.write(PROG + ': cannot write the standard output: %s\n' % e)
        return 1


if __name__ == '__main__':
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head`: end quietly
    sys.exit(main_flushed(sys.argv[1:]))
