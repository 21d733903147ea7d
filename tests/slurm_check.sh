#!/bin/sh
# tests/slurm_check.sh - tools/slurm-sweep.sh against a real single-node
# Slurm: starts munged, slurmctld and slurmd as root in a temporary directory
# (no systemd, no cgroups, no accounting), runs a small sweep as a job array,
# and checks that the merged CSV equals the CSV of the same sweep run locally;
# then that a failing array task fails the launcher and is named.  Without
# root or the packages (slurm-wlm, munge) it skips, unless
# LOCKLAB_REQUIRE_SLURM is set.
#
#   sh tests/slurm_check.sh [BIN]        exit 0 when every check passed

# $RUN is split into words on purpose.
# shellcheck disable=SC2086

BIN=$(cd "${1:-bin}" && pwd) || exit 1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWEEP="$ROOT/tools/slurm-sweep.sh"
RUN="--topo 2socket --lock ttas,mcs,ticket --threads 2,4 --runs 2 --duration 1"
failed=0

fail() {
	echo "slurm_check: FAIL: $*"
	failed=1
}

# Bad arguments are refused with exit 2, before Slurm is needed.
bad_args() {
	sh "$SWEEP" "$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "slurm-sweep.sh $* exited $rc, not 2"
}
bad_args -n 0 -b "$BIN" -- $RUN
bad_args -n x -b "$BIN" -- $RUN
bad_args -q -b "$BIN" -- $RUN
bad_args -b "$BIN"
bad_args -b "$BIN" -- $RUN --csv x.csv
bad_args -b /nonexistent -- $RUN
bad_args -b "$BIN" -- $RUN --json x.json
bad_args -b "$BIN" -- $RUN --threads-csv=t.csv
bad_args -n 10001 -b "$BIN" -- $RUN
bad_args -n 99999999999999999999999 -b "$BIN" -- $RUN
# a refusal is one line
[ "$(sh "$SWEEP" -n x -b "$BIN" -- $RUN 2>&1 | wc -l)" = 1 ] ||
	fail "slurm-sweep.sh -n x: not one line"

skip() {
	if [ -n "${LOCKLAB_REQUIRE_SLURM:-}" ]; then
		echo "slurm_check: FAIL: $* (LOCKLAB_REQUIRE_SLURM is set)"
		exit 1
	fi
	echo "slurm_check: $*: Slurm checks skipped"
	exit "$failed"
}

[ "$(id -u)" = 0 ] || skip "not root"
for c in munged slurmctld slurmd sbatch sinfo scancel; do
	PATH=$PATH:/usr/sbin command -v "$c" >/dev/null 2>&1 ||
		skip "$c not found (apt-get install slurm-wlm munge)"
done
PATH=$PATH:/usr/sbin

TMP=$(mktemp -d "${TMPDIR:-/tmp}/slurm-check.XXXXXX") || exit 1
chmod 700 "$TMP"
pids=
teardown() {
	scancel --quiet --user=root >/dev/null 2>&1
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap teardown EXIT
trap 'exit 1' INT TERM

show_logs() {
	for f in "$TMP"/*.log; do
		echo "---- $f"
		tail -n 20 "$f"
	done
}

# munge: its own key, socket, pid, log and seed in $TMP.
if command -v mungekey >/dev/null 2>&1; then
	mungekey --create --keyfile="$TMP/munge.key" >/dev/null 2>&1
fi
[ -s "$TMP/munge.key" ] ||
	dd if=/dev/urandom of="$TMP/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$TMP/munge.key"
munged --foreground --force --key-file="$TMP/munge.key" \
	--socket="$TMP/munge.sock" --pid-file="$TMP/munged.pid" \
	--log-file="$TMP/munged.log" --seed-file="$TMP/munged.seed" \
	>"$TMP/munged.out" 2>&1 &
pids="$pids $!"

# Ports away from a system Slurm's defaults.
mkdir -p "$TMP/state" "$TMP/spool"
export SLURM_CONF="$TMP/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=locklabcheck
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$TMP/munge.sock
CredType=cred/munge
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

i=0
until [ -S "$TMP/munge.sock" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || { show_logs; cat "$TMP/munged.out"; fail "munged did not start"; exit 1; }
	sleep 0.1
done

slurmctld -D -i >"$TMP/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N localhost >"$TMP/slurmd.out" 2>&1 &
pids="$pids $!"

i=0
until [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; do
	i=$((i + 1))
	if [ "$i" -gt 60 ]; then
		show_logs
		cat "$TMP/slurmctld.out" "$TMP/slurmd.out"
		fail "the node is not idle after 60 s: $(sinfo -h -o '%n %t %E' 2>&1)"
		exit 1
	fi
	sleep 1
done

# The sweep as an array of 3 shards, then locally: identical CSVs.  A file
# of someone else's in the shards' directory stays.
mkdir -p "$TMP/out/slurm.csv.shards"
echo kept >"$TMP/out/slurm.csv.shards/important.log"
if ! timeout 300 sh "$SWEEP" -w -n 3 -b "$BIN" -o "$TMP/out/slurm.csv" -- $RUN \
	>"$TMP/sweep.out" 2>&1; then
	cat "$TMP/sweep.out"
	for f in "$TMP"/out/slurm.csv.shards/*.log; do
		echo "---- $f"
		cat "$f"
	done
	fail "slurm-sweep.sh -w -n 3 failed"
fi
[ -s "$TMP/out/slurm.csv.shards/important.log" ] ||
	fail "slurm-sweep.sh removed a file it did not write"
if ! grep -q "array job [0-9]" "$TMP/sweep.out" ||
	! grep -q "merge job [0-9]" "$TMP/sweep.out"; then
	fail "slurm-sweep.sh did not print its job ids: $(cat "$TMP/sweep.out")"
fi
"$BIN/locklab-sim" run $RUN --csv "$TMP/local.csv" >/dev/null 2>&1 ||
	fail "locklab-sim run $RUN --csv failed"
if ! cmp -s "$TMP/local.csv" "$TMP/out/slurm.csv"; then
	diff "$TMP/local.csv" "$TMP/out/slurm.csv" | head -n 20
	fail "the merged CSV differs from the local one"
fi

# A task that fails: the launcher exits non-zero and names it.
mkdir -p "$TMP/badbin"
cat >"$TMP/badbin/locklab-sim" <<EOF
#!/bin/sh
case " \$* " in
*" --shard 1/3 "*) echo "shard 1 fails on purpose" >&2; exit 3 ;;
esac
exec "$BIN/locklab-sim" "\$@"
EOF
chmod +x "$TMP/badbin/locklab-sim"
if timeout 300 sh "$SWEEP" -w -n 3 -b "$TMP/badbin" -o "$TMP/bad/slurm.csv" -- $RUN \
	>"$TMP/bad.out" 2>&1; then
	fail "slurm-sweep.sh succeeded with a failing task"
fi
grep -q "task [0-9]*_1 failed" "$TMP/bad.out" ||
	fail "slurm-sweep.sh did not name the failed task: $(cat "$TMP/bad.out")"
grep -q "task [0-9]*_[02] failed" "$TMP/bad.out" &&
	fail "slurm-sweep.sh blamed a task that passed: $(cat "$TMP/bad.out")"

[ "$failed" = 0 ] && echo "slurm_check: the merged CSV of 3 array tasks equals the local one"
exit "$failed"
