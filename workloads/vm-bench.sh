#!/usr/bin/env bash
# make vm-bench: every lock workload of workloads/defs in the guest, under
# every policy (glibc without a preload, glibc's own adaptive and PI
# mutexes, and libadaptive's policies), in balanced orders over several
# boots; then the kernel patch's own cost on build/bzImage against
# build/bzImage-stock, by wall time and in guest instructions (icount).
# Results: build/bench/results.csv and kernel-cost.csv; summary.md and
# plots (SVG) from workloads/analyze.py.
set -euo pipefail
# mke2fs, for the disk, is in /usr/sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

usage() {
	cat <<EOF
usage: $0 [--help | --check]

--check: check the settings below and exit (make vm-bench does so before
it builds anything).

Environment:
  PROFILE   smoke: multimodal only, threads 1 4, 2 s runs, 2 boots, 4
                   repetitions of glibc, sched-state, spin-count and
                   futex, no kernel-cost part (checks the pipeline);
            quick (default): every lock workload under every policy,
                   threads 1 2 4, 1 s runs, 2 repetitions over 2 boots,
                   then the kernel's cost in guest instructions
                   (workloads/kernel-cost-icount.sh, 3 runs,
                   kernel-cost.csv);
                   about 19 to 20 minutes here. With 2 pairs per cell its
                   intervals are very wide (Student's t with 1 degree of
                   freedom): it shows where each policy stands, and does
                   not judge the contract;
            contract: every lock workload under glibc and sched-state,
                   and the control (empty-preload) at 1 thread, threads
                   1 2 4, 1 s runs, 24 repetitions over 3 boots:
                   the default policy's contract, with intervals of
                   about +-5% in most cells (8 repetitions, about 20
                   minutes, give +-8 to 10%); lock runs took 56
                   minutes here, 81 from a fresh clone with the
                   kernels;
            full: every lock workload under every policy, threads 1 2 4,
                   5 s runs, 2 repetitions over 2 boots, the kernel's
                   cost by wall time over 10 alternating pairs of boots
                   (stock, patched), and in instructions (5 runs);
                   86 minutes here (2026-12-05, before the 28 runs of
                   the control).
            In its repetition r, the c-th cell (a workload at a thread
            count) of those that run the same N policies runs them in
            the order of row r + c of a Williams design: N
            repetitions put every policy in every position of
            the cell, and N (2N for an odd N) right after every other
            policy equally often, so that neither the place in the
            order nor the run before favours a policy. Fewer
            repetitions give each cell some rows, and enough cells
            together all (rows - repetitions + 1 cells with the same
            policies). The repetitions are dealt out over the boots. A
            cell runs the policies that its definition does not skip
            (skip_policies: kernel-spin in the sysbench mutex ones and
            ptsematest); empty-preload (a preload that defines nothing,
            the harness's control) runs in 1-thread cells only, where
            no policy's waiting can matter, and the profiles leave it
            out where THREADS has no 1.
  SECONDS_PER_RUN, BOOTS, REPS, THREADS, WORKLOADS (names of
            workloads/defs), POLICIES override the profile; SETS=K is
            REPS=K times the number of policies. The sweep
            (multimodal-sweep-*) has thread counts of its own, in
            threads per vCPU. A policy named P-unfair is P without
            handoffs to starving waiters (ADAPTIVE_STARVE_US=10000000);
            summary.md compares P with it. P-spinN (and P-spinN-unfair)
            is P with a spin bound of N us (ADAPTIVE_SPIN_US=N), for the
            policies that spin for a time.
  VCPUS (default 2), MEM, ACCEL as for vm-image/run-vm.sh; BENCH_TIMEOUT
            (seconds per boot, default 5400).
Needs what make vm-bench builds first.
EOF
}
check_only=
case "${1:-}" in
-h | --help) usage; exit 0 ;;
--check) check_only=1 ;;
'') ;;
*) usage >&2; exit 2 ;;
esac

# A setting that cannot run: its message, and exit status 2.
refuse() {
	echo "vm-bench: $*" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
bench=$build/bench
profile=${PROFILE:-quick}
workloads=
# Every policy, ablation and control.
# icount: runs of the instruction counts, 0 for none.
all_policies="glibc sched-state spin-count spin futex glibc-adaptive kernel-spin spin-single sched-state-multi empty-preload"
case "$profile" in
smoke) threads="1 4" seconds=2 boots=2 reps=4 kernel_reps=0 icount=0 workloads=multimodal
	policies="glibc sched-state spin-count futex" ;;
quick) threads="1 2 4" seconds=1 boots=2 reps=2 kernel_reps=0 icount=3 policies=$all_policies ;;
contract) threads="1 2 4" seconds=1 boots=3 reps=24 kernel_reps=0 icount=0
	policies="glibc empty-preload sched-state" ;;
