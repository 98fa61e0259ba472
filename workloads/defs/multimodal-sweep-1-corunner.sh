# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# The sweep's point with the owner asleep in 1% of the sections
# (multimodal-sweep-1.sh), where spinning on a running owner won most in
# its first runs, beside the co-runner (corunner.sh): do the wins hold
# when owners are preempted? At one thread per vCPU only, where the lock
# is not saturated and the co-runner is what takes the CPUs, so that the
# quick profile keeps its 20 minutes.
# shellcheck source=workloads/defs/multimodal-sweep-1.sh
. "$defs/multimodal-sweep-1.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
threads_per_vcpu=1
description="$description, beside $corunner_description"
