# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# sysbench mutex made contended: one mutex, nothing done between locks.
# sysbench mutex has one event per thread and no time limit, so the run
# is sized from a rate measured in the TCG guest (2026-12-04, 2 vCPUs:
# 6.4 M locks/s in all with glibc at 1 and 4 threads), halved, so that
# glibc's run lasts about half the requested seconds. kernel-spin (PI
# mutexes, every contended lock a handoff through the kernel) does not
# run it: at 4 threads its 1 s run had not ended when it was killed after
# 122 s, against 1.8 s under glibc (2026-12-05), and no size fits both.
skip_policies=kernel-spin
# Its figure is the locks over sysbench's own total time, which leaves
# out start-up; CPU per lock includes start-up. A timed program of our
# own would do better (issue 10).
description="sysbench mutex --mutex-num=1 --mutex-loops=0, sized: locks/s over sysbench's time"
part=locks
min_threads=1
alone_at_1_thread=1
wl_locks() { echo $((3000000 * ${2%.*} / $1 + 1)); }
wl_command() { echo "sysbench mutex --threads=$1 --mutex-num=1 --mutex-locks=$(wl_locks "$1" "$2") --mutex-loops=0 run"; }
wl_parse() { grep -q "total number of events: *$1\$" "$2" && sysbench_rate "$2" "$(wl_locks "$1" "$seconds")"; }
