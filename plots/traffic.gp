# plots/traffic.gp - coherence traffic per acquisition by distance class,
# one stacked bar per lock at one thread count.
#
# Variables (gnuplot -e), written by plots/plots.py:
#   data     one row per lock: lock, then transfers per acquisition of
#            distance class 0 (same socket), 1, 2, 3 (3 and beyond)
#   classes  how many classes the machine has (1..4)
#   names    one word per class ("same-socket class-1(40ns)")
#   colours  one word per class (greys: lock colours are kept for locks)
#   heading; out
load "common.gp"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
do for [fmt in formats] {
	eval begin(fmt)
	eval title_heading
	set ylabel "cache-line transfers per acquisition"
	set yrange [0:*]
	set xtics rotate by -30
	plot for [k=1:classes] data using (column(k + 1)):xtic(1) lc rgb word(colours, k) title word(names, k)
	unset output
}
