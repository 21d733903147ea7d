#!/bin/sh
# tests/report_check.sh - tools/report.py end to end: a small simulated sweep,
# its charts (plots/plots.py) and one contention graph, the report page and
# its index; then headless Chromium opens the page and a script added to a
# copy of it lists every <img> with its naturalWidth: the check passes only
# when every image loaded.  It is then run again with one image deleted and
# must fail, so a blind check cannot pass.  Bad arguments and missing inputs
# get exit 2 and one line.
#
#   sh tests/report_check.sh [BIN]       exit 0 when every check passed
#
# BIN is the directory of locklab-sim (default bin).  Without chromium (or
# chromium-browser) on PATH the test is skipped, unless LOCKLAB_REQUIRE_CHROMIUM
# is set (to anything): then it fails.

BIN=${1:-bin}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/report-check.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
R="$TMP/results"
failed=0

fail() {
	echo "report_check: FAIL: $*"
	failed=1
}

# Run a command that must succeed, its output kept in $TMP/log.
must() {
	"$@" >"$TMP/log" 2>&1 || {
		cat "$TMP/log"
		fail "$*"
	}
}

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	if [ -z "${LOCKLAB_REQUIRE_CHROMIUM+set}" ]; then
		echo "report_check: chromium is not installed: skipped"
		exit 0
	fi
	echo "report_check: FAIL: chromium is not installed and LOCKLAB_REQUIRE_CHROMIUM is set"
	exit 1
fi
if [ ! -x "$BIN/locklab-sim" ]; then
	echo "report_check: FAIL: no $BIN/locklab-sim (give the directory of the binaries)"
	exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "report_check: FAIL: gnuplot is not installed (./deps.sh installs it)"
	exit 1
fi

# render PAGE WANT: open PAGE (a file under $R) in headless Chromium with the
# image check added; print its lines; succeed when the check ran, found WANT
# images and every one of them loaded.
render() {
	copy="$R/.check-$(basename "$1")"
	python3 - "$1" "$copy" <<'EOF' || return 1
import sys
script = '''<script>
window.addEventListener('load', function () {
	var lines = [];
	document.querySelectorAll('img').forEach(function (img) {
		var ok = img.complete && img.naturalWidth > 0;
		lines.push((ok ? 'IMG-OK ' : 'IMG-MISSING ') + img.naturalWidth + ' ' +
			   img.getAttribute('src'));
	});
	lines.push('IMGCHECK-DONE ' + document.images.length);
	var out = document.createElement('pre');
	out.id = 'imgcheck';
	out.textContent = lines.join('\\n');
	document.body.appendChild(out);
});
</script>'''
text = open(sys.argv[1], encoding='utf-8').read()
if '</body>' not in text:
    sys.exit('report_check: %s has no </body>' % sys.argv[1])
open(sys.argv[2], 'w', encoding='utf-8').write(text.replace('</body>', script + '</body>', 1))
EOF
	HOME="$TMP" timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--user-data-dir="$TMP/chromium" --virtual-time-budget=5000 \
		--dump-dom "file://$copy" >"$TMP/dom.html" 2>"$TMP/chromium.log" || {
		echo "chromium exited $?:"
		tail -5 "$TMP/chromium.log"
		return 1
	}
	python3 - "$TMP/dom.html" "$2" <<'EOF'
import html
import re
import sys
dom = open(sys.argv[1], encoding='utf-8', errors='replace').read()
m = re.search(r'<pre id="imgcheck">(.*?)</pre>', dom, re.S)
if not m:
    sys.exit('the image check did not run (no <pre id="imgcheck"> in the DOM)')
lines = html.unescape(m.group(1)).splitlines()
for l in lines:
    print('  ' + l)
missing = [l for l in lines if l.startswith('IMG-MISSING')]
done = [l for l in lines if l.startswith('IMGCHECK-DONE ')]
if not done or int(done[0].split()[1]) != int(sys.argv[2]):
    sys.exit('expected %s images, the page has %s' % (sys.argv[2], done))
sys.exit('%d images did not load' % len(missing) if missing else 0)
EOF
}

