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
import sys
import unicodedata

from args_oneline import one_line
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
# Options whose value may list configurations (a sweep: `--threads 1,2,4`),
# and the flags of filelock's two modes: a command renders one configuration.
LIST_OPTS = ('--lock', '--threads', '--overcommit', '--test')
MODE_FLAGS = ('--shared', '--private')
# cv() is a sample standard deviation: at least 2 runs (rows).
CV_RUNS = 'cv() needs at least 2 runs'
# bash's $'...' escapes of the characters a shown text escapes by name
ESCAPES = {'\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r'}


class EntryError(Exception):
    """One malformed entry: its message is FILE:LINE: text."""


def shown(text):
    """text (a path, a name the user gave) as a message shows it: as it is
    when every character of it prints, else as bash's $'...' writes it
    ($'/non\\nexist/x'), so that the message stays one line."""
    if all(c.isprintable() for c in text):
        return text
    out = []
    for c in text:
        if c in ESCAPES:
            out.append(ESCAPES[c])
        elif c.isprintable():
            out.append(c)
        else:
            o = ord(c)
            out.append('\\x%02x' % o if o < 0x100 else '\\u%04x' % o if o < 0x10000
                       else '\\U%08x' % o)
    return "$'" + ''.join(out) + "'"


def say(msg):
    """One line on stderr, PROG: msg, as every error of the runner is said."""
    sys.stderr.write('%s: %s\n' % (PROG, one_line(msg)))


def control_char(text):
    """(index, character) of the first character of text that no value may
    hold: a control character other than tab, or a line or paragraph
    separator; None when there is none."""
    for i, c in enumerate(text):
        if c != '\t' and unicodedata.category(c) in ('Cc', 'Zl', 'Zp'):
            return i, c
    return None


def control_fault(key, text, where, col):
    """The EntryError of key's value text (which starts at column col of the
    line WHERE) holding a control character, or None."""
    hit = control_char(text)
    if hit is None:
        return None
    i, c = hit
    what = 'a NUL byte' if c == '\0' else 'a control character'
    return EntryError('%s: %s: %s (%s) at column %d: a value holds no control character '
                      'but tab' % (where, key, what, repr(c)[1:-1], col + i))


def one_config(what):
    """A command that renders more than one configuration, as the parser
    ('--threads 1,2') and the run ('more than one threads') say it."""
    return '%s: one configuration only' % what


def option_value(argv, i):
    """(name, value, text) of the option argv[i] (`--opt VALUE` or
    `--opt=VALUE`); value None when none follows; text as the command gives
    it."""
    name, eq, val = argv[i].partition('=')
    if eq:
        return name, val, argv[i]
    if i + 1 < len(argv):
        return name, argv[i + 1], '%s %s' % (name, shlex.quote(argv[i + 1]))
    return name, None, name


def command_fault(argv, fn):
    """What of command argv the runner can tell is wrong before it runs
    (locklab-sim judges the rest), as a message, or None: a list of
    configurations (`--threads 1,2`, both --shared and --private), and
    --runs under 2 when the metric is cv()."""
    modes = [a for a in argv if a in MODE_FLAGS]
    for i, a in enumerate(argv):
        name, val, text = option_value(argv, i)
        if name in LIST_OPTS and val is not None and \
                len([x for x in val.split(',') if x.strip()]) > 1:
            return one_config(text)
        if name == '--runs' and fn == 'cv' and val is not None and val.isdigit() and \
                int(val) < 2:
            return '%s: %s' % (text, CV_RUNS)
    if argv[0] == 'filelock' and len(set(modes)) > 1:
        return one_config(' and '.join(MODE_FLAGS))
    return None


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
        if not max(vals):
            raise EntryError('%s: published: %r: both sigma/means are 0, and the rule '
                             'judges the larger against them' % (where, text))
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
    for k in KEYS:
        if k in e and not e[k]:
            raise EntryError('%s: %s: an empty value' % (at(k), k))
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
    for k in ('baseline', 'variant'):
        why = command_fault(e['argv'][k], e['fn'])
        if why:
            raise EntryError('%s: %s: %s' % (at(k), k, why))


def parse_file(path, topodir):
    """The entries of one .sb file, in order; raises EntryError."""
    entries, cur, last = [], None, None
    try:
        with open(path, encoding='utf-8', newline='') as f:  # a lone CR is no line break
            lines = f.read().split('\n')
    except UnicodeDecodeError as e:
        raise EntryError('%s: not UTF-8 text (byte %d)' % (shown(path), e.start))
    except OSError as e:
        raise EntryError('%s: cannot be read: %s' % (shown(path), e.strerror))
    for n, raw in enumerate(lines + [''], 1):
        line = raw.rstrip()
        where = '%s:%d' % (shown(path), n)
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
            text = raw.rstrip(' \t\r')
            bad = control_fault(last, text, where, 1)
            if bad:
                raise bad
            cur[last] = ' '.join(v for v in (cur[last], line.strip()) if v)
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
        bad = control_fault(key, raw.rstrip(' \t\r').partition('=')[2], where,
                            len(raw.partition('=')[0]) + 2)
        if bad:
            raise bad
        cur[key], last = value.strip(), key
        cur['at'][key] = where
    return entries


def parse_board(board, topodir):
    try:
        files = sorted(f for f in os.listdir(board) if f.endswith('.sb'))
    except OSError as e:
        raise EntryError('--board %s: %s' % (shown(board), e.strerror))
    entries, seen = [], {}
    for f in files:
        for e in parse_file(os.path.join(board, f), topodir):
            if e['id'] in seen:
                raise EntryError('%s: id %s given twice (first at %s)'
                                 % (e['where'], e['id'], seen[e['id']]))
            seen[e['id']] = e['where']
            entries.append(e)
    for e in entries:
        if 'proxy' in e and not any(o is not e and e['proxy'] in o['id'].split('-')[1:]
                                    for o in entries):
            raise EntryError('%s: proxy: no other entry of the board runs test %s (an id '
                             '%s-%s-...): the proxy names the test whose workload the entry runs'
                             % (e['at']['proxy'], e['proxy'], e['id'][:3], e['proxy']))
    return entries
