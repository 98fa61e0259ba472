#!/bin/sh
# workloads/cputime under busybox's timeout, as the guest's bench runner
# uses it: when the limit strikes, no process the command started may
# outlive it (busybox's timeout signals its own child only), and the
# status and CPU line still come out; --vcpu-speed adds the speed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cputime=$top/build/workloads/cputime
out=$(mktemp)
trap 'rm -f "$out"; pkill -f "sleep 3141[67]" || true' EXIT

if ! command -v busybox >/dev/null; then
	echo "SKIP cputime: no busybox (busybox-static)"
	exit 0
fi
rc=0
busybox timeout 1 "$cputime" sh -c 'sleep 31416 & sleep 31417' >"$out" 2>&1 || rc=$?
sleep 0.5
left=$(pgrep -fc 'sleep 3141[67]' || true)
if [ "$left" = 0 ] && grep -q '^cputime: status=143 ' "$out"; then
	echo "PASS cputime: a time limit stops every process of the command (status $rc)"
else
	echo "FAIL cputime: $left processes of the command left after its time limit; $(tr '\n' ' ' <"$out")"
fi

# Static: a dynamic cputime would load the run's LD_PRELOAD itself.
if readelf -l "$cputime" | grep -q 'INTERP'; then
	echo "FAIL cputime: dynamically linked, so a run's LD_PRELOAD loads into it too"
else
	echo "PASS cputime: statically linked, so a run's LD_PRELOAD reaches only its command"
fi

# --vcpu-speed: the line ends with a positive speed, even over a run
# too idle for a busy tick; without it the line is as before.
line=$("$cputime" --vcpu-speed sleep 0.5 2>&1 >/dev/null) || true
if echo "$line" | grep -Eq '^cputime: status=0 wall_ns=[0-9]+ cpu_ns=[0-9]+ vcpu_speed=[0-9]*[1-9][0-9]*\.[0-9]{3}$'; then
	echo "PASS cputime: --vcpu-speed ends the line with the speed"
else
	echo "FAIL cputime: --vcpu-speed line: $line"
fi
line=$("$cputime" true 2>&1 >/dev/null) || true
if echo "$line" | grep -Eq '^cputime: status=0 wall_ns=[0-9]+ cpu_ns=[0-9]+$'; then
	echo "PASS cputime: without --vcpu-speed, no speed"
else
	echo "FAIL cputime: line without --vcpu-speed: $line"
fi
