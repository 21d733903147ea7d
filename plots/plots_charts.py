#!/usr/bin/env python3
"""plots/plots_charts.py - locklab's charts drawn: gnuplot run on a script
next to this file with its variables, the headings (what a chart's numbers
rest on), and each chart's data table and call: throughput, jain and waits
(the series of a file), traffic, acquisitions per thread and crossover.
plots/plots.py reads the files and chooses the charts.
"""

import math
import os
import sys
import textwrap

from gnuplot_draw import draw, gp_str
from plots_colours import (CLASS_COLOURS, NO_WINNER_COLOUR, lock_colour, lock_marker, rgb_int,
                           socket_colour, text_on)
from plots_data import (RATE_UNITS, RUN_SUFFIX, TIME_UNITS, fmt, mean, num, ran, scaled_unit,
                        series_of, series_values, starves, workload_of, write_blocks,
                        write_series)
from plots_sweeps import THREADS_RUN_MS

HERE = os.path.dirname(os.path.abspath(__file__))
CENSORED = 'waits include threads still waiting at the end (censored)'
# The cross of the throughput and jain charts, as the acquisitions chart's:
# a lock that starves threads reports the throughput of those that got it.
STARVED = 'x: in some run threads never got the lock (starved)'


def wrap_heading(text, width):
    """Each line of a heading broken at its spaces to at most width
    characters: gnuplot centres a title over the plot and cuts off what
    is wider than the canvas."""
    return '\n'.join('\n'.join(textwrap.wrap(line, width, break_on_hyphens=False) or [''])
                      for line in text.split('\n'))


# the characters of a heading's line at 11 points over a chart's plot
HEADING_WIDTH = {'waits.gp': 190, 'acquisitions.gp': 180}


def gnuplot(script, out, **vars):
    """Run plots/SCRIPT with the variables into OUT.png and OUT.svg, both
    written whole or neither (gnuplot_draw.py); True when both were."""
    out = os.path.abspath(out)
    if 'heading' in vars:
        vars['heading'] = wrap_heading(vars['heading'], HEADING_WIDTH.get(script, 96))
        vars['heading_lines'] = vars['heading'].count('\n') + 1
    why = draw(os.path.join(HERE, script), out, vars, cwd=HERE)
    if why:
        sys.stderr.write('plots.py: %s\n' % why)
        return False
    print('wrote %s.png and %s.svg' % (out, out))
    return True


def workload_text(keys):
    """The workload every series shares, for the heading ("cs 50 ns, ncs
    200 ns, 1 line, 1 lock"); where the series differ, their titles say it:
    a --vm sweep's overcommit there when it is drawn against threads (xN in
    each title); drawn against overcommit (overcommit_groups) the keys carry
    none, and the x axis gives it."""
    wls = {k[2] for k in keys}
    shared = {w[:5] + w[6:] for w in wls}  # the workload but a --vm sweep's overcommit
    if len(shared) != 1:
        return 'workloads: in the titles'
    cs, ncs, lines, locks, read, x, exp = next(iter(wls))
    if len(wls) > 1:
        x = None  # each series' overcommit is in its title
    text = 'cs %s ns writing %s shared line%s, ncs %s%s ns, %s lock%s' % (
        cs or '?', lines or '?', '' if lines == '1' else 's',
        'exp:' if exp == 'true' else '', ncs or '?', locks or '?', '' if locks == '1' else 's')
    if read:
        text += ', %s%% reads' % read
    if x:
        text += ', overcommit x%s' % x
    elif len(wls) > 1:
        text += ', the overcommit (xN) in the titles'
    return text


PIN_SAYS = {'compact': 'threads fill socket 0, then socket 1, ...',
            'scatter': 'threads dealt round the sockets'}


