#!/usr/bin/env bash
# The kernel series' own cost in guest instructions, on the stock and the
# patched kernel: a pipe ping-pong between two threads on one vCPU
# (workloads/ctxswitch.c, two context switches per round trip) and
# system calls (workloads/syscall_return.c, one return to user space
# each), both with no state attached and with one attached to each
# thread (their -s, through the kernel's ABI: libadaptive attaches one
# only to an owner whose waiters ask for it, and none of these threads
# is one); and rt-tests' hackbench in thread mode, whose 40 threads
# pass messages through socket pairs and attach no state. QEMU's icount
# mode makes the guest clock count instructions (1 ns each), so a
# program's own ns are guest instructions, kernel and user space,
# repeatable from run to run. (With sleep=off an idle vCPU's clock jumps
# to its next timer; none of these programs leaves the one vCPU idle.)
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] [-n ROUND_TRIPS] [-r REPETITIONS]

Boots build/bzImage-stock and build/bzImage (make kernel kernel-stock
initramfs first) once each under ACCEL=icount VCPUS=1 and prints, per
kernel, case and measure, the instructions of each repetition: per
ping-pong round trip (-n of them, default 20000), per system call (50
times as many) and per hackbench message (-g 1 -l 150: 60000 messages).
Default -r 3. Output also in build/bench/kernel-cost-icount.txt, and as
rows kernel,case,metric,value in build/bench/kernel-cost.csv, one per
repetition: instructions_per_round_trip, instructions_per_switch (half
of it), instructions_per_return and instructions_per_message.
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

[ -x /usr/bin/hackbench ] ||
	{ echo "kernel-cost-icount: no hackbench: make deps (rt-tests), then make initramfs" >&2; exit 1; }
# hackbench's messages: groups x 20 senders x 20 receivers x loops. Its
# own time has 1 ms steps (a million instructions here), so the run is
# timed by cputime to the ns, start-up included: the same work on both
# kernels.
hackbench_groups=1 hackbench_loops=150
messages=$((hackbench_groups * 400 * hackbench_loops))
# The guest runs each case $reps times and prints "COST CASE METRIC INSTRUCTIONS".
# On the patched kernel, -s either attaches or fails (and prints nothing).
guest_cmd="for i in \$(seq $reps); do
	/workloads/ctxswitch -n $round_trips | sed -n 's/.*ns_per_round_trip=/COST no-state round_trip /p'
	/workloads/ctxswitch -s -n $round_trips |
		sed -n 's/.*ns_per_round_trip=/COST state-attached round_trip /p'
	/workloads/syscall_return -n $((50 * round_trips)) |
		sed -n 's/.*ns_per_syscall=/COST no-state return /p'
	/workloads/syscall_return -s -n $((50 * round_trips)) |
		sed -n 's/.*ns_per_syscall=/COST state-attached return /p'
	/workloads/cputime hackbench -T -g $hackbench_groups -l $hackbench_loops 2>&1 >/dev/null |
		sed -n 's/^cputime: status=0 wall_ns=\([0-9]*\) .*/\1/p' |
		awk '{ printf \"COST no-state message %.1f\\n\", \$1 / $messages }'
done"

{
	echo "# kernel case measure instructions; $round_trips round trips, $(date -u +%FT%TZ)"
	for kernel in stock patched; do
		image=$build/bzImage
		[ "$kernel" = stock ] && image=$build/bzImage-stock
		echo "[kernel-cost-icount] booting $(basename "$image")" >&2
		ACCEL=icount VCPUS=1 "$top/vm-image/run-vm.sh" --kernel "$image" "$guest_cmd" |
			awk -v k="$kernel" '$1 == "COST" && NF == 4 { print k, $2, $3, $4 }'
	done
} | tee "$out"

{
	echo "kernel,case,metric,value"
	awk '!/^#/ {
		printf "%s,%s,instructions_per_%s,%s\n", $1, $2, $3, $4
		if ($3 == "round_trip")
			printf "%s,%s,instructions_per_switch,%.1f\n", $1, $2, $4 / 2 }' "$out"
} >"$csv"
# Both kernels, every case and measure, every repetition: a boot that
# failed, or a program that printed nothing, is no result.
for metric in switch:2 return:2 message:1; do
	[ "$(grep -c ",instructions_per_${metric%:*}," "$csv")" -eq $((2 * ${metric#*:} * reps)) ] ||
		{ echo "kernel-cost-icount: missing instructions_per_${metric%:*} counts, see $out" >&2; exit 1; }
done
