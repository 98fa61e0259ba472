# shellcheck shell=sh disable=SC2034 # sourced by workloads/run-bench.sh
# A workload of run-bench.sh's own test (tests/guest/bench-harness.sh)
# without a co-runner, whose runs follow probe-with-corunner's warm-up:
# they record the co-runner they find still running, which must be none.
part=locks
# The vCPUs' speed is measured in its one-thread runs.
alone_at_1_thread=1
min_threads=1
description="no co-runner"
wl_command() { echo "sh /tests/bench-defs/probe-run.sh probe-plain"; }
wl_parse() { grep -q '^probe: recorded' "$2" && echo "ops_per_sec=1 seconds=1"; }
