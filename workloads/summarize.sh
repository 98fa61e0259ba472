#!/usr/bin/env bash
# Summarize build/bench/results.csv as markdown on stdout: for each lock
# workload and thread count, each policy's throughput and CPU per
# operation as a ratio to glibc (no preload), taken per repetition within
# one guest boot, as the median over repetitions [min-max]; then the
# kernel patch's own cost, patched against stock.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
	echo "usage: $0 RESULTS.csv" >&2
	exit 2
fi

awk -F, '
function sort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}
function median(a, n) {
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# Fill a with the per-repetition ratios of metric m (ops, cpu or p99) of
# policy p against glibc at key k, sorted; return how many. A value of 0
# or none (a p99 that the workload does not report) gives no ratio.
function ratios(k, p, m, a,    r, n) {
	n = 0
	for (r = 1; r <= maxrep; r++)
		if (val[k, p, r, m] > 0 && val[k, "glibc", r, m] > 0)
			a[++n] = val[k, p, r, m] / val[k, "glibc", r, m]
	sort(a, n)
	return n
}
function ratio_cell(k, p, m,    n, a) {
	n = ratios(k, p, m, a)
	return n ? sprintf("%.2f [%.2f-%.2f]", median(a, n), a[1], a[n]) : "n/a"
}
# The median ratio of p at k, or -1 without data.
function ratio_median(k, p, m,    n, a) {
	n = ratios(k, p, m, a)
	return n ? median(a, n) : -1
}
# One line of the verdict: sched-state against the fastest other choice
# (glibc counts as 1.00), and its CPU per operation against spin and glibc.
function verdict_row(k,    part, best, bestp, j, v, ss, n, a, how, cpu_ss, cpu_spin) {
	split(k, part, SUBSEP)
	best = 1; bestp = "glibc"
	for (j = 2; j <= 4; j++) {
		v = ratio_median(k, order[j], "ops")
		if (v > best) { best = v; bestp = order[j] }
	}
	n = ratios(k, "sched-state", "ops", a)
	if (!n)
		return
	ss = median(a, n)
	if (ss >= best)
		how = "yes, fastest"
	else if (a[n] >= best)
		how = sprintf("within spread (%.2f of %s)", ss / best, bestp)
	else
		how = sprintf("no: %.2f of %s", ss / best, bestp)
	cpu_ss = ratio_median(k, "sched-state", "cpu")
	cpu_spin = ratio_median(k, "spin", "cpu")
	printf("| %s | %s | %s | %s | %.2f | %s |\n", part[1], part[3], how,
	       bestp == "glibc" ? "glibc" : sprintf("%s %.2f", bestp, best), cpu_ss,
	       cpu_spin > 0 ? sprintf("%.2f", cpu_ss / cpu_spin) : "n/a")
}
function glibc_cell(k, m,    r, n, a) {
	n = 0
	for (r = 1; r <= maxrep; r++)
		if (val[k, "glibc", r, m] > 0)
			a[++n] = val[k, "glibc", r, m]
	return n ? sprintf(m == "p99" ? "%.1f" : "%.0f", median(a, n)) : "n/a"
}
NR == 1 { next }
{
	wl = $1; kernel = $2; policy = $3; threads = $4; rep = $6
	accel = $12; vcpus = $5; date = $13
	if ($11 != "ok") {
		failed[++nfailed] = wl " " kernel " " policy " threads=" threads " rep=" rep ": " $11
		next
	}
	k = wl SUBSEP kernel SUBSEP threads
	if (!(k in seen)) {
		seen[k] = 1
		keys[++nkeys] = k
	}
	val[k, policy, rep, "ops"] = $7
	val[k, policy, rep, "cpu"] = $8
	val[k, policy, rep, "p99"] = $10
	if ($10 != "")
		has_p99[k] = 1
	if (rep > maxrep)
		maxrep = rep
	policies[policy] = 1
}
END {
	split("sched-state spin-count spin futex", order, " ")
	printf "# vm-bench summary\n\n"
	printf "%s, %s, %s vCPUs. Ratios are policy / glibc (the run without the preload), ", date, accel, vcpus
	printf "taken per repetition within one guest boot; cells show the median over repetitions [min-max]. "
	printf "Under TCG every instruction is emulated and system calls and context switches are dilated unevenly: "
	printf "compare the ratios, not the absolute numbers, and not with other machines.\n\n"
	split("ops cpu p99", metrics, " ")
	title["ops"] = "throughput (higher is better)"
	title["cpu"] = "CPU time per operation (lower is better)"
	title["p99"] = "99th percentile latency where the workload reports one: multimodal, of lock acquisition; cache-bench, of an operation (lower is better)"
	unit["ops"] = "ops/s"; unit["cpu"] = "CPU ns/op"; unit["p99"] = "p99 us"
	for (section = 1; section <= 3; section++) {
		metric = metrics[section]
		printf "## Lock workloads on the patched kernel: %s\n\n", title[metric]
		printf "| workload | threads | glibc %s |", unit[metric]
		for (i = 1; i <= 4; i++)
			printf " %s |", order[i]
		printf "\n|---|---|---|---|---|---|---|\n"
		for (i = 1; i <= nkeys; i++) {
			split(keys[i], part, SUBSEP)
			if (part[1] == "ctxswitch" || part[1] == "messaging" ||
			    (metric == "p99" && !has_p99[keys[i]]))
				continue
			printf "| %s | %s | %s |", part[1], part[3], glibc_cell(keys[i], metric)
			for (j = 1; j <= 4; j++)
				printf " %s |", ratio_cell(keys[i], order[j], metric)
			printf "\n"
		}
		printf "\n"
	}
	printf "## Is sched-state at least as fast as the best other choice?\n\n"
	printf "Throughput medians against the fastest of glibc and the other policies; "
	printf "\"within spread\" when sched-state'"'"'s best repetition reaches that median. "
	printf "CPU per operation of sched-state as a ratio to glibc and to spin (lower is cheaper).\n\n"
	printf "| workload | threads | sched-state at least as fast? | fastest other (ops ratio) | CPU/op vs glibc | CPU/op vs spin |\n"
	printf "|---|---|---|---|---|---|\n"
	for (i = 1; i <= nkeys; i++) {
		split(keys[i], part, SUBSEP)
		if (part[1] != "ctxswitch" && part[1] != "messaging")
			verdict_row(keys[i])
	}
	printf "\n"
	printf "## The kernel patch'"'"'s own cost: patched / stock\n\n"
	printf "The kernels ran in alternating boots, one repetition each: medians over boots, "
	printf "not in-run ratios, so read differences below the spread of the lock tables as noise.\n\n"
	printf "| workload | run | stock ops/s | patched ops/s | patched/stock ops | patched/stock CPU/op |\n"
	printf "|---|---|---|---|---|---|\n"
	split("ctxswitch messaging", kw, " ")
	for (w = 1; w <= 2; w++)
		for (i = 1; i <= nkeys; i++) {
			split(keys[i], part, SUBSEP)
			if (part[1] != kw[w] || part[2] != "stock")
				continue
			ks = keys[i]
			kp = part[1] SUBSEP "patched" SUBSEP part[3]
			split("glibc sched-state", runs, " ")
			for (p = 1; p <= 2; p++) {
				n1 = n2 = n3 = n4 = 0
				delete a1; delete a2; delete a3; delete a4
				for (r = 1; r <= maxrep; r++) {
					if (val[ks, runs[p], r, "ops"] > 0) { a1[++n1] = val[ks, runs[p], r, "ops"]; a3[++n3] = val[ks, runs[p], r, "cpu"] }
					if (val[kp, runs[p], r, "ops"] > 0) { a2[++n2] = val[kp, runs[p], r, "ops"]; a4[++n4] = val[kp, runs[p], r, "cpu"] }
				}
				if (!n1 || !n2)
					continue
				s = median(a1, n1); t = median(a2, n2); sc = median(a3, n3); tc = median(a4, n4)
				printf "| %s | %s | %.0f | %.0f | %.3f | %.3f |\n", part[1], \
					runs[p] == "glibc" ? "no preload" : "preload (sched_state registered on the patched kernel)", \
					s, t, t / s, tc / sc
			}
		}
	if (nfailed) {
		printf "\n## Runs that failed\n\n"
		for (i = 1; i <= nfailed; i++)
			printf "- %s\n", failed[i]
	}
}' "$1"
