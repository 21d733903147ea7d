#!/usr/bin/env python3
"""tools/report_table.py - the report's table per lock: a row per
configuration (runs, mean, sigma, SEM, Jain, starved threads, socket-local
handoffs, p99 wait, the verdict), as the terminal's table prints it, with
an rwlock's read and write lines and a --vm run's hypervisor counters under
it, and the notes that say what each column is.  tools/report.py writes the
page.
"""

import html
import math



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
    """{run key: threads with no acquisition} of a per-thread CSV; not of a
    run whose threads are there twice (the overcommit levels of a --vm
    sweep, which the file does not tell apart): the run CSV's `starved`
    counts those."""
    out, tids, twice = {}, set(), set()
    for r in thread_rows:
        k = run_key(r)
        if (k, r.get('tid')) in tids:
            twice.add(k)
        tids.add((k, r.get('tid')))
        out[k] = out.get(k, 0) + (num(r, 'acquisitions') == 0)
    return {k: n for k, n in out.items() if k not in twice}


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
    """A wait as the terminal's table gives it (format_ns, core/table.c)."""
    if math.isnan(ns):
        return '-'
    if ns < 1e4:
        return '%.0f ns' % ns
    if ns < 1e6:
        return '%.1f us' % (ns / 1e3)
    return '%.2f ms' % (ns / 1e6) if ns < 1e9 else '%.2f s' % (ns / 1e9)


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


# A thread with under this share of the busiest one's acquisitions makes a
# run unfair, as the terminal's table says it (UNFAIR_SHARE, core/table.c).
UNFAIR_SHARE = 0.05
CPU_WAIT = ("; threads also waited for a cpu (the scheduler then sets each thread's share, not the "
            "lock alone: compare a run with a cpu for each thread)")
CPU_WAIT_NS = 1e6  # an oversubscribed p99 this long is a wait for a CPU (CPU_WAIT_NS, core/table.c)
LONG_WAIT_NS = 100e3  # an oversubscribed longest wait this long, over 10 p99s, too (core/table.c)


def waited_for_cpu(ok):
    """The runs shared their cpus: a guest overcommitted, or more threads
    than cpus (the terminal's 'threads also waited for a cpu')."""
    return any(num(r, 'overcommit') > 1 or r.get('oversubscribed') == 'true' for r in ok)


def cpu_wait_said(ok):
    """As the terminal's first '!' line of an oversubscribed configuration:
    a longest wait far above the p99, or a p99 as long as a scheduler's
    slice, is a wait for a CPU ('' when neither)."""
    p99 = mean([num(r, 'wait_p99_ns') for r in ok])
    longest = max(finite([num(r, 'wait_max_ns') for r in ok]), default=math.nan)
    if longest > 10 * p99 and longest >= LONG_WAIT_NS:
        return ("longest wait %s (the waits' mean %s): with more threads than CPUs, the waits "
                "for a CPU lie above wait p99"
                % (fmt_time(longest), fmt_time(mean([num(r, 'wait_mean_ns') for r in ok]))))
    if p99 >= CPU_WAIT_NS:
        return ("wait p99 %s: with more threads than CPUs, a scheduler's time slice or more: "
                "the p99 is a wait for a CPU, not for the lock alone" % fmt_time(p99))
    return ''


def unfair_said(ok):
    """As the terminal's '! unfair' line, for a configuration that starved
    no thread: in how many runs a thread made under 5% of the busiest one's
    acquisitions, and the worst such run; '' when none did."""
    runs = [(num(r, 'acq_min'), num(r, 'acq_max'), num(r, 'jain')) for r in ok]
    runs = [x for x in runs if x[1] > 0 and not math.isnan(x[0])]
    unfair = [x for x in runs if x[0] < UNFAIR_SHARE * x[1]]
    if not unfair:
        return ''
    lo, hi, jain = min(runs, key=lambda x: x[0] / x[1])
    text = ('unfair: in %d of %d run%s a thread made under %.0f%% of the busiest one\'s '
            'acquisitions (at worst %d against %d, that run\'s Jain %.2f)'
            % (len(unfair), len(ok), '' if len(ok) == 1 else 's', 100 * UNFAIR_SHARE, lo, hi,
               jain))
    return text + (CPU_WAIT if waited_for_cpu(ok) else '')


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


def probe_said(probe):
    """The terminal's lockstep probe line under an unfair configuration, as
    the JSON's lockstep_probes repeat it ('said'): '' without a probe."""
    return probe['said'] if probe else ''


