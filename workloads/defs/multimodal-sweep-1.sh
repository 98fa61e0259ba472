# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# A point of the multimodal sweep (multimodal-sweep.sh): the owner
# sleeps in 1% of the sections.
# shellcheck source=workloads/defs/multimodal-sweep.sh
. "$defs/multimodal-sweep.sh"
part=locks
sweep_point 1
