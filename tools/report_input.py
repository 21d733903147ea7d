#!/usr/bin/env python3
"""tools/report_input.py - the inputs of tools/report.py, read and checked:
the run CSV, the per-thread CSV and the run JSON, each a regular file (not
a directory, a device or a FIFO, which would never end), each refused in
one line when it is not what a locklab run writes: a cell that is no
number of its column's kind (core/output.c's column table), a row short
of fields or a file cut short, a second header line or the same run twice
(a file appended to another), counts that contradict each other, a JSON
nested too deep or whose fields are of another type.  Paths in messages
are escaped (show) so that each stays one line.
"""

import csv
import io
import json
import math
import os
import re
import stat
import sys

# the module beside this file, read and not cached: nothing is written
# into the source tree
sys.dont_write_bytecode = True
from report_table import RUN_COLUMNS, bad_probe  # noqa: E402
# plots/plots_data.py's test of a row, the one the charts skip a file by
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'plots'))
from plots_data import spoiled  # noqa: E402

NEEDED_COLUMNS = ['lock', 'threads', 'throughput_per_s']


class BadInput(Exception):
    """Bad arguments or missing inputs: one line, exit status 2."""


def show(text):
    """A path or word as a message gives it: itself, or quoted with its
    control characters escaped (a newline as \\n) where it has some, so
    that the message stays one line."""
    return text if text.isprintable() and text.strip() == text and text else repr(text)


# ------------------------------------------------------------ files

FILE_KINDS = ((stat.S_ISDIR, 'a directory'), (stat.S_ISCHR, 'a device'),
              (stat.S_ISBLK, 'a device'), (stat.S_ISFIFO, 'a FIFO'),
              (stat.S_ISSOCK, 'a socket'))


def not_regular(mode):
    for test, kind in FILE_KINDS:
        if test(mode):
            return '%s, not a file' % kind
    return None if stat.S_ISREG(mode) else 'not a regular file'


MAX_BYTES = 1 << 30  # a sweep's CSV of a million runs is some 400 MiB


def need_file(path, opt):
    """path, a regular file (or a link to one); anything else refused in
    one line."""
    try:
        why = not_regular(os.stat(path).st_mode)
    except FileNotFoundError:
        why = 'no such file'
    except OSError as e:
        why = e.strerror or str(e)
    if why:
        raise BadInput('%s %s: %s' % (opt, show(path), why))
    return path


def read_text(path, opt):
    """The whole text of a regular file (UTF-8); anything else refused
    before it is read: a FIFO or a device would block or never end."""
    need_file(path, opt)
    try:
        # not blocking, should it have become a FIFO since: its kind again
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, 'O_CLOEXEC', 0))
        with os.fdopen(fd, 'rb') as f:
            st = os.fstat(f.fileno())
            why = not_regular(st.st_mode)
            if why:
                raise BadInput('%s %s: %s' % (opt, show(path), why))
            # bounded, whatever its size says (a file of /proc says 0)
            data = f.read(MAX_BYTES + 1) if st.st_size <= MAX_BYTES else b''
        if st.st_size > MAX_BYTES or len(data) > MAX_BYTES:
            raise BadInput('%s %s: over %d MiB: not a locklab result file'
                           % (opt, show(path), MAX_BYTES >> 20))
    except FileNotFoundError:
        raise BadInput('%s %s: no such file' % (opt, show(path)))
    except OSError as e:
        raise BadInput('%s %s: %s' % (opt, show(path), e.strerror or e))
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise BadInput('%s %s: not UTF-8 text (byte %d)' % (opt, show(path), e.start + 1))


# ------------------------------------------------------------ CSV cells

COUNT_RE = re.compile(r'[0-9]+')
NUMBER_RE = re.compile(r'(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?')

