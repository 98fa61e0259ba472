#!/usr/bin/env bash
# usage: jit-stats.sh GUEST_SCRIPT [run-vm.sh options]
# Boots the guest with QEMU's monitor on a socket and GUEST_SCRIPT in
# /extra, and runs it; each time the script writes "MARK LABEL" to
# /dev/kmsg, prints "=== LABEL" and the counters of QEMU's "info jit"
# (translation blocks, TB invalidations, TLB flushes). The guest script
# must give the host a moment after each mark (sleep 2).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,7s/^# //p' "$0" >&2; exit 2; }
script=$1
shift
top=$(cd "$(dirname "$0")/../../.." && pwd)
sock=$(mktemp -u /tmp/jit-stats.XXXXXX)
out=$(mktemp)
trap 'rm -f "$out" "$sock"' EXIT
MONITOR=$sock "$top/vm-image/run-vm.sh" --file "$script" "$@" "sh /extra/$(basename "$script")" \
	>"$out" 2>&1 &
vm=$!
seen=0
while kill -0 "$vm" 2>/dev/null; do
	log=$top/build/vm/last/console.log
	n=$(grep -c 'MARK' "$log" 2>/dev/null || true)
	if [ "${n:-0}" -gt "$seen" ] && [ -S "$sock" ]; then
		seen=$n
		echo "=== $(grep 'MARK' "$log" | tail -n 1 | sed 's/.*MARK //' | tr -d '\r')"
		"$top/vm-image/qemu-monitor.py" "$sock" info jit |
			grep -E '^(TB count|TB flush|TB invalidate|TLB (full|partial|elided))'
	fi
	sleep 0.2
done
wait "$vm" || true
cat "$out"
