#!/usr/bin/env python3
"""tools/scoreboard.py - run the scoreboard: every published figure of the seeds
(scoreboard/*.sb, format in scoreboard/README.md) rendered by locklab-sim, and
judged against its published value by the rules of scoreboard/README.md.

usage: scoreboard.py [--list] [--only ID|FILE.sb,...] [--board DIR] [--bin DIR]
                     [--results DIR] [--jobs N] [--seeds N] [--append 'OPTIONS']
                     [--no-chart]

  --list      print the entries (id, rule, published, machine, metric) and exit
  --only      run only these entries (ids, or .sb files of the board: all
              of each file's entries)
  --board     the directory the entries are read from, its *.sb files
              (default the project's scoreboard/, beside tools/, wherever it
              is run from; so are bin/ and results/ below)
  --bin       the directory of locklab-sim (default bin/)
  --results   where scoreboard.csv and the chart go (default results/; made
              if missing, its parent must exist; with --only or --append the
              files are scoreboard-only.* or scoreboard-append.*, with both
              scoreboard-only-append.*)
  --jobs      commands run at once (default: the number of CPUs)
  --seeds N   run every command with the seeds 1 .. N as well (N from 1 to
              20; default 1): the board is still seed 1's, and a column says
              with how many of the N seeds each entry passes (how robust its
              pass or fail is)
  --append    options added to the end of every baseline and variant command
              ('--idle-states off'): what the board would be with them; not the
              board, so its files are scoreboard-append.* and every line printed
              says what was added
  --no-chart  write no chart

Prints one row per entry (id, published, simulated, error, pass/fail), a
line that says what the columns' signs and ratios mean, one that names the
files written, then "N of M pass" (with --seeds, then how many pass with
every seed and with some). Exit status 0 when every entry ran, 1 when a
command failed or a file could not be written, 2 on a malformed entry or
bad arguments.

This file holds the command line and the run loop (each command of the
board run once, the entries judged); the entries and their parser are in
scoreboard_entries.py, the rules in scoreboard_rules.py, the printed board
in scoreboard_print.py, scoreboard.csv in scoreboard_csv.py and the chart
in scoreboard_chart.py, beside it.
"""

import concurrent.futures
import csv
import difflib
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

# the modules beside this file, read and not cached: the runner writes
# nothing into the source tree
sys.dont_write_bytecode = True
from args_oneline import run_main  # noqa: E402
from scoreboard_chart import chart_caption, draw_chart  # noqa: E402
from scoreboard_csv import write_csv  # noqa: E402
from scoreboard_entries import (CV_RUNS, ROOT, EntryError, command_fault, one_config,  # noqa: E402
                                PROG, parse_board, runners_option, say, shown)
from scoreboard_print import count_line, print_board  # noqa: E402
from scoreboard_rules import judge  # noqa: E402
# more names of those modules, as tests/unit_scoreboard.py reads them
from scoreboard_entries import parse_file, parse_published  # noqa: E402,F401
from scoreboard_print import fmt_error, verdict  # noqa: E402,F401
from scoreboard_rules import band, judge_change, judge_neutral, judge_variance  # noqa: E402,F401

MAX_SEEDS = 20
# As run --jobs: worker processes at once, at most (a larger count is a typo, not a machine).
MAX_JOBS = 4096
ONE_CONFIG = ('lock', 'threads', 'overcommit', 'test', 'mode', 'global',
              'procs')
# How each subcommand takes its output: `run` and the others write
# --format csv --out FILE; `filelock` writes lockperf tables on stdout and
# its rows (one per run) with --csv FILE.
CSV_OPTS = {'filelock': ['--csv']}
DEFAULT_CSV_OPTS = ['--format', 'csv', '--out']


class MetricError(RuntimeError):
    """The metric names a column the command's CSV does not have: the
    entry's fault (a typo), found once the command ran."""


class RefusedError(RuntimeError):
    """locklab-sim refused the command as bad input (exit 2: an unknown
    lock, a value out of range): the entry's fault too, unless --append
    added the option it refused."""


# ---- running ---------------------------------------------------------------

