# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# sysbench mutex made contended: one mutex, nothing done between locks.
# sysbench mutex has one event per thread and no time limit, so the run
# is sized to about the requested seconds (from a rate guessed for TCG:
# 300000 locks/s in all) and its figure is the locks over sysbench's own
# total time, which leaves out start-up. CPU per lock includes start-up.
description="sysbench mutex --mutex-num=1 --mutex-loops=0, sized: locks/s over sysbench's time"
part=locks
min_threads=1
wl_locks() { echo $((300000 * ${2%.*} / $1 + 1)); }
wl_command() { echo "sysbench mutex --threads=$1 --mutex-num=1 --mutex-locks=$(wl_locks "$1" "$2") --mutex-loops=0 run"; }
wl_parse() { grep -q "total number of events: *$1\$" "$2" && sysbench_rate "$2" "$(wl_locks "$1" "$seconds")"; }
