#!/usr/bin/env bash
# Plot build/bench/results.csv with gnuplot: for each lock workload, an
# SVG with throughput and CPU time per operation against threads, one
# line per policy (medians over repetitions).
set -euo pipefail

if [ $# -ne 2 ] || [ ! -f "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 RESULTS.csv OUTPUT_DIR" >&2
	exit 2
fi
results=$1
out=$2
command -v gnuplot >/dev/null || { echo "plot: gnuplot missing (make deps)" >&2; exit 1; }
policies="glibc sched-state spin-count spin futex"

workloads=$(awk -F, 'NR > 1 && $2 == "patched" && $1 != "ctxswitch" && $1 != "messaging" &&
	$11 == "ok" { print $1 }' "$results" | sort -u)
for w in $workloads; do
	data=$out/$w.dat
	# threads, then the median ops/s of each policy, then its median CPU ns/op.
	awk -F, -v w="$w" -v policies="$policies" '
	function median(a, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $1 == w && $2 == "patched" && $11 == "ok" {
		n = ++count[$4, $3]
		ops[$4, $3, n] = $7
		cpu[$4, $3, n] = $8
		threads[$4] = 1
	}
	END {
		np = split(policies, p, " ")
		for (t in threads)
			list[++nt] = t + 0
		for (i = 2; i <= nt; i++)
			for (j = i; j > 1 && list[j - 1] > list[j]; j--) { x = list[j]; list[j] = list[j - 1]; list[j - 1] = x }
		for (i = 1; i <= nt; i++) {
			t = list[i]
			line = t
			for (k = 1; k <= np; k++) {
				n = count[t, p[k]]
				delete a
				for (r = 1; r <= n; r++) a[r] = ops[t, p[k], r]
				line = line " " (n ? median(a, n) : "NaN")
			}
			for (k = 1; k <= np; k++) {
				n = count[t, p[k]]
				delete a
				for (r = 1; r <= n; r++) a[r] = cpu[t, p[k], r]
				line = line " " (n ? median(a, n) : "NaN")
			}
			print line
		}
	}' "$results" >"$data"
	gnuplot <<EOF
set terminal svg size 1000,420 dynamic font "sans,11"
set output "$out/$w.svg"
set multiplot layout 1,2 title "$w (patched kernel; medians)"
set key top left
set logscale x 2
set xlabel "threads"
set grid
set ylabel "operations per second"
plot for [i=1:5] "$data" using 1:(column(i + 1)) with linespoints title word("$policies", i)
set ylabel "CPU ns per operation"
plot for [i=1:5] "$data" using 1:(column(i + 6)) with linespoints title word("$policies", i)
unset multiplot
EOF
	rm -f "$data"
	echo "plot: $out/$w.svg"
done
