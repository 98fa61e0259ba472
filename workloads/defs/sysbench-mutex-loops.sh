# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets seconds
# sysbench mutex with work between the locks: contention comes and goes.
# Sized as sysbench-mutex.sh is, from 300000 locks/s in all (glibc, 1 and
# 4 threads, in the same check run). Not under kernel-spin either: at 4
# threads its 1 s run took 11.7 s, 17 times glibc's (2026-12-05).
skip_policies=kernel-spin
description="sysbench mutex --mutex-num=1 --mutex-loops=2000, sized: locks/s over sysbench's time"
part=locks
min_threads=1
alone_at_1_thread=1
wl_locks() { echo $((300000 * ${2%.*} / $1 + 1)); }
wl_command() { echo "sysbench mutex --threads=$1 --mutex-num=1 --mutex-locks=$(wl_locks "$1" "$2") --mutex-loops=2000 run"; }
wl_parse() { grep -q "total number of events: *$1\$" "$2" && sysbench_rate "$2" "$(wl_locks "$1" "$seconds")"; }
