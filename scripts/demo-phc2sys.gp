# SPDX-License-Identifier: GPL-2.0
# demo-phc2sys.gp: phc2sys locking one ptp_sim PHC to another in 'make
# demo', from its -m lines.  scripts/demo-plot.sh sets term (pngcairo or
# png), out, dat (phc2sys.dat: s, offset ns, servo state, frequency set on
# the slave in ppb, delay ns), master, slave and master_ppb.
if (term eq 'pngcairo') {
	set terminal pngcairo size 1100,1000 font 'DejaVu Sans,11' noenhanced
} else {
	set terminal png size 1100,1000 font ',10' noenhanced
}
set output out
set encoding utf8

blue = '#1f77b4'; red = '#d62728'; orange = '#ff7f0e'; grey = '#7f7f7f'
stats dat using 2 nooutput
n = STATS_records
stats dat using (abs($2)) nooutput
big = STATS_max
stats dat using ($3 == 2 ? $2 : 1/0) nooutput
locked = STATS_records
if (locked > 0) {
	off_mean = STATS_mean; off_sd = STATS_stddev
	off_min = STATS_min; off_max = STATS_max
}
stats dat using 1 nooutput
tmax = STATS_max

# Screen layout: the title, the offset above, the frequency below with a
# zoom on the locked samples inside it (the step from 0 hides them).
L = 0.1; R = 0.95
set multiplot title sprintf("phc2sys steers %s to %s: both ptp_sim PHCs, read through fd clockids\n%d samples at 4 Hz (phc2sys -m -R 4 -O 0)", slave, master, n) font ',14'
set lmargin at screen L; set rmargin at screen R
set tmargin at screen 0.87; set bmargin at screen 0.55
set grid
set xrange [-0.1 : tmax + 0.1]
set key bottom left Left reverse box opaque

# Offset on a symmetric log scale: sign(y) log10(1 + |y|), so that the
# first offsets (around a millisecond) and those once locked (a few ns)
# are both seen, with their sign.
symlog(y) = sgn(y) * log10(1 + abs(y))
symexp(y) = sgn(y) * (10 ** abs(y) - 1)
set nonlinear y via symlog(y) inverse symexp(y)
# A decade above the largest offset at least a third of one: its points
# stay off the frame.
decades = ceil(log10(big > 10 ? 3 * big : 30))
top = 10 ** decades
set yrange [-top : top]
unit(k) = k < 3 ? sprintf('%d ns', 10 ** k) : k < 6 ? sprintf('%d µs', 10 ** (k - 3)) : \
	k < 9 ? sprintf('%d ms', 10 ** (k - 6)) : sprintf('%d s', 10 ** (k - 9))
set ytics ('0' 0)
do for [k = 1 : decades] {
	set ytics add (unit(k) 10 ** k, '−'.unit(k) -(10 ** k))
}
set title sprintf('offset of %s from %s, as phc2sys measures it', slave, master)
set ylabel 'offset (symmetric log scale)'
set xlabel ''
if (locked > 0) {
	set label 1 sprintf("locked (s2), %d samples:\noffset mean %.0f ns, sd %.0f ns\nmin %d ns, max %d ns", \
		locked, off_mean, off_sd, off_min, off_max) at graph 0.98, graph 0.26 right front
}
plot dat using 1:($3 == 0 ? $2 : 1/0) with points pt 9 ps 2.2 lc rgb red \
		title 's0: first sample', \
	dat using 1:($3 == 1 ? $2 : 1/0) with points pt 5 ps 1.8 lc rgb orange \
		title 's1: frequency estimated, clock stepped if off by over 20 µs', \
	dat using 1:($3 == 2 ? $2 : 1/0) with linespoints pt 7 ps 0.9 lw 1.5 lc rgb blue \
		title 's2: locked, the PI servo steers the frequency'
unset label 1

unset nonlinear y
set ytics auto
stats dat using 4 nooutput
set yrange [STATS_min < 0 ? STATS_min * 1.5 : 0 : STATS_max * 1.5]
set tmargin at screen 0.45; set bmargin at screen 0.07
set title sprintf('frequency that phc2sys sets on %s (the negated "freq" of its lines)', slave)
set ylabel 'frequency offset (ppb)'
set xlabel 'seconds since phc2sys''s first sample'
set key top right Left reverse
has_target = master_ppb == master_ppb
target_title = sprintf('%s: %+.0f ppb, set with clockdev freq: the target', master, master_ppb)
plot dat using 1:4 with linespoints pt 7 ps 0.9 lw 1.5 lc rgb blue \
		title sprintf('%s, steered by phc2sys', slave), \
	(has_target ? master_ppb : 1/0) with lines dt 2 lw 2 lc rgb grey \
		title (has_target ? target_title : '')

if (locked > 1) {
	# The zoom: the locked samples only.
	stats dat using ($3 == 2 ? $1 : 1/0) nooutput
	set xrange [STATS_min - 0.1 : STATS_max + 0.1]
	stats dat using ($3 == 2 ? $4 : 1/0) nooutput
	lo = STATS_min; hi = STATS_max
	if (has_target) { lo = lo < master_ppb ? lo : master_ppb; hi = hi > master_ppb ? hi : master_ppb }
	pad = (hi - lo) * 0.15 + 1
	set yrange [lo - pad : hi + pad]
	set lmargin at screen 0.42; set rmargin at screen 0.93
	set tmargin at screen 0.29; set bmargin at screen 0.11
	set title 'zoom on the locked samples (s2), ppb' offset 0,-0.6 font ',10'
	unset xlabel; unset ylabel; unset key
	set xtics font ',9'; set ytics font ',9'
	set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind fc rgb 'white' fs solid
	plot dat using 1:($3 == 2 ? $4 : 1/0) with linespoints pt 7 ps 0.7 lw 1.5 lc rgb blue, \
		(has_target ? master_ppb : 1/0) with lines dt 2 lw 2 lc rgb grey
}
unset multiplot