def context_text(rows, env):
    """What a chart's numbers rest on, for its heading: simulated or
    measured, the machine's shape and placement, the runs' length, a sweep
    stopped early or a shard of one, and the model's assumed constants (""
    where the CSV and its JSON say nothing)."""
    parts = []
    backends = sorted({r.get('backend', '') for r in rows} - {''})
    topo = env.get('topology') if isinstance(env.get('topology'), dict) else {}
    hosts = sorted({r.get('topo', '?') for r in rows if r.get('backend') == 'native'})
    if 'sim' in backends and topo.get('cores') and topo.get('sockets'):
        smt = topo.get('smt', 1)
        shape = '%d sockets x %d cores%s' % (topo['sockets'], topo['cores'] // topo['sockets'],
                                             ' x %d threads' % smt if smt > 1 else '')
        parts.append('simulated %s (%s)' % (topo.get('name', '?'), shape))
    elif 'sim' in backends:
        parts.append('simulated')
    if hosts:  # a native row's machine is its host, never the simulated one beside it
        parts.append('measured natively on %s' % ', '.join(hosts)
                     + (' (%s CPUs)' % env['pus'] if backends == ['native'] and env.get('pus')
                        else ''))
    pin = env.get('pinning')
    if pin:
        parts.append('pinning %s' % pin + (' (%s)' % PIN_SAYS[pin] if pin in PIN_SAYS else ''))
    for b in backends:  # a simulated run's length is simulated time, a native one's wall time
        lengths = sorted({num(r, 'duration_s') for r in rows
                          if r.get('backend') == b and not math.isnan(num(r, 'duration_s'))})
        if lengths:
            span = fmt_seconds(lengths[0]) if len(lengths) == 1 else '%s to %s' % (
                fmt_seconds(lengths[0]), fmt_seconds(lengths[-1]))
            parts.append('runs of %s%s' % (span, '' if len(backends) == 1 else
                                            ' simulated' if b == 'sim' else ' natively'))
    over = sorted({int(num(r, 'threads')) for r in rows if r.get('oversubscribed') == 'true'})
    if over:
        parts.append('OVERSUBSCRIBED at %s threads (more threads than CPUs): their threads also '
                     'waited for a CPU, in their rates, fairness and waits alike'
                     % ', '.join(str(t) for t in over))
    if 'native' in backends and env.get('time_every', 2) != 1:
        parts.append('native waits: a sample, one acquisition in %s timed (--time-every) and '
                     'each thread\'s first' % env.get('time_every', 'K'))
    stopped = env.get('stopped_early')
    if isinstance(stopped, dict) and stopped.get('runs_planned'):
        parts.append('STOPPED EARLY: %s of %s runs done, the missing points were never run'
                     % (stopped.get('runs_done', '?'), stopped['runs_planned']))
    shard = env.get('shard')
    if shard:
        parts.append('shard %s of the sweep only' % shard)
    text = ', '.join(parts)
    assumed = topo.get('assumed')
    line = env.get('assumed_line')
    if line:  # the table's own line: the machine's, the locks' own, the presets'...
        text += '\n' + '\n'.join(textwrap.wrap(str(line), 150))
    elif assumed:
        text += ('\nassumed (no source; topologies/README.md): %s'
                 % ', '.join(str(a) for a in assumed))
    return text


def fmt_seconds(s):
    scale, unit = scaled_unit([s * 1e9], TIME_UNITS)
    return '%g %s' % (float('%.3g' % (s * 1e9 / scale)), unit)


def rows_workload_text(rows):
    """workload_text of rows read straight from a CSV (not grouped into
    series: a per-thread CSV has no throughput to group by)."""
    return workload_text([(None, None, workload_of(r)) for r in rows])


def series_titles(keys):
    """Short titles: the workload is named only when the file mixes several."""
    workloads = {k[2] for k in keys}
    backends = {k[0] for k in keys}
    titles = []
    for backend, lock, wl in keys:
        t = '%s:%s' % (backend, lock) if len(backends) > 1 else lock
        if len({w[:5] + w[6:] for w in workloads}) > 1:
            t += ':cs=%s,ncs=%s' % (wl[0], wl[1])
        if len({w[5] for w in workloads}) > 1:
            t += ':x%s' % wl[5]
        titles.append(t)
    return titles


def rows_text(by_lock):
    """How many rows a lock's bar is the mean of: "3 rows", "1 to 3 rows"."""
    counts = [len(rs) for rs in by_lock.values()]
    lo, hi = min(counts), max(counts)
    return '%d row%s' % (hi, '' if hi == 1 else 's') if lo == hi else '%d to %d rows' % (lo, hi)


def runs_text(groups):
    """How many runs a point is the mean of: "3 runs", "2 to 3 runs"."""
    counts = [len(rs) for by_t in groups.values() for rs in by_t.values()]
    lo, hi = min(counts), max(counts)
    return '%d run%s' % (hi, '' if hi == 1 else 's') if lo == hi else '%d to %d runs' % (lo, hi)


def bars_text(groups):
    """What the error bars are: none where a point is a single run."""
    counts = [len(rs) for by_t in groups.values() for rs in by_t.values()]
    if max(counts) < 2:
        return 'single runs: no bars'
    return 'bars: lowest to highest run' + ('' if min(counts) > 1 else ' (none for a single run)')


