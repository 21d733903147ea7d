# plots/throughput.gp - throughput against threads (a --vm sweep of one
# thread count a lock: against overcommit), one line per lock and backend:
# simulated lines solid, native ones dashed, one colour per lock.
#
# Variables (gnuplot -e), written by plots/plots.py:
#   data     blocks separated by two blank lines, one per series, columns
#            threads (or overcommit), throughput mean, sd, jain, wait p50, p99, max (ns),
#            p99 a lower bound (1/0), the most threads starved in a run,
#            max a lower bound (1/0), throughput of the lowest and the
#            highest run
#   titles   one word per block ("sim:ttas")
#   kinds    one word per block: sim or native
#   colours  one word per block: the lock's colour ("#4363d8")
#   markers  one word per block: the lock's gnuplot point type
#   tscale, tunit   the throughput unit, chosen from the data (1e6, "Macq/s")
#   starved  1 when some point starved threads: its cross's key entry
#   keepmarker  1 (a --vm sweep against threads, each overcommit its own
#            marker): a starved point keeps its marker under the cross, as
#            in waits.gp
#   xmin, xmax  given when every series has one thread count (and one
#            overcommit, if any): the threads axis from half to twice it, so
#            that the series' 7% dodge reads as a dodge
#   xname, xtic  given for a --vm sweep whose series of a lock share one
#            thread count, drawn against its overcommit levels: the axis'
#            label ("overcommit (vCPUs per pCPU)") and its tics, one a level
#            ('("1" 1, "2" 2, "3" 3)'); default "threads" and gnuplot's tics
#   heading  the chart's title; out: the file name without extension
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
	set ylabel sprintf("throughput, all threads together (%s)", tunit)
	set logscale x 2
	set yrange [0:*]
	# Each series moved sideways (dodge, common.gp), its bar the lowest to
	# the highest run (columns 11, 12: with few runs a sigma would draw a
	# range no run had).  A point where some run left threads without the
	# lock (column 9) has its marker blanked and crossed in the lock's
	# colour, the acquisitions chart's mark: its throughput is only that of
	# the threads that got it.
	if (exists("xmin")) { set xrange [xmin:xmax] } else { set autoscale xfix }
	set offsets graph 0.03, graph 0.03, 0, 0
	plot for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($2 / tscale):($11 / tscale):($12 / tscale) \
		with yerrorlines lw 2 pt int(word(markers, i)) ps 0.9 \
		lc rgb word(colours, i) dt dash(word(kinds, i)) title word(titles, i), \
	     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($9 > 0 && !keepmarker ? $2 / tscale : NaN) \
		with points pt 7 ps 1.2 lc rgb "white" notitle, \
	     for [i=1:n] data index (i - 1) using ($1 * dodge(i)):($9 > 0 ? $2 / tscale : NaN) \
		with points pt 2 ps 2.4 lw 2.5 lc rgb word(colours, i) notitle, \
	     for [k=1:starved] keyentry with points pt 2 ps 1.8 lw 2.5 lc rgb "black" \
		title "x: threads starved"
	unset output
}
