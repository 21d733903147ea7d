#!/bin/sh
# tests/plots_check.sh - the charts of plots/plots.py from the CSV files of
# tests/fixtures/plots: every SVG parses as XML; a simulated chart carries no
# native line unless asked (--overlay-native) or of the same machine
# (validate-HOST); a lock has one colour in every chart and no two locks share
# one; the crossover chart is vector cells, no bitmap; waits say they are
# censored and mark a p99 or a longest wait that is only a lower bound; a
# point whose runs starved threads is crossed, and such a lock wins no
# crossover cell; units are scaled; a --vm sweep of one thread count a lock
# is drawn against its overcommit, one of several against threads; a sweep
# stopped early says so, and every thread count drawn has its tic; a file
# named with a quote is charted under its name, no gnuplot command run; a
# spoiled row is named and its file skipped, and a bad --out is one line; a
# failed gnuplot leaves the chart before it whole and says so in one line.  With
# the directory of locklab-sim (first argument, default bin), also: the
# colour table covers every lock of both binaries, and a cached sweep CSV
# is made again when its command changes.
#
#   sh tests/plots_check.sh [BIN]        exit 0 when every check passed

BIN=${1:-bin}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIX="$ROOT/tests/fixtures/plots"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/plots-check.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
failed=0

fail() {
	echo "plots_check: FAIL: $*"
	failed=1
}

plots() {
	python3 "$ROOT/plots/plots.py" "$@" >"$TMP/log" 2>&1 || {
		cat "$TMP/log"
		fail "plots.py $*"
	}
}

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plots_check: gnuplot is not installed: skipped"
	exit 0
fi

