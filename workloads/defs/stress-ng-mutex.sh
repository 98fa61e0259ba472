# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# stress-ng --mutex: each instance runs 2 threads that change their
# priority around lock and unlock. Run as user nobody, so that its
# SCHED_FIFO requests fail and the threads stay SCHED_OTHER: as root its
# FIFO threads starve its own main thread, and stress-ng 0.15 then often
# gives up ("could not create any pthreads"). Thread count = 2 x instances.
description="stress-ng --mutex (SCHED_OTHER, as nobody), timed: bogo-ops/s of real time"
part=locks
min_threads=2
wl_command() { echo "su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex $(($1 / 2)) --timeout $2 --metrics-brief'"; }
# Its metrics line: bogo ops, real time, usr time, sys time, bogo ops/s
# (real time), bogo ops/s (usr+sys time).
wl_parse() {
	grep -q 'successful run completed' "$2" &&
		awk '$4 == "mutex" && $5 ~ /^[0-9]+$/ && $5 > 0 {
			printf "seconds=%s ops_per_sec=%s cpu_ns_per_op=%.0f\n", $6, $9, ($7 + $8) * 1e9 / $5 }' "$2"
}
