# plots/acquisitions.gp - acquisitions of each thread, one panel per lock,
# bars shaded by socket, a cross for a thread that acquired nothing in a
# run (the heading says so when there is one):
# starvation and socket capture at a glance.
#
# Variables (gnuplot -e), written by plots/plots.py:
#   data     blocks separated by two blank lines, one per lock, columns
#            thread, acquisitions (one run's, or the mean over runs when
#            no thread changed socket between them), the socket's colour
#            (0xRRGGBB), the fewest of one run (0: a cross, a thread that
#            acquired nothing in some run), 1 where the bar is too short to
#            see (its count is printed above it)
#   titles   one word per block (the lock)
#   sockets, socket_colours   one word each per socket, for the key
#   heading; out
load "common.gp"
n = words(titles)
cols = n < 3 ? n : 3
rows = (n + cols - 1) / cols
height = 330 * rows + 60
width = 1400
set style fill solid 0.8 border -1
set boxwidth 0.8
do for [fmt in formats] {
	eval begin(fmt)
	set multiplot layout rows, cols title heading
	set xlabel "thread"
	set ylabel "acquisitions"
	# A thread of room at each side, and room above the tallest bar,
	# so that no bar reaches a border and reads as cut off.
	set autoscale fix
	set offsets 1, 1, graph 0.08, 0
	set yrange [0:*]
	do for [i=1:n] {
		set title word(titles, i)
		if (i == 1) { set key top left horizontal } else { unset key }
		plot data index (i - 1) using 1:2:3 with boxes lc rgb variable notitle, \
		     data index (i - 1) using 1:($4 == 0 ? 0 : 1/0) with points pt 2 ps 1.3 lw 2 \
			lc rgb "#c0392b" notitle, \
		     data index (i - 1) using 1:($5 == 1 ? $2 : 1/0):(sprintf("%.0f", $2)) \
			with labels rotate by 90 left offset 0, 0.4 font ",8" notitle, \
		     for [k=1:words(sockets)] keyentry with boxes lc rgb word(socket_colours, k) \
			title word(sockets, k)
	}
	unset multiplot
	unset output
}