PROBE_FIELDS = {'lock': str, 'threads': int, 'overcommit': (int, float), 'spread_pct': int,
                'jain': (int, float), 'starved': int, 'fair_jain_assumed': (int, float),
                'said': str}


def bad_probe(probes):
    """What is wrong with the JSON's lockstep_probes, as `run` writes them
    ('' when nothing is)."""
    if not isinstance(probes, list):
        return 'not a list'
    for k, p in enumerate(probes):
        if not isinstance(p, dict):
            return 'probe %d is not an object' % (k + 1)
        for name, kind in PROBE_FIELDS.items():
            if not isinstance(p.get(name), kind) or isinstance(p.get(name), bool):
                return 'probe %d: %s missing or not a %s' % (
                    k + 1, name, 'word' if kind is str else 'number')
        if p.get('reading') not in ('lockstep', 'unfair'):
            return 'probe %d: reading %r is neither lockstep nor unfair' % (k + 1, p.get('reading'))
    return ''


def probe_for(probes, lock, cfg, topo=None):
    """The JSON's probe of (lock, threads, overcommit) of a simulated row
    on the JSON's machine (topo: its name, when the JSON gives it), or None."""
    try:
        threads, over = int(cfg[2]), float(cfg[3] or 0)
    except ValueError:
        return None
    if cfg[0] != 'sim' or (topo and cfg[1] != topo):
        return None
    for p in probes or []:
        if p.get('lock') == lock and p.get('threads') == threads and \
                abs(float(p.get('overcommit', 0)) - over) < 1e-9:
            return p
    return None


def config_row(cfg, runs, per_run, scale=1e6, probe=None):
    ok = [r for r in runs if not math.isnan(num(r, 'throughput_per_s'))]
    oversub = any(r.get('oversubscribed') == 'true' for r in runs)
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
    never = [num(r, 'vcpus_never_ran') for r in ok]
    never = [int(x) for x in never if not math.isnan(x)]
    if says and max(never, default=0) and min(never) == max(never):  # the host's doing
        says += ('; %d of them never ran (their vCPUs waited for a pCPU all run): a longer '
                 '--duration tells, and the throughput is the others\'' % max(never))
    elif says and max(never, default=0):  # some runs' starvation the host's, some the lock's
        says += ('; in %d of %d runs up to %d of them never ran (their vCPUs waited for a pCPU '
                 'all run): a longer --duration tells'
                 % (sum(1 for x in never if x), len(ok), max(never)))
    elif says and max(acq, default=0) > 0 and fewest < num(ok[0], 'threads'):
        says += ('; but a run made %d acquisitions for %s threads: too short to give each '
                 'one, whatever the lock (a longer --duration tells)' % (fewest, cfg[2]))
    elif says and max(acq, default=0) > 0:
        said = sockets_said(ok)
        if not said and waited_for_cpu(ok):
            said = CPU_WAIT
        says += said
    elif not says and ok:
        says = unfair_said(ok)
    cpu = cpu_wait_said(ok) if oversub else ''
    says = '; '.join(x for x in (cpu, says, probe_said(probe) if says else '') if x)
    spec = row_spec(m)
    cells = [config_label(cfg) + ('*' if oversub else ''), '%d' % len(ok), fmt(m, spec),
             fmt(s, spec), fmt(sem, spec),
             '&plusmn; %s%%' % fmt(pct, '%.2f'), fmt(mean([num(r, 'jain') for r in ok])),
             stext, fmt(100.0 * mean([num(r, 'handoff_local_frac') for r in ok]), '%.1f%%'),
             p99_cell(ok),
             html.escape(says)]
    if len(ok) < len(runs):
        cells[-1] = html.escape('%d of %d runs failed' % (len(runs) - len(ok), len(runs)))
        cells[-1] += ('; ' + html.escape(says)
                      if starved or starved is None else '')
    cls = (' class="starved"' if starved or starved is None
           else ' class="unfair"' if says.startswith('unfair') else '')
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


def run_counts(row):
    """A row's lock_counts column ('name=count;...') as [(name, count)];
    [] when the column is empty or absent."""
    out = []
    for item in (row.get('lock_counts') or '').split(';'):
        name, _, count = item.partition('=')
        if name and count.isdigit():
            out.append((name, int(count)))
    return out


def counts_row(runs):
    """Under the row of a lock that counts its own paths, each count over
    the run's acquisitions, the mean over the runs (the terminal's counts
    line); '' for other locks."""
    per = {}
    names = []
    for r in runs:
        acq = num(r, 'acquisitions')
        counts = run_counts(r)
        if not counts or not acq > 0:
            continue
        for name, count in counts:
            if name not in per:
                names.append(name)
                per[name] = []
            per[name].append(count / acq)
    if not names:
        return ''
    text = ', '.join('%s %s' % (n, '%.3g' % mean(per[n])) for n in names)
    return ('<tr class="side"><td></td><td colspan="10">counts per acquisition: %s</td></tr>'
            % html.escape(text))


