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

The page's heading names the backend, the machine, the locks, the thread
counts and the runs with their length (the CSV's duration_s: one length, or
the shortest and longest where they differ, as a --ops run's do).
Images are referenced by a path relative to the page (an <img> per SVG, a
link to the PNG), so a page moves together with its directory.  Each file
is written to a temporary name and renamed.  The command comes from the
JSON's "command" (a string or a list of words), else --command.
Exit status 0, 1 when a file could not be written, 2 on bad arguments or
missing inputs (one line on stderr): an option given twice or abbreviated,
an input that is not a regular file, or not what a locklab run writes
(report_input.py says what is checked).

This file holds the command line, the images, the page and the index; the
inputs are read and checked in report_input.py, the tables per lock are in
report_table.py beside it.
"""

import html
import json
import os
import re
import sys
import tempfile
import urllib.parse

# the modules beside this file, read and not cached: nothing is written
# into the source tree
sys.dont_write_bytecode = True
from args_oneline import OneLineParser, one_line  # noqa: E402
from report_input import (BadInput, need_file, read_json, read_sweep_csv,  # noqa: E402
                          read_threads_csv, show)
from report_table import TABLE_NOTES, conditional_notes, tables_html  # noqa: E402

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
NAME_RE = re.compile(r'[A-Za-z0-9][A-Za-z0-9._,+=-]*')


# ------------------------------------------------------------ inputs

def json_topo(doc):
    """The simulated machine's name the JSON gives, or None."""
    topo = (doc or {}).get('environment', {}).get('topology')
    return topo.get('name') if isinstance(topo, dict) and isinstance(topo.get('name'), str) else None


def need_dir(path, opt):
    if not os.path.isdir(path):
        raise BadInput('%s %s: %s' % (opt, show(path), 'not a directory'
                                      if os.path.lexists(path) else 'does not exist'))
    return path


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
    try:
        files = sorted(os.listdir(graph_dir))
    except OSError as e:
        raise BadInput('--graphs %s: %s' % (show(graph_dir), e.strerror))
    for f in files:
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
tr.unfair { background: #fdf3e0; }
tr.side td { color: #444; font-size: 90%; }
div.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); }
figure { margin: .5em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
div.charts figure img { width: 100%; }
.note { color: #555; font-size: .9em; } .stale { color: #a00; }
"""


def duration_text(s):
    """A run's length in seconds as the unit that keeps it short: 2 ms."""
    for scale, unit in ((1.0, 's'), (1e-3, 'ms'), (1e-6, 'us')):
        if s >= scale:
            break
    return '%.3g %s' % (s / scale, unit)


def runs_text(rows):
    """The runs and their length, from the CSV's duration_s: "8 runs of
    2 ms", or the shortest and longest where they differ (a --ops or --vm
    run's length is its own); "8 runs" when the CSV gives none."""
    lengths = []
    for r in rows:
        try:
            lengths.append(float(r.get('duration_s') or 'nan'))
        except ValueError:
            pass
    lengths = [x for x in lengths if x > 0]
    n = '%d run%s' % (len(rows), '' if len(rows) == 1 else 's')
    if not lengths:
        return n
    lo, hi = duration_text(min(lengths)), duration_text(max(lengths))
    return '%s of %s' % (n, lo) if lo == hi else '%s of %s to %s' % (n, lo, hi)


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
    summary = '%s on %s: %s; threads %s; %s' % (
        '/'.join(backends) or '?', topo or '?', ','.join(locks),
        ','.join(str(t) for t in threads), runs_text(rows))
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
        '<p class="note">%s (give --command).</p>' % (
            'the JSON does not record the command' if doc is not None else
            'no JSON of this run (--json, or the CSV\'s path with .json): the command is '
            'not known'),
        '<h2>Environment</h2>', env_html(doc),
        '<h2>Results per lock</h2>', tables_html(rows, thread_rows, (doc or {}).get('lockstep_probes'),
                                                 json_topo(doc)), TABLE_NOTES,
        conditional_notes(rows, (doc or {}).get('environment', {}).get('time_every')),
        '<h2>Charts</h2>']
    if charts:
        parts += ['<div class="charts">'] + [figure_html(CHART_TITLES[k], svg, png, a.out, stale)
                                             for k, svg, png in charts] + ['</div>']
    else:
        parts.append('<p class="note">no chart of this sweep in %s (%s).</p>'
                     % (html.escape(a.charts), html.escape(charts_hint(a, topo, backends))))
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


def charts_hint(a, topo, backends):
    """The plots.py command that draws this sweep's charts where the page
    looks for them.  plots.py charts every sim-*.csv and native-*.csv of
    --results; a native CSV gets throughput, jain and waits (traffic,
    acquisitions and crossover are the simulator's), named by the file
    (KIND-native-HOST...), while --topo names a simulated machine, of the
    acquisitions and crossover sweeps."""
    here = os.path.dirname(a.csv) or '.'
    cmd = 'python3 plots/plots.py --results %s' % here
    if os.path.abspath(a.charts) != os.path.abspath(here):
        cmd += ' --out %s' % a.charts
    native = backends == ['native']
    cmd += ' --only throughput,jain,waits' if native else ' --topo %s' % (topo or 'NAME')
    base = os.path.basename(a.csv)
    if not base.startswith('native-' if native else 'sim-'):
        cmd += '; it charts the %s-*.csv files there only' % ('native' if native else 'sim')
    return cmd


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
    # each option once, and spelt out (an abbreviation or a second value
    # would be taken unsaid): args_oneline's parser, which says so in one line
    ap = OneLineParser(prog='report.py',
                       description='an HTML page per locklab sweep, and their index')
    ap.add_argument('--csv', help='the run CSV (locklab-sim run --csv; required)')
    ap.add_argument('--json', help='the run JSON (default: the CSV path with .json, if any)')
    ap.add_argument('--threads-csv', help='the per-thread CSV of the same run')
    ap.add_argument('--charts', help="plots.py's output directory (default: the CSV's)")
    ap.add_argument('--graphs', help="run --graphs directory (default: the CSV's)")
    ap.add_argument('--out', help="where the pages go (default: the CSV's directory)")
    ap.add_argument('--name', help="the page is report-NAME.html (default: the CSV's name)")
    ap.add_argument('--command', help='the command, when the JSON does not record it')
    a = ap.parse_args(argv)
    if a.csv is None:
        raise BadInput('the following arguments are required: --csv')
    for opt in ('csv', 'charts', 'graphs', 'out', 'name', 'json', 'threads_csv', 'command'):
        if getattr(a, opt) == '':  # given, but empty: never the default in its place
            raise BadInput('--%s is empty' % opt.replace('_', '-'))
    need_file(a.csv, '--csv')
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
    if not NAME_RE.fullmatch(a.name):
        raise BadInput('--name %r: letters, digits and . _ , + = - only' % a.name)
    return a


def main(argv):
    try:
        a = parse_args(argv)
        rows = read_sweep_csv(a.csv)
        doc = read_json(a.json) if a.json else None
        thread_rows = read_threads_csv(a.threads_csv, rows) if a.threads_csv else []
        topo, locks, _, _ = sweep_facts(rows, doc)
        names = [a.name[len('sim-'):] if a.name.startswith('sim-') else a.name, a.name]
        charts = find_charts(a.charts, names, topo)
        graphs = find_graphs(a.graphs, topo, locks)
    except BadInput as e:  # one line, whatever it quotes
        sys.stderr.write('report.py: %s\n' % one_line(str(e)))
        return 2
    page = os.path.join(a.out, 'report-%s.html' % a.name)
    try:
        write_whole(page, page_html(a, rows, doc, thread_rows, charts, graphs))
        write_whole(os.path.join(a.out, 'report.html'), index_html(a.out))
    except OSError as e:
        sys.stderr.write('report.py: cannot write %s: %s\n'
                         % (show(e.filename or page), one_line(e.strerror or str(e))))
        return 1
    print('wrote %s (%d charts, %d graphs) and %s' % (
        page, len(charts), len(graphs), os.path.join(a.out, 'report.html')))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