def display_name(name):
    """A result NAME as a heading gives it: the machine, then the sweep's
    hash apart ("4socket, sweep 4c7cf0c6"), so that the hash is not read as
    part of the machine's name."""
    m = RUN_SUFFIX.search(name)
    return '%s, sweep %s' % (name[:m.start()], m.group(0)[1:]) if m else name


# ------------------------------------------------------------ series

SIDEWAYS = 'series moved sideways by at most 7%, each lock with its own colour and marker'
SIDEWAYS_X = ('series moved sideways by at most 7%, each lock with its own colour, each '
              'overcommit its own marker')
# a --vm sweep's overcommit levels, lowest first, drawn against threads
# (several thread counts a lock): filled circle, square, triangle, diamond,
# then open ones
OVERCOMMIT_MARKERS = [7, 5, 9, 13, 6, 4, 8, 12]
OVERCOMMIT_AXIS = 'overcommit (vCPUs per pCPU)'


def overcommit_groups(groups):
    """A --vm sweep of several overcommits whose series of a lock share one
    thread count, as series against the overcommit, the effect measured:
    ({(backend, lock, workload but its overcommit): {overcommit: [rows]}},
    the thread counts of those series in order); None for any other file
    (several thread counts a lock, no overcommit, a single level), drawn
    against threads."""
    levels = {k[2][5] for k in groups}
    if len(levels) < 2 or '' in levels:
        return None
    out, counts = {}, {}
    for (backend, lock, wl), by_t in groups.items():
        base = (backend, lock, wl[:5] + ('',) + wl[6:])
        try:
            x = float(wl[5])
        except ValueError:
            return None
        counts.setdefault(base, set()).update(by_t)
        for rs in by_t.values():
            out.setdefault(base, {}).setdefault(x, []).extend(rs)
    if any(len(c) > 1 for c in counts.values()):
        return None
    return out, [next(iter(c)) for c in counts.values()]


# Up to this many thread counts, the threads axis has a tic at each (a
# dodged point at 8 would read as 7 between gnuplot's own tics); more, and
# gnuplot's powers of two.
MAX_THREAD_TICS = 12