full) threads="1 2 4" seconds=5 boots=2 reps=2 kernel_reps=10 icount=5 policies=$all_policies ;;
*) refuse "PROFILE=$profile: expected smoke, quick, contract or full" ;;
esac
threads=${THREADS:-$threads}
seconds=${SECONDS_PER_RUN:-$seconds}
boots=${BOOTS:-$boots}
workloads=${WORKLOADS:-$workloads}
policies=${POLICIES:-$policies}
for var in SECONDS_PER_RUN BOOTS REPS SETS; do
	case "${!var:-1}" in
	'' | *[!0-9]* | 0*) refuse "$var=${!var}: expected a whole number of at least 1" ;;
	esac
done
# Settings that would leave a part with no runs at all, or run another
# policy than the one named, are refused here, before anything is built.
[ -n "${threads// /}" ] || refuse "THREADS: no thread count"
for t in $threads; do
	case "$t" in
	*[!0-9]* | 0*) refuse "THREADS: $t is not a thread count (a whole number of at least 1)" ;;
	esac
done
[ -z "${WORKLOADS+set}" ] || [ -n "${WORKLOADS// /}" ] || refuse "WORKLOADS: no workload named"
for w in $workloads; do
	def=$top/workloads/defs/$w.sh
	case "$w" in
	*/*) refuse "WORKLOADS: $w: a name of workloads/defs, not a path" ;;
	esac
	grep -qx 'part=locks' "$def" 2>/dev/null || refuse "WORKLOADS: $w is not a lock workload of workloads/defs"
	# Thread counts per vCPU (threads_per_vcpu) are the definition's own.
	grep -q '^threads_per_vcpu=' "$def" && continue
	min=$(sed -n 's/^min_threads=//p' "$def")
	runs=
	for t in $threads; do
		[ "$t" -ge "${min:-1}" ] && runs=1
	done
	[ -n "$runs" ] || refuse "WORKLOADS: $w runs at $min threads or more, and THREADS is '$threads'"
done
for p in $policies; do
	case "$p" in
	glibc-unfair | glibc-adaptive-unfair | kernel-spin-unfair | empty-preload-unfair)
		refuse "POLICIES: $p: only libadaptive's policies have a variant without handoffs" ;;
	esac
	base=${p%-unfair}
	case "$base" in
	*-unfair-spin*) refuse "POLICIES: $p: -spinN comes before -unfair" ;;
	*-spin[0-9]*)
		us=${base##*-spin}
		base=${base%-spin*}
		# Seven digits at most: a longer N would overflow the comparison.
		case "$us" in
		*[!0-9]* | 0*) us= ;;
		esac
		if [ -z "$us" ] || [ ${#us} -gt 7 ] || [ "$us" -gt 1000000 ]; then
			refuse "POLICIES: $p: the spin bound -spinN is N us, 1 to 1000000"
		fi
		case "$base" in
		sched-state | spin | spin-single | sched-state-multi) ;;
		*) refuse "POLICIES: $p: only sched-state, spin, spin-single and sched-state-multi spin for a time" ;;
		esac
		;;
	esac
	case " $all_policies " in
	*" $base "*) ;;
	*) refuse "POLICIES: $p is none of $all_policies (or one of them with -spinN or -unfair)" ;;
	esac
done
# The control runs at 1 thread only: a profile leaves it out where no
# thread count is 1; a list of the user's that names it is refused.
if [[ " $threads " != *" 1 "* ]]; then
	[[ " ${POLICIES:-} " != *" empty-preload "* ]] ||
		refuse "POLICIES: empty-preload runs at 1 thread only, and THREADS is '$threads'"
	kept=
	for p in $policies; do
		[ "$p" = empty-preload ] || kept+="${kept:+ }$p"
	done
	policies=$kept
fi
npolicies=$(wc -w <<<"$policies")
[ -n "${SETS:-}" ] && reps=$((SETS * npolicies))
reps=${REPS:-$reps}
case " $policies " in
*" glibc "*) ;;
*) refuse "POLICIES must include glibc, the baseline of every ratio" ;;
esac
[ -z "$check_only" ] || exit 0
# The patch's own cost: without the preload, and with it (sched_state).
kernel_policies="glibc sched-state"
export VCPUS=${VCPUS:-2}
mkdir -p "$bench"
disk=$bench/disk.img
# The outputs of an earlier run would pass for this one's (its summary,
# plots and results, the logs of boots this run may not make, its
# instruction counts, which kernel-cost-icount.sh writes here too, the
# rows of one that stopped): they move to previous/, replacing what is
# there only when there is something to move, so that runs that fail
# lose none of them.
earlier_outputs() {
	find "$bench" -maxdepth 1 -type f \( -name '*.svg' -o -name '*.log' -o -name summary.md \
		-o -name results.csv -o -name rows.csv -o -name 'kernel-cost*' \) "$@"
}
if [ -n "$(earlier_outputs -print -quit)" ]; then
	rm -rf "$bench/previous"
	mkdir "$bench/previous"
	earlier_outputs -exec mv -t "$bench/previous" {} +
fi
date=$(date -u +%Y-%m-%dT%H:%MZ)
header=workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,status,accel,date,boot,seconds,fairness,p999_us,max_us,position,vcpu_speed

# Run part $1 on kernel image $2 named $3 in boot $4 with the rows
# $5 of policies $6; append its rows to rows.csv.
run_part() {
	local part=$1 image=$2 kernel=$3 boot=$4 rows=$5 list=$6 only=$workloads log accel
	# WORKLOADS picks lock workloads; the kernel part runs all of its own.
	[ "$part" = kernel ] && only=
	log=$bench/$part-$kernel-boot$boot.log
	echo "vm-bench: $part on $kernel ($(basename "$image")), boot $boot, rows $rows, PROFILE=$profile"
	# A new file system in every boot, for the workloads that write to
	# a disk (multimodal-fsync); 4 KiB blocks, the size of their records.
	mke2fs -q -F -t ext4 -b 4096 "$disk" 64M >/dev/null ||
		{ echo "vm-bench: mke2fs could not make $disk" >&2; return 1; }
	TIMEOUT=${BENCH_TIMEOUT:-5400} "$top/vm-image/run-vm.sh" --kernel "$image" --disk "$disk" \
		"sh /workloads/run-bench.sh $part $kernel $boot '$rows' '$threads' '$list' $seconds '$only'" 2>&1 |
		tee "$log" | grep --line-buffered -v '^CSV,' || true
	accel=$(sed -n 's/^run-vm: [^,]*, \([a-z]*\), .*/\1/p' "$log" | head -n 1)
	# Guest fields 2-12 are the first 11 columns, 13-19 the last seven.
	grep '^CSV,' "$log" |
		awk -F, -v OFS=, -v mid="${accel:-unknown},$date" \
			'{ print $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, mid, $13, $14, $15, $16, $17, $18, $19 }' >>"$bench/rows.csv"
	if ! grep -q "^bench: \[\([0-9]*\)/\1\]" "$log"; then
		echo "vm-bench: the $part run on $kernel in boot $boot did not finish, see $log" >&2
		return 1
	fi
}

