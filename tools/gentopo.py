#!/usr/bin/env python3
"""tools/gentopo.py: write a machine file (topologies/README.md) for a large
machine: sockets x cores, wired fully connected, as a ring, or as a 2-level
mesh (groups of sockets fully connected inside, socket i of each group linked
to socket i of every other group, so that a route across groups takes at
most two hops).

Every number the file holds comes from an argument, and the command that
wrote it is in its header.  Cost rows are given with --row KEY=V0[,V1,...]:
one value per distance class, or the class-0 value alone, from which each
other class is derived as V0 + 2 x the route latency of that class (a request
there and the reply back over the route; an *assumed* model, stated in the
file).  Scalar properties (hit.*, pause, ...) are given with --prop ID=VALUE.
--cite TEXT adds a line to the header saying where the figures come from.

usage: gentopo.py --name NAME --sockets S --cores C --shape full|ring|mesh2
                  [--group G] --link-lat NS --link-bw BW [--group-lat NS]
                  [--group-bw BW] --protocol P --row KEY=V... --prop ID=V...
                  [--description TEXT] [--cite TEXT]... [-o FILE]
"""

import decimal
import os
import re
import shlex
import stat
import tempfile
import textwrap
import sys

sys.dont_write_bytecode = True  # the helper beside this file, not cached
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from args_oneline import OneLineParser, whole  # noqa: E402

D = decimal.Decimal
ROW_KEYS = ['lat.%s.%s' % (op, st) for op in ('load', 'store', 'atomic') for st in 'MESI']
SCALAR_KEYS = ['hit.load', 'hit.store', 'hit.atomic', 'pause', 'inval_per_sharer', 'msg.data_bytes',
               'msg.ctrl_bytes', 'arbitration', 'arbitration.max_local_run', 'memory_model',
               'home.occupancy', 'directory', 'smt', 'smt.issue_share', 'assumed']
# What `assumed` may list, as the loader takes it (sim/topo_costs.c,
# assumable()): a property, a family of them, or an attribute of the links.
# (idle.states too, but only of a machine with an idle table, which this
# generator does not write.)
ASSUMABLE = set(ROW_KEYS + SCALAR_KEYS + ['protocol', 'unit', 'freq_ghz', 'storebuf.fill_buffers',
                                          'snoop.travel', 'latency.spread', 'park.kick',
                                          'link.latency', 'link.bandwidth']) - {'assumed'}
ASSUMABLE_FAMILIES = {'lat.*', 'lat.load.*', 'lat.store.*', 'lat.atomic.*', 'hit.*', 'msg.*', 'smt.*',
                      'arbitration.*'}
MAX_CLASSES = 7  # besides class 0 (topologies/README.md, "Ranges")
BW_RE = re.compile(r'^[0-9]+(\.[0-9]+)?([kMGTPE]i?)?[Bb]ps$')


class GenError(Exception):
    pass


# The loader's limits (sim/topology.h) and the properties' values it takes
# (topologies/README.md): refused here, so that no file is written that
# the simulator would refuse.
MAX_SOCKETS, MAX_CORES = 256, 8192
WORDS = {'arbitration': ('fifo', 'socket-first'), 'memory_model': ('sc', 'tso', 'pso'),
         'directory': ('full', 'probe-filter', 'broadcast')}  # any case, as the loader
WHOLE = {'smt': (1, 8), 'msg.data_bytes': (1, 65536), 'msg.ctrl_bytes': (1, 65536),
         'arbitration.max_local_run': (1, 10 ** 9)}  # also 'unbounded'


MIN_BW, MAX_BW = 1e6, 1e15  # bytes a second: the loader's 1MBps..1PBps
BW_UNITS = {'': 1, 'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12, 'P': 1e15, 'E': 1e18,
            'ki': 2 ** 10, 'Mi': 2 ** 20, 'Gi': 2 ** 30, 'Ti': 2 ** 40, 'Pi': 2 ** 50, 'Ei': 2 ** 60}


def bandwidth_bytes(text):
    """A bandwidth of BW_RE in bytes a second (SimGrid: Bps bytes, bps bits)."""
    m = re.match(r'^([0-9]+(?:\.[0-9]+)?)(.*?)([Bb])ps$', text)
    return float(m.group(1)) * BW_UNITS[m.group(2)] / (1 if m.group(3) == 'B' else 8)


