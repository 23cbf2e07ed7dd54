# SPDX-License-Identifier: GPL-2.0
# demo-timer.gp: the periodic timer on a ptp_sim PHC in 'make demo', whose
# frequency is changed while it runs.  scripts/demo-plot.sh sets term
# (pngcairo or png), out, dat (timer.dat: s since armed, lateness ms,
# expiry, overrun), fdat (timer-freq.dat: s, ppm, 1 for a change), clock,
# period_ms, and the tool's own summary: lmin, lmed (its p50), lmax (ms)
# and early.
if (term eq 'pngcairo') {
	set terminal pngcairo size 1100,650 font 'DejaVu Sans,11' noenhanced
} else {
	set terminal png size 1100,650 font ',10' noenhanced
}
set output out
set encoding utf8

blue = '#1f77b4'; red = '#d62728'
stats dat using 2 nooutput
n = STATS_records
stats dat using 1 nooutput
tmax = STATS_max
stats fdat using 1 nooutput
tmin = STATS_min < 0 ? STATS_min : 0
stats fdat using (abs($2)) nooutput
fbig = STATS_max > 0 ? STATS_max : 1

set title sprintf("A periodic timer (timerfd) on %s, every %g ms of its time, while its frequency is changed\n%d expiries: late min %.3f, median %.3f, max %.3f ms; %d early", \
	clock, period_ms, n, lmin, lmed, lmax, early) font ',13'
set xlabel sprintf('time of %s since the timer was armed (s)', clock)
set ylabel sprintf("lateness of each expiry\n(ms of %s's time: read after waking minus due)", clock)
set y2label sprintf('frequency offset of %s (ppm)', clock) tc rgb red
ylo = lmin < 0 ? lmin * 1.2 : 0
yhi = lmax > 0 ? lmax * 1.25 : 1
set yrange [ylo : yhi]
set y2range [-fbig * 1.6 : fbig * 1.6]
set xrange [tmin - 0.05 : tmax + 0.1]
set ytics nomirror
set y2tics tc rgb red
set grid xtics ytics
set key top left Left reverse box opaque
set xzeroaxis lt -1

plot fdat using 1:($3 == 1 ? ylo : 1/0):(0):(yhi - ylo) with vectors nohead dt 3 lw 1 lc rgb red \
		title 'frequency set (clockdev freq)', \
	fdat using 1:2 axes x1y2 with steps lw 2 lc rgb red \
		title sprintf('frequency offset of %s (right axis)', clock), \
	fdat using 1:($3 == 1 ? $2 : 1/0):(sprintf('%+g ppm', $2)) axes x1y2 with labels left offset 0.4,0.8 tc rgb red notitle, \
	dat using 1:2 with impulses lw 3 lc rgb blue notitle, \
	dat using 1:2 with points pt 7 ps 1.3 lc rgb blue title 'lateness of each expiry (left axis)'
