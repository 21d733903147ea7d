#!/usr/bin/env python3
"""plots/plots_colours.py - the colours and markers of locklab's charts: one
colour and one marker per lock, the same in every chart, the greys of
sockets and distance classes, and the text colour that reads on a cell.
plots/plots.py draws the charts.
"""

import math
import zlib

# One colour per lock, the same in every chart and never shared by two locks
# (pairwise apart in CIELAB); greys are kept for sockets and distances.
# A lock missing here gets a colour of SPARE_COLOURS by a hash of its name:
# add it to the table.
LOCK_COLOURS = {
    'tas': '#e6194b', 'ttas': '#f58231', 'ttas-backoff': '#e5bf00',
    'ticket': '#9a6324', 'ticket-prop': '#e5bb67', 'anderson': '#808000',
    'mcs': '#4363d8', 'clh': '#42d4f4', 'qspinlock': '#3cb44b',
    'cna': '#911eb4', 'cohort': '#f032e6', 'hmcs': '#000075',
    'hticket': '#800000', 'pv-ticket': '#bf5667', 'pv-qspinlock': '#3e7233',
    'rwlock': '#e52600', 'qrwlock': '#006599', 'qrwlock-steal': '#0000e5',
    'percpu-rwsem': '#9fbf00', 'brlock': '#2fbf8f', 'spinlock-ref': '#72335d',
    'lockref': '#e567bb', 'pthread-mutex': '#469990', 'pthread-spin': '#00e500',
    'pv-qspinlock-noearly': '#723e33', 'qrwlock-2013': '#6791e5', 'qrwlock-2013-rs': '#9900e5',
    'qrwlock-3.16': '#bf005f', 'qrwlock-4.2': '#7c4499', 'rwlock-rlf': '#99007f',
    'rwsem': '#c0e080', 'rwsem-pv': '#0040e0', 'mutex': '#404000', 'mutex-pv': '#e0a0e0',
}
SPARE_COLOURS = ['#ffb07c', '#7fdfa0', '#f7a1c4', '#b39ddb', '#d4c200', '#5f9ea0']
# One marker per lock, the same in every chart (gnuplot point types: 4/5
# square, 6/7 circle, 9 triangle, 10/11 triangle down, 12/13 diamond, 14/15
# pentagon, open/filled; 2, a cross, marks starved points and 8, an open
# triangle, a lower bound).  Two locks whose colours are near (CIELAB
# distance under NEAR_COLOURS, colour_distance) have markers of different
# shapes, so that no two series of a chart look alike (tests/plots_check.sh).
LOCK_MARKERS = {
    'tas': 7, 'ttas': 5, 'ttas-backoff': 9, 'ticket': 11, 'ticket-prop': 13, 'anderson': 15,
    'mcs': 6, 'clh': 4, 'qspinlock': 10, 'cna': 12, 'cohort': 14, 'hmcs': 5, 'hticket': 9,
    'pv-ticket': 11, 'pv-qspinlock': 7, 'rwlock': 13, 'qrwlock': 15, 'qrwlock-steal': 6,
    'percpu-rwsem': 4, 'brlock': 12, 'spinlock-ref': 14, 'lockref': 7, 'pthread-mutex': 10,
    'pthread-spin': 5, 'pv-qspinlock-noearly': 13, 'qrwlock-2013': 9, 'qrwlock-2013-rs': 11,
    'qrwlock-3.16': 4, 'qrwlock-4.2': 10, 'rwlock-rlf': 9, 'rwsem': 9, 'rwsem-pv': 15,
    'mutex': 5, 'mutex-pv': 13,
}
SPARE_MARKERS = [7, 5, 9, 11, 13, 15, 6, 4, 10, 12, 14]
NEAR_COLOURS = 40.0
# Sockets (acquisitions chart) and distance classes (traffic chart): greys.
SOCKET_COLOURS = ['#1a1a1a', '#8c8c8c', '#4d4d4d', '#bfbfbf',
                  '#333333', '#a6a6a6', '#666666', '#d9d9d9']
CLASS_COLOURS = ['#d9d9d9', '#a6a6a6', '#666666', '#1a1a1a']
# A crossover cell where every lock starved threads: no best lock, a grey.
NO_WINNER_COLOUR = '#d9d9d9'


def lock_colour(lock):
    """The lock's colour, "#rrggbb", the same in every chart."""
    if lock in LOCK_COLOURS:
        return LOCK_COLOURS[lock]
    return SPARE_COLOURS[zlib.crc32(lock.encode()) % len(SPARE_COLOURS)]


def lock_marker(lock):
    """The lock's gnuplot point type, the same in every chart."""
    if lock in LOCK_MARKERS:
        return LOCK_MARKERS[lock]
    return SPARE_MARKERS[zlib.crc32(lock.encode()) % len(SPARE_MARKERS)]


def colour_distance(a, b):
    """CIELAB (D65) distance of two "#rrggbb" colours: under about 40, two
    lines are told apart by their markers rather than their colours."""
    def lab(c):
        rgb = [int(c[i:i + 2], 16) / 255.0 for i in (1, 3, 5)]
        r, g, b = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
        xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
               0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
        fx, fy, fz = [v ** (1.0 / 3) if v > 0.008856 else 7.787 * v + 16.0 / 116 for v in xyz]
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    return math.dist(lab(a), lab(b))


def rgb_int(colour):
    return int(colour[1:], 16)


def socket_colour(node):
    try:
        k = int(node)
    except ValueError:
        k = 0
    return SOCKET_COLOURS[k % len(SOCKET_COLOURS)]


def text_on(colour):
    """Black or white, whichever reads better on the colour."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0x000000 if 0.299 * r + 0.587 * g + 0.114 * b > 140 else 0xffffff
