#!/usr/bin/env bash
# usage: probes.sh REPS OUT-UNPINNED OUT-PINNED
# One boot each: probe.sh REPS times per policy (glibc, sched-state,
# futex) under ../rotate.sh, beside stress-ng --cpu with one worker per
# vCPU, first left to the load balancer, then pinned (workloads/per_cpu).
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,5s/^# //p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
lib=/usr/lib/libadaptive.so
specs="'glibc:' 'sched-state:LD_PRELOAD=$lib' 'futex:LD_PRELOAD=$lib ADAPTIVE_POLICY=futex'"
probe() {
	"$top/vm-image/run-vm.sh" --file "$here/../rotate.sh" --file "$here/probe.sh" \
		"$2 >/dev/null 2>&1 & sleep 1; sh /extra/rotate.sh $1 'sh /extra/probe.sh' $specs" 2>&1 | grep '^R '
}
# shellcheck disable=SC2016 # $(nproc) is for the guest
probe "$1" 'stress-ng --cpu $(nproc) --timeout 0' >"$2"
probe "$1" '/workloads/per_cpu stress-ng --cpu 1 --timeout 0' >"$3"
