# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# sysbench mutex made contended: one mutex, nothing done between locks.
description="sysbench mutex --mutex-num=1 --mutex-loops=0: 20000 locks per thread"
part=locks
min_threads=1
wl_ops() { echo $(($1 * 20000)); }
wl_command() { echo "sysbench mutex --threads=$1 --mutex-num=1 --mutex-locks=20000 --mutex-loops=0 run"; }
wl_parse() { grep -q "total number of events: *$1\$" "$2" && parse_cputime "$@"; }
