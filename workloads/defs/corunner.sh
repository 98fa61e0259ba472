# shellcheck shell=sh disable=SC2034 # sourced by the *-corunner definitions
# Not a workload (no part= line): the co-runner that the *-corunner
# definitions share, so that owners are preempted rather than yield
# (issue 11): a CPU-bound program at the same priority on every vCPU
# (stress-ng --cpu, one worker pinned to each vCPU by per_cpu, without
# the preload). The scheduler then takes the CPU from lock holders at
# the end of their slices, inside sections too: the case the owner flag
# is for, where a waiter that spins on a preempted owner burns a slice
# for nothing. Pinned, because the load balancer moved the workers
# between the vCPUs in nearly every run, and a run that had both on one
# vCPU measured the lock workload alone on the other
# (docs/bench/corunner-modes-1207).
# No time limit (--timeout 0): run-bench.sh stops it after the last of
# its workload's consecutive runs, which may take more than any fixed
# limit.
corunner="/workloads/per_cpu stress-ng --cpu 1 --timeout 0"
corunner_description="stress-ng --cpu pinned to each vCPU"
