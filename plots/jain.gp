# plots/jain.gp - Jain's fairness index over per-thread acquisitions against
# threads, or overcommit as in throughput.gp (1 = every thread got the same
# share); a cross where some run left threads without the lock (an index of
# 0.5 is then half the threads starved, not an uneven share).  Variables as
# plots/throughput.gp.
load "common.gp"
n = words(titles)
if (!exists("starved")) starved = 0
if (!exists("xname")) xname = "threads"
if (!exists("xtic")) xtic = ""
if (!exists("keepmarker")) keepmarker = 0
do for [fmt in formats] {
	eval begin(fmt)
	eval title_heading
	set xlabel xname
	if (xtic ne "") { eval "set xtics " . xtic }
	set ylabel "Jain's fairness index"
	set logscale x 2
	set yrange [0:1.05]
	# Series that coincide (every fair lock at 1.0): moved sideways (dodge,
	# common.gp), each lock with its own marker.
	if (exists("xmin")) { set xrange [xmin:xmax] } else { set autoscale xfix }
	set offsets graph 0.03, graph 0.03, 0, 0
	plot for [i=1:n] data index (i - 1) using ($1 * dodge(i)):4 \
		with linespoints lw 2 pt int(word(markers, i)) ps 1.2 \
		lc rgb word(colours, i) \
		dt dash(word(kinds, i)) title word(titles, i), \
	     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($9 > 0 && !keepmarker ? $4 : NaN) \
		with points pt 7 ps 1.4 lc rgb "white" notitle, \
	     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($9 > 0 ? $4 : NaN) \
		with points pt 2 ps 2.4 lw 2.5 lc rgb word(colours, i) notitle, \
	     for [k=1:starved] keyentry with points pt 2 ps 1.8 lw 2.5 lc rgb "black" \
		title "x: threads starved"
	unset output
}
