# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# The kernel patch's own cost: two threads bounce a byte through pipes,
# two context switches per round trip (workloads/ctxswitch.c). Under
# sched-state each thread also attaches a state (-s), as libadaptive does
# for an owner its waiters watch: what the patched kernel pays for one.
description="50000 pipe round trips between two threads"
part=kernel
fixed_threads=2
wl_ops() { echo 50000; }
wl_command() { echo "/workloads/ctxswitch $(own_state_option "$3") -n 50000"; }
wl_parse() { grep -q '^round_trips=50000 ' "$2" && parse_cputime "$@"; }
