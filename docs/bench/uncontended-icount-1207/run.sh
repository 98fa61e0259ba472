#!/usr/bin/env bash
# usage: [ACCEL=icount|tcg] run.sh REPS
# One boot: sysbench mutex at 1 thread (1,000,000 uncontended locks and
# unlocks of one mutex), REPS rotations of glibc, the empty preload (the
# harness's control) and libadaptive (sched-state), under ../rotate.sh;
# prints each run's "total time". Under ACCEL=icount the guest clock
# counts guest instructions (1 ns each), so the times compare the
# instructions that each run executed.
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2,8s/^# //p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
"$top/vm-image/run-vm.sh" --file "$here/../rotate.sh" \
	"sh /extra/rotate.sh $1 'sysbench mutex --threads=1 --mutex-num=1 --mutex-locks=1000000 --mutex-loops=0 run | grep \"total time:\"' 'glibc:' 'empty-preload:LD_PRELOAD=/workloads/libempty-preload.so' 'sched-state:LD_PRELOAD=/usr/lib/libadaptive.so'" 2>&1 |
	grep '^R ' | awk '{ print $1, $2, $3, $6 }'
