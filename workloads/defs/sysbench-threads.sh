# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# sysbench threads with one lock: the holder yields the CPU inside the
# critical section, the case where spinning on a running owner is wrong.
description="sysbench threads --thread-locks=1: 500 events of 100 lock-yield-unlock"
part=locks
min_threads=1
wl_ops() { echo $((500 * 100)); }
wl_command() { echo "sysbench threads --threads=$1 --thread-locks=1 --thread-yields=100 --events=500 --time=0 run"; }
wl_parse() { grep -q "total number of events: *500\$" "$2" && parse_cputime "$@"; }
