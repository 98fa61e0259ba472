#!/usr/bin/env bash
# make vm-bench: every workload of workloads/defs in the guest, without the
# preload (policy glibc) and with each ADAPTIVE_POLICY, interleaved, then
# the kernel patch's own cost on build/bzImage against build/bzImage-stock.
# Results: build/bench/results.csv, summary.md, plots (SVG).
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help]

Environment: PROFILE=quick (default: threads 1 2 4 8, 3 repetitions) or
full (threads 1 2 4 8 16, 5 repetitions); VCPUS (default 2), MEM, ACCEL
as for vm-image/run-vm.sh. Needs what make vm-bench builds first.
EOF
}
case "${1:-}" in
-h | --help) usage; exit 0 ;;
'') ;;
*) usage >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
bench=$build/bench
profile=${PROFILE:-quick}
case "$profile" in
quick) threads="1 2 4 8" reps=3 ;;
full) threads="1 2 4 8 16" reps=5 ;;
*) echo "vm-bench: PROFILE=$profile: expected quick or full" >&2; exit 2 ;;
esac
policies="glibc sched-state spin-count spin futex"
# The patch's own cost: without the preload, and with it (sched_state).
kernel_policies="glibc sched-state"
export VCPUS=${VCPUS:-2}
mkdir -p "$bench"
date=$(date -u +%Y-%m-%dT%H:%MZ)
header=workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,status,accel,date

# Run part $1 on kernel image $2 named $3, $4 repetitions, numbered from
# $5 on; append its rows to rows.csv.
run_part() {
	local part=$1 image=$2 kernel=$3 nreps=$4 first=$5 list=$policies log accel
	log=$bench/$part-$kernel-$first.log
	[ "$part" = kernel ] && list=$kernel_policies
	echo "vm-bench: $part on $kernel ($(basename "$image")), PROFILE=$profile"
	TIMEOUT=${BENCH_TIMEOUT:-5400} "$top/vm-image/run-vm.sh" --kernel "$image" \
		"sh /workloads/run-bench.sh $part $kernel $nreps '$threads' '$list'" 2>&1 |
		tee "$log" | grep --line-buffered -v '^CSV,' || true
	accel=$(sed -n 's/^run-vm: [^,]*, \([a-z]*\), .*/\1/p' "$log" | head -n 1)
	grep '^CSV,' "$log" |
		awk -F, -v OFS=, -v first="$first" -v tail="${accel:-unknown},$date" \
			'{ $1 = ""; sub(/^,/, ""); $6 = $6 + first - 1; print $0, tail }' >>"$bench/rows.csv"
	if ! grep -q "^bench: \[\([0-9]*\)/\1\]" "$log"; then
		echo "vm-bench: the $part run on $kernel did not finish, see $log" >&2
		return 1
	fi
}

: >"$bench/rows.csv"
status=0
run_part locks "$build/bzImage" patched "$reps" 1 || status=1
# The two kernels cannot share a boot: alternate boots, one repetition
# each, so that drift of the host hits both alike.
for ((rep = 1; rep <= reps; rep++)); do
	run_part kernel "$build/bzImage-stock" stock 1 "$rep" || status=1
	run_part kernel "$build/bzImage" patched 1 "$rep" || status=1
done
{
	echo "$header"
	cat "$bench/rows.csv"
} >"$bench/results.csv"
rm -f "$bench/rows.csv"

"$top/workloads/summarize.sh" "$bench/results.csv" >"$bench/summary.md"
cat "$bench/summary.md"
"$top/workloads/plot.sh" "$bench/results.csv" "$bench" || status=1
echo "vm-bench: results in ${bench#"$top"/}/: results.csv, summary.md, *.svg"
exit "$status"
