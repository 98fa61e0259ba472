#!/usr/bin/env bash
# usage: prof.sh OUTDIR SECONDS GUEST_SCRIPT [run-vm.sh options]
# Boots the guest with GUEST_SCRIPT in /extra and runs it; each time the
# script writes "MARK LABEL REP" to /dev/kmsg, samples QEMU on the host
# with perf (cpu-clock, 1000 Hz) for SECONDS, 1.5 s after the mark, into
# OUTDIR/perf.LABEL.REP. The guest's output goes to OUTDIR/guest.out.
# Give each phase SECONDS + 3 s or more of run time after its mark.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,7s/^# //p' "$0" >&2; exit 2; }
out=$1 seconds=$2 script=$3
shift 3
top=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
"$top/vm-image/run-vm.sh" --file "$script" "$@" "sh /extra/$(basename "$script")" >"$out/guest.out" 2>&1 &
vm=$!
seen=0
while kill -0 "$vm" 2>/dev/null; do
	log=$top/build/vm/last/console.log
	n=$(grep -c 'MARK' "$log" 2>/dev/null || true)
	if [ "${n:-0}" -gt "$seen" ]; then
		seen=$n
		read -r _ label rep < <(grep 'MARK' "$log" | tail -n 1 | sed 's/.*MARK/MARK/' | tr -d '\r')
		sleep 1.5
		qemu=$(pgrep -n -f qemu-system-x86_64)
		echo "sampling $label $rep" >&2
		perf record -q -e cpu-clock -F 1000 -p "$qemu" -o "$out/perf.$label.$rep" \
			-- sleep "$seconds" >/dev/null 2>&1 &
	fi
	sleep 0.1
done
wait
