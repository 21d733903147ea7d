# plots/validate.gp - the chart of `scons validate`: native and simulated
# throughput of each (lock, threads) side by side (native with its sigma
# over the runs as an error bar), and below it the relative error of the
# simulation.  Reads the CSV of `locklab-native validate-report`; writes
# OUT.png and OUT.svg.
#
#   gnuplot -e "datafile='results/validate-HOST.csv'; out='results/validate-HOST'; host='HOST'; note='...'" \
#           plots/validate.gp
#
# Columns used: 1 lock, 2 threads, 4 native_throughput_per_s,
# 5 native_sigma, 7 sim_throughput_per_s, 8 sim_sigma, 9 rel_error.

if (!exists("datafile")) datafile = 'results/validate.csv'
if (!exists("out")) out = 'results/validate'
if (!exists("host")) host = 'this machine'
# what the report says beside the bars: the load, the median error, the rows
# within the native runs' own noise (SConstruct's validate_note)
if (!exists("note")) note = ""

set datafile separator ","
set datafile missing ""
set key autotitle columnhead
label(l, t) = sprintf("%s t=%d", l, t)
sig(c) = valid(c) ? column(c) / 1e6 : 0

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 1100,850 font ",10"
	} else {
		set terminal svg size 1100,850 dynamic font ",10"
	}
	set output out . "." . fmt
	set multiplot layout 2,1 title sprintf("locklab validate on %s: native against simulated (calibrated topology)%s", host, note eq "" ? "" : "\n" . note)

	set style data histograms
	set style histogram errorbars gap 1 lw 1
	set style fill solid 0.75 border -1
	set boxwidth 0.9
	set grid ytics
	set key above horizontal
	set ylabel "throughput, Macq/s"
	set yrange [0:*]
	set xtics rotate by -30 nomirror
	plot datafile using ($4 / 1e6):(sig(5)):xtic(label(strcol(1), column(2))) title "native (+- sigma)" lc rgb "#1f77b4", \
	     '' using ($7 / 1e6):(sig(8)) title "simulated" lc rgb "#ff7f0e"

	set style histogram clustered gap 1
	set ylabel "(sim - native) / native, %"
	set yrange [*:*]
	set key off
	plot datafile using (100 * $9):xtic(label(strcol(1), column(2))) title "(sim - native) / native" lc rgb "#2ca02c"

	unset multiplot
	unset output
}
