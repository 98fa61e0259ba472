# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# The kernel patch's own cost under a hackbench-like load: 2 groups of 5
# senders and 5 receivers over Unix sockets (workloads/messaging.c);
# under sched-state, each thread with a state of its own (-s), as in
# ctxswitch.sh.
description="2 groups x 5 senders x 5 receivers x 500 messages"
part=kernel
fixed_threads=20
wl_ops() { echo 25000; }
wl_command() { echo "/workloads/messaging $(own_state_option "$3") -g 2 -f 5 -l 500"; }
wl_parse() { grep -q '^messages=25000 ' "$2" && parse_cputime "$@"; }
