# plots/crossover.gp - the best lock (highest simulated throughput) in each
# cell of threads x critical-section length, with its lead over the runner-up.
#
# Variables (gnuplot -e), written by plots/plots.py:
#   data     one row per cell: x index, y index, lock index (1-based), the
#            lock's name, its lead over the second best ("+12%")
#   xt, yt   tic lists for `set xtics` / `set ytics` ('("2" 0, "4" 1)')
#   locks    the locks, one word each, in index order; heading; out
load "common.gp"
n = words(locks)
height = 700
width = 1100
set rmargin 16
set xlabel "threads"
set ylabel "critical section (ns)"
eval "set xtics " . xt
eval "set ytics " . yt
set cbrange [0.5:n + 0.5]
set palette maxcolors n
pal = ""
do for [i=1:n] { pal = pal . sprintf("%s%d '%s'", i > 1 ? ", " : "", i, colour(i)) }
eval "set palette defined (" . pal . ")"
tics = ""
do for [i=1:n] { tics = tics . sprintf("%s\"%s\" %d", i > 1 ? ", " : "", word(locks, i), i) }
eval "set cbtics (" . tics . ")"
set cblabel "best lock"
unset key
do for [fmt in formats] {
	eval begin(fmt)
	set title heading
	plot data using 1:2:3 with image, \
	     data using 1:($2 + 0.12):4 with labels font "Helvetica,12", \
	     data using 1:($2 - 0.15):5 with labels font "Helvetica,10"
	unset output
}