def series_charts(name, rows, outdir, tmp, only, env=None):
    groups = series_of(rows)
    lost = {(r.get('backend'), r.get('lock'), workload_of(r), r.get('threads')) for r in rows}
    lost -= {(k[0], k[1], k[2], str(t)) for k, by_t in groups.items() for t in by_t}
    if lost:
        sys.stderr.write('plots.py: %s: %d configuration(s) whose runs all failed are not '
                         'drawn\n' % (name, len(lost)))
    if not groups:
        return True
    by_x = overcommit_groups(groups)
    if by_x:  # overcommit on the x axis, one series a lock as on a threads axis
        groups, threads = by_x
    keys = list(groups)
    data = os.path.join(tmp, 'series-%s.dat' % name)
    write_series(data, groups, 'overcommit' if by_x else 'threads')
    backends = sorted({k[0] for k in keys})
    levels = sorted({k[2][5] for k in keys}, key=lambda x: float(x or 0))
    by_level = len(levels) > 1  # against threads, a --vm sweep's overcommits: a marker each
    titles = series_titles(keys)
    if by_x and len(set(threads)) > 1:  # the locks at other thread counts: each says its own
        titles = ['%s:t%d' % (t, n) for t, n in zip(titles, threads)]
    common = dict(data=data, titles=' '.join(titles),
                  kinds=' '.join(k[0] for k in keys),
                  colours=' '.join(lock_colour(k[1]) for k in keys),
                  markers=' '.join(str(OVERCOMMIT_MARKERS[levels.index(k[2][5]) %
                                                          len(OVERCOMMIT_MARKERS)]
                                       if by_level else lock_marker(k[1])) for k in keys))
    sideways = SIDEWAYS_X if by_level else SIDEWAYS
    common['keepmarker'] = int(by_level)  # the marker tells the overcommit, starved or not
    against = 'threads'
    if by_x:
        xs = sorted({x for by_o in groups.values() for x in by_o})
        common.update(xname=OVERCOMMIT_AXIS,
                      xtic='(%s)' % ', '.join('"%s" %s' % (fmt(x), fmt(x)) for x in xs))
        against = '%s, %s' % (OVERCOMMIT_AXIS, '%d threads (vCPUs)' % threads[0]
                              if len(set(threads)) == 1 else 'the threads (vCPUs) in the titles')
    else:
        counts = {t for by_t in groups.values() for t in by_t}
        if len(counts) == 1:  # one thread count: an axis around it, not the dodge's width
            t = next(iter(counts))
            common.update(xmin=t / 2.0, xmax=t * 2.0)
        else:  # past the dodge's 7% at both ends, so that the last count's tic is drawn
            common.update(xmin=min(counts) / 2 ** 0.15, xmax=max(counts) * 2 ** 0.15)
        if len(counts) <= MAX_THREAD_TICS:  # a tic at each count drawn, none between
            common.update(xtic='(%s)' % ', '.join('"%d" %d' % (t, t) for t in sorted(counts)))
    what = '%s (%s; %s)' % (display_name(name), ', '.join(backends), workload_text(keys))
    context = context_text(rows, env or {})
    if context:
        what += '\n' + context
    # the cross and its key entry only on a chart that has one
    starved = int(any(starves(rs) for by_t in groups.values() for rs in by_t.values()))
    note = '\n' + STARVED if starved else ''
    if starved and any(r.get('oversubscribed') == 'true' for r in rows):
        note += ' or, oversubscribed, never got a CPU'
    tnote = note and note + ": its throughput is only the others'"
    ok = True
    if 'throughput' in only:
        scale, unit = scaled_unit(series_values(groups, 'throughput_per_s'), RATE_UNITS)
        ok &= gnuplot('throughput.gp', os.path.join(outdir, 'throughput-' + name),
                      heading='throughput of all threads together against %s: %s\n'
                      'points: means of %s; %s; %s%s'
                      % (against, what, runs_text(groups), bars_text(groups), sideways, tnote),
                      tscale=scale, tunit=unit, starved=starved, **common)
    if 'jain' in only:
        ok &= gnuplot('jain.gp', os.path.join(outdir, 'jain-' + name),
                      heading="fairness (Jain's index) against %s: %s\npoints: means of %s; "
                      "%s%s" % (against, what, runs_text(groups), sideways, note),
                      starved=starved, **common)
    if 'waits' in only:
        # one unit for the three panels, so that a tick reads the same in
        # each: the medians', the smallest figures, which a larger unit would
        # give as 1e-06
        unit = scaled_unit(series_values(groups, 'wait_p50_ns'), TIME_UNITS)
        wnote = note and note + ': the waits are those of the threads that got it (and one '\
            'wait each, cut short by the end, of those that did not)'
        ok &= gnuplot('waits.gp', os.path.join(outdir, 'waits-' + name),
                      heading='wait times against %s: %s\nmedian and p99: means of %s; '
                      'longest: the largest of any run, at most the run\'s length; %s\n'
                      '%s; an open triangle marks a figure that is only a lower bound:\n'
                      'a p99 (in some run, half or more of the waits at or above it were cut '
                      'short), a longest wait the run\'s end cut short (a thread still waited)%s'
                      % (against, what, runs_text(groups), sideways, CENSORED, wnote),
                      wscales=' '.join(['%d' % unit[0]] * 3), wunits=' '.join([unit[1]] * 3),
                      starved=starved, **common)
    return ok


def traffic_chart(name, rows, outdir, tmp, env=None):
    rows = [r for r in rows if r.get('backend') == 'sim' and ran(r)]
    cols = ['transfers_class%d_per_acq' % k for k in range(4)]
    if not rows:
        print('traffic-%s: no simulated run with figures: skipped' % name)
        return True
    if cols[0] not in rows[0]:
        print('traffic-%s: the CSV has no transfers_class*_per_acq columns: skipped' % name)
        return True
    tmax = max(int(r['threads']) for r in rows)
    by_lock = {}
    for r in rows:
        if int(r['threads']) == tmax:
            by_lock.setdefault(r['lock'], []).append(r)
    per = {l: [mean([num(r, c) for r in rs]) for c in cols] for l, rs in by_lock.items()}
    classes = max([k + 1 for v in per.values() for k, x in enumerate(v) if x > 0] or [1])
    data = os.path.join(tmp, 'traffic-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# lock class0 class1 class2 class3 (transfers per acquisition)\n')
        for l, v in per.items():  # a lock whose runs all failed has no bar, not 0
            if not all(math.isnan(x) for x in v):
                label = l + ('(x)' if starves(by_lock[l]) else '')
                f.write('%s %s\n' % (label, ' '.join(fmt(0.0 if math.isnan(x) else x)
                                                     for x in v)))
    names = ['same-socket'] + ['remote-class-%d' % k for k in range(1, 4)]
    starved = any(starves(rs) for rs in by_lock.values())
    context = context_text(rows, env or {})
    return gnuplot('traffic.gp', os.path.join(outdir, 'traffic-' + name), data=data,
                   classes=classes, names=' '.join(names), colours=' '.join(CLASS_COLOURS),
                   heading='cache-line transfers per acquisition by distance: %s, %d threads '
                   '(%s)%s\nbars: means of the %s at %d threads, a lock (each its run\'s '
                   'figure); remote-class-k: a transfer between sockets of the topology\'s '
                   'distance class k (1 the nearest; explain gives each class\'s latency)%s'
                   % (display_name(name), tmax,
                      rows_workload_text(rows),
                      '\n' + context if context else '', rows_text(by_lock), tmax,
                      '\n(x) after a lock: in some run threads never got it (starved): its '
                      'transfers are those of the threads that got it' if starved else ''))


