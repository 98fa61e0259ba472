#!/bin/sh
# workloads/per_cpu, the co-runner's launcher: one copy of the command
# pinned to each CPU it may use; a TERM stops every copy and exits 0; a
# copy that ends stops the others and exits 1; no command is bad usage.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
per_cpu=$top/build/workloads/per_cpu
out=$(mktemp)
trap 'rm -f "$out"; pkill -f "sleep 3141[89]" || true' EXIT

# Waits up to 5 s for $1 lines in $out.
wait_lines() {
	i=0
	while [ "$(wc -l <"$out")" -lt "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

allowed=$(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2)
cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
n=$(echo "$cpus" | wc -w)
"$per_cpu" sh -c 'grep "^Cpus_allowed_list:" /proc/self/status | cut -f2; exec sleep 31418' >"$out" &
pid=$!
wait_lines "$n"
rc=0
kill "$pid"
wait "$pid" || rc=$?
got=$(sort -n "$out" | tr '\n' ' ' | sed 's/ $//')
left=$(pgrep -fc 'sleep 31418' || true)
if [ "$got" = "$cpus" ] && [ "$rc" = 0 ] && [ "$left" = 0 ]; then
	echo "PASS per_cpu: one copy pinned to each of CPUs $cpus (of $allowed); a TERM stops them all"
else
	echo "FAIL per_cpu: copies pinned to '$got' for CPUs '$cpus', status $rc after TERM, $left copies left"
fi

first=${cpus%% *}
rc=0
"$per_cpu" sh -c "[ \"\$(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2)\" = $first ] && exit 3; exec sleep 31419" \
	>"$out" 2>&1 &
pid=$!
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
wait "$pid" || rc=$?
left=$(pgrep -fc 'sleep 31419' || true)
if [ "$rc" = 1 ] && [ "$left" = 0 ] && grep -q 'per_cpu: a copy of sh ended' "$out"; then
	echo "PASS per_cpu: a copy that ends stops the others, status 1"
else
	echo "FAIL per_cpu: after the copy on CPU $first ended: status $rc, $left copies left; $(tr '\n' ' ' <"$out")"
fi

rc=0
"$per_cpu" >"$out" 2>&1 || rc=$?
if [ "$rc" = 2 ] && grep -q '^usage: per_cpu COMMAND' "$out"; then
	echo "PASS per_cpu: no command is a usage error (status 2)"
else
	echo "FAIL per_cpu: without a command: status $rc; $(tr '\n' ' ' <"$out")"
fi
