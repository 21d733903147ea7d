#!/bin/sh
# tools/slurm-sweep.sh - runs a locklab-sim sweep on a Slurm cluster as a job
# array, one shard of the configurations per task, and merges the shards into
# one CSV, byte-identical to the CSV of the same sweep run in one process.
#
#   tools/slurm-sweep.sh [-n N] [-p PARTITION] [-o OUT.csv] [-b BINDIR]
#                        [-d SHARDDIR] [-w] -- <locklab-sim run options>
#
#   -n N         array tasks, one shard each (default 4)
#   -p PARTITION partition for every job (default: the cluster's default)
#   -o OUT.csv   merged CSV (default results/slurm-sweep.csv)
#   -b BINDIR    directory of locklab-sim, on a file system the nodes see
#                (default: bin/ of this checkout)
#   -d SHARDDIR  shard CSVs, job scripts and logs (default OUT.csv.shards)
#   -w           wait for the merge; exit non-zero naming the failed tasks
#
# The tasks run in the directory this is called from (relative paths in the
# run options mean what they mean here), each with `--jobs 1` on one CPU, or
# with the options' --jobs N on N CPUs; --csv, --shard, --json, --out and --threads-csv
# are refused (every task would write the one file).  An earlier OUT.csv is
# replaced only by a merge that succeeds.
#
# Prints the array and merge job ids.  Exit 2 on bad arguments.

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ME=slurm-sweep

usage() {
	echo "$ME: $* (usage: $ME [-n N] [-p PARTITION] [-o OUT.csv] [-b BINDIR] [-d SHARDDIR] [-w] -- <locklab-sim run options>)" >&2
	exit 2
}

die() {
	echo "$ME: $*" >&2
	exit 1
}

abspath() {
	case "$1" in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

# Quotes one word for a shell script.
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

N=4
PART=
OUT=results/slurm-sweep.csv
BINDIR=$ROOT/bin
SHARDS=
WAIT=0
while [ $# -gt 0 ]; do
	case "$1" in
	-n | -p | -o | -b | -d)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case "$1" in
		-n) N=$2 ;;
		-p) PART=$2 ;;
		-o) OUT=$2 ;;
		-b) BINDIR=$2 ;;
		-d) SHARDS=$2 ;;
		esac
		shift 2
		;;
	-w | --wait) WAIT=1; shift ;;
	--) shift; break ;;
	*) usage "unknown option $1 (run options go after --)" ;;
	esac
done

# Slurm's arrays are bounded (MaxArraySize, 1001 by default): at most 10000
case "$N" in
'' | *[!0-9]* | 0*) usage "-n needs a positive integer, not '$N'" ;;
??????*) usage "-n $N: at most 10000 array tasks" ;;
esac
[ "$N" -le 10000 ] || usage "-n $N: at most 10000 array tasks"
[ $# -gt 0 ] || usage "no locklab-sim run options after --"
CPUS=
prev=
for a in "$@"; do
	case "$a" in
	--shard | --shard=* | --csv | --csv=*) usage "$a is set by $ME" ;;
	--json | --json=* | --out | --out=* | --threads-csv | --threads-csv=*)
		usage "$a: every task would write that one file; the merged CSV is -o's" ;;
	--jobs=*) CPUS=${a#--jobs=} ;;
	esac
	[ "$prev" = --jobs ] && CPUS=$a
	prev=$a
done
# a task asks for as many CPUs as runs it makes at once: --jobs N, else one
if [ -n "$CPUS" ]; then
	case "$CPUS" in
	'' | *[!0-9]* | 0*) usage "--jobs needs a positive integer, not '$CPUS'" ;;
	esac
else
	CPUS=1
	set -- "$@" --jobs 1
fi
[ -n "$OUT" ] || usage "-o needs a file name"
OUT=$(abspath "$OUT")
BINDIR=$(abspath "$BINDIR")
SIM=$BINDIR/locklab-sim
[ -x "$SIM" ] || usage "no executable $SIM (build it, or give -b BINDIR)"
SHARDS=$(abspath "${SHARDS:-$OUT.shards}")
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: is Slurm installed?"

