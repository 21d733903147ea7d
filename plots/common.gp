# plots/common.gp - shared by every locklab chart: the output terminals.
# Colours come from plots/plots_colours.py, which keeps one per lock (LOCK_COLOURS).
#
# A chart script loads this file, then, for each format in `formats`
# ("png svg" unless the caller sets it), calls `begin(fmt)` and draws.
# Variables the caller passes with gnuplot -e:
#   out      the file name without extension (results/throughput-4socket)
#   width, height   pixels (optional)
if (!exists("formats")) formats = "png svg"
if (!exists("width")) width = 1000
if (!exists("height")) height = 650

# The output's name stays a variable in the command begin() gives to eval
# (out . '.png', not out pasted in): a name with a quote in it is a name,
# never gnuplot commands.
begin(fmt) = (fmt eq "png") ? \
	sprintf("set terminal pngcairo size %d,%d font 'Helvetica,11' noenhanced; set output out . '.png'", width, height) : \
	sprintf("set terminal svg size %d,%d dynamic font 'Helvetica,11' noenhanced; set output out . '.svg'", width, height)

# Simulated lines solid, native ones dashed.
dash(kind) = 1 + (kind eq "native")

# Series of equal values (a lock and its paravirtual twin without
# overcommit, every fair lock at a Jain index of 1) would hide each other:
# series i of n is drawn moved sideways, on a logarithmic threads axis, by a
# factor of at most 2^+-0.1 (7%) for the outermost series, whatever n, so
# that no point moves as far as the next thread count's.
dodge(i) = 2 ** (0.2 * (i - (n + 1) / 2.0) / (n > 1 ? n - 1 : 1))

# The heading (a chart's title, `heading`, of `heading_lines` lines) at the
# canvas's top left, the plot below it: gnuplot centres a title over the
# plot, which a wide key (outside, right) narrows, and cuts off on the left
# what is wider than that (docs/graphs.md).
title_heading = "unset title; set label 100 heading at screen 0.01, screen 0.985 left front; " . \
	sprintf("set tmargin %d", (exists("heading_lines") ? heading_lines : 1) + 2)

set grid
set key outside right top
