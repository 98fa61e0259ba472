#!/usr/bin/env bash
# make vm-bench: every lock workload of workloads/defs in the guest, under
# every policy (glibc without a preload, glibc's own adaptive and PI
# mutexes, and libadaptive's policies), in balanced rotations over several
# boots; then the kernel patch's own cost on build/bzImage against
# build/bzImage-stock, by wall time and in guest instructions (icount).
# Results: build/bench/results.csv and kernel-cost.csv; summary.md and
# plots (SVG) from workloads/analyze.py.
set -euo pipefail
# mke2fs, for the disk, is in /usr/sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

usage() {
	cat <<EOF
usage: $0 [--help]

Environment:
  PROFILE   smoke: multimodal only, threads 1 4, 2 s runs, 2 boots, one set
                   of rotations, no kernel-cost part (checks the pipeline);
            quick (default): every lock workload, threads 1 2 4, 1 s
                   runs, 2 boots, one set, then the kernel's cost in
                   guest instructions (workloads/kernel-cost-icount.sh,
                   kernel-cost.csv); about 20 minutes here;
            full: threads 1 2 4 8 16, 5 s runs, 3 boots, two sets, the
                   kernel's cost by wall time over 10 alternating pairs
                   of boots (stock, patched), and in instructions; many
                   hours with every workload (WORKLOADS picks some).
            Policies: glibc, sched-state, spin-count and futex; the full
            profile adds spin, glibc-adaptive, kernel-spin, spin-single
            and sched-state-multi.
            A set is one rotation per policy, so that every policy runs
            once in every position of the order; the rotations of the
            sets are dealt out over the boots.
  SECONDS_PER_RUN, BOOTS, SETS, THREADS, WORKLOADS (names of
            workloads/defs), POLICIES override the profile. The sweep
            (multimodal-sweep-*) has thread counts of its own, in
            threads per vCPU. A policy named P-unfair is P without
            handoffs to starving waiters (ADAPTIVE_STARVE_US=10000000);
            summary.md compares P with it.
  VCPUS (default 2), MEM, ACCEL as for vm-image/run-vm.sh; BENCH_TIMEOUT
            (seconds per boot, default 5400).
Needs what make vm-bench builds first.
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
workloads=
# Every policy and ablation; the shorter profiles compare the default
# policy with glibc, the spin count and futex only, since a rotation
# set has as many runs per cell as there are policies, squared.
all_policies="glibc sched-state spin-count spin futex glibc-adaptive kernel-spin spin-single sched-state-multi"
policies="glibc sched-state spin-count futex"
case "$profile" in
smoke) threads="1 4" seconds=2 boots=2 sets=1 kernel_reps=0 icount=0 workloads=multimodal ;;
# Every lock workload in 20 minutes: 1 s runs (a run costs about 0.4 s
# more in the guest), and the kernel's cost in instructions only.
quick) threads="1 2 4" seconds=1 boots=2 sets=1 kernel_reps=0 icount=1 ;;
full) threads="1 2 4 8 16" seconds=5 boots=3 sets=2 kernel_reps=10 icount=1 policies=$all_policies ;;
*) echo "vm-bench: PROFILE=$profile: expected smoke, quick or full" >&2; exit 2 ;;
esac
threads=${THREADS:-$threads}
seconds=${SECONDS_PER_RUN:-$seconds}
boots=${BOOTS:-$boots}
sets=${SETS:-$sets}
workloads=${WORKLOADS:-$workloads}
policies=${POLICIES:-$policies}
case " $policies " in
*" glibc "*) ;;
*) echo "vm-bench: POLICIES must include glibc, the baseline of every ratio" >&2; exit 2 ;;
esac
# The patch's own cost: without the preload, and with it (sched_state).
kernel_policies="glibc sched-state"
export VCPUS=${VCPUS:-2}
mkdir -p "$bench"
disk=$bench/disk.img
# Plots of an earlier run would pass for this one's.
rm -f "$bench"/*.svg
date=$(date -u +%Y-%m-%dT%H:%MZ)
header=workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,status,accel,date,boot,seconds,fairness,p999_us,max_us

# Run part $1 on kernel image $2 named $3 in boot $4 with the rotations
# $5 of policies $6; append its rows to rows.csv.
run_part() {
	local part=$1 image=$2 kernel=$3 boot=$4 rotations=$5 list=$6 only=$workloads log accel
	# WORKLOADS picks lock workloads; the kernel part runs all of its own.
	[ "$part" = kernel ] && only=
	log=$bench/$part-$kernel-boot$boot.log
	echo "vm-bench: $part on $kernel ($(basename "$image")), boot $boot, rotations $rotations, PROFILE=$profile"
	# A new file system in every boot, for the workloads that write to
	# a disk (multimodal-fsync); 4 KiB blocks, the size of their records.
	mke2fs -q -F -t ext4 -b 4096 "$disk" 64M >/dev/null ||
		{ echo "vm-bench: mke2fs could not make $disk" >&2; return 1; }
	TIMEOUT=${BENCH_TIMEOUT:-5400} "$top/vm-image/run-vm.sh" --kernel "$image" --disk "$disk" \
		"sh /workloads/run-bench.sh $part $kernel $boot '$rotations' '$threads' '$list' $seconds '$only'" 2>&1 |
		tee "$log" | grep --line-buffered -v '^CSV,' || true
	accel=$(sed -n 's/^run-vm: [^,]*, \([a-z]*\), .*/\1/p' "$log" | head -n 1)
	# Guest fields 2-12 are the first 11 columns, 13-17 the last five.
	grep '^CSV,' "$log" |
		awk -F, -v OFS=, -v mid="${accel:-unknown},$date" \
			'{ print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, mid, $13, $14, $15, $16, $17 }' >>"$bench/rows.csv"
	if ! grep -q "^bench: \[\([0-9]*\)/\1\]" "$log"; then
		echo "vm-bench: the $part run on $kernel in boot $boot did not finish, see $log" >&2
		return 1
	fi
}

