# plots/waits.gp - wait-time percentiles against threads: three panels,
# median, 99th percentile and maximum, logarithmic.  A thread still waiting
# at the end of a run counts with its wait so far (censored); the heading
# says so, and a p99 that is only a lower bound (column 8 of the data, from
# the CSV's wait_p99_censored) gets an open triangle.  Variables as plots/throughput.gp, and
#   wscales, wunits   one word per panel: the time unit chosen from the data
#                     ("1000 1000 1000000", "us us ms")
load "common.gp"
n = words(titles)
height = 520
width = 1500
pos(x) = x > 0 ? x : NaN
array label[3] = ["median wait", "99th percentile wait", "longest wait"]
# equal series (a lock and its paravirtual twin) would hide each other: each
# is moved sideways a little, with a marker of its own, as in throughput.gp
dodge(i) = 2 ** (0.025 * (i - (n + 1) / 2.0))
do for [fmt in formats] {
	eval begin(fmt)
	set multiplot layout 1, 3 title heading
	set xlabel "threads"
	set logscale x 2
	set logscale y 10
	set format y "%g"
	do for [p=1:3] {
		scale = word(wscales, p) + 0.0
		set ylabel sprintf("%s (%s)", label[p], word(wunits, p))
		if (p < 3) { unset key } else { set key outside right top }
		plot for [i=1:n] data index (i - 1) using ($1 * dodge(i)):(pos(column(4 + p)) / scale) \
			with linespoints lw 2 pt int(word("7 5 9 11 13 15", 1 + (i - 1) % 6)) ps 0.7 \
			lc rgb word(colours, i) dt dash(word(kinds, i)) title word(titles, i), \
		     for [i=1:n] data index (i - 1) \
			using ($1 * dodge(i)):(p == 2 && column(8) > 0 ? pos(column(6)) / scale : NaN) \
			with points pt 8 ps 1.6 lw 1.5 lc rgb word(colours, i) notitle
	}
	unset multiplot
	unset output
}
