# plots/jain.gp - Jain's fairness index over per-thread acquisitions against
# threads (1 = every thread got the same share).  Variables as
# plots/throughput.gp.
load "common.gp"
n = words(titles)
do for [fmt in formats] {
	eval begin(fmt)
	set title heading
	set xlabel "threads"
	set ylabel "Jain's fairness index"
	set logscale x 2
	set yrange [0:1.05]
	plot for [i=1:n] data index (i - 1) using 1:4 \
		with linespoints lw 2 pt 7 ps 0.8 lc rgb word(colours, i) \
		dt dash(word(kinds, i)) title word(titles, i)
	unset output
}
