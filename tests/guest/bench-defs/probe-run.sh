#!/bin/sh
# One run of the probe workloads (probe-*.sh; not a definition itself):
# appends "WORKLOAD PID" to /tmp/bench-probe/runs, PID that of the
# co-runner running now (the last one started) or "none". The second run
# of probe-with-corunner kills its co-runner, as if it had died. Appends
# the library's settings it was given to /tmp/bench-probe/settings.
probe=/tmp/bench-probe
pid=$(tail -n 1 "$probe/corunners" 2>/dev/null)
# A zombie is not running.
if [ -z "$pid" ] || ! grep -q '^State:[[:space:]]*[RSD]' "/proc/$pid/status" 2>/dev/null; then
	pid=none
fi
echo "$1 $pid" >>"$probe/runs"
echo "ADAPTIVE_POLICY=${ADAPTIVE_POLICY:-} ADAPTIVE_SPIN_US=${ADAPTIVE_SPIN_US:-}" \
	"ADAPTIVE_STARVE_US=${ADAPTIVE_STARVE_US:-}" >>"$probe/settings"
if [ "$1" = probe-with-corunner ] && [ "$(grep -c "^$1 " "$probe/runs")" -eq 2 ]; then
	kill -9 "$pid"
fi
echo "probe: recorded $1 $pid"
