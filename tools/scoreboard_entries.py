#!/usr/bin/env python3
"""tools/scoreboard_entries.py - the scoreboard's entries: the keys of an
entry of scoreboard/*.sb (format in scoreboard/README.md), the parser of a
.sb file and of the board, and the checks of each entry's values; and the
two names every part of the runner shares, ROOT (the repository, where the
board, topologies/ and plots/ are) and PROG (how the runner's messages name
it).  tools/scoreboard.py runs the board.
"""

import os
import re
import shlex

from scoreboard_rules import NEUTRAL_BAND

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KEYS = ('id', 'source', 'machine', 'baseline', 'variant', 'metric',
        'published', 'rule', 'mapping', 'lacks', 'proxy')
REQUIRED = KEYS[:8]
RULES = ('change', 'neutral', 'variance')
FORBIDDEN = ('--topo', '--format', '--out', '--csv', '--json',
             '--threads-csv', '--graphs', '--progress', '--seed')
# How errors name the runner: `locklab-sim scoreboard` says it ran it
# (sim/scoreboard_cmd.c sets this), as its own errors are said.
PROG = os.environ.get('LOCKLAB_SCOREBOARD_PROG', 'scoreboard')

ID_RE = re.compile(r'^[0-9]{3}-[a-z0-9][a-z0-9.-]*$')
PCT_RE = re.compile(r'^([+-])(\d+(?:\.\d+)?)%$')
NUM_RE = re.compile(r'^(\d+(?:\.\d+)?)(%?)$')
METRIC_RE = re.compile(r'^(?:(inv|cv)\(([a-z0-9_]+)\)|([a-z0-9_]+))$')
PROXY_RE = re.compile(r'^[A-Za-z0-9_.-]+$')


class EntryError(Exception):
    """One malformed entry: its message is FILE:LINE: text."""


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
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
    except UnicodeDecodeError as e:
        raise EntryError('%s: not UTF-8 text (byte %d)' % (path, e.start))
    except OSError as e:
        raise EntryError('%s: cannot be read: %s' % (path, e.strerror))
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