# The sweep, its charts and one graph.
mkdir -p "$R"
SIM="$BIN/locklab-sim"
must "$SIM" run --topo 2socket --lock ttas,mcs --threads 2,4 --runs 2 --duration 1 \
	--csv "$R/sim-2socket.csv" --json "$R/sim-2socket.json" \
	--threads-csv "$R/threads-run-2socket.csv"
must python3 "$ROOT/plots/plots.py" --results "$R" --bin "$BIN" --topo 2socket \
	--locks ttas,mcs --threads 4 --only throughput,jain,waits,traffic,acquisitions
must "$SIM" run --topo 2socket --lock ttas --threads 4 --runs 1 --duration 1 --graphs "$R"

# The report and the index.
report() {
	python3 "$ROOT/tools/report.py" "$@"
}
must report --csv "$R/sim-2socket.csv" --threads-csv "$R/threads-run-2socket.csv"
page="$R/report-sim-2socket.html"
[ -f "$page" ] || fail "no $page"
[ -f "$R/report.html" ] || fail "no $R/report.html"
must report --csv "$R/sim-2socket.csv" --name second --command "a command given"
[ -z "$(find "$R" -name '*.tmp')" ] || fail "a temporary file was left in $R"
python3 - "$page" "$R/report.html" "$R/report-second.html" <<'EOF' || failed=1
import re
import sys
page, index, second = (open(p, encoding='utf-8').read() for p in sys.argv[1:4])
bad = []
for want in ('<h2>Command</h2>', '<h2>Environment</h2>', 'topology.name</th><td>2socket',
             'locklab_version', '<th>mean</th>', '<th>sigma</th>', '<th>SEM</th>', '<th>Jain</th>',
             '<th>starved threads</th>', '<th>socket-local handoffs</th>', '<th>p99 wait</th>'):
    if want not in page:
        bad.append('the page lacks %r' % want)
if len(re.findall(r'<table class="lock">', page)) != 2:
    bad.append('not one table per lock (ttas, mcs)')
for lock in ('ttas', 'mcs'):
    if '<caption><b>%s</b>' % lock not in page:
        bad.append('no table of %s' % lock)
if len(re.findall(r'<th scope="row">sim 2socket t=[24]</th>', page)) != 4:
    bad.append('not a row per lock and thread count')
srcs = re.findall(r'<img src="([^"]+)"', page)
for kind in ('throughput', 'jain', 'waits', 'traffic', 'acquisitions'):
    if '%s-2socket.svg' % kind not in srcs:
        bad.append('the chart %s-2socket.svg is not on the page' % kind)
for kind in ('handoff', 'machine'):
    if 'graph-2socket-ttas-4-%s.svg' % kind not in srcs:
        bad.append('the graph %s is not on the page' % kind)
if any('/' in s for s in srcs):
    bad.append('an image not relative to the page: %s' % srcs)
for name in ('report-sim-2socket.html', 'report-second.html'):
    if 'href="%s"' % name not in index:
        bad.append('the index does not list %s' % name)
if 'a command given' not in second:
    bad.append('--command is not on the page')