def tables_html(rows, thread_rows, probes=None, topo=None):
    per_run = starved_by_run(thread_rows)
    out = []
    for (lock, wl), by_cfg in group_configs(rows).items():
        scale, unit = rate_unit(by_cfg)
        out.append('<table class="lock"><caption><b>%s</b> %s (throughput, %s)</caption>'
                   % (html.escape(lock), html.escape(workload_text(wl)), unit))
        out.append('<thead>%s</thead><tbody>' % TABLE_HEAD)
        for cfg, runs in sorted(by_cfg.items(), key=threads_order):
            out.append(config_row(cfg, runs, per_run, scale, probe_for(probes, lock, cfg, topo)))
            out.append(side_row(runs))
            out.append(counts_row(runs))
            out.append(vm_row(runs))
        out.append('</tbody></table>')
    return '\n'.join(out)


def conditional_notes(rows, time_every=None):
    """The terminal legend's sentences that hold for these rows only, as a
    note under the tables ('' when none): oversubscribed rows (*), native
    runs (their order, their sampled waits), simulated runs (what their
    spread is), paravirtual locks outside --vm, one socket's 100% local
    share; and the waits' histogram's precision."""
    said = []
    if any(r.get('oversubscribed') == 'true' for r in rows):
        said.append('*: more threads than CPUs (oversubscribed): threads also waited for a CPU, '
                    'in their waits and their rates alike.')
    if any(r.get('backend') == 'native' for r in rows):
        said.append('Natively the runs of one command follow each other: &plusmn; leaves out '
                    'what changes between commands.')
        if time_every and time_every > 1:
            said.append('Natively one acquisition in %d is timed (--time-every), and each '
                        'thread\'s first: the waits are a sample.' % time_every)
    if any(r.get('backend') == 'sim' for r in rows):
        said.append('In the simulator the runs of a configuration differ only by their seeds: '
                    'each thread\'s start skew of up to 1 us (<em>assumed</em>, '
                    'WL_START_SKEW_NS) and what else seeded the settings line names (a latency '
                    'spread, noise, a placement, the lock\'s home): &plusmn; and sigma are the '
                    'spread of those, not a machine\'s.')
    if any(r.get('lock', '').startswith('pv-') and math.isnan(num(r, 'overcommit'))
           for r in rows):
        said.append('pv-*: paravirtual locks outside a virtual machine (no --vm): their waiters '
                    'halt after their spin (natively a futex wait) and are kicked as in a guest, '
                    'so the rows show what the paravirtual code costs where no vCPU is '
                    'preempted; on bare metal Linux patches these locks back to the native ones '
                    '(docs/vm.md).')
    if any(r.get('backend') == 'sim' and r.get('ncs_exp') == 'false' and num(r, 'starved') > 0
           for r in rows):
        said.append('Starved under a fixed --ncs: every thread waits the same time between '
                    'acquisitions, so the simulated threads can fall into one race that the same '
                    'threads lose at every round; --ncs exp:N draws that time and tells whether '
                    'the starvation outlives the jitter of a real machine.')
    if any(num(r, 'sockets') == 1 for r in rows):
        said.append('Socket-local handoffs are 100% whenever every thread sits on one socket.')
    said.append('p99 wait is of all the waits, so the threads that acquire most weigh most: a '
                'thread starved all run is one wait among them. Waits above 1024 ns are kept to '
                '1/128 of their size: a percentile reads up to 0.8% low.')
    return '<p class="note">%s</p>' % ' '.join(said)


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
    'their pCPUs, summed over the vCPUs and divided by the acquisitions); under the row of a lock that '
    'counts its own paths (the CSV\'s <code>lock_counts</code>), each count over the run\'s '
    'acquisitions (a get and put pair for a refcount), the mean over the runs, as the terminal\'s '
    'counts line (the lock\'s source says what each count is). Starved threads: threads with no '
    'acquisition, the most of one run (the CSV\'s <code>starved</code>, or the per-thread '
    'CSV); &ge;1 when only acq_min = 0 is known. Every figure is computed from the CSV, whose '
    'Jain index and handoff share have nine decimals and throughput two (in acquisitions a '
    'second): finer than any cell shows, so a mean reads as the terminal table\'s.</p>')

