# plots/crossover.gp - the best lock (highest simulated throughput) in each
# cell of threads x critical-section length, with its lead over the runner-up.
# A cell is a filled vector rectangle in the lock's colour.  A lock that
# starved threads in a cell is not ranked there (plots_charts.py's best_of): a third
# line names those of them that were faster, and a cell where every lock
# starved threads is grey ("none", "all starved").
#
# Variables (gnuplot -e), written by plots/plots.py:
#   data     one row per cell: x index, y index, the lock's name, its lead
#            over the second best ("+12%"), the lock's colour and the text's
#            colour (0xRRGGBB), the faster starving locks ("starved: ttas";
#            "-": none)
#   xt, yt   tic lists for `set xtics` / `set ytics` ('("2" 0, "4" 1)')
#   nx, ny   how many thread counts and critical sections
#   locks, colours   the winning locks and their colours, for the key
#   heading; out
load "common.gp"
n = words(locks)
height = 700
width = 1100
set xlabel "threads"
set ylabel "critical section (ns)"
eval "set xtics " . xt
eval "set ytics " . yt
set xrange [-0.5:nx - 0.5]
set yrange [-0.5:ny - 0.5]
unset grid
set tics out nomirror
set key outside right top title "best lock"
set style fill solid 1.0 border rgb "white"
do for [fmt in formats] {
	eval begin(fmt)
	eval title_heading
	plot data using 1:2:(0.5):(0.5):5 with boxxyerror lc rgb variable notitle, \
	     data using 1:($2 + 0.12):3:6 with labels tc rgb variable font "Helvetica,12" notitle, \
	     data using 1:($2 - 0.15):4:6 with labels tc rgb variable font "Helvetica,10" notitle, \
	     data using 1:(strcol(7) eq "-" ? NaN : $2 - 0.34):7:6 \
		with labels tc rgb variable font "Helvetica,9" notitle, \
	     for [i=1:n] keyentry with boxes fs solid 1.0 noborder lc rgb word(colours, i) title word(locks, i)
	unset output
}
