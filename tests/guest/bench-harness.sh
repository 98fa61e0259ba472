#!/bin/sh
# Tests of workloads/run-bench.sh, the guest side of make vm-bench, with
# the probe workloads of /tests/bench-defs: a co-runner runs from the
# first of a workload's consecutive runs to the last (one start, not one
# per run), a co-runner that dies fails the run it died in and is
# restarted for the next, and none outlives its workload; the orders of
# a cell's repetitions put every policy in every position and right after
# every other equally often; each policy gets its settings; the control
# runs at 1 thread only; the vCPUs' speed is measured in one-thread runs
# of definitions that say their thread runs alone.
# Prints PASS/FAIL lines prefixed with $1.
set -u
prefix=$1
probe=/tmp/bench-probe
out=/tmp/bench-harness.out
rm -rf "$probe"
mkdir -p "$probe"
: >"$probe/runs"

# Warm-ups (probe-plain, then probe-with-corunner), then rotation 0:
# three cells of each workload (1 to 3 threads) of one policy.
BENCH_DEFS=/tests/bench-defs sh /workloads/run-bench.sh locks patched 1 0 '1 2 3' glibc 1 \
	'probe-plain probe-with-corunner' >"$out" 2>&1
rc=$?

check() {
	if [ "$2" = "$3" ]; then
		echo "PASS $prefix/$1"
	else
		echo "FAIL $prefix/$1: got '$2', expected '$3'"
		sed 's/^/    /' "$out"
	fi
}

check exit_status "$rc" 0
# The statuses of the CSV lines, in order: the run whose co-runner died
# fails, and only it.
check run_statuses "$(awk -F, '/^CSV,/ { printf "%s:%s ", $2, $12 }' "$out")" \
	"probe-plain:ok probe-plain:ok probe-plain:ok probe-with-corunner:corunner-died probe-with-corunner:ok probe-with-corunner:ok "
# The vCPUs' speed (the last field): measured in one-thread runs of a
# definition whose thread runs alone there (probe-plain) only.
check vcpu_speed_at_1_thread "$(awk -F, '/^CSV,/ {
	printf "%s:%s ", $5, ($19 == "" ? "none" : ($19 + 0 > 0 ? "speed" : $19)) }' "$out")" \
	"1:speed 2:none 3:none 1:none 2:none 3:none "
# The co-runners the runs saw, by order of start (A, B, ...): the
# warm-up's is stopped before probe-plain's runs; the killed one's
# successor serves the rest of the workload's runs.
seen=$(awk 'NR == FNR { name[$1] = sprintf("%c", 64 + FNR); next }
	{ printf "%s:%s ", $1, $2 == "none" ? "none" : name[$2] }' "$probe/corunners" "$probe/runs")
check corunners_per_workload "$seen" \
	"probe-plain:none probe-with-corunner:A probe-plain:none probe-plain:none probe-plain:none probe-with-corunner:B probe-with-corunner:C probe-with-corunner:C "
# None still runs once run-bench.sh has ended: the last, C, ran until
# the plan's last run.
left=
while read -r pid; do
	if grep -q '^State:[[:space:]]*[RSD]' "/proc/$pid/status" 2>/dev/null; then
		left="$left $pid"
	fi
done <"$probe/corunners"
check corunners_stopped "$left" ""

# The orders of the cell at $4 threads, in a run of the repetitions $2
# of the policies $1 at the thread counts $3: "policy:position" and
# "policy>next" counts, as "N distinct, each K times".
orders() {
	BENCH_DEFS=/tests/bench-defs sh /workloads/run-bench.sh locks patched 1 "$2" "$3" "$1" 1 \
		probe-plain >"$out" 2>&1
	awk -F, -v threads="$4" '/^CSV,/ && $5 == threads {
		at[$7 "." $18] = $4
		if ($18 > n) n = $18
		reps[$7] = 1
	}
	END {
		for (r in reps)
			for (i = 1; i <= n; i++) {
				place[at[r "." i] ":" i]++
				if (i > 1) after[at[r "." (i - 1)] ">" at[r "." i]]++
			}
		for (k in place) { places++; p[place[k]] = 1 }
		for (k in after) { pairs++; a[after[k]] = 1 }
		for (v in p) pv = pv " " v
		for (v in a) av = av " " v
		printf "%d places, each%s times; %d pairs, each%s times\n", places, pv, pairs, av
	}' "$out"
}
# A whole design: with an even number of policies, one row each; with
# an odd number, two (the mirror images), and every pair twice.
check order_4_policies "$(orders 'glibc futex spin sched-state' '0 1 2 3' 1 1)" \
	"16 places, each 1 times; 12 pairs, each 1 times"
check order_3_policies "$(orders 'glibc futex spin' '0 1 2 3 4 5' 1 1)" \
	"9 places, each 2 times; 6 pairs, each 2 times"
# The second cell (2 threads), which skips the control (empty-preload,
# 1 thread only): its 3 policies take the 3 places, and in its first 3
# repetitions each policy each place once.
check order_skipped_policy "$(orders 'glibc futex spin empty-preload' '0 1 2' '1 2' 2 | cut -d';' -f1)" \
	"9 places, each 1 times"

# Cells take their rows by their index among the cells with the same
# policies: the 1-thread cells of two workloads, 4 cells apart in the
# plan (1 to 4 threads) with 4 policies, run different rows.
BENCH_DEFS=/tests/bench-defs sh /workloads/run-bench.sh locks patched 1 0 '1 2 3 4' \
	'glibc futex spin empty-preload' 1 'probe-plain probe-with-corunner' >"$out" 2>&1
check rows_per_policy_set "$(awk -F, '/^CSV,/ && $5 == 1 { order[$2] = order[$2] " " $4 }
	END { for (w in order) print order[w] }' "$out" | sort -u | wc -l)" "2"

# Each policy of the library runs with its settings: P-spinN with a spin
# bound of N us, P-unfair with a starvation bound of 10 s.
: >"$probe/settings"
BENCH_DEFS=/tests/bench-defs sh /workloads/run-bench.sh locks patched 1 0 1 \
	'sched-state sched-state-spin5 spin-spin50-unfair' 1 probe-plain >"$out" 2>&1
# (The warm-up runs without the library.)
check policy_settings "$(grep -v '^ADAPTIVE_POLICY= ' "$probe/settings" | sort -u | tr '\n' ';')" \
	"ADAPTIVE_POLICY=sched-state ADAPTIVE_SPIN_US= ADAPTIVE_STARVE_US=;ADAPTIVE_POLICY=sched-state ADAPTIVE_SPIN_US=5 ADAPTIVE_STARVE_US=;ADAPTIVE_POLICY=spin ADAPTIVE_SPIN_US=50 ADAPTIVE_STARVE_US=10000000;"

# The control runs in the 1-thread cells only.
BENCH_DEFS=/tests/bench-defs sh /workloads/run-bench.sh locks patched 1 0 '1 2' 'glibc empty-preload' 1 \
	probe-plain >"$out" 2>&1
check control_at_1_thread "$(awk -F, '/^CSV,/ { print $5 ":" $4 }' "$out" | sort | tr '\n' ' ')" \
	"1:empty-preload 1:glibc 2:glibc "
rm -rf "$probe" "$out"
