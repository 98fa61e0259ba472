# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# sysbench threads with one lock: the holder yields the CPU inside the
# critical section, the case where spinning on a running owner is wrong.
# A definition that sources this one may set thread_yields first.
thread_yields=${thread_yields:-100}
description="sysbench threads --thread-locks=1 --thread-yields=$thread_yields, timed: events/s"
part=locks
min_threads=1
alone_at_1_thread=1
wl_command() { echo "sysbench threads --threads=$1 --thread-locks=1 --thread-yields=$thread_yields --events=0 --time=$2 run"; }
# One event is thread_yields lock-yield-unlock rounds; the rate is
# sysbench's events over its own total time. CPU per event includes
# start-up (about 60 ms).
wl_parse() { sysbench_rate "$2" 1; }
