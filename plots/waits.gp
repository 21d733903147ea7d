# plots/waits.gp - wait-time percentiles against threads: three panels,
# median, 99th percentile and maximum, logarithmic.  Variables as
# plots/throughput.gp.
load "common.gp"
n = words(titles)
height = 500
width = 1500
pos(x) = x > 0 ? x : NaN
array label[3] = ["median wait (ns)", "99th percentile wait (ns)", "longest wait (ns)"]
do for [fmt in formats] {
	eval begin(fmt)
	set multiplot layout 1, 3 title heading
	set xlabel "threads"
	set logscale x 2
	set logscale y 10
	set format y "%.0s%c"
	do for [p=1:3] {
		set ylabel label[p]
		if (p < 3) { unset key } else { set key outside right top }
		plot for [i=1:n] data index (i - 1) using 1:(pos(column(4 + p))) \
			with linespoints lw 2 pt 7 ps 0.6 lc rgb colour(word(colours, i)) \
			dt 1 + (word(kinds, i) eq "native") title word(titles, i)
	}
	unset multiplot
	unset output
}
