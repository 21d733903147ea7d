#!/usr/bin/env python3
"""tools/scoreboard_csv.py - results/scoreboard.csv: a line per entry
(its figures, pass, wall time, band, failure, seeds passed, options
appended), written whole.  tools/scoreboard.py runs the board.
"""

import os

import report  # tools/report.py: write_whole, a results file written whole
from scoreboard_print import seeds_cell
from scoreboard_rules import band

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
