# plots/waits.gp - wait-time percentiles against threads (or overcommit, as
# in throughput.gp): three panels, median, 99th percentile and maximum,
# logarithmic.  A thread still waiting at the end of a run counts with its
# wait so far (censored); the heading says so, and an open triangle marks a
# figure that is only a lower bound: a p99 (column 8 of the data, from the
# CSV's wait_p99_censored) and a longest wait the run's end cut short
# (column 10, from the CSV's wait_max_censored; plots_data.py's
# max_cut_short).  Variables as plots/throughput.gp, and
#   wscales, wunits   one word per panel: the time unit chosen from the data
#                     ("1000 1000 1000000", "us us ms")
load "common.gp"
n = words(titles)
height = 700
width = 1500
pos(x) = x > 0 ? x : NaN
array label[3] = ["median wait", "99th percentile wait", "longest wait"]
# the lower-bound figure of panel p (its column), or NaN
bound(p) = p == 2 && column(8) > 0 ? pos(column(6)) : \
	   p == 3 && column(10) > 0 ? pos(column(7)) : NaN
# equal series (a lock and its paravirtual twin) are moved sideways (dodge,
# common.gp), each lock with its own marker; a point where some run left
# threads without the lock (column 9) is crossed, as in throughput.gp: its
# waits are those of the threads that got it, and one each of the others
if (!exists("starved")) starved = 0
if (!exists("xname")) xname = "threads"
if (!exists("xtic")) xtic = ""
do for [fmt in formats] {
	eval begin(fmt)
	# Fixed margins, the key in the room right of them: the third panel,
	# the one with the key, is as wide as the others.
	set multiplot layout 1, 3 title heading margins 0.055, 0.84, 0.1, 0.72 spacing 0.065, 0
	set xlabel xname
	if (xtic ne "") { eval "set xtics " . xtic }
	set logscale x 2
	if (exists("xmin")) { set xrange [xmin:xmax] } else { set autoscale xfix }
	set offsets graph 0.03, graph 0.03, 0, 0
	set logscale y 10
	set format y "%g"
	do for [p=1:3] {
		scale = word(wscales, p) + 0.0
		set ylabel sprintf("%s (%s)", label[p], word(wunits, p))
		if (p < 3) { unset key } else { set key at screen 0.99, 0.72 right top }
		plot for [i=1:n] data index (i - 1) using ($1 * dodge(i)):(pos(column(4 + p)) / scale) \
			with linespoints lw 2 pt int(word(markers, i)) ps 0.7 \
			lc rgb word(colours, i) dt dash(word(kinds, i)) title word(titles, i), \
		     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):(bound(p) / scale) \
			with points pt 8 ps 1.6 lw 1.5 lc rgb word(colours, i) notitle, \
		     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($9 > 0 ? pos(column(4 + p)) / scale : NaN) \
			with points pt 2 ps 2.0 lw 2.0 lc rgb word(colours, i) notitle, \
		     for [k=1:(p == 3 ? starved : 0)] keyentry with points pt 2 ps 1.6 lw 2.0 \
			lc rgb "black" title "x: threads starved"
	}
	unset multiplot
	unset output
}