mkdir -p "$SHARDS" "$(dirname "$OUT")" || die "cannot create $SHARDS"
# the tasks run where this was called from, so that relative paths in the
# run options (--topo results/host.xml) mean what they mean here
HERE=$(pwd)
# what an earlier sweep into this directory left: this script's files only
# (a directory given with -d may hold other files, which stay)
i=0
while [ "$i" -lt "$N" ]; do
	rm -f "$SHARDS/shard-$i.csv" "$SHARDS/shard-$i.csv.partial" "$SHARDS/shard-$i.csv.order" \
		"$SHARDS/shard-$i.ok" "$SHARDS/shard-$i.log"
	i=$((i + 1))
done
rm -f "$SHARDS/merge.log" "$SHARDS/merge.id"

args=
for a in "$@"; do
	args="$args $(quote "$a")"
done

# One array task: its shard of the sweep; the .ok file says it finished.
cat >"$SHARDS/shard.sbatch" <<EOF
#!/bin/sh
i=\$SLURM_ARRAY_TASK_ID
$(quote "$SIM") run$args --shard "\$i/$N" --csv $(quote "$SHARDS")/shard-\$i.csv || exit 1
touch $(quote "$SHARDS")/shard-\$i.ok
EOF

shard_list=
i=0
while [ "$i" -lt "$N" ]; do
	shard_list="$shard_list $(quote "$SHARDS/shard-$i.csv")"
	i=$((i + 1))
done
cat >"$SHARDS/merge.sbatch" <<EOF
#!/bin/sh
exec $(quote "$SIM") merge --out $(quote "$OUT")$shard_list
EOF

set --
[ -n "$PART" ] && set -- --partition="$PART"

array=$(sbatch --parsable "$@" --job-name=locklab-sweep --chdir="$HERE" \
	--array="0-$((N - 1))" --ntasks=1 --cpus-per-task="$CPUS" \
	--output="$SHARDS/shard-%a.log" "$SHARDS/shard.sbatch") ||
	die "sbatch of the array failed"
array=${array%%;*}

wait_opt=
[ "$WAIT" = 1 ] && wait_opt=--wait
echo "$ME: array job $array ($N tasks), shards in $SHARDS"
if [ "$WAIT" = 0 ]; then
	merge=$(sbatch --parsable "$@" --job-name=locklab-merge --chdir="$HERE" \
		--dependency="afterok:$array" --kill-on-invalid-dep=yes \
		--output="$SHARDS/merge.log" "$SHARDS/merge.sbatch") ||
		die "sbatch of the merge failed (array job $array is queued)"
	echo "$ME: merge job ${merge%%;*} -> $OUT"
	exit 0
fi

# --wait: sbatch prints the id, then blocks until the merge job ends.
sbatch --parsable $wait_opt "$@" --job-name=locklab-merge --chdir="$HERE" \
	--dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$SHARDS/merge.log" "$SHARDS/merge.sbatch" >"$SHARDS/merge.id"
rc=$?
merge=$(cut -d';' -f1 "$SHARDS/merge.id")
echo "$ME: merge job $merge -> $OUT"

failed=
i=0
while [ "$i" -lt "$N" ]; do
	[ -e "$SHARDS/shard-$i.ok" ] || failed="$failed $i"
	i=$((i + 1))
done
if [ -n "$failed" ]; then
	for i in $failed; do
		echo "$ME: array task ${array}_$i failed: see $SHARDS/shard-$i.log" >&2
	done
	exit 1
fi
[ "$rc" = 0 ] || die "merge job $merge failed (rc $rc): see $SHARDS/merge.log"
[ -s "$OUT" ] || die "merge job $merge wrote no $OUT: see $SHARDS/merge.log"
echo "$ME: wrote $OUT"
