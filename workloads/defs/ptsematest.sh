# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# rt-tests' ptsematest: pairs of threads hand a mutex to each other, the
# way real-time programs use one as a binary semaphore. The receiver
# locks a mutex that it already holds, so it waits until the sender
# unlocks it (a cross-thread unlock, which glibc's normal mutex allows);
# the sender then waits the same way for the receiver, which sleeps the
# interval (1 ms) before it lets the sender go. No section runs on a CPU
# while anyone waits, so no spin can win: this measures what a policy
# adds to a sleeping handoff, in latency and in CPU. SCHED_OTHER (no -p),
# as the library's users run. Thread count = 2 x pairs.
# kernel-spin does not run it: a PI mutex's unlock by a thread that does
# not own it fails (FUTEX_UNLOCK_PI: EPERM) and a relock by its owner
# never returns (glibc waits forever on EDEADLK): a pair stalls after
# its first handoff until the run ends (1 sample of 948 ms in a 1 s run,
# against 550 under glibc, 2026-12-06), so its figures (0.000 of glibc's
# rate in docs/bench/quick-all) measure a broken program.
skip_policies=kernel-spin
description="ptsematest, SCHED_OTHER, 1 ms interval, timed: 1e6 / mean handoff latency (us)"
part=locks
min_threads=2
# Its JSON report is the only one with the mean to 0.01 us.
wl_command() {
	echo "sh -c 'ptsematest -t $(($1 / 2)) -i 1000 -d 0 -D ${2%.*} -q --json=/tmp/ptsematest.json >/dev/null && cat /tmp/ptsematest.json'"
}
# The figure is the inverse of the mean latency from an unlock to the
# waiter's return from its lock, over all pairs (weighted by their
# samples), so that higher is better as with every other workload; CPU
# per handoff counts the sender's samples.
wl_parse() {
	grep -q '"return_code": 0' "$2" &&
		awk '/^cputime: status=0/ { split($4, c, "="); cpu = c[2] }
			/"samples":/ { gsub(/[^0-9]/, "", $2); n = $2; handoffs += n }
			/"avg":/ { gsub(/[^0-9.]/, "", $2); sum += $2 * n }
			/"max":/ { gsub(/[^0-9]/, "", $2); if ($2 + 0 > max) max = $2 + 0 }
			END { if (handoffs > 0 && sum > 0)
				printf "seconds=%s ops_per_sec=%.1f cpu_ns_per_op=%.0f max_us=%s\n",
					secs, 1e6 * handoffs / sum, cpu / handoffs, max }' secs="$seconds" "$2"
}
