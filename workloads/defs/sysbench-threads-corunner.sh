# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# sysbench threads (sysbench-threads.sh), whose owners yield inside their
# sections, beside the co-runner (corunner.sh). At one thread per vCPU,
# where it won alone, so that the quick profile keeps its 20 minutes.
# shellcheck source=workloads/defs/sysbench-threads.sh
. "$defs/sysbench-threads.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
threads_per_vcpu=1
description="$description, beside stress-ng --cpu"
