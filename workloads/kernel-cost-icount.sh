#!/usr/bin/env bash
# The kernel series' own cost in guest instructions: a pipe ping-pong
# between two threads on one vCPU (workloads/ctxswitch.c, two context
# switches per round trip) on the stock and the patched kernel, with no
# state attached and with libadaptive attaching one per thread. QEMU's
# icount mode makes the guest clock count instructions (1 ns each), so
# the program's own ns per round trip is the number of guest
# instructions per round trip, kernel and user space, repeatable from
# run to run.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] [-n ROUND_TRIPS] [-r REPETITIONS]

Boots build/bzImage-stock and build/bzImage (make kernel kernel-stock
initramfs first) once each under ACCEL=icount VCPUS=1 and prints, per
kernel and case, the instructions per round trip of each repetition.
Defaults: -n 20000 -r 3. Output also in build/bench/kernel-cost-icount.txt,
and as rows kernel,case,metric,value in build/bench/kernel-cost.csv:
instructions_per_round_trip and instructions_per_switch (half of it),
one row of each per repetition.
EOF
}

round_trips=20000
reps=3
case "${1:-}" in -h | --help) usage; exit 0 ;; esac
while getopts "n:r:" opt; do
	case "$opt" in
	n) round_trips=$OPTARG ;;
	r) reps=$OPTARG ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ "$round_trips" =~ ^[1-9][0-9]*$ && "$reps" =~ ^[1-9][0-9]*$ ]] ||
	{ echo "kernel-cost-icount: -n and -r take positive integers" >&2; exit 2; }

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
out=$build/bench/kernel-cost-icount.txt
csv=$build/bench/kernel-cost.csv
mkdir -p "$build/bench"

# The guest runs each case $reps times and prints "CASE INSTRUCTIONS".
guest_cmd="for i in \$(seq $reps); do
	/workloads/ctxswitch -n $round_trips | sed -n 's/.*ns_per_round_trip=/no-state /p'
	LD_PRELOAD=/usr/lib/libadaptive.so /workloads/ctxswitch -n $round_trips |
		sed -n 's/.*ns_per_round_trip=/state-attached /p'
done"

{
	echo "# instructions per round trip (2 context switches), $round_trips round trips, $(date -u +%FT%TZ)"
	for kernel in stock patched; do
		image=$build/bzImage
		[ "$kernel" = stock ] && image=$build/bzImage-stock
		echo "[kernel-cost-icount] booting $(basename "$image")" >&2
		ACCEL=icount VCPUS=1 "$top/vm-image/run-vm.sh" --kernel "$image" "$guest_cmd" |
			awk -v k="$kernel" 'NF == 2 { print k, $1, $2 }'
	done
} | tee "$out"

{
	echo "kernel,case,metric,value"
	awk '!/^#/ { printf "%s,%s,instructions_per_round_trip,%s\n%s,%s,instructions_per_switch,%.1f\n",
		$1, $2, $3, $1, $2, $3 / 2 }' "$out"
} >"$csv"
# Both kernels, both cases, every repetition: a boot that failed is no result.
[ "$(grep -c ',instructions_per_switch,' "$csv")" -eq $((4 * reps)) ] ||
	{ echo "kernel-cost-icount: missing counts, see $out" >&2; exit 1; }