for b in bad:
    print('report_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF
# A p99 that is only a lower bound (tas starves threads at 32) is marked
# as the terminal marks it; mcs's is not.
must "$SIM" run --topo 4socket --lock tas,mcs --threads 32 --runs 1 --duration 1 \
	--csv "$TMP/censored.csv"
must report --csv "$TMP/censored.csv" --out "$R" --name censored
python3 - "$R/report-censored.html" <<'EOF' || failed=1
import re
import sys
page = open(sys.argv[1], encoding='utf-8').read()
rows = dict(re.findall(r'<caption><b>(\w+)</b>.*?<tr[^>]*><th scope="row">[^<]*</th>'
                       r'((?:<td>.*?</td>)+)</tr>', page, re.S))
p99 = {lock: re.findall(r'<td>(.*?)</td>', cells)[8] for lock, cells in rows.items()}
bad = []
if not p99.get('tas', '').startswith('&ge;'):
    bad.append('the censored p99 of tas is not marked: %r' % p99.get('tas'))
if p99.get('mcs', '&ge;').startswith('&ge;'):
    bad.append('the p99 of mcs is marked: %r' % p99.get('mcs'))
for b in bad:
    print('report_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

# A lock whose acquisitions stay on one socket (cohort at 32 threads: 24
# starved, one socket served) gets the terminal's verdict on the page, from
# the CSV's sockets and sockets_served.
must "$SIM" run --topo 4socket --lock cohort --threads 32 --runs 1 --duration 1 \
	--csv "$TMP/one-socket.csv"
must report --csv "$TMP/one-socket.csv" --out "$R" --name one-socket
"$SIM" run --topo 4socket --lock cohort --threads 32 --runs 1 --duration 1 |
	grep -q "in each run only one socket's threads got it: the throughput is theirs" ||
	fail "the terminal does not say that one socket's threads got the lock"
grep -q "in each run only one socket&#x27;s threads got it: the throughput is theirs" \
	"$R/report-one-socket.html" || fail "the page does not say that one socket's threads got the lock"

# A slow lock's table is in the unit the terminal gives it (kacq/s here:
# about 120 acquisitions a second), not 0.0001 Macq/s.
must "$SIM" run --topo 1socket --lock mcs --threads 2 --runs 2 --cs 9000000 --duration 100 \
	--csv "$TMP/slow.csv"
must report --csv "$TMP/slow.csv" --out "$R" --name slow
grep -q '(throughput, kacq/s)' "$R/report-slow.html" ||
	fail "the slow table is not in kacq/s"
"$SIM" run --topo 1socket --lock mcs --threads 2 --runs 2 --cs 9000000 --duration 100 |
	grep -q '(throughput, kacq/s)' || fail "the terminal's slow table is not in kacq/s"

# An rwlock's reads and writes are under its row, as the terminal's side
# lines, a lower-bound p99 marked as there.
must "$SIM" run --topo 4socket --lock rwlock --threads 16 --read-pct 98 --runs 1 --duration 1 \
	--csv "$TMP/rw.csv"
must report --csv "$TMP/rw.csv" --out "$R" --name rw
grep -q '<tr class="side"><td></td><td colspan="10">reads [0-9.]* Macq/s, wait p99 .*; writes [0-9.]* Macq/s, wait p99 &ge;' \
	"$R/report-rw.html" || fail "the rwlock's side lines are not under its row"

# A --vm sweep's levels are rows of their own, as in the terminal, and one
# run has no sigma ('-', the terminal's "no variance"), not 0.
must "$SIM" run --topo 4socket --lock ticket --threads 4 --vm 4 --overcommit 1,2 --runs 1 \
	--duration 1 --csv "$TMP/vm.csv"
must report --csv "$TMP/vm.csv" --out "$R" --name vm
python3 - "$R/report-vm.html" <<'EOF' || failed=1
import re
import sys
page = open(sys.argv[1], encoding='utf-8').read()
rows = re.findall(r'<th scope="row">([^<]*)</th><td>1</td><td>[^<]*</td><td>([^<]*)</td>', page)
bad = []
if sorted(r[0] for r in rows) != ['sim 4socket t=4 x1.00', 'sim 4socket t=4 x2.00']:
    bad.append('the overcommit levels are not rows of their own: %r' % rows)
if any(r[1] != '-' for r in rows):
    bad.append('one run shows a sigma: %r' % rows)
if page.count('<td colspan="10">vm: pcpus ') != 2:
    bad.append('the vm lines are not under the two rows')
for b in bad:
    print('report_check: FAIL: ' + b)
sys.exit(1 if bad else 0)
EOF

# The heading gives the runs and their length (duration_s): one length, or
# the shortest and longest where a --ops run's differ.  The Command section
# tells a JSON without the command from no JSON at all.
grep -q '<p>sim on 2socket: ttas,mcs; threads 2,4; 8 runs of 1 ms</p>' "$page" ||
	fail "the heading does not say 8 runs of 1 ms"
grep -q 'the JSON does not record the command (give --command)' "$page" ||
	fail "a page with a JSON without the command does not say so"
grep -q "no JSON of this run (--json, or the CSV's path with .json): the command is not known" \
	"$R/report-censored.html" || fail "a page without a JSON does not say there is none"
must "$SIM" run --topo 2socket --lock ttas --threads 2,4 --runs 1 --ops 300 --csv "$TMP/ops.csv"
must report --csv "$TMP/ops.csv" --out "$R" --name ops
grep -q '; 2 runs of [0-9.]* us to [0-9.]* us</p>' "$R/report-ops.html" ||
	fail "a --ops sweep's heading does not give its runs' shortest and longest length"

# No chart: the hint is the plots.py command that draws them; for a native
# CSV, its three charts, not a simulated machine's --topo (its topo column
# names the host).
grep -q 'python3 plots/plots.py --results [^ ]* --topo 2socket; it charts the sim-\*.csv' \
	"$R/report-ops.html" || fail "the charts hint of a simulated sweep is not plots.py --topo"
cp "$ROOT/tests/fixtures/plots/native-fixture.csv" "$TMP/native-fixture.csv"
must report --csv "$TMP/native-fixture.csv" --out "$R" --name native
grep -q "python3 plots/plots.py --results $TMP --only throughput,jain,waits)" \
	"$R/report-native.html" || fail "the charts hint of a native sweep is not plots.py --only"
if grep -q -- '--topo' "$R/report-native.html"; then
	fail "the charts hint of a native sweep names a --topo"
fi

nimg=$(grep -o '<img ' "$page" | wc -l)
[ "$nimg" -ge 7 ] || fail "$page has $nimg images, expected at least 7"

# Chromium: every image of the page loads, the index renders; then one image
# deleted must be caught.
echo "report_check: rendering $page"
render "$page" "$nimg" || fail "$page: an image did not load in chromium"
render "$R/report.html" 0 || fail "report.html did not render in chromium"
rm "$R/graph-2socket-ttas-4-handoff.svg"
echo "report_check: rendering $page without graph-2socket-ttas-4-handoff.svg (must fail)"
if render "$page" "$nimg" >"$TMP/render" 2>&1; then
	fail "a deleted image was not caught by the chromium check"
fi
cat "$TMP/render"
grep -q 'IMG-MISSING 0 graph-2socket-ttas-4-handoff.svg' "$TMP/render" ||
	fail "the chromium check failed without naming the deleted image"
[ "$(grep -c 'IMG-MISSING' "$TMP/render")" = 1 ] ||
	fail "the chromium check counts another image missing"

# Bad arguments and missing inputs: exit 2, one line.
bad_input() {
	report "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lines=$(wc -l <"$TMP/err")
	if [ $rc != 2 ] || [ "$lines" != 1 ]; then
		fail "report.py $*: exit $rc, $lines lines on stderr (want 2 and 1)"
		cat "$TMP/err"
	fi
}
printf 'a,b\n1,2\n' >"$TMP/other.csv"
printf '{"environment": ' >"$TMP/broken.json"
bad_input
bad_input --csv "$TMP/none.csv"
bad_input --csv "$TMP/other.csv"
bad_input --csv "$R/sim-2socket.csv" --json "$TMP/broken.json"
bad_input --csv "$R/sim-2socket.csv" --json "$TMP/none.json"
bad_input --csv "$R/sim-2socket.csv" --graphs "$TMP/none"
grep -q -- "--graphs $TMP/none: does not exist" "$TMP/err" ||
	fail "a --graphs that does not exist is not said so: $(cat "$TMP/err")"
bad_input --csv "$R/sim-2socket.csv" --out "$TMP/other.csv"
grep -q -- "--out $TMP/other.csv: not a directory" "$TMP/err" ||
	fail "an --out that is a file is not said to be no directory: $(cat "$TMP/err")"
bad_input --csv "$R/sim-2socket.csv" --charts "$TMP/other.csv"
bad_input --csv "$R/sim-2socket.csv" --threads-csv "$TMP/none.csv"
bad_input --csv "$R/sim-2socket.csv" --name ../escape
bad_input --csv "$R/sim-2socket.csv" --bogus
printf '{"x": 1}' >"$TMP/other.json"
bad_input --csv "$TMP"
bad_input --csv "$R/sim-2socket.csv" --json "$TMP/other.json"
bad_input --csv "$R/sim-2socket.csv" --threads-csv "$TMP/other.csv"

[ $failed = 0 ] && echo "report_check: ok"
exit $failed