# ------------------------------------------------------------ per thread

def thread_rows(rows):
    """The per-thread rows to draw and what the bars are: the mean over the
    runs, unless some thread ran on another socket in another run (--pin
    none), where a mean would mix sockets under one shade: then the first
    run's rows alone."""
    runs = sorted({r.get('run', '1') for r in rows}, key=lambda v: int(v) if v.isdigit() else 0)
    placed = {}
    for r in rows:
        placed.setdefault((r['lock'], r['tid']), set()).add(r.get('node', '0'))
    if any(len(nodes) > 1 for nodes in placed.values()):
        return ([r for r in rows if r.get('run', '1') == runs[0]],
                'the first of %d runs (threads placed anew each run)' % len(runs))
    return rows, 'one run' if len(runs) == 1 else 'mean of %d runs' % len(runs)


# A bar under this share of its panel's tallest is drawn with its count
# printed above it: on a linear scale 3 acquisitions look like none.
SMALL_BAR = 0.03


def acquisitions_chart(name, rows, outdir, tmp, threads=None, own_run=False):
    if not rows:
        return True
    tcounts = sorted({int(r['threads']) for r in rows})
    t = threads if threads in tcounts else tcounts[-1]
    rows, what = thread_rows([r for r in rows if int(r['threads']) == t])
    by_lock = {}
    for r in rows:
        by_lock.setdefault(r['lock'], {}).setdefault(int(r['tid']), []).append(r)
    data = os.path.join(tmp, 'acq-%s.dat' % name)
    write_blocks(data, '# tid acquisitions socket fewest (in one run: 0 draws an x) '
                 'small (1: a bar too short to see, its count printed)\n',
                 (acquisition_lines(by_tid) for by_tid in by_lock.values()))
    sockets = sorted({socket_of(r) for r in rows})
    backend = rows[0].get('backend', 'sim')
    several = any(len(rs) > 1 for by_tid in by_lock.values() for rs in by_tid.values())
    starved = ('; x: none acquired%s' % (' in some run' if several else '')
               if any(num(r, 'acquisitions') == 0 for r in rows) else '')
    return gnuplot('acquisitions.gp', os.path.join(outdir, 'acquisitions-' + name), data=data,
                   titles=' '.join(by_lock),
                   sockets=' '.join('socket-%d' % k for k in sockets),
                   socket_colours=' '.join(socket_colour(k) for k in sockets),
                   heading='acquisitions per thread, %s (shade: the thread\'s socket%s; a bar '
                   'under %d%% of its panel\'s tallest has its count printed; each panel its own '
                   'scale): %s %s, %d threads, %s; %s' % (what, starved, round(100 * SMALL_BAR),
                                                         backend, name, t,
                                                         rows_workload_text(rows),
                                                         run_of_chart(rows, own_run)))


def acquisition_lines(by_tid):
    """The lines of a lock's panel in the acquisitions table, a thread
    each; a bar under SMALL_BAR of the panel's tallest is marked small."""
    peak = max(mean([num(r, 'acquisitions') for r in rs]) for rs in by_tid.values())
    lines = []
    for tid in sorted(by_tid):
        rs = by_tid[tid]
        acq = [num(r, 'acquisitions') for r in rs]
        small = 0 < mean(acq) < SMALL_BAR * peak
        lines.append('%d %s %d %s %d\n' % (tid, fmt(mean(acq)),
                                           rgb_int(socket_colour(rs[0].get('node', '0'))),
                                           fmt(min(acq)), small))
    return lines


