#!/usr/bin/env python3
"""tools/report_table.py against the table: the HTML report computes its
Jain, socket-local and p99 cells from a sweep's CSV, the table from the runs
themselves, and each configuration's cells must read the same.  The CSV
gives both fractions to nine decimals: at four, a local share of 45.85%
read 45.9% in the table and 45.8% in the report, and at six this sweep's
ttas at 12 threads read Jain 0.5704 in the table and 0.5705 in the report.
A lock's own counts (the CSV's lock_counts) read in the report as on the
table's counts line, and a lock without counts has no such line in either.
The lockstep probe lines under the table read in the report's verdicts, from
the JSON written beside the table.
Each configuration's verdict reads as the table's '!' line: starved or
unfair, in a guest whose threads also waited for a cpu too.
A CSV edited or cut short (a throughput that is no number, or negative, a
Jain index over 1, a row short of fields, rows of two machines) is refused
in one line naming its line, exit 2, not reported.
What the binaries write is taken (simulated and native sweeps, an rwlock's,
a --vm sweep's, failed runs', and the fixtures of tests/fixtures/plots);
and refused in one line, exit 2, naming the problem: an input that is no
regular file (a device, a FIFO, a directory: once read for ever or waited
on), a JSON that is not a run's (nested too deep, a field of another type:
once a traceback), a run or per-thread CSV appended to itself, cut short or
with a cell of another kind (once reported), an option given twice or
abbreviated, a path with a newline (escaped, one line).

usage: unit_report.py BIN  (the directory holding locklab-sim)
"""

import csv
import html
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
sys.dont_write_bytecode = True
import report_table  # noqa: E402

# Unfair locks and socket-spanning counts: fractions far from round ones.
SWEEP = ['run', '--topo', '4socket', '--lock', 'ttas,ticket,mcs', '--threads', '6,12,24',
         '--runs', '3', '--duration', '1']


# qspinlock counts its paths (the fast one at 2 threads, queued at 3), ticket none.
COUNTS_SWEEP = ['run', '--topo', '4socket', '--lock', 'qspinlock,ticket', '--threads', '2,3',
                '--runs', '2']


