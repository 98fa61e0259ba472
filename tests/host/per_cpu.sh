#!/bin/sh
# workloads/per_cpu, the co-runner's launcher: one copy of the command
# pinned to each CPU it may use (by the mask's own numbers); TERM or INT
# stops every copy (killing those that ignore TERM) and exits 0; a copy
# that ends stops the others and exits 1, even if per_cpu's caller
# ignores SIGCHLD; killed, it leaves no copy running; no command is bad
# usage.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
per_cpu=$top/build/workloads/per_cpu
out=$(mktemp)
# Each case's copies sleep this long plus a case number, which names
# them for pgrep and pkill: no other process has it.
mark=$((31400000 + $$ % 100000 * 10))
trap 'rm -f "$out"; pkill -f "sleep $mark" || true' EXIT

# Waits up to 5 s for $1 lines in $out.
wait_lines() {
	i=0
	while [ "$(wc -l <"$out")" -lt "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Runs "$@" (per_cpu, or taskset running it) in the background, its
# output in $out emptied first, with its pid in pid; waits for $1 lines.
start_per_cpu() {
	lines=$1
	shift
	: >"$out"
	"$@" >"$out" 2>&1 &
	pid=$!
	wait_lines "$lines"
}

# Waits up to $2 s (default 5) for per_cpu ($1) to exit; sets rc to its
# status, or to "hung" after killing it and its copies.
wait_exit() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1")" != Z ] && [ $i -lt $((${2:-5} * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ $i -ge $((${2:-5} * 10)) ]; then
		kill -9 "$1"
		pkill -9 -f "sleep $mark" || true
		wait "$1" || true
		rc=hung
		return
	fi
	rc=0
	wait "$1" || rc=$?
}

# One copy per CPU of $2 (CPU numbers, space-separated), each printing
# its allowed CPUs and sleeping $mark$3; stopped with signal $1.
pinning() {
	want=$2
	start_per_cpu "$(echo "$want" | wc -w)" taskset -c "$(echo "$want" | tr ' ' ',')" "$per_cpu" \
		sh -c "grep '^Cpus_allowed_list:' /proc/self/status | cut -f2; exec sleep $mark$3"
	kill "-$1" "$pid"
	wait_exit "$pid"
	got=$(sort -n "$out" | tr '\n' ' ' | sed 's/ $//')
	left=$(pgrep -fc "sleep $mark$3" || true)
	if [ "$got" = "$want" ] && [ "$rc" = 0 ] && [ "$left" = 0 ]; then
		echo "PASS per_cpu: one copy pinned to each of CPUs $want; $1 stops them all"
	else
		echo "FAIL per_cpu: copies pinned to '$got' for CPUs '$want', status $rc after $1, $left copies left"
	fi
}

cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
n=$(echo "$cpus" | wc -w)
last=${cpus##* }
pinning TERM "$cpus" 1
if [ "$n" -ge 2 ]; then
	pinning INT "$last" 2
else
	echo "SKIP per_cpu: a mask without CPU 0 needs a second CPU"
fi

if [ "$n" -ge 2 ]; then
	first=${cpus%% *}
	"$per_cpu" sh -c "[ \"\$(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2)\" = $first ] && exit 3; exec sleep ${mark}3" \
		>"$out" 2>&1 &
	wait_exit $!
	left=$(pgrep -fc "sleep ${mark}3" || true)
	if [ "$rc" = 1 ] && [ "$left" = 0 ] && grep -q 'per_cpu: a copy of sh ended' "$out"; then
		echo "PASS per_cpu: a copy that ends stops the others, status 1"
	else
		echo "FAIL per_cpu: after the copy on CPU $first ended: status $rc, $left copies left; $(tr '\n' ' ' <"$out")"
	fi
else
	echo "SKIP per_cpu: stopping the other copies needs a second CPU"
fi

# A copy that ignores SIGTERM is killed after per_cpu's 5 s of grace.
start_per_cpu "$n" "$per_cpu" sh -c "trap '' TERM; echo started; exec sleep ${mark}4"
kill "$pid"
wait_exit "$pid" 10
left=$(pgrep -fc "sleep ${mark}4" || true)
if [ "$rc" = 0 ] && [ "$left" = 0 ]; then
	echo "PASS per_cpu: a copy that ignores SIGTERM is killed"
else
	echo "FAIL per_cpu: copies that ignore SIGTERM: status $rc, $left copies left"
fi

# Killed itself, per_cpu leaves no copy running.
start_per_cpu "$n" "$per_cpu" sh -c "echo started; exec sleep ${mark}5"
# (Quietly: the shell reports a killed job as "Killed".)
{
	kill -9 "$pid"
	wait "$pid"
} 2>/dev/null || true
i=0
while pgrep -f "sleep ${mark}5" >/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
left=$(pgrep -fc "sleep ${mark}5" || true)
if [ "$left" = 0 ]; then
	echo "PASS per_cpu: its copies stop when it is killed"
else
	echo "FAIL per_cpu: $left copies left running after per_cpu was killed"
fi

# A caller that ignores SIGCHLD would have the copies reaped unseen
# (bash, since dash's trap leaves SIGCHLD alone).
bash -c "trap '' CHLD; exec '$per_cpu' true" >"$out" 2>&1 &
wait_exit $!
if [ "$rc" = 1 ] && grep -q 'per_cpu: a copy of true ended' "$out"; then
	echo "PASS per_cpu: sees a copy end when its caller ignored SIGCHLD"
else
	echo "FAIL per_cpu: copies of true under an ignored SIGCHLD: status $rc; $(tr '\n' ' ' <"$out")"
fi

rc=0
"$per_cpu" >"$out" 2>&1 || rc=$?
if [ "$rc" = 2 ] && grep -q '^usage: per_cpu COMMAND' "$out"; then
	echo "PASS per_cpu: no command is a usage error (status 2)"
else
	echo "FAIL per_cpu: without a command: status $rc; $(tr '\n' ' ' <"$out")"
fi
