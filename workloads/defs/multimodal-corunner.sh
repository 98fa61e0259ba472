# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# Owners preempted, not yielding: our multimodal mix (multimodal.sh) while
# a CPU-bound program at the same priority keeps every vCPU busy
# (stress-ng --cpu, one worker per vCPU, without the preload). The
# scheduler then takes the CPU from lock holders at the end of their
# slices, inside sections too: the case the owner flag is for, where a
# waiter that spins on a preempted owner burns a slice for nothing.
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
description="multimodal 90:9:1 beside stress-ng --cpu (one worker per vCPU, same priority)"
corunner="stress-ng --cpu $(nproc) --timeout 3600"