# The kinds of core/output.c's columns (and core/threads_csv.c's): a count
# (C_UINT, C_U64), a number >= 0 (C_F2, C_F4, C_F9), a share in 0..1, a
# bool; a column of another name is not read.
COUNTS = ('cs_ns', 'ncs_ns', 'cs_lines', 'locks', 'seed', 'run', 'acquisitions', 'acq_min',
          'acq_max', 'pcpus', 'preemptions', 'holder_preemptions', 'waiter_preemptions', 'halts',
          'kicks', 'ple_exits', 'ple_yields', 'vcpus_never_ran', 'read_pct', 'reads', 'writes',
          'readers_overlap_max', 'starved', 'sockets', 'sockets_served', 'migrations', 'irqs',
          'tid', 'cpu', 'node', 'handoffs_in', 'handoffs_in_local')
NUMBERS = ('duration_s', 'throughput_per_s', 'wait_mean_ns', 'wait_p50_ns', 'wait_p99_ns',
           'wait_max_ns', 'misses_per_acq', 'invalidations_per_release',
           'remote_transfers_per_acq', 'line_queue_ns_per_acq', 'busiest_link_msgs_per_acq',
           'overcommit', 'holder_lost_ns_per_acq', 'waiter_lost_ns_per_acq', 'wake_latency_ns',
           'read_wait_p99_ns', 'read_wait_max_ns', 'write_wait_p99_ns', 'write_wait_max_ns',
           'events_per_acq', 'transfers_class0_per_acq', 'transfers_class1_per_acq',
           'transfers_class2_per_acq', 'transfers_class3_per_acq', 'lock_misses_per_acq',
           'node_misses_per_acq', 'data_misses_per_acq', 'other_misses_per_acq',
           'idle_wakes_per_acq', 'idle_exit_ns_per_acq')
SHARES = ('jain', 'handoff_local_frac', 'handoff_frac', 'acq_share')
BOOLS = ('ncs_exp', 'oversubscribed', 'wait_p99_censored', 'read_wait_p99_censored',
         'write_wait_p99_censored', 'wait_max_censored', 'read_wait_max_censored',
         'write_wait_max_censored')
NAMES = ('backend', 'topo', 'lock')
KIND = dict([(c, 'count') for c in COUNTS] + [(c, 'number') for c in NUMBERS] +
            [(c, 'share') for c in SHARES] + [(c, 'bool') for c in BOOLS] +
            [(c, 'name') for c in NAMES] + [('threads', 'threads')])
# What names a run: never empty (but a --vm column outside --vm, and
# read_pct of another lock than an rwlock), and one row per run.
KEYS = RUN_COLUMNS + ('overcommit', 'pcpus', 'ncs_exp', 'read_pct')
MAY_BE_EMPTY = ('topo', 'overcommit', 'pcpus', 'read_pct')
# The figures every run that did not fail has.
FIGURES = ('duration_s', 'acquisitions', 'throughput_per_s')
# The waits of a run (or of a thread, or of an rwlock's side): all given,
# or none where it timed no wait.
TOGETHER = (('wait_mean_ns', 'wait_p50_ns', 'wait_p99_ns', 'wait_max_ns'),
            ('read_wait_p99_ns', 'read_wait_max_ns'), ('write_wait_p99_ns', 'write_wait_max_ns'))
# (count, its bound): a run's count of threads or sockets within another
AT_MOST = (('starved', 'threads'), ('vcpus_never_ran', 'threads'),
           ('readers_overlap_max', 'threads'), ('acq_min', 'acq_max'),
           ('sockets_served', 'sockets'), ('tid', 'threads'))


def bad_cell(col, v):
    """Why v is not a cell of column col ('' where it is, or empty)."""
    kind = KIND.get(col)
    if v == '' or kind is None:
        return ''
    if kind == 'name':
        return '' if v.isprintable() else '%s %r is not a name' % (col, v)
    if kind == 'bool':
        return '' if v in ('true', 'false') else '%s %r is neither true nor false' % (col, v)
    if kind == 'threads':
        return '' if COUNT_RE.fullmatch(v) and int(v) > 0 else \
            'threads %r is not a thread count' % v
    if kind == 'count':
        return '' if COUNT_RE.fullmatch(v) else '%s %r is not a count (an integer >= 0)' % (col, v)
    if not NUMBER_RE.fullmatch(v) or not math.isfinite(float(v)):
        return '%s %r is not %s' % (col, v, 'a number in 0..1' if kind == 'share'
                                    else 'a finite number >= 0')
    if kind == 'share' and float(v) > 1:
        return '%s %r is not a number in 0..1' % (col, v)
    return ''