mkdir -p "$TMP/results" "$TMP/out" "$TMP/overlay"
cp "$FIX"/*.csv "$FIX"/*.json "$TMP/results/"
plots --results "$TMP/results" --out "$TMP/out" --topo 2socket --no-sweeps
plots --results "$TMP/results" --out "$TMP/overlay" --topo 2socket --no-sweeps \
	--only throughput --overlay-native

# The same sweep with the CSV's wait_p99_censored: one p99 (ttas, 8
# threads, run 1) is a lower bound and gets the waits chart's one triangle.
mkdir -p "$TMP/censored" "$TMP/censored-out"
awk -F, -v OFS=, 'NR == 1 { print $0, "wait_p99_censored"; next }
	{ print $0, ($3 == "ttas" && $4 == 8 && $10 == 1) ? "true" : "false" }' \
	"$FIX/sim-2socket.csv" >"$TMP/censored/sim-2socket.csv"
plots --results "$TMP/censored" --out "$TMP/censored-out" --topo 2socket --no-sweeps --only waits
python3 - "$TMP/out/waits-2socket.svg" "$TMP/censored-out/waits-2socket.svg" <<'EOF' || failed=1
import re
import sys
# gnuplot draws pt 8 (an open triangle) as a use of its path gpPt7
n = [len(re.findall(r"xlink:href='#gpPt7' transform=", open(p).read())) for p in sys.argv[1:]]
if n != [0, 1]:
    print('plots_check: FAIL: open triangles on the waits chart without and with a '
          'lower-bound p99: %s, expected [0, 1]' % n)
    sys.exit(1)
if 'only a lower bound' not in open(sys.argv[2]).read():
    print('plots_check: FAIL: the waits chart does not say what the triangle marks')
    sys.exit(1)
EOF

# The same sweeps with the CSV's starved: mcs at 8 threads starved threads
# in every run, its longest wait the run's length (cut short by the end).
# Its point gets a cross on the throughput and jain charts (and the key one),
# its longest wait a triangle; in the crossover sweep mcs, fastest at 8
# threads and no section, is left out there and named under the winner, and
# the cell at 2 threads and 400 ns, where every lock starved, is grey.
mkdir -p "$TMP/starved" "$TMP/starved-out"
awk -F, -v OFS=, 'NR == 1 { print $0, "starved"; next }
	{ s = ($3 == "mcs" && $4 == 8) ? 8 : 0; if (s) $17 = $11 * 1e9; print $0, s }' \
	"$FIX/sim-2socket.csv" >"$TMP/starved/sim-2socket.csv"
awk -F, -v OFS=, 'NR == 1 { print $0, "starved"; next }
	{ print $0, (($3 == "mcs" && $4 == 8 && $5 == 0) || ($4 == 2 && $5 == 400)) ? 1 : 0 }' \
	"$FIX/crossover-sim-2socket.csv" >"$TMP/starved/crossover-sim-2socket.csv"
plots --results "$TMP/starved" --out "$TMP/starved-out" --topo 2socket --no-sweeps \
	--only throughput,jain,waits,crossover
python3 - "$TMP/starved-out" <<'EOF' || failed=1
import os
import re
import sys
bad = []


def svg(d, name):
    return open(os.path.join(d, name + '.svg')).read()


def uses(text, pt):
    """How often gnuplot drew its point path gpPt<pt> (point type pt + 1)."""
    return len(re.findall(r"xlink:href='#gpPt%d' transform=" % pt, text))


starved = sys.argv[1]
for chart in ('throughput-2socket', 'jain-2socket'):
    t = svg(starved, chart)
    if uses(t, 1) != 2 or 'x: threads starved' not in t:  # pt 2, a cross
        bad.append('%s: %d crosses (expected 2: the starved point and the key), or no '
                   'key entry' % (chart, uses(t, 1)))
n = uses(svg(starved, 'waits-2socket'), 7)
if n != 1:
    bad.append('waits-2socket: %d open triangles, expected 1 (the cut-short longest wait)' % n)
w = svg(starved, 'waits-2socket')
if uses(w, 1) != 4 or 'the waits are those of the threads that got it' not in w:
    bad.append('waits-2socket: %d crosses (expected 4: the starved point in each panel and '
               'the key), or no word of what they mark' % uses(w, 1))
cross = svg(starved, 'crossover-2socket')
for want in ('starved: mcs', 'all starved', 'left out'):
    if want not in cross:
        bad.append('crossover-2socket: no %r' % want)
for b in bad:
    print('plots_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

# The same sweep with the CSV's wait_max_censored, no thread starved: ticket
# at 4 threads, run 0, had its longest wait cut short by the run's end, and
# that point alone gets a triangle on the waits chart.
mkdir -p "$TMP/maxcut" "$TMP/maxcut-out"
awk -F, -v OFS=, 'NR == 1 { print $0, "wait_max_censored"; next }
	{ print $0, ($3 == "ticket" && $4 == 4 && $10 == 0) ? "true" : "false" }' \
	"$FIX/sim-2socket.csv" >"$TMP/maxcut/sim-2socket.csv"
plots --results "$TMP/maxcut" --out "$TMP/maxcut-out" --topo 2socket --no-sweeps --only waits
python3 - "$TMP/maxcut-out/waits-2socket.svg" <<'EOF' || failed=1
import re
import sys
n = len(re.findall(r"xlink:href='#gpPt7' transform=", open(sys.argv[1]).read()))
if n != 1:
    print('plots_check: FAIL: waits chart with one wait_max_censored run: %d open triangles, '
          'expected 1' % n)
    sys.exit(1)
EOF

# A --vm sweep of overcommits 1, 2, 3 at 16 threads a lock (sim-4socket-vm.csv,
# made by locklab-sim run --topo 4socket --lock ticket,pv-ticket --threads 16
# --vm 16 --overcommit 1,2,3 --co-guests busy --duration 24 --runs 2): its
# throughput, jain and waits charts have the overcommit on the x axis, a tic
# a level and a series a lock (no xN in the titles), its starved points
# crossed (pv-ticket at 2x and 3x).  The same sweep with the 1x rows at 8
# threads, two thread counts a lock, stays against threads, a series an
# overcommit.
mkdir -p "$TMP/vm2" "$TMP/vm2-out"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "overcommit") c = i }
	NR > 1 && $c == "1.00" { $4 = 8 } { print }' \
	"$FIX/sim-4socket-vm.csv" >"$TMP/vm2/sim-4socket-vm.csv"
plots --results "$TMP/vm2" --out "$TMP/vm2-out" --no-sweeps --only throughput
python3 - "$TMP/out" "$TMP/vm2-out" <<'EOF' || failed=1
import os
import re
import sys
bad = []
AXIS = 'overcommit (vCPUs per pCPU)'


def texts(d, chart):
    path = os.path.join(d, chart + '-4socket-vm.svg')
    if not os.path.exists(path):
        bad.append('%s: missing' % path)
        return '', []
    t = open(path).read()
    return t, [x.strip() for x in re.findall(r'<text>([^<]*)</text>', t)]


for chart, panels in (('throughput', 1), ('jain', 1), ('waits', 3)):
    t, xs = texts(sys.argv[1], chart)
    if xs.count(AXIS) != panels or 'threads' in xs:
        bad.append('%s-4socket-vm: x axis label %r %d times, expected %d, and no "threads": %s'
                   % (chart, AXIS, xs.count(AXIS), panels, xs))
    if not all(xs.count(v) >= panels for v in ('1', '2', '3')):
        bad.append('%s-4socket-vm: not a tic at each overcommit 1, 2, 3: %s' % (chart, xs))
    titles = [x for x in xs if x in ('ticket', 'pv-ticket') or ':x' in x]
    if titles != ['ticket', 'pv-ticket']:
        bad.append('%s-4socket-vm: series %s, expected one a lock' % (chart, titles))
    if 'against %s, 16 threads (vCPUs)' % AXIS not in t or 'in the titles' in t:
        bad.append('%s-4socket-vm: the heading does not say against overcommit at 16 threads, '
                   'or sends to the titles' % chart)
    crosses = len(re.findall(r"xlink:href='#gpPt1' transform=", t))
    if crosses != 2 * panels + 1:  # pt 2, a cross
        bad.append('%s-4socket-vm: %d crosses, expected %d (pv-ticket at 2x and 3x in each '
                   'panel, the key)' % (chart, crosses, 2 * panels + 1))
t, xs = texts(sys.argv[2], 'throughput')
if 'threads' not in xs or AXIS in xs or 'ticket:x2.00' not in xs:
    bad.append('throughput-4socket-vm, 8 and 16 threads a lock: not against threads with a '
               'series an overcommit: %s' % xs)
for b in bad:
    print('plots_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

# A sweep stopped early (sim-2socket-stopped.csv and its JSON: locklab-sim
# run --topo 2socket --lock ticket,mcs,tas,clh --threads 1,2,4,8 --duration
# 20, interrupted after 20 of its 48 runs): its heading says so, and its
# threads axis has a tic at each count drawn, 8 included, where the dodged
# last point was left past gnuplot's own tics.
python3 - "$TMP/out" <<'EOF' || failed=1
import os
import re
import sys
t = open(os.path.join(sys.argv[1], 'throughput-2socket-stopped.svg')).read()
xs = [x.strip() for x in re.findall(r'<text>([^<]*)</text>', t)]
bad = []
if 'STOPPED EARLY: 20 of 48 runs done' not in t:
    bad.append('throughput-2socket-stopped: the heading does not say the sweep stopped early')
if not all(v in xs for v in ('1', '2', '4', '8')):
    bad.append('throughput-2socket-stopped: not a tic at each of 1, 2, 4, 8 threads: %s' % xs)
for b in bad:
    print('plots_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

python3 - "$TMP/out" "$TMP/overlay" <<'EOF' || failed=1
# The SVG checks: each gnuplot plot group of a chart is (key text, colour).
import os
import re
import sys
import xml.dom.minidom

out, overlay = sys.argv[1], sys.argv[2]
bad = []
PLAIN = ('rgb(255,255,255)', 'rgb(0,0,0)')  # borders and text, no lock's


def key_text(g):
    """The key entry's text: gnuplot right-aligns it (labels are centred)."""
    for t in g.getElementsByTagName('g'):
        if t.getAttribute('text-anchor') == 'end':
            for x in t.getElementsByTagName('text'):
                return ''.join(n.data for n in x.childNodes if n.nodeType == n.TEXT_NODE).strip()
    return ''


def keys(path):
    """[(key text, first rgb colour)] of the plots of one gnuplot SVG."""
    if not os.path.exists(path):
        bad.append('%s: missing' % path)
        return []
    doc = xml.dom.minidom.parse(path)
    found = []
    for g in doc.getElementsByTagName('g'):
        if not g.getAttribute('id').startswith('gnuplot_plot_'):
            continue
        text = key_text(g)
        colour = None
        for e in g.getElementsByTagName('*'):
            for attr in ('stroke', 'fill', 'color'):
                v = e.getAttribute(attr).replace(' ', '')
                if v.startswith('rgb(') and v not in PLAIN and colour is None:
                    colour = v
        if text:
            found.append((text, colour))
    return found


def lock_of(title):
    return title.split(':')[1] if ':' in title else title


expected = ['throughput-2socket', 'jain-2socket', 'waits-2socket', 'traffic-2socket',
            'acquisitions-2socket', 'crossover-2socket', 'throughput-native-fixture',
            'throughput-validate-fixture', 'waits-validate-fixture']
for name in expected:
    if not os.path.exists(os.path.join(out, name + '.svg')):
        bad.append('%s.svg: missing' % name)
for d in (out, overlay):
    for f in sorted(os.listdir(d)):
        if f.endswith('.svg'):
            try:
                xml.dom.minidom.parse(os.path.join(d, f))
            except Exception as e:
                bad.append('%s: not XML: %s' % (f, e))

colours = {}
for name in ('throughput-2socket', 'jain-2socket', 'waits-2socket', 'crossover-2socket',
             'throughput-validate-fixture'):
    path = os.path.join(out, name + '.svg')
    if not os.path.exists(path):
        continue
    ks = [k for k in keys(path) if not k[0].startswith('socket')]
    if name.endswith('-2socket') and any('native' in t for t, c in ks):
        bad.append('%s: a native line on a simulated chart: %s' % (name, ks))
    for title, colour in ks:
        lock = lock_of(title)
        if colours.setdefault(lock, colour) != colour:
            bad.append('%s: %s is %s, elsewhere %s' % (name, lock, colour, colours[lock]))
by_colour = {}
for lock, colour in colours.items():
    if by_colour.setdefault(colour, lock) != lock:
        bad.append('%s and %s share the colour %s' % (lock, by_colour[colour], colour))
if len(colours) < 3:
    bad.append('found the colours of only %s' % sorted(colours))

v = [t for t, c in keys(os.path.join(out, 'throughput-validate-fixture.svg'))]
if not any(t.startswith('native:') for t in v) or not any(t.startswith('sim:') for t in v):
    bad.append('throughput-validate-fixture: not both native and sim: %s' % v)
o = [t for t, c in keys(os.path.join(overlay, 'throughput-2socket.svg'))]
if not any(t.startswith('native:') for t in o):
    bad.append('--overlay-native: no native line on throughput-2socket: %s' % o)

cross = open(os.path.join(out, 'crossover-2socket.svg')).read()
if '<image' in cross:
    bad.append('crossover-2socket.svg: has an <image> element (bitmap cells)')
waits = open(os.path.join(out, 'waits-2socket.svg')).read()
if 'censored' not in waits:
    bad.append('waits-2socket.svg: does not say the waits are censored')
if len(re.findall(r'wait \((ns|us|ms|s)\)<', waits)) != 3 or 'G ns' in waits:
    bad.append('waits-2socket.svg: wait axes without a scaled unit')
tp = open(os.path.join(out, 'throughput-2socket.svg')).read()
if 'Macq/s' not in tp:
    bad.append('throughput-2socket.svg: throughput axis not in Macq/s')
for want in ('bars: lowest to highest run', 'at most 7%', 'runs of ',
             'simulated 2socket (2 sockets x 8 cores)', 'pinning compact',
             'assumed (no source; topologies/README.md): lat.*, msg.*'):
    if want not in tp:
        bad.append('throughput-2socket.svg: the heading does not say %r' % want)
units = set(re.findall(r'wait \((ns|us|ms|s)\)<', waits))
if len(units) != 1:
    bad.append('waits-2socket.svg: the three panels in more than one unit: %s' % units)

for b in bad:
    print('plots_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

if [ -x "$BIN/locklab-sim" ]; then
	# Every lock of both binaries has a colour of the table, none shared.
	{ "$BIN/locklab-sim" list; [ -x "$BIN/locklab-native" ] && "$BIN/locklab-native" list; } |
		awk '{ print $1 }' | sort -u >"$TMP/locks"
	python3 - "$ROOT/plots" "$TMP/locks" <<'EOF' || failed=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import plots
locks = open(sys.argv[2]).read().split()
missing = [l for l in locks if l not in plots.LOCK_COLOURS]
colours = list(plots.LOCK_COLOURS.values())
if missing:
    print('plots_check: FAIL: no colour for %s' % missing)
if len(set(colours)) != len(colours):
    print('plots_check: FAIL: two locks share a colour')
# every lock a marker; two locks of near colours, markers of other shapes
# (gnuplot's 4/5, 6/7, ... are one shape open and filled)
nomarker = [l for l in locks if l not in plots.LOCK_MARKERS]
if nomarker:
    print('plots_check: FAIL: no marker for %s' % nomarker)
shape = lambda l: (plots.LOCK_MARKERS[l] - 4) // 2
alike = [(a, b) for a in plots.LOCK_MARKERS for b in plots.LOCK_MARKERS if a < b and
         shape(a) == shape(b) and plots.colour_distance(plots.LOCK_COLOURS[a], plots.LOCK_COLOURS[b])
         < plots.NEAR_COLOURS]
if alike:
    print('plots_check: FAIL: near colours with one marker shape: %s' % alike)
if any(m in (1, 2, 3, 8) for m in plots.LOCK_MARKERS.values()):
    print('plots_check: FAIL: a lock drawn with the starved cross or the lower-bound triangle')
sys.exit(1 if missing or nomarker or alike or len(set(colours)) != len(colours) or
         any(m in (1, 2, 3, 8) for m in plots.LOCK_MARKERS.values()) else 0)
EOF

	# The bars are a mean over runs only while no thread changed socket.
	python3 - "$ROOT/plots" <<'EOF' || failed=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import plots
def row(run, tid, node):
    return {'lock': 'ttas', 'run': str(run), 'tid': str(tid), 'node': str(node)}
still = [row(k, t, t) for k in (0, 1, 2) for t in (0, 1)]  # runs count from 0
moved = still[:-1] + [row(2, 1, 0)]
cases = [(plots.thread_rows(still[:2]), 2, 'one run'),
         (plots.thread_rows(still), 6, 'mean of 3 runs'),
         (plots.thread_rows(moved), 2, 'the first of 3 runs (threads placed anew each run)')]
bad = [(n, w, len(r), what) for (r, what), n, w in cases if len(r) != n or what != w]
for b in bad:
    print('plots_check: FAIL: thread_rows: expected %d rows, %r; got %d, %r' % b)
sys.exit(1 if bad else 0)
EOF

	# A string reaches gnuplot as text: a backquote is no shell command.
	python3 - "$ROOT/plots" <<'EOF' || failed=1
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import gnuplot_draw as gd
text = 'its file has no `echo RAN` property, "quoted", back\\slash'
out = subprocess.run(['gnuplot', '-e', 'print %s' % gd.gp_str(text)], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, universal_newlines=True).stdout.strip()
if out != text:
    print('plots_check: FAIL: gp_str: gnuplot printed %r for %r' % (out, text))
sys.exit(0 if out == text else 1)
EOF

	# A heading says every assumed constant the run's table said: the JSON's
	# assumed_line (the locks' own too), in lines a chart can hold.
	python3 - "$ROOT/plots" <<'EOF' || failed=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import plots_charts as pc
line = ("assumed in 4socket (no source; topologies/README.md says why): lat.*, msg.*; and the "
        "locks' own (algorithms/): a 500 ns bounded wait for a pending waiter's handover "
        "(qspinlock); and a parked waiter's halt, kick and wake, 0.2, 0.5 and 2 us")
text = pc.context_text([{'backend': 'sim', 'topo': '4socket'}],
                       {'assumed_line': line, 'topology': {'assumed': ['lat.*', 'msg.*']}})
said = ' '.join(text.split('\n')[1:])
ok = said == line and all(len(l) <= 150 for l in text.split('\n'))
if not ok:
    print('plots_check: FAIL: the heading does not give the assumed line whole: %r' % text)
sys.exit(0 if ok else 1)
EOF

	# A --vm sweep of overcommits: the shared workload in the heading, the
	# overcommit in each title.
	python3 - "$ROOT/plots" <<'EOF' || failed=1
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import plots_charts as pc
wl = lambda x: ('50', '200', '1', '1', '', x, 'false')
keys = [('sim', 'ticket', wl('1.00')), ('sim', 'ticket', wl('2.00'))]
text, titles = pc.workload_text(keys), pc.series_titles(keys)
ok = text.startswith('cs 50 ns') and 'the overcommit (xN) in the titles' in text and \
    titles == ['ticket:x1.00', 'ticket:x2.00']
if not ok:
    print('plots_check: FAIL: an overcommit sweep: heading %r, titles %r' % (text, titles))
sys.exit(0 if ok else 1)
EOF

	# A cached sweep is reused for the same command, made again for another.
	mkdir -p "$TMP/sweep"
	sweep() {
		plots --results "$TMP/sweep" --bin "$BIN" --topo 2socket --only acquisitions "$@"
	}
	csv="$TMP/sweep/threads-sim-2socket.csv"
	sweep --locks ttas --threads 2
	[ -f "$csv.sweep.json" ] || fail "no sidecar $csv.sweep.json"
	sweep --locks ttas --threads 2
	grep -q reused "$TMP/log" || fail "the same sweep was not reused"
	sweep --locks mcs --threads 2
	grep -q reused "$TMP/log" && fail "a sweep with other locks was reused"
	grep -q ',mcs,' "$csv" || fail "$csv was not made again for mcs"
	grep -q ',ttas,' "$csv" && fail "$csv still holds the ttas rows"
else
	echo "plots_check: no $BIN/locklab-sim: colour table and sweep cache not checked"
fi

# A file named as a run's that is not one (bytes, a per-thread CSV) is
# skipped with one line naming it, and plots.py exits non-zero; a run whose
# every run failed is said, and no chart is drawn of it.
mkdir -p "$TMP/bad" "$TMP/bad2"
head -c 200 /dev/urandom > "$TMP/bad/sim-x-00000000.csv"
python3 "$ROOT/plots/plots.py" --results "$TMP/bad" --no-sweeps --only throughput \
	> /dev/null 2> "$TMP/bad.err" && fail "plots.py took a file of bytes"
grep -q 'sim-x-00000000.csv: cannot read it as a CSV' "$TMP/bad.err" ||
	fail "the bytes file is not named: $(cat "$TMP/bad.err")"
printf 'backend,topo,lock,threads,run,tid,acquisitions\nsim,t,tas,2,0,0,5\n' \
	> "$TMP/bad2/sim-x-00000000.csv"
python3 "$ROOT/plots/plots.py" --results "$TMP/bad2" --no-sweeps --only throughput \
	> /dev/null 2> "$TMP/bad.err" && fail "plots.py took a per-thread CSV as a run's"
grep -q 'not a run CSV of locklab (no column throughput_per_s)' "$TMP/bad.err" ||
	fail "the per-thread CSV is not named: $(cat "$TMP/bad.err")"
mkdir -p "$TMP/bad3"
sed '2s/^\(\([^,]*,\)\{3\}\)[0-9]*/\1abc/' "$FIX/sim-2socket.csv" > "$TMP/bad3/sim-x-00000000.csv"
python3 "$ROOT/plots/plots.py" --results "$TMP/bad3" --no-sweeps --only throughput \
	> /dev/null 2> "$TMP/bad.err" && fail "plots.py charted a CSV whose thread count is abc"
