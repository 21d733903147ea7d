# plots/scoreboard.gp - the chart of `scons scoreboard`: one row per entry,
# the entry's simulated result placed against its rule's pass band (the
# `band` column of tools/scoreboard.py), so that every entry reads on one
# scale whatever its rule:
#
#   change     log2(simulated change / published change)
#   variance   log2(larger simulated sigma/mean / larger published one)
#   neutral    simulated change / 15%
#
# The shaded band [-1, 1] is where an entry passes (for a change and a
# variance also the sign or the order must be right).  A change of the
# wrong sign or a variance in the wrong order has no place on that scale:
# it is drawn in the column at the left edge.  Points beyond +-4 are drawn
# at the edge as open circles.  Green passes, red fails.  A row's label
# names its rule when it is neutral (a neutral entry passes by moving
# little, whatever was published) and says proxy when the entry runs another
# test's workload.  Reads results/scoreboard.csv; writes OUT.png and OUT.svg;
# count, if given, is the board's count line, under the title (tools/scoreboard.py
# breaks it into lines that fit the canvas: chart_caption).
#
#   gnuplot -e "datafile='results/scoreboard.csv'; out='results/scoreboard'" plots/scoreboard.gp
#
# Columns used: 1 id, 4 rule, 8 baseline (empty: a command failed), 12 pass,
# 14 proxy, 15 band.

if (!exists("datafile")) datafile = 'results/scoreboard.csv'
if (!exists("out")) out = 'results/scoreboard'
if (!exists("count")) count = ''

set datafile separator ","
set datafile missing ""
stats datafile every ::1 using 0 nooutput
n = STATS_records

passed(c) = strcol(c) eq "true"
lim = 4.0
clip(x) = x > lim ? lim : (x < -lim ? -lim : x)
label(i) = strcol(1) . (strcol(4) eq "neutral" ? " (neutral)" : "") . \
	   (strcol(14) ne "" ? " (proxy)" : "")
# y: the first entry at the top
row(i) = n - 1 - i
wrong = -lim - 1.3

set title "locklab scoreboard: each entry against its pass band (shaded: passes)" . \
	  (count ne '' ? "\n" . count : '')
set xlabel "log2(simulated / published): change and variance entries (ticks' 2nd line); simulated change / 15%: neutral ones (3rd)" offset 0,-2.5
set xrange [wrong - 0.6 : lim + 0.3]
set yrange [-1 : n]
# each tick in both readings: a factor (change, variance), a change (neutral)
set xtics ("wrong sign\nor order" wrong, "-4\n1/16\n-60%%" -4, "-3" -3, "-2\n1/4\n-30%%" -2, \
           "-1\n1/2\n-15%%" -1, "0" 0, "1\nx2\n+15%%" 1, "2\nx4\n+30%%" 2, "3" 3, "4\nx16\n+60%%" 4)
set ytics scale 0 font ",9"
set grid xtics
# the legend at the foot of the canvas, under the axis label, where
# neither the title nor a row can meet it: the bottom margin (bottom_px,
# fixed, as gnuplot does not count the ticks' three lines) holds the ticks,
# the label and the legend's two rows
bottom_px = 150
set object 1 rect from -1, graph 0 to 1, graph 1 fc rgb "#d9f0d3" fs solid 1.0 noborder behind
set arrow 1 from -lim - 0.65, graph 0 to -lim - 0.65, graph 1 nohead lt 0 lc rgb "#808080"

# The height: the title's lines (the caption's and its own) and the space
# below the axis, then 16 px an entry, but never less than 180 px of rows,
# so that one or two entries still read as rows of a chart, apart.
lines = 1 + (count ne '' ? 1 : 0)
do for [i = 1 : strlen(count)] { if (count[i:i] eq "\n") { lines = lines + 1 } }
rows_px = 16 * (n + 1) < 180 ? 180 : 16 * (n + 1)
do for [fmt in "png svg"] {
	h = 60 + 16 * lines + rows_px + bottom_px
	set bmargin at screen 1.0 * bottom_px / h
	set key at screen 0.5, screen 6.0 / h center bottom horizontal maxrows 2 width 2
	if (fmt eq "png") {
		set terminal pngcairo size 1100, h font ",10" noenhanced
	} else {
		set terminal svg size 1100, h dynamic font ",10" noenhanced
	}
	set output out . "." . fmt
	plot datafile every ::1 using (valid(15) ? clip(column(15)) : NaN):(row($0)):ytic(label(0)) \
	         with points pt 7 ps 0 notitle, \
	     '' every ::1 using (valid(15) && passed(12) ? clip(column(15)) : NaN):(row($0)) \
	         with points pt 7 ps 1.4 lc rgb "#1a9641" title "passes", \
	     '' every ::1 using (valid(15) && !passed(12) && abs(column(15)) <= lim ? column(15) : NaN):(row($0)) \
	         with points pt 7 ps 1.4 lc rgb "#d7191c" title "fails", \
	     '' every ::1 using (valid(15) && abs(column(15)) > lim ? clip(column(15)) : NaN):(row($0)) \
	         with points pt 6 ps 1.4 lw 2 lc rgb "#d7191c" title "fails, beyond the edge", \
	     '' every ::1 using (!valid(15) && valid(8) ? wrong : NaN):(row($0)) \
	         with points pt 2 ps 1.4 lw 2 lc rgb "#d7191c" title "fails: wrong sign or order", \
	     '' every ::1 using (!valid(8) ? wrong : NaN):(row($0)) \
	         with points pt 6 ps 1.4 lc rgb "#404040" title "a command failed"
	unset output
}