def sim(binary, extra, sweep=SWEEP):
    p = subprocess.run([binary] + sweep + extra, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode:
        sys.exit('unit_report: %s failed: %s' % (' '.join(sweep + extra), p.stderr.strip()))
    return p.stdout


def table_cells(text):
    """{(lock, threads): (jain, local, p99)} from the table's rows."""
    cells, lock = {}, None
    for line in text.splitlines():
        head = re.match(r'^(\S+)\s+cs=', line)
        if head:
            lock = head.group(1)
            continue
        row = re.match(r'^sim \S+ t=(\d+)\s', line)
        if row and lock:
            nums = re.findall(r'(\d\.\d{4})\s+\S+\s+(\d+\.\d%)', line)
            p99 = re.search(r'((?:>=)?[0-9.]+ (?:ns|us|ms|s)|-)\s*$', line)
            if nums and p99:
                cells[(lock, row.group(1))] = nums[0] + (p99.group(1),)
    return cells


def report_cells(path):
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    cells = {}
    configs = report_table.group_configs(rows).values()
    for cfg, runs in ((c, r) for by_cfg in configs for c, r in by_cfg.items()):
        jain = report_table.fmt(report_table.mean([report_table.num(r, 'jain') for r in runs]))
        local = report_table.fmt(100.0 * report_table.mean(
            [report_table.num(r, 'handoff_local_frac') for r in runs]), '%.1f%%')
        p99 = html.unescape(report_table.p99_cell(runs)).replace('\u2265', '>=')
        cells[(runs[0]['lock'], runs[0]['threads'])] = (jain, local, p99)
    return cells


def lines_under_rows(text):
    """(lock, threads, line) for each line of the table under a row."""
    lock, threads = None, None
    for line in text.splitlines():
        head = re.match(r'^(\S+)\s+cs=', line)
        row = re.match(r'^(?:sim|native) \S+ t=(\d+)', line)
        if head:
            lock = head.group(1)
        elif row:
            threads = row.group(1)
        elif lock and threads:
            yield lock, threads, line


def table_counts(text):
    """{(lock, threads): the text after 'per acquisition:'} of the table's
    counts lines."""
    return {(lock, threads): line.split('per acquisition:', 1)[1].strip()
            for lock, threads, line in lines_under_rows(text)
            if line.startswith('    counts') and 'per acquisition:' in line}


def report_counts(path):
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    out = {}
    for by_cfg in report_table.group_configs(rows).values():
        for runs in by_cfg.values():
            cell = report_table.counts_row(runs)
            if cell:
                text = re.search(r'per acquisition: (.*)</td>', cell).group(1)
                out[(runs[0]['lock'], runs[0]['threads'])] = text
    return out


# A guest at 2x beside busy co-guests: ticket unfair, pv-ticket starving,
# both with threads that waited for a cpu.
VM_SWEEP = ['run', '--topo', '4socket', '--vm', '16', '--overcommit', '2', '--co-guests', 'busy',
            '--lock', 'ticket,pv-ticket', '--duration', '20', '--runs', '2']


def table_verdicts(text):
    """{(lock, threads): the text of the '!' lines} under the table's rows
    that have one (a wait for a CPU, starved, unfair), joined by '; ';
    not the lockstep probe's line, whose run no result file holds."""
    out = {}
    for lock, threads, line in lines_under_rows(text):
        if line.startswith('  ! ') and not line.startswith('  ! with each miss within'):
            key = (lock, threads)
            out[key] = out[key] + '; ' + line[4:] if key in out else line[4:]
    return out


def report_verdicts(path):
    """The same from the report's rows: its verdict cells that say something."""
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    out = {}
    for by_cfg in report_table.group_configs(rows).values():
        for cfg, runs in by_cfg.items():
            cell = re.findall(r'<td>(.*?)</td>', report_table.config_row(cfg, runs, {}))[-1]
            if cell:
                out[(runs[0]['lock'], runs[0]['threads'])] = html.unescape(cell)
    return out


# Natively, 4 threads on this machine's CPUs (oversubscribed where it has
# fewer than 4): the table and the CSV of one command, whatever they say.
NATIVE_SWEEP = ['run', '--lock', 'ticket,tas', '--threads', '1,4', '--runs', '2',
                '--duration', '20']


def verdict_failures(binary):
    """The report's verdict of every configuration reads as the table's '!'
    line, starved, unfair or a wait for a CPU, with and without a guest's
    cpu waits, and natively (the report once left the unfair ones out)."""
    failures = []
    native = os.path.join(os.path.dirname(binary), 'locklab-native')
    with tempfile.TemporaryDirectory() as tmp:
        for prog, sweep in ((binary, SWEEP), (binary, VM_SWEEP), (native, NATIVE_SWEEP)):
            path = os.path.join(tmp, 'verdicts.csv')
            if prog == binary:
                table = table_verdicts(sim(prog, [], sweep))
                sim(prog, ['--format', 'csv', '--out', path], sweep)
            else:  # native runs differ: the table and the CSV of one command
                table = table_verdicts(sim(prog, ['--csv', path], sweep))
            report = report_verdicts(path)
            if not table and prog == binary:
                failures.append('%s: the table gave no verdict to compare' % ' '.join(sweep))
            for key in sorted(set(table) | set(report)):
                # the table says starved threads "never acquired the lock", the report
                # "never got the lock"; the rest must read the same
                t = table.get(key, '').replace('never acquired the lock', 'never got the lock')
                r = report.get(key, '')
                if norm(t) != norm(r):
                    failures.append('%s t=%s: table %r, report %r' % (key[0], key[1], t, r))
                else:
                    VERDICTS.append('%s t=%s: %s' % (key[0], key[1], r))
    return failures


VERDICTS = []  # those that read the same, printed


def probe_failures(binary):
    """Each lockstep probe line of the table reads, word for word, in the
    report's verdict of its configuration, from the JSON written beside the
    table (its lockstep_probes); the report has no probe the table lacks, gives
    none to another machine's row, and refuses a probe edited short in one
    line."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path, doc = os.path.join(tmp, 'p.csv'), os.path.join(tmp, 'p.json')
        text = sim(binary, ['--csv', path, '--json', doc])
        with open(doc) as f:
            spoiled = json.load(f)
        probes = json.loads(json.dumps(spoiled.get('lockstep_probes', [])))  # a copy
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
        if probes:
            del spoiled['lockstep_probes'][0]['jain']
            with open(doc, 'w') as f:
                json.dump(spoiled, f)
            p = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'report.py'), '--csv',
                                path, '--json', doc, '--out', tmp], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            if p.returncode != 2 or p.stderr.count('\n') != 1 or 'lockstep_probes' not in p.stderr:
                failures.append('report.py took a probe without its jain: exit %d, %r'
                                % (p.returncode, p.stderr))
    table = {(lock, threads): line[4:] for lock, threads, line in lines_under_rows(text)
             if line.startswith('  ! with each miss within')}
    if not table:
        failures.append('%s: the table made no probe to compare' % ' '.join(SWEEP))
    for (lock, _), by_cfg in report_table.group_configs(rows).items():
        for cfg, runs in by_cfg.items():
            probe = report_table.probe_for(probes, lock, cfg, '4socket')
            cell = html.unescape(re.findall(r'<td>(.*?)</td>', report_table.config_row(
                cfg, runs, {}, probe=probe))[-1])
            said = table.get((lock, cfg[2]))
            if said and said not in cell:
                failures.append('%s t=%s: the table says %r, the report %r' % (lock, cfg[2],
                                                                             said, cell))
            elif not said and 'with each miss within' in cell:
                failures.append('%s t=%s: a probe in the report only: %r' % (lock, cfg[2], cell))
            if probe and report_table.probe_for(probes, lock, cfg, 'another-machine'):
                failures.append('%s t=%s: a probe of 4socket given to another machine\'s row'
                                % (lock, cfg[2]))
    return failures


def norm(text):
    """A verdict without what only one side gives: the table's Jain in
    parentheses, and its 'in K of N runs; ' beside the report's
    '(in K of N runs)'."""
    text = re.sub(r' \((in \d+ of \d+ runs)(; Jain [0-9.]+)?\)', r' (\1)', text)
    return re.sub(r' \(Jain [0-9.]+\)', '', text)


def counts_failures(binary):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'counts.csv')
        table = table_counts(sim(binary, [], COUNTS_SWEEP))
        sim(binary, ['--format', 'csv', '--out', path], COUNTS_SWEEP)
        report = report_counts(path)
    failures = []
    if sorted(table) != [('qspinlock', '2'), ('qspinlock', '3')]:
        failures.append('the table\'s counts lines are of %s, not qspinlock\'s two rows'
                        % sorted(table))
    if report != table:
        failures.append('counts: table %s, report %s' % (table, report))
    return failures


def corrupt_failures(path, tmp):
    """The sweep's CSV at path, spoiled one way at a time, and an option
    given empty: report.py must refuse each in one line, exit 2."""
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split(',')
    col = {name: i for i, name in enumerate(head)}

    def with_cell(name, value):
        cells = lines[1].split(',')
        cells[col[name]] = value
        return [lines[0], ','.join(cells)] + lines[2:]

    other = lines[2].split(',')
    other[col['topo']] = 'elsewhere'
    cases = [(with_cell('throughput_per_s', 'abc'), 'throughput_per_s'),
             (with_cell('throughput_per_s', '-1'), 'throughput_per_s'),
             (with_cell('jain', '1.5'), 'jain'),
             (with_cell('threads', '0'), 'threads'),
             (lines[:2] + [lines[2][:20]], 'fewer fields'),
             (lines[:2] + [','.join(other)], 'machines')]
    # and the sound CSV with an option given empty (--out '' once wrote
    # beside the CSV, as if it had not been given)
    cases += [(None, '--%s is empty' % opt, ['--' + opt, ''])
              for opt in ('out', 'charts', 'graphs', 'name', 'json')]
    failures = []
    for k, case in enumerate(cases):
        text, want, args = case if len(case) == 3 else case + (['--out', tmp],)
        bad = path
        if text is not None:
            bad = os.path.join(tmp, 'bad%d.csv' % k)
            with open(bad, 'w') as f:
                f.write('\n'.join(text) + '\n')
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'report.py'), '--csv', bad]
                           + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if p.returncode != 2 or p.stderr.count('\n') != 1 or want not in p.stderr:
            failures.append('report.py took %s: exit %d, %r'
                            % ('a CSV spoiled at ' + want if text else ' '.join(args) + "''",
                               p.returncode, p.stderr))
    return failures


REPORT = os.path.join(ROOT, 'tools', 'report.py')
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures', 'plots')


def report_run(args, timeout=20):
    """(exit status, stderr) of report.py with args; -1 when it still ran
    after timeout seconds (reading a FIFO or a device for ever)."""
    try:
        p = subprocess.run([sys.executable, REPORT] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, 'still running after %d s' % timeout
    return p.returncode, p.stderr


# Sweeps whose files (run CSV, JSON, per-thread CSV) the report must take as
# the binaries write them: simulated and native, an rwlock's (its side
# columns), a --vm sweep's of two overcommit levels (their threads alike in
# the per-thread CSV), and a sweep whose every run failed (figures empty,
# a failure column; the binary exits 3).
REAL_SWEEPS = [
    ('sim', ['run', '--topo', '4socket', '--lock', 'tas,ticket', '--threads', '1,2', '--runs', '2',
             '--duration', '1']),
    ('native', ['run', '--lock', 'tas', '--threads', '1,2', '--duration', '20', '--runs', '2']),
    ('sim', ['run', '--topo', '4socket', '--lock', 'rwlock', '--read-pct', '90', '--threads',
             '4,16', '--runs', '2', '--duration', '1']),
    ('native', ['run', '--lock', 'rwlock,qspinlock', '--read-pct', '90', '--threads', '1,4',
                '--duration', '20', '--runs', '2']),
    ('sim', ['run', '--topo', '4socket', '--vm', '8', '--overcommit', '1,2', '--co-guests',
             'busy', '--lock', 'ticket', '--duration', '24', '--runs', '2']),
    ('sim', ['run', '--topo', '4socket', '--lock', 'tas,mcs', '--threads', '2', '--runs', '2',
             '--duration', '20', '--cs', '3000000', '--watchdog', '1']),
]


def real_files(bindir, tmp):
    """[(what, csv, json, threads csv)] of REAL_SWEEPS, written by the
    binaries into tmp, and failures where a binary did not write them."""
    out, failures = [], []
    for k, (backend, sweep) in enumerate(REAL_SWEEPS):
        stem = os.path.join(tmp, 'real%d' % k)
        files = (stem + '.csv', stem + '.json', stem + '-threads.csv')
        p = subprocess.run([os.path.join(bindir, 'locklab-' + backend)] + sweep +
                           ['--csv', files[0], '--json', files[1], '--threads-csv', files[2]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode not in (0, 3) or not all(os.path.isfile(f) for f in files):
            failures.append('locklab-%s %s: exit %d: %s' % (backend, ' '.join(sweep),
                                                            p.returncode, p.stderr.strip()))
            continue
        out.append(('locklab-%s %s' % (backend, ' '.join(sweep)),) + files)
    return out, failures


def accepted_failures(bindir, tmp):
    """The report takes what the binaries write (REAL_SWEEPS), a failed
    run's rows beside others' (as merge pads them), and the fixtures the
    other tests chart (tests/fixtures/plots); returns the real files too."""
    real, failures = real_files(bindir, tmp)
    cases = [(what, ['--csv', c, '--json', j, '--threads-csv', t]) for what, c, j, t in real]
    failed = [r for r in real if '--watchdog' in r[0]]
    if failed:  # the failed runs' CSV with the rows of a run that did not fail
        with open(failed[0][1]) as f:
            text = f.read()
        p = subprocess.run([os.path.join(bindir, 'locklab-sim'), 'run', '--topo', '4socket',
                            '--lock', 'tas', '--threads', '1', '--runs', '1', '--duration', '20',
                            '--cs', '3000000', '--watchdog', '0', '--format', 'csv'],
                           stdout=subprocess.PIPE, universal_newlines=True)
        mixed = os.path.join(tmp, 'mixed.csv')
        with open(mixed, 'w') as f:
            f.write(text + ''.join(l + ',\n' for l in p.stdout.splitlines()[1:]))
        cases.append(('failed and done runs in one CSV', ['--csv', mixed]))
    for name in sorted(os.listdir(FIXTURES)):
        if name.endswith('.csv') and not name.startswith('threads-'):
            args = ['--csv', os.path.join(FIXTURES, name)]
            if os.path.isfile(os.path.join(FIXTURES, name[:-4] + '.json')):
                args += ['--json', os.path.join(FIXTURES, name[:-4] + '.json')]
            if name == 'sim-2socket.csv':
                args += ['--threads-csv', os.path.join(FIXTURES, 'threads-sim-2socket.csv')]
            cases.append(('the fixture ' + name, args))
    for what, args in cases:
        rc, err = report_run(args + ['--out', tmp, '--name', 'accepted'])
        if rc != 0:
            failures.append('report.py refused %s: exit %d, %r' % (what, rc, err))
    return real, failures


def spoil(path, tmp, name, edit):
    """A copy of the CSV at path, its lines (the header first) passed
    through edit; returns its path."""
    with open(path) as f:
        lines = f.read().splitlines()
    out = os.path.join(tmp, name)
    text = edit(lines)
    with open(out, 'w') as f:
        f.write(text if isinstance(text, str) else '\n'.join(text) + '\n')
    return out


def with_cell(name, value, row=1):
    """An edit of spoil: row's cell of column name set to value."""
    def edit(lines):
        col = lines[0].split(',').index(name)
        cells = lines[row].split(',')
        cells[col] = value
        return lines[:row] + [','.join(cells)] + lines[row + 1:]
    return edit


def refusal_failures(real, tmp):
    """Inputs report.py refuses in one line, exit 2, naming the problem: a
    path that is no regular file (which it once read for ever or waited
    on), a JSON that is not a run's (once a traceback), a run CSV or a
    per-thread CSV edited, appended to itself or cut short (once
    reported), an option given twice or abbreviated (once the last won),
    a path with a newline (once two lines)."""
    what, csv_path, json_path, threads = real[0]
    fifo = os.path.join(tmp, 'fifo')
    os.mkfifo(fifo)
    deep = os.path.join(tmp, 'deep.json')
    with open(deep, 'w') as f:
        f.write('[' * 100000 + ']' * 100000)
    with open(json_path) as f:
        doc = json.load(f)

    def json_with(name, change):
        d = json.loads(json.dumps(doc))
        change(d)
        out = os.path.join(tmp, name)
        with open(out, 'w') as f:
            f.write(d if isinstance(d, str) else json.dumps(d))
        return out

    def topo_name(d):
        d['environment']['topology']['name'] = {'x': 1}

    def time_every(d):
        d['environment']['time_every'] = 'often'

    def nested(d):
        d['environment']['deep'] = json.loads('{"a": ' * 200 + '1' + '}' * 200)

    def command(d):
        d['command'] = {'argv': 1}

    nan = os.path.join(tmp, 'nan.json')
    with open(nan, 'w') as f:
        f.write('{"environment": {"seed": NaN}}')
    run = ['--csv', csv_path]
    cases = [
        (run + ['--json', '/dev/zero'], ['--json /dev/zero', 'a device, not a file']),
        (run + ['--json', fifo], ['--json', 'a FIFO, not a file']),
        (run + ['--threads-csv', fifo], ['--threads-csv', 'a FIFO, not a file']),
        (['--csv', fifo], ['--csv', 'a FIFO, not a file']),
        (['--csv', tmp], ['--csv', 'a directory, not a file']),
        (run + ['--json', tmp], ['--json', 'a directory, not a file']),
        (run + ['--json', deep], ['--json', 'nested too deep']),
        (run + ['--json', json_with('deep2.json', nested)], ['--json', 'nested deeper']),
        (run + ['--json', json_with('name.json', topo_name)],
         ['--json', 'environment.topology.name is not a string']),
        (run + ['--json', json_with('every.json', time_every)],
         ['--json', 'environment.time_every']),
        (run + ['--json', json_with('command.json', command)], ['--json', 'command']),
        (run + ['--json', nan], ['--json', 'NaN']),
    ]
    lines_spoiled = [
        ('appended.csv', lambda l: l + l, 'a second header line'),
        ('twice.csv', lambda l: l + l[1:], 'again'),
        ('starved.csv', with_cell('starved', '5'), 'starved 5 is more than threads 1'),
        ('acqmin.csv', with_cell('acq_min', '-1'), "acq_min '-1' is not a count"),
        ('run.csv', with_cell('run', 'x'), "run 'x' is not a count"),
        ('p99.csv', with_cell('wait_p99_ns', 'abc'), "wait_p99_ns 'abc' is not a finite number"),
        ('p99nan.csv', with_cell('wait_p99_ns', 'nan'), "wait_p99_ns 'nan'"),
        ('p99inf.csv', with_cell('wait_p99_ns', 'inf'), "wait_p99_ns 'inf'"),
        ('p99empty.csv', with_cell('wait_p99_ns', ''), 'wait_p99_ns is empty beside'),
        ('handoff.csv', with_cell('handoff_frac', '1.5'), "handoff_frac '1.5' is not a number "
                                                          "in 0..1"),
        ('tput.csv', with_cell('throughput_per_s', ''),
         'throughput_per_s is empty in a run with no failure'),
        ('nonl.csv', lambda l: '\n'.join(l), 'cut short'),
    ]
    for name, edit, words in lines_spoiled:
        cases.append((['--csv', spoil(csv_path, tmp, name, edit)], [name, 'line ', words]))
    threads_spoiled = [
        ('t-acq.csv', with_cell('acquisitions', 'x'), "acquisitions 'x' is not a count"),
        ('t-acqneg.csv', with_cell('acquisitions', '-1'), "acquisitions '-1' is not a count"),
        ('t-acqfrac.csv', with_cell('acquisitions', '1.5'), "acquisitions '1.5' is not a count"),
        ('t-tid.csv', with_cell('tid', '-1'), "tid '-1' is not a count"),
        ('t-short.csv', lambda l: l[:-1] + [l[-1][:len(l[-1]) // 2].rsplit(',', 1)[0]],
         'fewer fields'),
        ('t-cut.csv', lambda l: '\n'.join(l)[:-3], 'cut short'),
        ('t-twice.csv', lambda l: l + l[1:], 'again'),
    ]
    for name, edit, words in threads_spoiled:
        cases.append((run + ['--threads-csv', spoil(threads, tmp, name, edit)],
                      ['--threads-csv', name, 'line ', words]))
    cases += [
        (run + ['--csv', csv_path], ['--csv given twice']),
        (run + ['--out', tmp, '--out', tmp], ['--out given twice']),
        (run + ['--name', 'a', '--name', 'b'], ['--name given twice']),
        (run + ['--ou', tmp], ['--ou', 'not an option']),
        (['--csv', 'a\nb.csv'], ['--csv', "'a\\nb.csv'", 'no such file']),
        (run + ['--out', '/non\nexist'], ['--out', "'/non\\nexist'", 'does not exist']),
    ]
    failures = []
    for args, words in cases:
        rc, err = report_run(args + ([] if '--out' in args else ['--out', tmp]))
        if rc != 2 or err.count('\n') != 1 or not all(w in err for w in words):
            failures.append('report.py %s: exit %d, %r; want exit 2 and one line with %s'
                            % (' '.join(args).replace(tmp, 'TMP'), rc, err, words))
    return failures


def starved_failures(real):
    """A --vm sweep's two overcommit levels have their threads alike in
    the per-thread CSV: their starved threads are the run CSV's, not the
    sum of both levels'."""
    vm = [r for r in real if '--overcommit' in r[0]]
    if not vm:
        return ['no --vm sweep to count starved threads of']
    with open(vm[0][3], newline='') as f:
        per_run = report_table.starved_by_run(list(csv.DictReader(f)))
    if per_run:
        return ['the per-thread counts of a --vm sweep of two levels are taken: %s' % per_run]
    return []


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = os.path.join(sys.argv[1], 'locklab-sim')
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'sweep.csv')
        table = table_cells(sim(binary, []))
        sim(binary, ['--format', 'csv', '--out', path])
        with open(path) as f:
            head, first = f.readline().split(','), f.readline().split(',')
        decimals = {k: len(v.split('.')[1]) for k, v in zip(head, first)
                    if k in ('jain', 'handoff_local_frac')}
        report = report_cells(path)
        spoiled = corrupt_failures(path, tmp)
        real, taken = accepted_failures(sys.argv[1], tmp)
        spoiled += taken + starved_failures(real)
        spoiled += refusal_failures(real, tmp) if real else ['no real files to spoil']
    failures = spoiled
    if decimals != {'jain': 9, 'handoff_local_frac': 9}:
        failures.append('the CSV gives jain and handoff_local_frac to %s decimals, not 9'
                        % decimals)
    # the page's note says what the CSV holds (it once said four decimals
    # and that a mean might differ in its last digit, after the CSV gave nine)
    words = {4: 'four', 6: 'six', 9: 'nine'}
    said = re.findall(r'Jain index and handoff share have (\w+) decimals', report_table.TABLE_NOTES)
    if said != [words.get(decimals.get('jain'), '?')] or 'may differ' in report_table.TABLE_NOTES:
        failures.append('the notes say the CSV\'s Jain and handoff share have %s decimals '
                        '(it gives %s), or that a mean may differ' % (said, decimals))
    if len(table) != 9:
        failures.append('the table gave %d of 9 configurations: %s' % (len(table), table))
    # the terminal legend's caveats of simulated rows reach the page's notes
    notes = report_table.conditional_notes([{'backend': 'sim', 'lock': 'pv-ticket',
                                             'overcommit': ''}])
    for words in ('differ only by their seeds', 'pv-*: paravirtual locks outside a virtual',
                  'kept to 1/128 of their size'):
        if words not in notes:
            failures.append('the notes of a simulated pv-ticket row lack %r' % words)
    if 'pv-*' in report_table.conditional_notes([{'backend': 'sim', 'lock': 'pv-ticket',
                                                  'overcommit': '2.00'}]):
        failures.append('a --vm row of pv-ticket is said to be outside a virtual machine')
    for key, cell in sorted(table.items()):
        if report.get(key) != cell:
            failures.append('%s t=%s: table %s, report %s' % (key[0], key[1], cell,
                                                              report.get(key)))
    failures += counts_failures(binary)
    failures += verdict_failures(binary)
    failures += probe_failures(binary)
    for f in failures:
        print('FAIL: %s' % f)
    if failures:
        sys.exit(1)
    print('unit_report: the report\'s jain, local and p99 cells read as the table\'s in %d '
          'configurations, its counts as the counts lines, and its verdicts as the table\'s '
          '! lines, its lockstep probes as the table\'s probe lines:' % len(table))
    for v in VERDICTS:
        print('  ' + v)


if __name__ == '__main__':
    main()