: >"$bench/rows.csv"
status=0
# Rotation r of the sets goes to boot (r mod boots) + 1: each boot gets
# every boots-th rotation, and the positions of every policy are spread
# over all boots.
npolicies=$(wc -w <<<"$policies")
for ((boot = 1; boot <= boots; boot++)); do
	rotations=
	for ((r = boot - 1; r < sets * npolicies; r += boots)); do
		rotations+="${rotations:+ }$r"
	done
	[ -n "$rotations" ] || continue
	run_part locks "$build/bzImage" patched "$boot" "$rotations" "$policies" || status=1
done
# The two kernels cannot share a boot: alternate boots, one repetition
# each, so that drift of the host hits both alike.
for ((rep = 1; rep <= kernel_reps; rep++)); do
	run_part kernel "$build/bzImage-stock" stock "$rep" "$((rep - 1))" "$kernel_policies" || status=1
	run_part kernel "$build/bzImage" patched "$rep" "$((rep - 1))" "$kernel_policies" || status=1
done
{
	echo "$header"
	cat "$bench/rows.csv"
} >"$bench/results.csv"
rm -f "$bench/rows.csv" "$disk"
# The same cost counted in guest instructions, which wall time under TCG
# cannot resolve: build/bench/kernel-cost.csv.
cost_args=()
rm -f "$bench/kernel-cost.csv"
if ((icount)); then
	echo "[vm-bench] kernel cost in guest instructions (icount), about a minute"
	if "$top/workloads/kernel-cost-icount.sh" -r 5 >/dev/null; then
		cost_args=(--kernel-cost "$bench/kernel-cost.csv")
	else
		status=1
	fi
fi

command="PROFILE=$profile THREADS='$threads' SECONDS_PER_RUN=$seconds BOOTS=$boots SETS=$sets"
[ -n "$workloads" ] && command+=" WORKLOADS='$workloads'"
[ -n "${POLICIES:-}" ] && command+=" POLICIES='$policies'"
python3 "$top/workloads/analyze.py" --command "$command make vm-bench" "${cost_args[@]}" \
	"$bench/results.csv" "$bench" || status=1
cat "$bench/summary.md"
echo "vm-bench: results in ${bench#"$top"/}/: results.csv, summary.md, *.svg"
exit "$status"
