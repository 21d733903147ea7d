#!/usr/bin/env python3
"""tools/report.py - one HTML page per sweep: the command and environment,
a lockperf-style table per lock, the charts and the contention graphs; and
an index of every page.

`scons report TOPO=NAME` runs it on the latest complete sweep of NAME
(results/sim-NAME.csv, a link to results/sim-NAME-HASH.csv; README.md,
result files); by hand:

    python3 tools/report.py --csv results/sim-4socket.csv
                            [--json FILE] [--threads-csv FILE]
                            [--charts DIR] [--graphs DIR] [--out DIR]
                            [--name NAME] [--command TEXT]

Inputs:
  --csv          the CSV of `locklab-sim run --csv` (or locklab-native)
  --json         the JSON of the same run (`--json`); default: the CSV's
                 path with .json, when that file exists
  --threads-csv  the per-thread CSV of the same run (`--threads-csv`): then
                 the starved threads are counted; without it a run whose
                 acq_min is 0 shows ">=1"
  --charts DIR   where plots/plots.py drew (default: the CSV's directory):
                 KIND-NAME.svg (or .png) for KIND throughput, jain, waits,
                 traffic, and KIND-TOPO for acquisitions, crossover
  --graphs DIR   where `run --graphs DIR` wrote (default: the CSV's
                 directory): graph-TOPO-LOCK-THREADS-{handoff,machine}.svg
                 of the sweep's topology and locks
Outputs, in --out (default: the CSV's directory):
  report-NAME.html  NAME is the CSV's name without .csv (--name)
  report.html       the index of every report-*.html there

Images are referenced by a path relative to the page (an <img> per SVG, a
link to the PNG), so a page moves together with its directory.  Each file
is written to a temporary name and renamed.  The command comes from the
JSON's "command" (a string or a list of words), else --command.
Exit status 0, 1 when a file could not be written, 2 on bad arguments or
missing inputs (one line on stderr).
"""

import argparse
import csv
import html
import json
import math
import os
import re
import sys
import tempfile
import urllib.parse

CHART_KINDS = ['throughput', 'jain', 'waits', 'traffic', 'acquisitions', 'crossover']
CHART_TITLES = {
    'throughput': 'throughput against threads',
    'jain': "fairness (Jain's index) against threads",
    'waits': 'wait median, p99 and maximum against threads (censored)',
    'traffic': 'cache-line transfers per acquisition by distance',
    'acquisitions': 'acquisitions per thread (a separate run, plots.py)',
    'crossover': 'best lock by threads and critical section (a separate sweep, plots.py)',
}
GRAPH_KINDS = ['handoff', 'machine']
NEEDED_COLUMNS = ['lock', 'threads', 'throughput_per_s']
NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._,+=-]*$')
TIME_UNITS = [(1.0, 'ns'), (1e3, 'us'), (1e6, 'ms'), (1e9, 's')]