def bad_row(row, fields, failed_col):
    """Why a row of a locklab CSV is not one a run wrote ('' when it is)."""
    if None in row or None in row.values():
        return '%s fields than the header' % ('more' if None in row else 'fewer')
    if all(row.get(k) == k for k in ('lock', 'threads')):
        return 'a second header line (one CSV appended to another?)'
    for col in fields:
        why = bad_cell(col, row[col])
        if why:
            return why
    why = spoiled(row)  # what plots.py skips a file for, too
    if why:
        return why
    for col in KEYS:
        if col in row and row[col] == '' and col not in MAY_BE_EMPTY:
            return '%s is empty: every row names its run' % col
    failed = row.get(failed_col, '') != '' if failed_col else False
    for col in FIGURES if not failed else ():
        if col in row and row[col] == '':
            return '%s is empty in a run with no failure' % col
    if failed and row.get('throughput_per_s', '') != '':
        return 'throughput_per_s %r in the row of a failed run' % row['throughput_per_s']
    for group in TOGETHER:
        given = [c for c in group if row.get(c, '') != '']
        if given and len(given) < len([c for c in group if c in row]):
            return '%s is empty beside %s %s: a run gives these waits together or none' % (
                [c for c in group if c in row and c not in given][0], given[0], row[given[0]])
    for col, bound in AT_MOST:
        if row.get(col, '') != '' and row.get(bound, '') != '' and \
                int(row[col]) > int(row[bound]) - (col == 'tid'):
            return '%s %s is %s %s %s' % (col, row[col], 'not below' if col == 'tid'
                                          else 'more than', bound, row[bound])
    return ''


def read_csv(path, opt, need):
    """[(line, row)] of a locklab CSV and its header: every row checked
    (bad_row), a header with every column of need and none twice; a file
    that does not end with a newline was cut short."""
    text = read_text(path, opt)
    where = '%s %s' % (opt, show(path))
    try:
        reader = csv.DictReader(io.StringIO(text, newline=''))
        head = reader.fieldnames or []
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as e:
        raise BadInput('%s: not a CSV file: %s' % (where, e))
    missing = [c for c in need if c not in head]
    if missing:
        raise BadInput('%s: no column %s: not a locklab %s' % (
            where, missing[0], 'run CSV' if opt == '--csv' else 'per-thread CSV'))
    twice = [c for i, c in enumerate(head) if c in head[:i]]
    if twice:
        raise BadInput('%s: line 1: column %s twice in the header' % (where, show(twice[0])))
    if text and not text.endswith('\n'):
        raise BadInput('%s: line %d: cut short (no newline at the end)'
                       % (where, text.count('\n') + 1))
    failed_col = 'failure' if 'failure' in head else None
    for line, row in rows:
        why = bad_row(row, head, failed_col)
        if why:
            raise BadInput('%s: line %d: %s' % (where, line, why))
    return head, rows


def run_key(row, head):
    return tuple(row[k] for k in KEYS if k in head)


def read_sweep_csv(path):
    """The rows of a run CSV: each run once, of one machine."""
    head, lines = read_csv(path, '--csv', NEEDED_COLUMNS)
    where = '--csv %s' % show(path)
    if not lines:
        raise BadInput('%s: no rows' % where)
    seen = {}
    for line, row in lines:
        first = seen.setdefault(run_key(row, head), line)
        if first != line:
            raise BadInput('%s: line %d: the run of line %d again (lock %s, threads %s, run %s): '
                           'one CSV appended to another?'
                           % (where, line, first, show(row['lock']), row['threads'],
                              row.get('run', '?')))
    rows = [row for _, row in lines]
    machines = sorted({(r.get('backend', ''), r.get('topo', '')) for r in rows})
    if len(machines) > 1:
        raise BadInput('%s: rows of %d machines (%s): one sweep\'s CSV has one'
                       % (where, len(machines), ', '.join(show('/'.join(m))
                                                           for m in machines[:3])))
    return rows