grep -q "line 2: threads 'abc' is not a thread count: skipped" "$TMP/bad.err" ||
	fail "the spoiled row is not named: $(cat "$TMP/bad.err")"
python3 "$ROOT/plots/plots.py" --results "$TMP/bad3" --out "$TMP/bad3/sim-x-00000000.csv" \
	--no-sweeps > /dev/null 2> "$TMP/bad.err"
[ $? = 2 ] && [ "$(wc -l < "$TMP/bad.err")" = 1 ] ||
	fail "--out over a file is not one line, exit 2: $(cat "$TMP/bad.err")"

# A result file whose name holds a quote is charted under that name; the
# quote never ends gnuplot's string (common.gp once pasted the name into a
# command it evaluated: this name then ran `touch` in plots/).
mkdir -p "$TMP/quote" "$TMP/quote-out"
cp "$FIX/sim-2socket.csv" "$TMP/quote/sim-a'; system 'touch quoted-name-ran'; x='.csv"
(cd "$TMP/quote-out" && plots --results "$TMP/quote" --out "$TMP/quote-out" --no-sweeps --only throughput)
[ -e "$ROOT/plots/quoted-name-ran" ] || [ -e "$TMP/quote-out/quoted-name-ran" ] && {
	rm -f "$ROOT/plots/quoted-name-ran" "$TMP/quote-out/quoted-name-ran"
	fail "a quote in a result file's name ran a command in gnuplot"
}
[ -s "$TMP/quote-out/throughput-a'; system 'touch quoted-name-ran'; x='.svg" ] ||
	fail "the chart of a file named with a quote is not under its name: $(ls "$TMP/quote-out")"

