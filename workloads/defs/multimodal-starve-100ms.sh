# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# The multimodal workload with the starvation bound at 100 ms instead of
# 1 ms: what the bound's handoffs cost in throughput, and what they buy in
# tail latency and fairness (compare p99_us and fairness in results.csv).
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
description="multimodal with ADAPTIVE_STARVE_US=100000"
wl_command() { echo "env ADAPTIVE_STARVE_US=100000 /workloads/multimodal -t $1 -d $2 $multimodal_args"; }
