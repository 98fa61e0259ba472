# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# A workload of run-bench.sh's own test (tests/guest/bench-harness.sh):
# its co-runner appends its pid to a file, then sleeps; each run records
# the co-runner it finds running (probe-run.sh). Its runs come after
# probe-plain's, so that the last co-runner of run-bench.sh is its own.
part=locks
min_threads=1
description="co-runner probe"
corunner="sh -c 'echo \$\$ >>/tmp/bench-probe/corunners && exec sleep 3600'"
wl_command() { echo "sh /tests/bench-defs/probe-run.sh probe-with-corunner"; }
wl_parse() { grep -q '^probe: recorded' "$2" && echo "ops_per_sec=1 seconds=1"; }
