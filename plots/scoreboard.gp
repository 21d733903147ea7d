# plots/scoreboard.gp - the chart of `scons scoreboard`: for each entry, the
# published change and the simulated one (for a variance entry, the change of
# sigma/mean from baseline to variant), the simulated point green when the
# entry passes and red when it fails.  Reads results/scoreboard.csv
# (tools/scoreboard.py); writes OUT.png and OUT.svg.
#
#   gnuplot -e "datafile='results/scoreboard.csv'; out='results/scoreboard'" plots/scoreboard.gp
#
# Columns used: 1 id, 7 published_change, 10 simulated_change, 12 pass.

if (!exists("datafile")) datafile = 'results/scoreboard.csv'
if (!exists("out")) out = 'results/scoreboard'

set datafile separator ","
set datafile missing ""
pct(c) = valid(c) ? 100.0 * column(c) : NaN
passed(c) = strcol(c) eq "true"

set title "locklab scoreboard: published against simulated change per entry"
set ylabel "change (%)"
set xtics rotate by -40 left
set grid ytics
set key outside right top
set xzeroaxis lt -1
set offsets 0.5, 0.5, 0, 0
set yrange [*<0:0<*]

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 1100,650 font ",10" noenhanced
	} else {
		set terminal svg size 1100,650 dynamic font ",10" noenhanced
	}
	set output out . "." . fmt
	plot datafile every ::1 using 0:(pct(7)):xticlabels(1) with points pt 7 ps 1.6 lc rgb "#404040" title "published", \
	     '' every ::1 using 0:(passed(12) ? pct(10) : NaN) with points pt 9 ps 1.8 lc rgb "#1a9641" title "simulated (pass)", \
	     '' every ::1 using 0:(passed(12) ? NaN : pct(10)) with points pt 11 ps 1.8 lc rgb "#d7191c" title "simulated (fail)"
	unset output
}
