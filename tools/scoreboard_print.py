#!/usr/bin/env python3
"""tools/scoreboard_print.py - the scoreboard as printed: a row per entry
(published, simulated, error, pass or FAIL), the count line ("N of M
pass", the proxies among them) and, with --seeds, how many seeds each entry
passes with.  tools/scoreboard.py runs the board.
"""

from scoreboard_rules import NEUTRAL_PASS, wrong_way

APPEND_NOTE = 'not the board: every command with %s appended'


def fmt_pct(x):
    return '%+.1f%%' % (100.0 * x)


def fmt_sim(rule, sim):
    if rule == 'variance':
        return '%.3f / %.3f' % sim
    return fmt_pct(sim)


def fmt_error(rule, pub, sim, err):
    """The error as the board prints it: for a neutral entry the simulated
    change against the band it is judged by, a factor otherwise, or what is
    wrong when no factor means anything."""
    if rule == 'neutral':
        return '%s of +-%.0f%%' % (fmt_pct(sim), 100.0 * NEUTRAL_PASS)
    return wrong_way(rule, pub, sim) or 'x%.2f' % err


def verdict(e, passed):
    """pass or FAIL; a proxy entry (another test's workload) says so."""
    word = 'pass' if passed else 'FAIL'
    return word + ' (proxy: %s)' % e['proxy'] if 'proxy' in e else word


def board_rows(entries, results):
    rows = []
    for e in entries:
        r = results[e['id']]
        if 'failed' in r:
            rows.append((e['id'], e['published'], 'error', r['failed'],
                         verdict(e, False)))
            continue
        rows.append((e['id'], e['published'], fmt_sim(e['rule'], r['sim']),
                     fmt_error(e['rule'], e['pub'], r['sim'], r['error']),
                     verdict(e, r['passed'])))
    return rows


LEGEND = ('published, simulated: the change from baseline to variant of the entry\'s metric '
          '(seconds: + is slower; throughput: + is faster; variance: the two setups\' '
          'sigma/mean); error: simulated / published for a change or a variance, the simulated '
          'change against its band for a neutral entry')


def print_board(entries, results, seeds=1, append=None, wrote=None):
    """The board; with seeds > 1, a column of how many seeds each entry
    passes with, and a line that counts them; with options appended to
    every command, a first and a last line that say so; a legend and the
    files written (wrote) before the count."""
    if append:
        print(APPEND_NOTE % append)
    head = ('id', 'published', 'simulated', 'error', 'result')
    rows = board_rows(entries, results)
    w = [max(len(x[i]) for x in rows + [head]) for i in range(4)]
    line = '%-*s  %*s  %*s  %*s  %s'
    if seeds > 1:
        w.append(max(len(x[4]) for x in rows + [head]))
        line = '%-*s  %*s  %*s  %*s  %-*s  %s'
        print(line % (w[0], head[0], w[1], head[1], w[2], head[2], w[3], head[3], w[4],
                      head[4], 'seeds passing'))
        for x, e in zip(rows, entries):
            print(line % (w[0], x[0], w[1], x[1], w[2], x[2], w[3], x[3], w[4], x[4],
                          seeds_cell(results[e['id']], seeds)))
    else:
        print(line % (w[0], head[0], w[1], head[1], w[2], head[2], w[3], head[3],
                      head[4]))
        for x in rows:
            print(line % (w[0], x[0], w[1], x[1], w[2], x[2], w[3], x[3], x[4]))
    print(LEGEND)
    if wrote:
        print('wrote %s' % wrote)
    print(count_line(entries, results, append), flush=True)
    if seeds > 1:
        print(seeds_line(entries, results, seeds), flush=True)


def seeds_cell(r, seeds):
    """'2/3': with how many of the seeds 1 .. seeds the entry passes."""
    return '%d/%d' % (r['seeds_passed'], seeds)


def seeds_line(entries, results, seeds):
    """How robust the count is: the entries that pass with every seed, and
    those whose pass or fail turns on the seed (seed 1's verdict not
    shared by every other)."""
    every = [e['id'] for e in entries if results[e['id']]['seeds_passed'] == seeds]
    some = [e['id'] for e in entries if 0 < results[e['id']]['seeds_passed'] < seeds]
    return ('with seeds 1 to %d: %d of %d pass with every seed; %d pass with some seeds '
            'and fail with others (%s)' % (seeds, len(every), len(entries), len(some),
                                           ', '.join(some) or 'none'))


def count_line(entries, results, append=None):
    """'14 of 48 pass', and how many of the passes are proxies: entries that
    run another test's workload, the seed's own not being modelled; with
    options appended, '... pass with --idle-states off appended'."""
    npass = sum(1 for e in entries if results[e['id']]['passed'])
    text = '%d of %d pass' % (npass, len(entries))
    if append:
        text += ' with %s appended to every command' % append
    proxies = [e for e in entries if 'proxy' in e]
    if proxies:
        won = [e['id'] for e in proxies if results[e['id']]['passed']]
        text += ('; %d of them by a proxy (another test\'s workload: %s), so %d of the %d '
                 'entries that run their own test pass' % (len(won), ', '.join(won) or 'none',
                                                      npass - len(won),
                                                      len(entries) - len(proxies)))
    return text
