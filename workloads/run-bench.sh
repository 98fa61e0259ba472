#!/bin/sh
# Run the benchmark matrix inside the guest (busybox sh); the host side
# is workloads/vm-bench.sh. Prints progress, and one "CSV," line per run:
#
#   workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,status
#
# usage: run-bench.sh locks|kernel KERNEL REPS "THREADS..." "POLICIES..."
#   locks:  the workloads of part=locks, at each thread count, each policy;
#   kernel: those of part=kernel (the patch's own cost), at their thread count.
#   Policy glibc runs without the preload; the others with
#   LD_PRELOAD=/usr/lib/libadaptive.so ADAPTIVE_POLICY=<policy>.
# shellcheck disable=SC1090,SC2154 # the definitions set min_threads etc.
set -u

if [ $# -ne 5 ]; then
	sed -n '2,12s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
part=$1
kernel=$2
reps=$3
thread_counts=$4
policies=$5
defs=/workloads/defs
lib=/usr/lib/libadaptive.so
out=/tmp/bench.out
vcpus=$(nproc)

# ops_per_sec and cpu_ns_per_op from the cputime line, for $1 threads of
# the sourced definition, whose output is in $2.
parse_cputime() {
	sed -n 's/^cputime: status=0 wall_ns=\([0-9]*\) cpu_ns=\([0-9]*\)$/\1 \2/p' "$2" |
		awk -v ops="$(wl_ops "$1")" '{ printf "ops_per_sec=%.1f cpu_ns_per_op=%.0f\n",
			ops * 1e9 / $1, $2 / ops }'
}

field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# The definitions of this part.
workloads=
for def in "$defs"/*.sh; do
	if grep -q "^part=$part\$" "$def"; then
		workloads="$workloads $(basename "$def" .sh)"
	fi
done

# The policies in rotated order for rep $1, so that drift hits all alike.
rotated() {
	# shellcheck disable=SC2086 # split the list
	set -- $(($1 % $(echo "$policies" | wc -w))) $policies
	shift_by=$1
	shift
	i=0
	for p in "$@"; do
		[ "$i" -ge "$shift_by" ] && printf '%s ' "$p"
		i=$((i + 1))
	done
	i=0
	for p in "$@"; do
		[ "$i" -lt "$shift_by" ] && printf '%s ' "$p"
		i=$((i + 1))
	done
}

# The runs, one per line: rep workload threads policy.
plan=/tmp/bench.plan
: >"$plan"
rep=1
while [ "$rep" -le "$reps" ]; do
	for w in $workloads; do
		(
			. "$defs/$w.sh"
			counts=$thread_counts
			[ "$part" = kernel ] && counts=$fixed_threads
			for t in $counts; do
				[ "$part" = locks ] && [ "$t" -lt "$min_threads" ] && continue
				for p in $(rotated "$rep"); do
					echo "$rep $w $t $p"
				done
			done
		) >>"$plan"
	done
	rep=$((rep + 1))
done

total=$(wc -l <"$plan")
done_runs=0
start=$(date +%s)
echo "bench: $part on the $kernel kernel, $vcpus vCPUs: $total runs of"
for w in $workloads; do
	(. "$defs/$w.sh" && echo "    $w: $description")
done
while read -r rep w t p; do
	(
		. "$defs/$w.sh"
		cmd=$(wl_command "$t")
		if [ "$p" = glibc ]; then
			eval "timeout 300 /workloads/cputime $cmd" >"$out" 2>&1
		else
			eval "LD_PRELOAD=$lib ADAPTIVE_POLICY=$p timeout 300 /workloads/cputime $cmd" \
				>"$out" 2>&1
		fi
		rc=$?
		result=$(wl_parse "$t" "$out")
		if [ "$rc" -ne 0 ]; then
			status="exit-$rc"
		elif [ -z "$result" ]; then
			status=unparsed-output
		else
			status=ok
		fi
		if [ "$status" != ok ]; then
			echo "bench: $w threads=$t policy=$p rep=$rep failed ($status); output tail:"
			tail -n 5 "$out" | sed 's/^/    /'
		fi
		echo "CSV,$w,$kernel,$p,$t,$vcpus,$rep,$(field ops_per_sec "$result"),$(field cpu_ns_per_op "$result"),$(field p50_us "$result"),$(field p99_us "$result"),$status"
	)
	done_runs=$((done_runs + 1))
	elapsed=$(($(date +%s) - start))
	left=$((elapsed * (total - done_runs) / done_runs))
	echo "bench: [$done_runs/$total] $w threads=$t policy=$p rep=$rep; ${elapsed}s elapsed, about ${left}s left"
done <"$plan"
