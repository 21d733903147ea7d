# plots/common.gp - shared by every locklab chart: the output terminals.
#
# A chart script loads this file, then, for each format in `formats`
# ("png svg" unless the caller sets it), calls `begin(fmt)` and draws.
# Variables the caller passes with gnuplot -e:
#   out      the file name without extension (results/throughput-4socket)
#   width, height   pixels (optional)
if (!exists("formats")) formats = "png svg"
if (!exists("width")) width = 1000
if (!exists("height")) height = 650

begin(fmt) = (fmt eq "png") ? \
	sprintf("set terminal pngcairo size %d,%d font 'Helvetica,11' noenhanced; set output '%s.png'", width, height, out) : \
	sprintf("set terminal svg size %d,%d dynamic font 'Helvetica,11' noenhanced; set output '%s.svg'", width, height, out)

# One colour per lock, the same in every chart: a lock's index in `locks`.
array palette[10] = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", \
		     "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b2df8a"]
colour(i) = palette[(int(i) - 1) % 10 + 1]
# The same as numbers, for `lc rgb variable`.
array rgbs[10] = [0x1b9e77, 0xd95f02, 0x7570b3, 0xe7298a, 0x66a61e, \
		  0xe6ab02, 0xa6761d, 0x666666, 0x1f78b4, 0xb2df8a]
rgb(i) = rgbs[(int(i) - 1) % 10 + 1]

set grid
set key outside right top