class BadInput(Exception):
    """Bad arguments or missing inputs: one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(message)


# ------------------------------------------------------------ inputs

def read_csv_rows(path, what, head=None):
    """The rows of a CSV as dicts; its column names appended to head, when
    given (a file of a header alone has them and no rows)."""
    try:
        with open(path, newline='') as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            if head is not None:
                head.extend(reader.fieldnames or [])
    except OSError as e:
        raise BadInput('%s %s: %s' % (what, path, e.strerror))
    except (csv.Error, UnicodeDecodeError) as e:
        raise BadInput('%s %s: not a CSV file: %s' % (what, path, e))
    return rows


def read_sweep_csv(path):
    rows = read_csv_rows(path, '--csv')
    if not rows:
        raise BadInput('--csv %s: no rows' % path)
    missing = [c for c in NEEDED_COLUMNS if c not in rows[0]]
    if missing:
        raise BadInput('--csv %s: no column %s: not a locklab run CSV' % (path, missing[0]))
    return rows


def read_threads_csv(path):
    """The rows of a per-thread CSV; a header alone (every run failed) is
    no rows, a header without the columns is not such a file."""
    head = []
    rows = read_csv_rows(path, '--threads-csv', head)
    missing = [c for c in RUN_COLUMNS + ('tid', 'acquisitions') if c not in head]
    if missing:
        raise BadInput('--threads-csv %s: no column %s: not a locklab per-thread CSV'
                       % (path, missing[0]))
    return rows


def read_json(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput('--json %s: %s' % (path, e.strerror))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadInput('--json %s: not JSON: %s' % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get('environment'), dict):
        raise BadInput('--json %s: not a locklab run JSON (no "environment" object)' % path)
    return doc


def need_dir(path, opt):
    if not os.path.isdir(path):
        raise BadInput('%s %s: not a directory' % (opt, path))
    return path


def num(row, key):
    try:
        return float(row.get(key, ''))
    except (TypeError, ValueError):
        return math.nan


def finite(xs):
    return [x for x in xs if not math.isnan(x)]


def mean(xs):
    xs = finite(xs)
    return sum(xs) / len(xs) if xs else math.nan


def sigma(xs):
    """Sample standard deviation (n - 1), as the run table prints it; none
    (shown '-') of a single run, which the terminal calls "no variance"."""
    xs = finite(xs)
    if len(xs) < 2:
        return math.nan
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


# ------------------------------------------------------------ the table

def workload_key(row):
    return tuple(row.get(k, '') for k in
                 ('cs_ns', 'ncs_ns', 'ncs_exp', 'cs_lines', 'locks', 'read_pct'))


def workload_text(key):
    cs, ncs, exp, lines, locks, read_pct = key
    ncs = ('exp:%s' % ncs) if exp == 'true' else ncs
    text = 'cs=%sns ncs=%sns cs-lines=%s locks=%s' % (cs, ncs, lines, locks)
    return text + (' read-pct=%s' % read_pct if read_pct else '')


RUN_COLUMNS = ('backend', 'topo', 'lock', 'threads', 'cs_ns', 'ncs_ns', 'cs_lines', 'locks',
               'seed', 'run')


def run_key(row):
    """What names one run in both the run CSV and the per-thread CSV."""
    return tuple(row.get(k, '') for k in RUN_COLUMNS)


def starved_by_run(thread_rows):
    """{run key: threads with no acquisition} of a per-thread CSV."""
    out = {}
    for r in thread_rows:
        k = run_key(r)
        out[k] = out.get(k, 0) + (num(r, 'acquisitions') == 0)
    return out


def run_starved(runs, per_run):
    """Each run's starved threads: from the per-thread CSV, or the run CSV's
    own `starved` column; None where neither has every run."""
    counts = [per_run.get(run_key(r)) for r in runs]
    if runs and all(c is not None for c in counts):
        return counts
    column = [num(r, 'starved') for r in runs]
    if runs and all(not math.isnan(c) for c in column):
        return [int(c) for c in column]
    return None


def starved_cell(runs, counts):
    """(text, count or None): exact from each run's count (run_starved),
    else a bound from acq_min; the count is the most starved threads of one
    run."""
    if counts:
        return '%d' % max(counts), max(counts)
    if any(num(r, 'acq_min') == 0 for r in runs):
        return '&ge;1', None
    if all(not math.isnan(num(r, 'acq_min')) for r in runs):
        return '0', 0
    return '-', 0


def group_configs(rows):
    """{(lock, workload): {(backend, topo, threads, overcommit): [rows]}},
    first-seen order (a --vm sweep's levels are rows of their own, as in the
    terminal's table)."""
    out = {}
    for r in rows:
        by_cfg = out.setdefault((r['lock'], workload_key(r)), {})
        by_cfg.setdefault((r.get('backend', ''), r.get('topo', ''), r['threads'],
                           r.get('overcommit', '')), []).append(r)
    return out


def threads_order(item):
    try:
        return (item[0][0], item[0][1], int(item[0][2]), item[0][3])
    except ValueError:
        return (item[0][0], item[0][1], 0, item[0][3])


def config_label(cfg):
    """As the terminal's: "sim 4socket t=8", and " x2.00" under --vm."""
    return '%s %s t=%s' % cfg[:3] + (' x%s' % cfg[3] if cfg[3] else '')


def fmt(x, spec='%.4f'):
    return '-' if math.isnan(x) else spec % x


def row_spec(mean_in_unit):
    """A row's throughput format: four decimals, or as many as keep three
    significant digits of a mean below 0.01 of the heading's unit (as the
    terminal's table, core/table.c), at most seven."""
    d, m = 4, mean_in_unit
    while m > 0 and m < 0.01 and d < 7:
        m *= 10
        d += 1
    return '%%.%df' % d


def fmt_time(ns):
    if math.isnan(ns):
        return '-'
    scale, unit = TIME_UNITS[0]
    for s, u in TIME_UNITS:
        if ns >= s:
            scale, unit = s, u
    return '%.4g %s' % (ns / scale, unit)


def verdict(starved_text, starved, threads, counts=None):
    """As the terminal's ! line: how many in how many runs, where the runs
    differ (counts: each run's, where known)."""
    if starved and counts and min(counts) != max(counts):
        if min(counts) == 0:
            return 'up to %d of %s threads never got the lock (in %d of %d runs)' % (
                starved, threads, sum(1 for c in counts if c), len(counts))
        return '%d to %d of %s threads never got the lock' % (min(counts), starved, threads)
    if starved:
        return '%d of %s threads never got the lock' % (starved, threads)
    if starved is None:
        return 'at least one of %s threads never got the lock' % threads
    return ''


def sockets_said(ok):
    """As the terminal's: when no run's acquisitions reached every socket
    its threads sat on, how many did (the CSV's sockets_served of sockets);
    nothing from a CSV without the columns."""
    served = [num(r, 'sockets_served') for r in ok]
    sockets = [num(r, 'sockets') for r in ok]
    if not ok or any(math.isnan(x) for x in served + sockets):
        return ''
    most, of = int(max(served)), int(max(sockets))
    if most == 1 and of > 1:
        return "; in each run only one socket's threads got it: the throughput is theirs"
    if most < of:
        return ('; in each run the threads of at most %d of the %d sockets got it: the '
                'throughput is theirs' % (most, of))
    return ''


def p99_cell(ok):
    """The mean p99 over the runs, marked &ge; where some run's is only a
    lower bound (the CSV's wait_p99_censored; the terminal's >=)."""
    text = fmt_time(mean([num(r, 'wait_p99_ns') for r in ok]))
    if any(r.get('wait_p99_censored') == 'true' for r in ok):
        return '&ge;' + text
    return text


def rate_unit(by_cfg):
    """A table's unit, as the terminal's: Macq/s unless its largest mean
    would print as 0.00xx, then kacq/s or acq/s."""
    most = 0.0
    for runs in by_cfg.values():
        m = mean([num(r, 'throughput_per_s') for r in runs])
        if not math.isnan(m):
            most = max(most, m)
    return unit_for(most)


def unit_for(rate):
    """(scale, name) that keeps a rate's digits at four decimals."""
    if rate >= 1e4:
        return 1e6, 'Macq/s'
    return (1e3, 'kacq/s') if rate >= 10 else (1.0, 'acq/s')


def config_row(cfg, runs, per_run, scale=1e6):
    ok = [r for r in runs if not math.isnan(num(r, 'throughput_per_s'))]
    tp = [num(r, 'throughput_per_s') / scale for r in ok]
    m, s = mean(tp), sigma(tp)
    sem = s / math.sqrt(len(tp)) if tp else math.nan
    pct = 100.0 * sem / m if tp and m > 0 else math.nan
    # every run failed: nothing was counted, not even starved threads
    counts = run_starved(ok, per_run)
    stext, starved = starved_cell(ok, counts) if ok else ('-', 0)
    says = verdict(stext, starved, cfg[2], counts)
    acq = [num(r, 'acquisitions') for r in ok]
    fewest = min(acq, default=math.nan)
    if says and max(acq, default=0) > 0 and fewest < num(ok[0], 'threads'):
        says += ('; but a run made %d acquisitions for %s threads: too short to give each '
                 'one, whatever the lock (a longer --duration tells)' % (fewest, cfg[2]))
    elif says and max(acq, default=0) > 0:
        says += sockets_said(ok)
    spec = row_spec(m)
    cells = [config_label(cfg), '%d' % len(ok), fmt(m, spec), fmt(s, spec), fmt(sem, spec),
             '&plusmn; %s%%' % fmt(pct, '%.2f'), fmt(mean([num(r, 'jain') for r in ok])),
             stext, fmt(100.0 * mean([num(r, 'handoff_local_frac') for r in ok]), '%.1f%%'),
             p99_cell(ok),
             html.escape(says)]
    if len(ok) < len(runs):
        cells[-1] = html.escape('%d of %d runs failed' % (len(runs) - len(ok), len(runs)))
        cells[-1] += ('; ' + html.escape(says)
                      if starved or starved is None else '')
    cls = ' class="starved"' if starved or starved is None else ''
    return '<tr%s><th scope="row">%s</th>%s</tr>' % (
        cls, html.escape(cells[0]), ''.join('<td>%s</td>' % c for c in cells[1:]))


TABLE_HEAD = ('<tr><th>configuration</th><th>runs</th><th>mean</th><th>sigma</th>'
              '<th>SEM</th><th>&plusmn; SEM/mean</th><th>Jain</th>'
              '<th>starved threads</th><th>socket-local handoffs</th><th>p99 wait</th>'
              '<th>verdict</th></tr>')


def side_text(ok, side):
    """An rwlock side as the terminal's side line: its rate over the runs
    (each run's count over its time), its wait p99 (the mean of the runs
    that timed one, &ge; where some run's is a lower bound, - where none did)
    and its longest wait."""
    rates = [num(r, side + 's') / num(r, 'duration_s') for r in ok
             if num(r, 'duration_s') > 0]
    m = mean(rates)
    scale, unit = unit_for(0.0 if math.isnan(m) else m)
    p99 = fmt_time(mean([num(r, side + '_wait_p99_ns') for r in ok]))
    if any(r.get(side + '_wait_p99_censored') == 'true' for r in ok):
        p99 = '&ge;' + p99
    longest = max([x for x in (num(r, side + '_wait_max_ns') for r in ok) if not math.isnan(x)],
                  default=math.nan)
    return '%ss %s %s, wait p99 %s, longest %s' % (side, fmt(m / scale), unit, p99,
                                                    fmt_time(longest))


def side_row(runs):
    """Under an rwlock's row, its reads and writes (the terminal's side
    lines); '' for other locks."""
    ok = [r for r in runs if not math.isnan(num(r, 'throughput_per_s'))]
    if not ok or all(r.get('reads', '') == '' for r in ok):
        return ''
    return ('<tr class="side"><td></td><td colspan="10">%s; %s</td></tr>'
            % (side_text(ok, 'read'), side_text(ok, 'write')))


def vm_row(runs):
    """Under a --vm row, the hypervisor's counters, means per run, as the
    terminal's vm line; '' without --vm."""
    ok = [r for r in runs if not math.isnan(num(r, 'throughput_per_s'))]
    if not ok or all(r.get('pcpus', '') == '' for r in ok):
        return ''

    def per_run(col):
        return fmt(mean([num(r, col) for r in ok]), '%.1f')

    if ok[0].get('holder_preemptions', '') != '':  # the simulator's hypervisor
        text = ('pcpus %s; per run: preempted holding %s (%s ns/acq), waiting %s (%s ns/acq); '
                'ple exits %s, halts %s, kicks %s'
                % (ok[0]['pcpus'], per_run('holder_preemptions'),
                   per_run('holder_lost_ns_per_acq'), per_run('waiter_preemptions'),
                   per_run('waiter_lost_ns_per_acq'), per_run('ple_exits'), per_run('halts'),
                   per_run('kicks')))
    else:
        text = ('cpus %s; per run: involuntary switches %s, halts %s, kicks %s'
                % (ok[0]['pcpus'], per_run('preemptions'), per_run('halts'), per_run('kicks')))
    return '<tr class="side"><td></td><td colspan="10">vm: %s</td></tr>' % html.escape(text)


def tables_html(rows, thread_rows):
    per_run = starved_by_run(thread_rows)
    out = []
    for (lock, wl), by_cfg in group_configs(rows).items():
        scale, unit = rate_unit(by_cfg)
        out.append('<table class="lock"><caption><b>%s</b> %s (throughput, %s)</caption>'
                   % (html.escape(lock), html.escape(workload_text(wl)), unit))
        out.append('<thead>%s</thead><tbody>' % TABLE_HEAD)
        for cfg, runs in sorted(by_cfg.items(), key=threads_order):
            out.append(config_row(cfg, runs, per_run, scale))
            out.append(side_row(runs))
            out.append(vm_row(runs))
        out.append('</tbody></table>')
    return '\n'.join(out)


TABLE_NOTES = (
    '<p class="note">mean and sigma (n&minus;1) of the throughput over the runs; SEM = '
    'sigma/&radic;runs. Jain, socket-local handoffs and p99 wait: means over the runs; a thread '
    'still waiting at the end counts with its wait so far (censored); where half or more of the '
    'waits at or above the p99 were cut short, in one run or more, it is only a lower bound, '
    'marked &ge; (the CSV\'s <code>wait_p99_censored</code>; a CSV without that column leaves '
    'every cell unmarked). Under an rwlock\'s row, its reads and writes: each side\'s rate, '
    'its wait p99 (the mean of the runs that timed a wait of that side) and its longest wait, '
    'as the terminal\'s side lines; under a <code>--vm</code> row, the hypervisor\'s counters, '
    'means per run, as the terminal\'s vm line (its ns/acq: the time descheduled vCPUs spent off '
    'their pCPUs, summed over the vCPUs and divided by the acquisitions). Starved threads: threads with no '
    'acquisition, the most of one run (the CSV\'s <code>starved</code>, or the per-thread '
    'CSV); &ge;1 when only acq_min = 0 is known. Every figure is computed from the CSV, whose '
    'Jain index and handoff share have four decimals and throughput two: a mean may differ '
    'from the terminal table\'s, computed before rounding, in its last digit.</p>')


# ------------------------------------------------------------ images

def rel_url(path, outdir):
    return urllib.parse.quote(os.path.relpath(path, outdir).replace(os.sep, '/'))


def find_charts(chart_dir, names, topo):
    """[(kind, svg or None, png or None)] of the charts of this sweep."""
    found = []
    for kind in CHART_KINDS:
        cands = names if kind not in ('acquisitions', 'crossover') else [topo] + names
        for n in dict.fromkeys(c for c in cands if c):
            base = os.path.join(chart_dir, '%s-%s' % (kind, n))
            svg, png = base + '.svg', base + '.png'
            svg = svg if os.path.isfile(svg) else None
            png = png if os.path.isfile(png) else None
            if svg or png:
                found.append((kind, svg, png))
                break
    return found


def find_graphs(graph_dir, topo, locks):
    """[(lock, threads, kind, svg, png or None)] of graph-TOPO-LOCK-T-KIND.svg."""
    pat = re.compile(r'^graph-%s-(.+)-(\d+)-(%s)\.svg$'
                     % (re.escape(topo), '|'.join(GRAPH_KINDS)))
    found = []
    for f in sorted(os.listdir(graph_dir)):
        m = pat.match(f)
        if not m or m.group(1) not in locks:
            continue
        png = os.path.join(graph_dir, f[:-4] + '.png')
        found.append((m.group(1), int(m.group(2)), m.group(3), os.path.join(graph_dir, f),
                      png if os.path.isfile(png) else None))
    found.sort(key=lambda g: (locks.index(g[0]), g[1], GRAPH_KINDS.index(g[2])))
    return found


def figure_html(title, svg, png, outdir, stale):
    img = svg or png
    links = ''.join(' <a href="%s">%s</a>' % (rel_url(p, outdir), ext)
                    for p, ext in ((svg, 'SVG'), (png, 'PNG')) if p)
    note = ' <span class="stale">(drawn before this sweep\'s CSV)</span>' if stale(img) else ''
    return ('<figure><img src="%s" alt="%s"><figcaption>%s:%s%s</figcaption></figure>'
            % (rel_url(img, outdir), html.escape(title), html.escape(title), links, note))


# ------------------------------------------------------------ the page

def flatten(prefix, v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            flatten('%s.%s' % (prefix, k) if prefix else k, x, out)
    elif isinstance(v, list):
        out.append((prefix, ', '.join(json.dumps(x) if isinstance(x, (dict, list)) else str(x)
                                      for x in v)))
    else:
        out.append((prefix, 'null' if v is None else str(v).lower()
                    if isinstance(v, bool) else str(v)))
    return out


def command_text(doc, given):
    cmd = doc.get('command') if doc else None
    if isinstance(cmd, list):
        return ' '.join(str(w) for w in cmd)
    if isinstance(cmd, str) and cmd:
        return cmd
    return given or ''


def env_html(doc):
    if doc is None:
        return '<p class="note">no JSON: the environment is not known.</p>'
    items = []
    if 'locklab_version' in doc:
        items.append(('locklab_version', str(doc['locklab_version'])))
    items += flatten('', doc.get('environment', {}), [])
    return '<table class="env">%s</table>' % ''.join(
        '<tr><th scope="row">%s</th><td>%s</td></tr>' % (html.escape(k), html.escape(v))
        for k, v in items)


STYLE = """
body { font: 14px/1.4 sans-serif; margin: 1.5em; max-width: 1200px; color: #111; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
pre { background: #f4f4f4; padding: .6em; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; margin: .8em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; }
table.lock td { text-align: right; font-variant-numeric: tabular-nums; }
table.lock td:last-child { text-align: left; }
table.lock caption, table.env th { text-align: left; }
table.lock th[scope=row] { white-space: nowrap; }
tr.starved { background: #fde8e8; }
tr.side td { color: #444; font-size: 90%; }
div.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); }
figure { margin: .5em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
div.charts figure img { width: 100%; }
.note { color: #555; font-size: .9em; } .stale { color: #a00; }
"""


def sweep_facts(rows, doc):
    env = (doc or {}).get('environment', {})
    topo = env.get('topology', {}).get('name') if isinstance(env.get('topology'), dict) else None
    topo = topo or rows[0].get('topo', '') or ''
    locks = list(dict.fromkeys(r['lock'] for r in rows))
    threads = sorted({int(r['threads']) for r in rows if r['threads'].isdigit()})
    backends = sorted({r.get('backend', '') for r in rows} - {''})
    return topo, locks, threads, backends


def page_html(a, rows, doc, thread_rows, charts, graphs):
    topo, locks, threads, backends = sweep_facts(rows, doc)
    summary = '%s on %s: %s; threads %s; %d rows' % (
        '/'.join(backends) or '?', topo or '?', ','.join(locks),
        ','.join(str(t) for t in threads), len(rows))
    csv_mtime = os.path.getmtime(a.csv)

    def stale(p):
        return os.path.getmtime(p) < csv_mtime

    cmd = command_text(doc, a.command)
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        '<title>locklab report: %s</title>' % html.escape(a.name),
        '<meta name="locklab-report" content="%s">' % html.escape(summary),
        '<style>%s</style></head><body>' % STYLE,
        '<h1>locklab report: %s</h1><p>%s</p>' % (html.escape(a.name), html.escape(summary)),
        '<p class="note">results: <a href="%s">%s</a>%s</p>' % (
            rel_url(a.csv, a.out), html.escape(os.path.basename(a.csv)),
            ', <a href="%s">%s</a>' % (rel_url(a.json, a.out), html.escape(os.path.basename(a.json)))
            if a.json else ''),
        '<h2>Command</h2>',
        '<pre>%s</pre>' % html.escape(cmd) if cmd else
        '<p class="note">the JSON does not record the command (give --command).</p>',
        '<h2>Environment</h2>', env_html(doc),
        '<h2>Results per lock</h2>', tables_html(rows, thread_rows), TABLE_NOTES,
        '<h2>Charts</h2>']
    if charts:
        parts += ['<div class="charts">'] + [figure_html(CHART_TITLES[k], svg, png, a.out, stale)
                                             for k, svg, png in charts] + ['</div>']
    else:
        parts.append('<p class="note">no chart of this sweep in %s (python3 plots/plots.py '
                     '--results DIR --topo %s).</p>' % (html.escape(a.charts), html.escape(topo)))
    parts.append('<h2>Contention graphs</h2>')
    if graphs:
        parts += [figure_html('%s, %d threads: %s graph (from the run that wrote it, scons graphs '
                              'or run --graphs: not necessarily this sweep\'s)' % (l, t, k),
                              svg, png, a.out, stale)
                  for l, t, k, svg, png in graphs]
    else:
        parts.append('<p class="note">no graph of this sweep in %s (locklab-sim run ... '
                     '--graphs DIR).</p>' % html.escape(a.graphs))
    parts.append('</body></html>\n')
    return '\n'.join(parts)


# ------------------------------------------------------------ index

def index_html(outdir):
    items = []
    for f in sorted(os.listdir(outdir)):
        if not (f.startswith('report-') and f.endswith('.html')):
            continue
        try:
            with open(os.path.join(outdir, f), encoding='utf-8', errors='replace') as h:
                head = h.read(4096)
        except OSError:
            continue
        m = re.search(r'<meta name="locklab-report" content="([^"]*)">', head)
        items.append('<li><a href="%s">%s</a> %s</li>' % (
            urllib.parse.quote(f), html.escape(f[len('report-'):-len('.html')]),
            m.group(1) if m else ''))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<title>locklab reports</title><style>%s</style></head><body>'
            '<h1>locklab reports</h1>\n<ul>\n%s\n</ul>\n</body></html>\n'
            % (STYLE, '\n'.join(items) or '<li>none</li>'))


