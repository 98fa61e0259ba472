# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# stress-ng --mutex (stress-ng-mutex.sh), whose owners yield inside their
# sections, beside the co-runner (corunner.sh), which makes them
# preempted too. At one thread per vCPU (one instance of 2 threads),
# where it won most alone, so that the quick profile keeps its 20
# minutes.
# shellcheck source=workloads/defs/stress-ng-mutex.sh
. "$defs/stress-ng-mutex.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
threads_per_vcpu=1
description="$description, beside $corunner_description"