: >"$bench/rows.csv"
status=0
# The time left after $1 of $2 repetitions of one part that started at
# $3, in minutes, by the time those took.
report_progress() {
	local elapsed=$((SECONDS - $3))
	echo "vm-bench: $1 of $2 repetitions of this part in $((elapsed / 60)) min $((elapsed % 60)) s;" \
		"about $(((elapsed * ($2 - $1) / $1 + 59) / 60)) min left in it"
}

# Repetition r (row r) goes to boot (r mod boots) + 1: each boot gets
# every boots-th one, and the positions of every policy are spread over
# all boots.
lock_boots=$((reps < boots ? reps : boots))
part_start=$SECONDS
done_reps=0
for ((boot = 1; boot <= lock_boots; boot++)); do
	rows=
	for ((r = boot - 1; r < reps; r += boots)); do
		rows+="${rows:+ }$r"
		done_reps=$((done_reps + 1))
	done
	run_part locks "$build/bzImage" patched "$boot" "$rows" "$policies" || status=1
	report_progress "$done_reps" "$reps" "$part_start"
done
# The two kernels cannot share a boot: alternate boots, one repetition
# each, so that drift of the host hits both alike.
part_start=$SECONDS
for ((rep = 1; rep <= kernel_reps; rep++)); do
	run_part kernel "$build/bzImage-stock" stock "$rep" "$((rep - 1))" "$kernel_policies" || status=1
	run_part kernel "$build/bzImage" patched "$rep" "$((rep - 1))" "$kernel_policies" || status=1
	report_progress "$rep" "$kernel_reps" "$part_start"
done
{
	echo "$header"
	cat "$bench/rows.csv"
} >"$bench/results.csv"
rm -f "$bench/rows.csv" "$disk"
# The same cost counted in guest instructions, which wall time under TCG
# cannot resolve: build/bench/kernel-cost.csv.
cost_args=()
if ((icount)); then
	echo "[vm-bench] kernel cost in guest instructions (icount), about a minute"
	if "$top/workloads/kernel-cost-icount.sh" -r "$icount" >/dev/null; then
		cost_args=(--kernel-cost "$bench/kernel-cost.csv")
	else
		status=1
	fi
fi

command="PROFILE=$profile THREADS='$threads' SECONDS_PER_RUN=$seconds BOOTS=$boots REPS=$reps"
# The machine's settings too: the figures depend on them.
[ -n "${ACCEL:-}" ] && command="ACCEL=$ACCEL $command"
[ "$VCPUS" != 2 ] && command="VCPUS=$VCPUS $command"
[ -n "${MEM:-}" ] && command="MEM=$MEM $command"
[ -n "${KERNEL_CMDLINE:-}" ] && command="KERNEL_CMDLINE='$KERNEL_CMDLINE' $command"
[ -n "$workloads" ] && command+=" WORKLOADS='$workloads'"
[ -n "${POLICIES:-}" ] && command+=" POLICIES='$policies'"
python3 "$top/workloads/analyze.py" --command "$command make vm-bench" "${cost_args[@]}" \
	"$bench/results.csv" "$bench" || status=1
[ ! -f "$bench/summary.md" ] || cat "$bench/summary.md"
echo "vm-bench: results in ${bench#"$top"/}/: results.csv, summary.md, *.svg"
exit "$status"
