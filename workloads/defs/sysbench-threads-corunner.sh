# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# sysbench threads (sysbench-threads.sh), whose owners yield inside their
# sections, beside the co-runner (corunner.sh), with shorter events
# (below). At one thread per vCPU, where sysbench-threads won alone, so
# that the quick profile keeps its 20 minutes.
# Beside the co-runner a yield hands the vCPU to it for about a slice
# (6.12's yield_task_fair() makes the yielder forfeit the rest of its
# own), so an event of 100 rounds takes about 140 ms and a 1 s run
# counted 7 or 8 events; events of 10 rounds keep that count's rounding
# out of the ratios.
thread_yields=10
# shellcheck source=workloads/defs/sysbench-threads.sh
. "$defs/sysbench-threads.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
threads_per_vcpu=1
description="$description, beside $corunner_description"