def run_of_chart(rows, own_run):
    """What the bars' counts scale with: the chart's own run (plots_sweeps.py's
    threads_argv), its length and seed; or, charted from a per-thread CSV
    that was already there (no --bin, --no-sweeps), whose length the CSV
    does not give, only that."""
    seeds = sorted({r.get('seed', '') for r in rows} - {''})
    seed = ', seed %s' % seeds[0] if len(seeds) == 1 else ''
    if not own_run:
        return 'counts of the run of the per-thread CSV found (its length not recorded)%s' % seed
    return 'counts of a run of %d ms (simulated)%s of its own' % (THREADS_RUN_MS, seed)


def socket_of(row):
    try:
        return int(row.get('node', '0'))
    except ValueError:
        return 0


# ------------------------------------------------------------ crossover

def crossover_chart(name, rows, outdir, tmp):
    rows = [r for r in rows if r.get('backend') == 'sim']
    if not rows:
        return True
    cell = {}
    for r in rows:
        key = (int(r['threads']), int(r['cs_ns']))
        cell.setdefault(key, {}).setdefault(r['lock'], []).append(r)
    xs = sorted({k[0] for k in cell})
    ys = sorted({k[1] for k in cell})
    winners = []
    data = os.path.join(tmp, 'crossover-%s.dat' % name)
    with open(data, 'w') as f:
        f.write('# x y lock lead colour text_colour starved (the faster locks left out)\n')
        for (t, cs), by_lock in sorted(cell.items()):
            lock, lead, left_out = best_of(by_lock)
            if lock == '-' and not left_out:  # every run of the cell failed: left blank
                continue
            note = 'starved: ' + ', '.join(left_out) if left_out else '-'
            if lock == '-':  # every lock that ran starved threads: a grey cell says so
                lock, lead, note, colour = 'none', 'all starved', '-', NO_WINNER_COLOUR
            else:
                colour = lock_colour(lock)
                if lock not in winners:
                    winners.append(lock)
            f.write('%d %d %s %s %d %d %s\n' % (xs.index(t), ys.index(cs), lock, gp_str(lead),
                                                 rgb_int(colour), text_on(colour), gp_str(note)))
    xt = '(%s)' % ', '.join('"%d" %d' % (t, i) for i, t in enumerate(xs))
    yt = '(%s)' % ', '.join('"%d" %d' % (c, i) for i, c in enumerate(ys))
    return gnuplot('crossover.gp', os.path.join(outdir, 'crossover-' + name), data=data,
                   xt=xt, yt=yt, nx=len(xs), ny=len(ys), locks=' '.join(winners),
                   colours=' '.join(lock_colour(l) for l in winners),
                   heading='best of %s by threads and critical section: sim %s (ncs %s)\n'
                   'only these locks were swept; a cell is one run each (%s), so a lead of a '
                   'few %% is one draw; the lead is over the second best, tie(L) when less '
                   'than 1%% ahead of L\n'
                   'a lock that starved threads in a cell is left out of it; "starved:" names '
                   'those faster than the best'
                   % (', '.join(dict.fromkeys(r['lock'] for r in rows)), name,
                      '/'.join(sorted({r.get('ncs_ns', '?') + ' ns' for r in rows})),
                      context_text(rows, {})))


def best_of(by_lock):
    """The lock of highest mean throughput in a cell of those that starved no
    thread there (a starving lock's throughput is that of the threads that got
    it: it wins nothing), its lead over the second best, and the starving
    locks that were faster, fastest first.  A lock whose runs there all failed
    has no mean and is not ranked; no lock to rank: '-', '-'."""
    means = []
    for l, rs in by_lock.items():
        rs = [r for r in rs if ran(r)]
        m = mean([num(r, 'throughput_per_s') for r in rs])
        if not math.isnan(m):
            means.append((m, l, starves(rs)))
    ranked = sorted(((m, l) for m, l, s in means if not s), reverse=True)
    starving = sorted(((m, l) for m, l, s in means if s), reverse=True)
    if not ranked:
        return '-', '-', [l for m, l in starving]
    best, lock = ranked[0]
    lead = '-'
    if len(ranked) > 1 and ranked[1][0] > 0:
        pct = 100.0 * (best / ranked[1][0] - 1)
        lead = '+%.0f%%' % pct if pct >= 1 else 'tie(%s)' % ranked[1][1]
    return lock, lead, [l for m, l in starving if m > best]