def loader_takes(key, val):
    """Whether the loader takes VAL for the word or whole-number KEY."""
    if key in WORDS:
        return val.lower() in WORDS[key]
    if key == 'arbitration.max_local_run' and val.lower() == 'unbounded':
        return True
    lo, hi = WHOLE[key]
    return val.isdigit() and lo <= int(val) <= hi


def number(text, what):
    try:
        v = D(text)
    except decimal.InvalidOperation:
        raise GenError('%s: %r is not a decimal number' % (what, text))
    if not v.is_finite() or v < 0:
        raise GenError('%s: %r must be a finite number >= 0' % (what, text))
    if v > 1000000000:
        raise GenError('%s: %r is over a second (the loader takes times to 1 s)' % (what, text))
    return v


def fmt(v):
    """A decimal without exponent or trailing zeros: 12, 1.4, 0.25."""
    s = format(v.normalize(), 'f')
    return s.rstrip('0').rstrip('.') if '.' in s else s


# ---------------------------------------------------------------- wiring

class Machine:
    """Sockets, links (a, b, latency ns, bandwidth) and one route per pair a < b."""

    def __init__(self, nsockets):
        self.nsockets = nsockets
        self.links = {}    # (a, b), a < b -> (lat_ns, bw)
        self.routes = {}   # (a, b), a < b -> [(x, y), ...] links from a to b

    def link(self, a, b, lat, bw):
        self.links[(min(a, b), max(a, b))] = (lat, bw)

    def route(self, a, b, hops):
        self.routes[(a, b)] = [(min(x, y), max(x, y)) for x, y in hops]

    def route_lat(self, a, b):
        return sum(self.links[l][0] for l in self.routes[(a, b)])


def wire_full(m, lat, bw):
    for a in range(m.nsockets):
        for b in range(a + 1, m.nsockets):
            m.link(a, b, lat, bw)
            m.route(a, b, [(a, b)])


def wire_ring(m, lat, bw):
    s = m.nsockets
    for a in range(s):
        if s > 1 and (s > 2 or a == 0):
            m.link(a, (a + 1) % s, lat, bw)
    for a in range(s):
        for b in range(a + 1, s):
            d = b - a
            if d <= s - d:   # clockwise; opposite sockets of an even ring too
                path = list(range(a, b + 1))
            else:
                path = [a] + list(range(a - 1, -1, -1)) + list(range(s - 1, b - 1, -1))
            m.route(a, b, list(zip(path, path[1:])))


def wire_mesh2(m, group, lat, bw, glat, gbw):
    """Groups of `group` sockets, fully connected inside; socket i of each
    group linked to socket i of every other group.  Across groups, a to b
    goes inside a's group to the socket with b's index, then across."""
    s = m.nsockets
    for a in range(s):
        for b in range(a + 1, s):
            ga, gb, ia, ib = a // group, b // group, a % group, b % group
            if ga == gb:
                m.link(a, b, lat, bw)
            elif ia == ib:
                m.link(a, b, glat, gbw)
    for a in range(s):
        for b in range(a + 1, s):
            ga, ia, ib = a // group, a % group, b % group
            if ga == b // group or ia == ib:
                m.route(a, b, [(a, b)])
            else:
                mid = ga * group + ib
                m.route(a, b, [(a, mid), (mid, b)])


def classes_of(m):
    """Route latencies in increasing order: class k + 1 is the k-th."""
    lats = sorted({m.route_lat(a, b) for a, b in m.routes})
    if lats and lats[0] == 0:
        raise GenError('a route has zero latency: give the links a latency')
    if len(lats) > MAX_CLASSES:
        raise GenError('%d distinct route latencies (%s ns): at most %d (topologies/README.md)'
                       % (len(lats), ' '.join(fmt(v) for v in lats), MAX_CLASSES))
    return lats


# ---------------------------------------------------------------- costs

