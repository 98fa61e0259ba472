# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# Our multimodal mix (multimodal.sh) beside the co-runner (corunner.sh).
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# shellcheck source=workloads/defs/corunner.sh
. "$defs/corunner.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
description="multimodal 90:9:1 beside stress-ng --cpu (one worker per vCPU, same priority)"
