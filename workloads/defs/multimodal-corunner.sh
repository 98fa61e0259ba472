# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# Our multimodal mix (multimodal.sh) beside the co-runner (corunner.sh),
# at 1 and 2 threads per vCPU: with one thread no one waits, and the
# quick profile needs the time for the other co-runner workloads.
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
threads_per_vcpu="1 2"
description="multimodal 90:9:1 beside $corunner_description"