def write_whole(path, text):
    """Write PATH through a temporary file in its directory and rename."""
    d = os.path.dirname(path) or '.'
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.%s.' % os.path.basename(path), suffix='.tmp')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ------------------------------------------------------------ main

def parse_args(argv):
    ap = OneLineParser(description='an HTML page per locklab sweep, and their index')
    ap.add_argument('--csv', required=True, help='the run CSV (locklab-sim run --csv)')
    ap.add_argument('--json', help='the run JSON (default: the CSV path with .json, if any)')
    ap.add_argument('--threads-csv', help='the per-thread CSV of the same run')
    ap.add_argument('--charts', help="plots.py's output directory (default: the CSV's)")
    ap.add_argument('--graphs', help="run --graphs directory (default: the CSV's)")
    ap.add_argument('--out', help="where the pages go (default: the CSV's directory)")
    ap.add_argument('--name', help="the page is report-NAME.html (default: the CSV's name)")
    ap.add_argument('--command', help='the command, when the JSON does not record it')
    a = ap.parse_args(argv)
    if not os.path.isfile(a.csv):
        raise BadInput('--csv %s: %s' % (a.csv, 'a directory, not a file' if os.path.isdir(a.csv)
                                         else 'no such file'))
    if os.path.islink(a.csv):  # results/sim-NAME.csv: the sweep it links to
        a.csv = os.path.relpath(os.path.realpath(a.csv))
    here = os.path.dirname(a.csv) or '.'
    if a.json is None:
        guess = os.path.splitext(a.csv)[0] + '.json'
        a.json = guess if os.path.isfile(guess) else None
    a.charts = need_dir(a.charts or here, '--charts')
    a.graphs = need_dir(a.graphs or here, '--graphs')
    a.out = need_dir(a.out or here, '--out')
    a.name = a.name or os.path.splitext(os.path.basename(a.csv))[0]
    if not NAME_RE.match(a.name):
        raise BadInput('--name %r: letters, digits and . _ , + = - only' % a.name)
    return a


def main(argv):
    try:
        a = parse_args(argv)
        rows = read_sweep_csv(a.csv)
        doc = read_json(a.json) if a.json else None
        thread_rows = read_threads_csv(a.threads_csv) if a.threads_csv else []
        topo, locks, _, _ = sweep_facts(rows, doc)
        names = [a.name[len('sim-'):] if a.name.startswith('sim-') else a.name, a.name]
        charts = find_charts(a.charts, names, topo)
        graphs = find_graphs(a.graphs, topo, locks)
    except BadInput as e:
        sys.stderr.write('report.py: %s\n' % e)
        return 2
    page = os.path.join(a.out, 'report-%s.html' % a.name)
    try:
        write_whole(page, page_html(a, rows, doc, thread_rows, charts, graphs))
        write_whole(os.path.join(a.out, 'report.html'), index_html(a.out))
    except OSError as e:
        sys.stderr.write('report.py: cannot write %s: %s\n' % (e.filename or page, e.strerror))
        return 1
    print('wrote %s (%d charts, %d graphs) and %s' % (
        page, len(charts), len(graphs), os.path.join(a.out, 'report.html')))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
