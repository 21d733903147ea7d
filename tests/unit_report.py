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
