# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# Our multi-modal benchmark (workloads/multimodal.c): one mutex, sections
# of 100 ns (90%), 20 us on CPU (9%) and 100 us to 1 ms asleep (1%).
description="30000 sections, mix 90:9:1 of 100 ns / 20 us / 0.1-1 ms asleep"
part=locks
min_threads=1
multimodal_args="-n 30000 -m 90:9:1"
wl_ops() { echo 30000; }
wl_command() { echo "/workloads/multimodal -t $1 $multimodal_args"; }
# It measures itself, without its start-up calibration.
wl_parse() { sed -n 's/.*\(ops_per_sec=[0-9.]* cpu_ns_per_op=[0-9.]* p50_us=[0-9.]* p99_us=[0-9.]*\).*/\1/p' "$2"; }