# A gnuplot that fails half-way through a chart: the chart drawn before
# stays whole, no temporary file is left, and the failure is one line with
# gnuplot's own message (plots/gnuplot_draw.py; plots.py once left a 0-byte
# PNG and printed gnuplot's lines above its message).
mkdir -p "$TMP/fakegp"
cat > "$TMP/fakegp/gnuplot" <<'EOF'
#!/bin/sh
out=$(printf '%s\n' "$2" | sed -n 's/.*out="\([^"]*\)".*/\1/p')
printf half > "$out.png"
printf '         plot x\n              ^\n"throughput.gp" line 35: undefined variable: x\n' >&2
exit 1
EOF
chmod +x "$TMP/fakegp/gnuplot"
cp "$TMP/out/throughput-2socket.png" "$TMP/before.png"
PATH="$TMP/fakegp:$PATH" python3 "$ROOT/plots/plots.py" --results "$TMP/results" --out "$TMP/out" \
	--topo 2socket --no-sweeps --only throughput > /dev/null 2> "$TMP/gp.err" &&
	fail "plots.py said a failed gnuplot drew its chart"
grep -qx 'plots.py: gnuplot throughput.gp failed: "throughput.gp" line 35: undefined variable: x' \
	"$TMP/gp.err" || fail "gnuplot's failure is not one line with its message: $(cat "$TMP/gp.err")"
grep -q '\^' "$TMP/gp.err" && fail "gnuplot's caret line was printed: $(cat "$TMP/gp.err")"
cmp -s "$TMP/before.png" "$TMP/out/throughput-2socket.png" ||
	fail "a failed gnuplot changed the chart drawn before it"
ls -a "$TMP/out" | grep -q '\.tmp' && fail "a failed gnuplot left a temporary file: $(ls -a "$TMP/out")"

[ $failed = 0 ] && echo "plots_check: ok"
exit $failed
