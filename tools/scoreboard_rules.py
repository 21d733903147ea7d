#!/usr/bin/env python3
"""tools/scoreboard_rules.py - the scoreboard's rules (scoreboard/README.md):
whether a simulated figure passes against the published one for a change,
a neutral or a variance entry, and where it lies against the rule's pass
band (the chart's scale).  tools/scoreboard.py runs the board.
"""

import math

NEUTRAL_BAND = 0.05
NEUTRAL_PASS = 0.15
FACTOR = 2.0
EPS = 1e-9


def within_factor(x, ref):
    """Same sign as ref and x/ref in [1/FACTOR, FACTOR], ends included."""
    if ref == 0:
        return False
    r = x / ref
    return 1.0 / FACTOR - EPS <= r <= FACTOR + EPS


def judge_change(pub, sim):
    """(passed, error): error is simulated / published."""
    return within_factor(sim, pub), sim / pub


def judge_neutral(pub, sim):
    """(passed, error): error is the simulated change itself, which the rule
    judges against +-15% (not its distance from the published change)."""
    return abs(sim) <= NEUTRAL_PASS + EPS, sim


def same_order(pub, sim):
    """pub, sim: (baseline, variant) pairs ordered alike (ties alike too)."""
    (pb, pv), (sb, sv) = pub, sim
    return (pb > pv) - (pb < pv) == (sb > sv) - (sb < sv)


def judge_variance(pub, sim):
    """pub, sim: (baseline cv, variant cv). (passed, error): error is the
    larger simulated / the larger published."""
    big_pub, big_sim = max(pub), max(sim)
    err = big_sim / big_pub if big_pub else float('inf')
    return same_order(pub, sim) and within_factor(big_sim, big_pub), err


def judge(rule, pub, sim):
    return {'change': judge_change, 'neutral': judge_neutral,
            'variance': judge_variance}[rule](pub, sim)


def wrong_way(rule, pub, sim):
    """'wrong sign' for a change of the other sign than the published one,
    'wrong order' for variances in the other order, else None: where no
    factor between simulated and published means anything."""
    if rule == 'change' and sim * pub < 0:
        return 'wrong sign'
    if rule == 'variance' and not same_order(pub, sim):
        return 'wrong order'
    return None


def band(rule, pub, sim):
    """Where sim lies against the rule's pass band, scaled so that the band
    is [-1, 1]: log2(simulated / published) for a change, log2(the larger
    simulated sigma/mean / the larger published) for a variance, the
    simulated change / 15% for a neutral entry.  None when the sign of a
    change or the order of a variance is wrong (no place on that scale)."""
    if rule == 'neutral':
        return sim / NEUTRAL_PASS
    if not pub or wrong_way(rule, pub, sim):
        return None
    err = judge(rule, pub, sim)[1]  # simulated / published
    return math.log2(err) if 0 < err < float('inf') else None
