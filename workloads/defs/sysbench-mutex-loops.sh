# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# sysbench mutex with work between the locks: contention comes and goes.
description="sysbench mutex --mutex-num=1 --mutex-loops=2000: 10000 locks per thread"
part=locks
min_threads=1
wl_ops() { echo $(($1 * 10000)); }
wl_command() { echo "sysbench mutex --threads=$1 --mutex-num=1 --mutex-locks=10000 --mutex-loops=2000 run"; }
wl_parse() { grep -q "total number of events: *$1\$" "$2" && parse_cputime "$@"; }