def read_csv_rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def metric_value(fn, column, rows):
    """The metric fn ('mean', 'inv' or 'cv') of column over rows: a finite
    number, or a MetricError that says why there is none (the entry's
    metric is undefined there: the entry's fault, as a missing column is)."""
    vals = []
    for r in rows:
        try:
            vals.append(float(r[column]))
        except (TypeError, ValueError):
            raise MetricError('column %s holds no number (%r)' % (column, r[column]))
        if not math.isfinite(vals[-1]):
            raise MetricError('column %s holds %r, not a finite number' % (column, r[column]))
    mean = math.fsum(vals) / len(vals)
    if fn == 'mean':
        value = mean
    elif fn == 'inv':
        if not mean:
            raise MetricError('inv(%s): the mean of %s is 0, so its inverse is infinite'
                              % (column, column))
        value = 1.0 / mean
    elif len(vals) < 2:
        raise ValueError(CV_RUNS)
    elif not mean:
        raise MetricError('cv(%s): the mean of %s is 0, so sigma/mean is undefined'
                          % (column, column))
    else:
        value = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) / mean
    if not math.isfinite(value):
        raise MetricError('%s(%s) is %r, not a finite number' % (fn, column, value))
    return value


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
            raise (RefusedError if p.returncode == 2 else RuntimeError)(
                'exit %d: %s' % (p.returncode, msg))
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
            raise RuntimeError(one_config('more than one %s' % c))  # the parser's backstop
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
                       bad_metric=isinstance(outcome[k], MetricError),
                       refused=(k, str(outcome[k])) if isinstance(outcome[k], RefusedError)
                       else None)
            return res
    (b, wb), (v, wv) = outcome['baseline'], outcome['variant']
    if e['rule'] == 'variance':
        res['sim'] = (b, v)
    elif not b:  # no change from 0: the entry's metric is undefined here
        return dict(res, failed='baseline: %s is 0, so no change from it is defined'
                    % e['metric'], passed=False, bad_metric=True, refused=None)
    else:
        res['sim'] = (v - b) / b
        if not math.isfinite(res['sim']):
            return dict(res, failed='the change from %r to %r is not a finite number' % (b, v),
                        passed=False, bad_metric=True, refused=None)
    res.update(baseline=b, variant=v, wall=wb + wv)
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


# ---- main ------------------------------------------------------------------

def usage_error(msg):
    say('%s (--help: usage)' % msg)
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
            # an option where the value should be (`--only --no-chart`) is
            # not a value: --append's alone are options
            if i + 1 >= len(argv) or (a != '--append' and argv[i + 1].startswith('--')):
                usage_error('%s: needs a value%s' % (a, '' if i + 1 >= len(argv) else
                            ' (the next argument, %s, is an option)' % shown(argv[i + 1])))
            i += 1
            if argv[i] == '' and a != '--append':  # --append's own check says more
                usage_error('%s: an empty value' % a)
            opts[a[2:]] = argv[i]
        elif a in ('-h', '--help'):
            print('\n\n'.join(__doc__.split('\n\n')[1:4]))  # usage, options, output
            sys.exit(0)
        else:
            usage_error('unknown argument %r' % a)
        i += 1
    try:
        opts['jobs'] = int(opts['jobs'])
        if not 1 <= opts['jobs'] <= MAX_JOBS:
            raise ValueError
    except ValueError:
        usage_error('--jobs: want a whole number from 1 to %d' % MAX_JOBS)
    try:
        opts['seeds'] = int(opts['seeds'])
        if not 1 <= opts['seeds'] <= MAX_SEEDS:
            raise ValueError
    except ValueError:
        usage_error('--seeds: want a whole number from 1 to %d' % MAX_SEEDS)
    parent = os.path.dirname(os.path.abspath(opts['results']))
    if opts['list']:
        pass  # --list writes nothing
    elif not os.path.isdir(parent):
        usage_error('--results %s: its parent directory %s does not exist'
                    % (shown(opts['results']), shown(parent)))
    elif os.path.exists(opts['results']) and not os.path.isdir(opts['results']):
        usage_error('--results %s: not a directory' % shown(opts['results']))
    elif not os.access(opts['results'] if os.path.isdir(opts['results']) else parent,
                       os.W_OK | os.X_OK):
        usage_error('--results %s: not writable' % shown(opts['results']))
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
    want = only.split(',')
    if not any(want):
        usage_error('--only: no entry named')
    if '' in want:
        usage_error('--only: an empty name in %r (a comma too many)' % only)
    twice = sorted({w for w in want if want.count(w) > 1})
    if twice:
        usage_error('--only: %s named twice' % ', '.join(shown(w) for w in twice))
    ids, files = {e['id'] for e in entries}, {e['file'] for e in entries}
    for w in want:
        if w.endswith('.sb') and w not in files:
            usage_error('--only: no file %s on the board' % shown(w))
        if not w.endswith('.sb') and w not in ids:
            usage_error('--only: no entry %s' % shown(w))
    return [e for e in entries if e['id'] in want or e['file'] in want]