def rows_of(specs, class_lat):
    """--row KEY=V0[,V1...] -> {KEY: ([values], derived?)}."""
    n = len(class_lat) + 1
    rows = {}
    for spec in specs:
        key, _, text = spec.partition('=')
        if key not in ROW_KEYS:
            raise GenError('--row %s: not one of %s' % (key, ', '.join(ROW_KEYS)))
        if key in rows:
            raise GenError('--row %s given twice' % key)
        words = re.split(r'\s*,\s*|\s+', text.strip())
        if '' in words:
            raise GenError('--row %s=%s: an empty value (V0[,V1...], numbers between the commas)'
                           % (key, text))
        vals = [number(v, '--row ' + key) for v in words]
        if len(vals) == 1 and n > 1:
            rows[key] = ([vals[0]] + [vals[0] + 2 * c for c in class_lat], True)
        elif len(vals) == n:
            for k, c in enumerate(class_lat, 1):
                if vals[k] < c:
                    raise GenError('--row %s: class %d is %s ns, less than its route\'s latency (%s ns) '
                                   'that a miss\'s request travels first (the loader refuses it)'
                                   % (key, k, fmt(vals[k]), fmt(c)))
            rows[key] = (vals, False)
        else:
            raise GenError('--row %s: %d values; give 1 (class 0, the rest derived) or %d (one per class)'
                           % (key, len(vals), n))
    return rows


def props_of(specs):
    props = {}
    for spec in specs:
        key, sep, val = spec.partition('=')
        if not sep or key not in SCALAR_KEYS:
            raise GenError('--prop %s: ID=VALUE with ID one of %s' % (spec, ', '.join(SCALAR_KEYS)))
        if key in props:
            raise GenError('--prop %s given twice' % key)
        if key in WORDS or key in WHOLE:
            if not loader_takes(key, val):
                raise GenError('--prop %s=%s: not a value the loader takes '
                               '(topologies/README.md)' % (key, val))
        elif key == 'assumed':
            if 'idle.states' in val.split(' '):
                raise GenError('--prop assumed: idle.states, where the generated machine has no '
                               'idle table (gentopo writes none)')
            bad = [w for w in val.split(' ') if w not in ASSUMABLE | ASSUMABLE_FAMILIES]
            if bad:
                raise GenError('--prop assumed=%s: %r is not a property of a topology file, a '
                               'family (lat.*) or link.latency / link.bandwidth '
                               '(topologies/README.md)' % (val, bad[0]))
            twice = [w for i, w in enumerate(val.split(' ')) if w in val.split(' ')[:i]]
            if twice:
                raise GenError('--prop assumed=%s: %r twice' % (val, twice[0]))
        elif key == 'smt.issue_share' and not 0.01 <= number(val, '--prop ' + key) <= 1:
            raise GenError('--prop smt.issue_share=%s: 0.01 to 1' % val)
        else:
            number(val, '--prop ' + key)  # a finite number >= 0
        props[key] = val
    if 'arbitration.max_local_run' in props and \
            props.get('arbitration', 'fifo').lower() != 'socket-first':
        raise GenError('--prop arbitration.max_local_run: only with arbitration=socket-first')
    smt = number(props['smt'], '--prop smt') if 'smt' in props else 1
    if smt <= 1 and float(props.get('smt.issue_share', 1)) != 1:
        raise GenError('--prop smt.issue_share: only with smt above 1 (a core of one hardware '
                       'thread shares nothing)')
    named = [w for w in props.get('assumed', '').split(' ') if w == 'smt' or w.startswith('smt.')]
    if smt <= 1 and named:
        raise GenError('--prop assumed: %r, where the machine has no SMT (smt 1)' % named[0])
    return props


# ---------------------------------------------------------------- output

def recorded(argv):
    """The command line as the header gives it: options with one dash, no
    output option (the command writes the file to standard output), an
    option and its value on one line, lines of about 100 characters."""
    words, i = [], 0
    while i < len(argv):
        x = argv[i]
        if x in ('-o', '--output'):
            i += 2
            continue
        i += 1
        if x.startswith('--output=') or (x.startswith('-o') and x != '-o'):
            continue
        w = shlex.quote(x[1:] if x.startswith('--') else x)
        if x.startswith('-') and i < len(argv) and not argv[i].startswith('-'):
            w += ' ' + shlex.quote(argv[i])
            i += 1
        words.append(w)
    lines = ['tools/gentopo.py']
    for w in words:
        if len(lines[-1]) + len(w) > 100:
            lines[-1] += ' \\'
            lines.append('  ' + w)
        else:
            lines[-1] += ' ' + w
    return lines


