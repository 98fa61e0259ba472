#!/usr/bin/env bash
# usage: probes.sh PROBE REPS OUT-UNPINNED OUT-PINNED
# One boot each: PROBE (probe.sh or placement.sh, of this directory) REPS
# times per policy (glibc, sched-state, futex) under ../rotate.sh, beside
# stress-ng --cpu with one worker per vCPU, first left to the load
# balancer, then pinned (workloads/per_cpu).
set -euo pipefail
[ $# -eq 4 ] || { sed -n '2,6s/^# //p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
probe=$1
[ -f "$here/$probe" ] || { echo "probes.sh: no $here/$probe" >&2; exit 2; }
lib=/usr/lib/libadaptive.so
specs="'glibc:' 'sched-state:LD_PRELOAD=$lib' 'futex:LD_PRELOAD=$lib ADAPTIVE_POLICY=futex'"
run() {
	"$top/vm-image/run-vm.sh" --file "$here/../rotate.sh" --file "$here/$probe" \
		"$2 >/dev/null 2>&1 & sleep 1; sh /extra/rotate.sh $1 'sh /extra/$probe' $specs" 2>&1 | grep '^R '
}
# shellcheck disable=SC2016 # $(nproc) is for the guest
run "$2" 'stress-ng --cpu $(nproc) --timeout 0' >"$3"
run "$2" '/workloads/per_cpu stress-ng --cpu 1 --timeout 0' >"$4"
