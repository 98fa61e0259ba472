# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# A saturated lock, issue 12's mix: one mutex, sections of 100 ns (97%),
# 20 us on CPU (2%) and 200 us asleep (1%), 500 ns of work outside. The
# sleeping holders keep waiters queued past the starvation bound, so
# this is where handoffs happen most: compare each policy with its
# -unfair twin (POLICIES) for what they cost.
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
description="multimodal, saturated: mix 97:2:1 of 100 ns / 20 us / 200 us asleep, 500 ns outside"
multimodal_args="-m 97:2:1 -b 200:200 -o 500"