def appended_refused(results):
    """The message of a command line refused (exit 2) by every command, or
    None: what --append added is then bad input, not a result."""
    msgs = [r.get('failed', '') for r in results.values()]
    if not msgs or not all(re.match(r'(baseline|variant): exit 2: ', m) for m in msgs):
        return None
    return msgs[0].split(': ', 2)[2]


def shown_path(path):
    """path as the user would type it: relative to the current directory when
    inside it."""
    rel = os.path.relpath(path)
    return shown(path if rel.startswith('..') else rel)


def list_entries(entries):
    """A line an entry, under a heading that says whose figure 'published'
    is (the seed's, not a simulated one)."""
    print('# id  rule  published (the seed\'s figure; variance: the two sigma/means)  machine  '
          'metric (+ is slower in seconds, faster in throughput)')
    for e in entries:
        print('%s  %s  %s  %s  %s' % (e['id'], e['rule'], e['published'],
                                      e['machine'], e['metric']))


def main(argv):
    opts = parse_args(argv)
    try:
        entries = parse_board(opts['board'], os.path.join(ROOT, 'topologies'))
    except (EntryError, OSError) as e:
        say(str(e))
        return 2
    if not entries:
        say('%s: no entries (no .sb file, or only comments)' % shown(opts['board']))
        return 2
    entries = select(entries, opts['only'])
    if opts['list']:
        list_entries(entries)
        return 0
    binary = os.path.join(os.path.abspath(opts['bin']), 'locklab-sim')
    if not os.access(binary, os.X_OK):
        say('no %s (build it: scons)' % shown(binary))
        return 2
    # a part of the board (--only), or another board (--append), does not
    # replace the whole board's files
    name = 'scoreboard' + ('-only' if opts['only'] else '') + \
        ('-append' if opts['append'] else '')
    csvpath = os.path.join(opts['results'], name + '.csv')
    walls = previous_walls(os.path.join(opts['results'], 'scoreboard.csv'))
    if opts['append']:
        append_options(entries, opts['append_argv'])
        for e in entries:  # what the options make of a command, found before it runs
            for k in ('baseline', 'variant'):
                why = command_fault(e['argv'][k], e['fn'])
                if why:
                    usage_error('--append %s: %s: %s: %s' % (
                        shlex.quote(opts['append']), e['id'], k, why))
    results = run_board(binary, entries, opts['jobs'], walls, opts['seeds'])
    refused = appended_refused(results) if opts['append'] else None
    if refused:  # a typo in --append, not entries that failed: one line, as for any bad input
        say('--append %s: every command refused it: %s' % (shlex.quote(opts['append']), refused))
        return 2
    try:
        write_csv(csvpath, entries, results, opts['seeds'], opts['append'])
    except OSError as e:  # the board is still printed, its file not written
        say('%s: %s' % (shown(csvpath), e.strerror or e))
        print_board(entries, results, opts['seeds'], opts['append'])
        return 1
    wrote = shown_path(csvpath)
    ok = all('failed' not in r for r in results.values())
    bad = [e for e in entries if results[e['id']].get('bad_metric')]
    for e in bad:  # a typo in the board, not a failure of the model
        say('%s: metric: %s' % (e['at'].get('metric', e['where']), results[e['id']]['failed']))
    refused = [] if opts['append'] else [e for e in entries if results[e['id']].get('refused')]
    for e in refused:  # the entry's command is bad input: the board's fault as well
        k, why = results[e['id']]['refused']
        say('%s: %s: locklab-sim refused it (%s)' % (e['at'].get(k, e['where']), k, why))
    bad += refused
    if opts['chart'] and entries:
        count = count_line(entries, results, opts['append'])
        if opts['only']:  # a part of the board: its count is not the board's
            count = 'a part of the board (--only): ' + count
        drawn = draw_chart(csvpath, os.path.join(opts['results'], name), chart_caption(count))
        ok &= drawn
        if drawn:
            wrote += ' and its chart, %s.svg and .png' % shown_path(
                os.path.join(opts['results'], name))
    # the board last, its count the last line: the files it names are written
    print_board(entries, results, opts['seeds'], opts['append'], wrote)
    return 2 if bad else 0 if ok else 1


if __name__ == '__main__':  # a standard output that cannot be written: one line, status 1
    sys.exit(run_main(PROG, main, sys.argv[1:]))
