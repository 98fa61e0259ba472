# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# stress-ng --mutex: each instance runs 2 threads that change their
# priority around lock and unlock. Run as user nobody, so that its
# SCHED_FIFO requests fail and the threads stay SCHED_OTHER: as root its
# FIFO threads starve its own main thread, and stress-ng 0.15 then often
# gives up ("could not create any pthreads"). Thread count = 2 x instances.
description="stress-ng --mutex (SCHED_OTHER, as nobody): 50000 ops per instance of 2 threads"
part=locks
min_threads=2
wl_ops() { echo $((50000 * ($1 / 2))); }
wl_command() { echo "su -p -s /bin/sh nobody -c 'cd /tmp && stress-ng --mutex $(($1 / 2)) --mutex-ops 50000'"; }
wl_parse() { grep -q 'successful run completed' "$2" && parse_cputime "$@"; }