def header(a, argv, class_lat, rows):
    names = ['same socket'] + ['%s ns route' % fmt(c) for c in class_lat]
    derived = [k for k in ROW_KEYS if k in rows and rows[k][1]]
    wrap = lambda text, first='', rest='  ': textwrap.wrap(text, 100, initial_indent=first,
                                                          subsequent_indent=rest)
    lines = wrap('%s: %d sockets x %d cores = %d cores, %s.' % (a.name, a.sockets, a.cores,
                                                               a.sockets * a.cores, shape_words(a)))
    lines.append('Written by tools/gentopo.py; regenerate with (the file on standard output):')
    lines += ['  ' + l for l in recorded(argv)]
    lines.append('Every number below comes from that command; where it comes from:')
    for c in a.cite:
        lines += wrap(c, '  - ', '    ')
    lines += wrap('Distance classes: ' + ', '.join('%d %s' % (i, n) for i, n in enumerate(names)) + '.')
    if derived:
        lines += wrap('Derived rows (%s): class 0 + 2 x the route latency of the class, a request there '
                      'and the reply back (*assumed* model, topologies/README.md).' % ', '.join(derived))
    lines.append('Clusters: speed, bw and lat are SimGrid\'s and never used (topologies/README.md).')
    return '<!--\n' + ''.join('  %s\n' % l for l in lines) + '-->\n'