def read_threads_csv(path, run_rows):
    """The rows of a per-thread CSV; a header alone (every run failed) is
    no rows, a header without the columns is not such a file.  A thread of
    a run is there once, or as many times as the run CSV has rows of that
    run (a --vm sweep's overcommit levels, which this file does not tell
    apart)."""
    head, lines = read_csv(path, '--threads-csv', RUN_COLUMNS + ('tid', 'acquisitions'))
    runs = {}
    for r in run_rows:
        k = tuple(r.get(c, '') for c in RUN_COLUMNS)
        runs[k] = runs.get(k, 0) + 1
    seen = {}
    for line, row in lines:
        k = tuple(row[c] for c in RUN_COLUMNS)
        n = seen[k + (row['tid'],)] = seen.get(k + (row['tid'],), 0) + 1
        if n > max(1, runs.get(k, 0)):
            raise BadInput('--threads-csv %s: line %d: thread %s of run %s of %s at %s threads '
                           'again: one CSV appended to another?'
                           % (show(path), line, row['tid'], row['run'], show(row['lock']),
                              row['threads']))
    return [row for _, row in lines]


# ------------------------------------------------------------ JSON

MAX_DEPTH = 32  # a run's JSON nests 4 deep


def no_constant(name):
    raise ValueError('%s is no JSON number (a locklab JSON writes null)' % name)


def too_deep(doc):
    """True when doc nests deeper than MAX_DEPTH (walked without recursion)."""
    todo = [(doc, 1)]
    while todo:
        v, depth = todo.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(v, dict):
            todo += [(x, depth + 1) for x in v.values()]
        elif isinstance(v, list):
            todo += [(x, depth + 1) for x in v]
    return False


def bad_json(doc):
    """Why doc is not the JSON of a locklab run, as report.py reads it."""
    if not isinstance(doc, dict) or not isinstance(doc.get('environment'), dict):
        return 'not a locklab run JSON (no "environment" object)'
    if too_deep(doc):
        return 'not a locklab run JSON: nested deeper than %d levels' % MAX_DEPTH
    env = doc['environment']
    if 'locklab_version' in doc and not isinstance(doc['locklab_version'], str):
        return 'locklab_version is not a string'
    cmd = doc.get('command')
    if 'command' in doc and not (isinstance(cmd, str) or isinstance(cmd, list) and
                                 all(isinstance(w, str) for w in cmd)):
        return 'command is neither a string nor a list of words'
    if 'rows' in doc and not (isinstance(doc['rows'], list) and
                              all(isinstance(r, dict) for r in doc['rows'])):
        return 'rows is not a list of objects'
    topo = env.get('topology')
    if 'topology' in env and not isinstance(topo, dict):
        return 'environment.topology is not an object'
    if isinstance(topo, dict) and 'name' in topo and not isinstance(topo['name'], str):
        return 'environment.topology.name is not a string'
    every = env.get('time_every')
    if 'time_every' in env and (not isinstance(every, int) or isinstance(every, bool) or
                                every < 1):
        return 'environment.time_every is not a count >= 1'
    bad = bad_probe(doc.get('lockstep_probes', []))
    return 'lockstep_probes: %s' % bad if bad else ''


def read_json(path):
    text = read_text(path, '--json')
    try:
        doc = json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise BadInput('--json %s: not a locklab run JSON: nested too deep' % show(path))
    except ValueError as e:
        raise BadInput('--json %s: not JSON: %s' % (show(path), e))
    why = bad_json(doc)
    if why:
        raise BadInput('--json %s: %s' % (show(path), why))
    return doc