def shape_words(a):
    if a.shape == 'full':
        return 'fully connected'
    if a.shape == 'ring':
        return 'a ring'
    return ('a 2-level mesh of %d groups of %d sockets (fully connected inside, socket i linked to '
            'socket i of every other group)' % (a.sockets // a.group, a.group))


def emit(a, argv, m, class_lat, rows, props):
    out = ["<?xml version='1.0'?>\n", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n',
           header(a, argv, class_lat, rows), '<platform version="4.1">\n',
           '  <zone id="%s" routing="Full">\n' % a.name]
    prop = '    <prop id="%s" value="%s"/>\n'
    if a.description:
        out.append(prop % ('description', a.description))
    out.append(prop % ('protocol', a.protocol))
    out.append(prop % ('unit', 'ns'))
    for k in ROW_KEYS:
        if k in rows:
            out.append(prop % (k, ' '.join(fmt(v) for v in rows[k][0])))
    for k in SCALAR_KEYS:
        if k in props:
            out.append(prop % (k, props[k]))
    for s in range(a.sockets):
        out.append('    <cluster id="s%d" prefix="s%dc" suffix="" radical="0-%d" speed="1Gf" bw="100GBps" '
                   'lat="0ns" router_id="s%dr"/>\n' % (s, s, a.cores - 1, s))
    for (x, y), (lat, bw) in sorted(m.links.items()):
        out.append('    <link id="l%d_%d" bandwidth="%s" latency="%sns"/>\n' % (x, y, bw, fmt(lat)))
    for (x, y), hops in sorted(m.routes.items()):
        ctn = ''.join('<link_ctn id="l%d_%d"/>' % h for h in hops)
        out.append('    <zoneRoute src="s%d" dst="s%d" gw_src="s%dr" gw_dst="s%dr">%s</zoneRoute>\n'
                   % (x, y, x, y, ctn))
    out.append('  </zone>\n</platform>\n')
    return ''.join(out)


def parse_args(argv):
    """Each option is --NAME or -NAME: the header records the command with
    one dash, as an XML comment cannot hold two in a row."""
    # (OneLineParser: one line for bad input, no abbreviation, a
    # single-value option given twice refused)
    p = OneLineParser(prog='gentopo.py', description=__doc__.split('\n\n')[0])

    def opt(name, **kw):
        p.add_argument('-' + name, '--' + name, **kw)

    opt('name', required=True, help='the root zone id (the file is NAME.xml)')
    opt('sockets', type=whole(0, 10 ** 9), required=True)
    opt('cores', type=whole(0, 10 ** 9), required=True, help='cores per socket')
    opt('shape', choices=['full', 'ring', 'mesh2'], required=True)
    opt('group', type=whole(0, 10 ** 9), help='mesh2: sockets per group')
    opt('link-lat', required=True, help='one-way latency of a link (ring, full) or of a '
        'link inside a group (mesh2), in ns')
    opt('link-bw', required=True, help='bandwidth per direction, SimGrid units (6.7GBps)')
    opt('group-lat', help='mesh2: one-way latency of a link between groups, in ns')
    opt('group-bw', help='mesh2: bandwidth per direction of a link between groups')
    opt('protocol', required=True, choices=['MESI', 'MOESI', 'MESIF'])
    opt('row', action='append', default=[], metavar='KEY=V0[,V1...]')
    opt('prop', action='append', default=[], metavar='ID=VALUE')
    opt('description', default='')
    opt('cite', action='append', default=[], metavar='TEXT')
    p.add_argument('-o', '--output', help='the file to write (default: standard output)')
    return p.parse_args(argv)


def check_args(a):
    if a.sockets < 1 or a.cores < 1:
        raise GenError('--sockets and --cores must be at least 1')
    if a.sockets > MAX_SOCKETS or a.sockets * a.cores > MAX_CORES:
        raise GenError('%d sockets of %d cores: the simulator takes at most %d sockets and %d '
                       'cores in all' % (a.sockets, a.cores, MAX_SOCKETS, MAX_CORES))
    if not re.match(r'^[A-Za-z0-9_.-]{1,63}$', a.name):
        raise GenError('--name %r: 1 to 63 letters, digits, _ . -' % a.name)
    for t in [a.description] + a.cite + a.prop:
        if re.search(r'[<>&"\x00-\x1f\x7f]|--', t):
            raise GenError('%r: no < > & " --, or control character, in text the file holds' % t)
    for bw in (a.link_bw, a.group_bw):
        if bw is not None and not BW_RE.match(bw):
            raise GenError('bandwidth %r: a number with a unit such as 6.7GBps' % bw)
        if bw is not None and not MIN_BW <= bandwidth_bytes(bw) <= MAX_BW:
            raise GenError('bandwidth %r: outside 1MBps..1PBps, what the simulator takes' % bw)
    if a.output is not None and not a.output:
        raise GenError('-o: an empty file name (leave -o out for standard output)')
    if a.shape == 'mesh2':
        if not a.group or a.group < 1 or a.sockets % a.group:
            raise GenError('mesh2 needs --group G dividing --sockets')
        if a.group_lat is None or a.group_bw is None:
            raise GenError('mesh2 needs --group-lat and --group-bw')
    elif a.group is not None or a.group_lat is not None or a.group_bw is not None:
        raise GenError('--group, --group-lat and --group-bw are for --shape mesh2')


def generate(argv):
    a = parse_args(argv)
    check_args(a)
    m = Machine(a.sockets)
    lat, bw = number(a.link_lat, '--link-lat'), a.link_bw
    if a.shape == 'full':
        wire_full(m, lat, bw)
    elif a.shape == 'ring':
        wire_ring(m, lat, bw)
    else:
        wire_mesh2(m, a.group, lat, bw, number(a.group_lat, '--group-lat'), a.group_bw)
    class_lat = classes_of(m)
    props = props_of(a.prop)
    if a.cores % int(props.get('smt', '1')):
        raise GenError('--prop smt=%s: does not divide the %d hosts of a socket (-cores)'
                       % (props['smt'], a.cores))
    text = emit(a, argv, m, class_lat, rows_of(a.row, class_lat), props)
    return a, text


def main(argv):
    try:
        a, text = generate(argv)
    except GenError as e:
        print('gentopo.py: %s' % e, file=sys.stderr)
        return 2
    why = unfit_output(a.output) if a.output else None
    if why:
        print('gentopo.py: -o %s: %s' % (a.output, why), file=sys.stderr)
        return 2
    try:
        if a.output:
            write_whole(a.output, text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError as e:
        print('gentopo.py: cannot write %s: %s' % (a.output or 'the standard output',
                                                    e.strerror or e), file=sys.stderr)
        return 1
    return 0


def unfit_output(path):
    """Why path cannot be written over (as the binaries' outputs: a link, a
    directory, a device or a pipe is refused), or None."""
    if not os.path.lexists(path):
        return None
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return 'a symbolic link (give the file it names)'
    if not stat.S_ISREG(st.st_mode):
        return 'a directory' if stat.S_ISDIR(st.st_mode) else 'not a regular file'
    return None


def write_whole(path, text):
    """text to path whole or not at all: a file beside it, then renamed over
    it."""
    d = os.path.dirname(path) or '.'
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.gentopo-')
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
