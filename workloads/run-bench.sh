#!/bin/sh
# Run the benchmark matrix inside the guest (busybox sh); the host side
# is workloads/vm-bench.sh. Prints progress, and one "CSV," line per run:
#
#   workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,status,boot,seconds,fairness,p999_us,max_us,position,vcpu_speed
#
# usage: run-bench.sh locks|kernel KERNEL BOOT "ROWS..." "THREADS..." "POLICIES..." SECONDS [WORKLOADS]
#   locks:  the workloads of part=locks, at each thread count, each policy;
#   kernel: those of part=kernel (the patch's own cost), at their thread count.
#   Each R of ROWS is one repetition (rep R+1), in which each cell runs
#   the policies it does not skip in an order of a Williams design
#   (position: a policy's place in that order): over N repetitions of
#   N policies (2N for an odd N), every policy in every position and
#   right after every other policy equally often in every cell; the host
#   spreads the repetitions over boots. Each run lasts SECONDS where the
#   workload can be timed.
#   Before its repetitions, each workload runs once, discarded (warm-up).
#   WORKLOADS (a space-separated list) limits the part to those names; a
#   definition's skip_policies are policies it does not run; its
#   wl_command THREADS SECONDS POLICY prints a run's command; its
#   alone_at_1_thread=1 says that at 1 thread its one thread runs alone
#   (no thread of its own beside it), where a run also measures the
#   vCPUs' speed (cputime --vcpu-speed).
#   Policy glibc runs without a preload; glibc-adaptive and kernel-spin
#   with glibc's own mutex kinds (/workloads/lib<policy>.so); empty-preload,
#   in 1-thread cells only, with a preload that defines nothing
#   (/workloads/libempty-preload.so, the harness's control); the others
#   with LD_PRELOAD=/usr/lib/libadaptive.so ADAPTIVE_POLICY=<policy>, where
#   <policy>-spinN adds ADAPTIVE_SPIN_US=N and <policy>-unfair
#   ADAPTIVE_STARVE_US=10000000 (no handoffs).
#   BENCH_DEFS (default /workloads/defs) is the directory of definitions.
# shellcheck disable=SC1090,SC2154 # the definitions set min_threads etc.
set -u

if [ $# -ne 7 ] && [ $# -ne 8 ]; then
	sed -n '2,31s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
part=$1
kernel=$2
boot=$3
rows=$4
thread_counts=$5
policies=$6
seconds=$7
only=${8:-}
defs=${BENCH_DEFS:-/workloads/defs}
lib=/usr/lib/libadaptive.so
out=/tmp/bench.out
vcpus=$(nproc)
# The disk that vm-bench attaches, for workloads that write to one.
if [ -b /dev/vda ]; then
	mkdir -p /mnt/disk
	mount -t ext4 /dev/vda /mnt/disk || echo "bench: /dev/vda did not mount on /mnt/disk"
fi

# ops_per_sec and cpu_ns_per_op from the cputime line, for $1 threads of
# the sourced definition, whose output is in $2: the kernel part's
# fixed-work runs (wall time of the process; issue 10, point 5, is left).
parse_cputime() {
	sed -n 's/^cputime: status=0 wall_ns=\([0-9]*\) cpu_ns=\([0-9]*\).*/\1 \2/p' "$2" |
		awk -v ops="$(wl_ops "$1")" '{ printf "ops_per_sec=%.1f cpu_ns_per_op=%.0f seconds=%.3f\n",
			ops * 1e9 / $1, $2 / ops, $1 / 1e9 }'
}

# sysbench's rate over its own measured interval ("total time"), in
# events times $2 per second; CPU per unit from the cputime line.
sysbench_rate() {
	awk -v units="$2" '
		/total time:/ { t = $3; sub(/s$/, "", t) }
		/total number of events:/ { events = $NF }
		/^cputime: status=0/ { split($4, c, "="); cpu = c[2] }
		END { if (t > 0 && events > 0)
			printf "seconds=%s ops_per_sec=%.1f cpu_ns_per_op=%.0f\n",
				t, events * units / t, cpu / (events * units) }' "$1"
}

# The kernel part's option (-s) under policy $1 = sched-state: its
# programs then attach a state to every thread, as libadaptive does for
# an owner whose waiters watch it, so that the patched kernel's cost for
# such threads shows.
own_state_option() {
	[ "$1" != sched-state ] || printf '%s\n' -s
}

# The values of the comma-separated keys $1 in the key=value words of $2,
# comma-separated, empty where missing. One process: under TCG each costs
# milliseconds, and a run has many keys.
fields() {
	echo "$2" | awk -v keys="$1" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n = split(keys, k, ",")
		for (j = 1; j <= n; j++) printf "%s%s", v[k[j]], j < n ? "," : "\n" }'
}

# The definitions of this part.
workloads=
for def in "$defs"/*.sh; do
	name=$(basename "$def" .sh)
	if grep -q "^part=$part\$" "$def" &&
		{ [ -z "$only" ] || echo " $only " | grep -q " $name "; }; then
		workloads="$workloads $name"
	fi
done

# The N policies $3 in their order for repetition $1 of cell $2: row
# k = ($1 + $2) mod N of a Williams design, which puts policy number
# (w_i + k) mod N at place i, where w is 0, 1, N-1, 2, N-2, ... Together
# its N rows put every policy in every place once and, for an even N,
# right after every other policy once, so that whatever a run leaves
# behind for the next (caches, memory, TCG's translations) falls on
# every policy alike; rotations of one order (row k = row 0 shifted by
# k) would put glibc after the same policy every time. An odd N needs
# the rows backwards too: a cell runs them backwards in its second N
# repetitions, and every other cell from its first, so that the first N
# repetitions of a cell are one square and its first 2N the whole design.
ordered() {
	echo "$3" | awk -v r="$1" -v c="$2" 'NF {
		n = NF
		k = (r + c) % n
		backwards = n % 2 ? (int(r / n) + c) % 2 : 0
		for (i = 0; i < n; i++)
			w[i] = i % 2 ? (i + 1) / 2 : (n - i / 2) % n
		for (i = 0; i < n; i++)
			printf "%s ", $((w[backwards ? n - 1 - i : i] + k) % n + 1)
	}'
}

# The policies that a cell whose skip list is $1 runs.
cell_policies() {
	for p in $policies; do
		case ",$1," in
		*",$p,"*) ;;
		*) printf '%s ' "$p" ;;
		esac
	done
}

# The thread counts of the sourced definition: its own per vCPU
# (threads_per_vcpu, rounded, at least 1) where it fixes them.
counts() {
	if [ "$part" = kernel ]; then
		echo "$fixed_threads"
		return
	fi
	if [ -n "${threads_per_vcpu:-}" ]; then
		for r in $threads_per_vcpu; do
			awk -v r="$r" -v n="$vcpus" 'BEGIN { t = int(r * n + 0.5); print t < 1 ? 1 : t }'
		done | uniq | tr '\n' ' '
		return
	fi
	for t in $thread_counts; do
		[ "$t" -ge "$min_threads" ] && printf '%s ' "$t"
	done
}

# The cells of this part, one per line: workload, threads, the policies
# the cell runs (comma-separated: those the definition does not skip,
# skip_policies; empty-preload runs only where no policy can matter, in
# the 1-thread cells: there its ratio to glibc is the harness's bias),
# and the cell's index among the cells that run the same policies, which
# picks its rows of the design: an index among all cells would give the
# 1-thread cells, every third of a profile's, the same few rows.
cells=/tmp/bench.cells
for w in $workloads; do
	(
		. "$defs/$w.sh"
		skip=$(echo "${skip_policies:-}" | tr -s ' ' ',')
		for t in $(counts); do
			skip_here=$skip
			[ "$t" -gt 1 ] && skip_here=${skip:+$skip,}empty-preload
			echo "$w $t $(cell_policies "$skip_here" | tr ' ' ',')"
		done
	)
done | awk 'NF == 3 { print $0, index_in_set[$3]++ }' >"$cells"

# The runs, one per line: rep workload threads policy position, rep 0 a
# warm-up: each workload's first run in this boot, at its largest thread
# count under glibc, whose figures are dropped. With fewer repetitions
# than the design's rows, each cell runs some of them, and enough cells
# with the same policies together all (rows - repetitions + 1 cells).
plan=/tmp/bench.plan
awk '{ last[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END { for (i = 1; i <= n; i++) print 0, order[i], last[order[i]], "glibc", 0 }' "$cells" >"$plan"
for r in $rows; do
	while read -r w t cell_list c; do
		position=1
		for p in $(ordered "$r" "$c" "$(echo "$cell_list" | tr ',' ' ')"); do
			echo "$((r + 1)) $w $t $p $position"
			position=$((position + 1))
		done
	done <"$cells"
done >>"$plan"

# Our multimodal program's busy loop, calibrated once for the boot and
# given to each of its runs (multimodal -c), so that the runs of a pair do
# the same work however fast TCG is at the start of each.
multimodal_calibration=
case " $workloads " in
*" multimodal"*)
	multimodal_calibration=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
	if [ -z "$multimodal_calibration" ]; then
		echo "bench: /workloads/multimodal -C printed no calibration" >&2
		exit 1
	fi
	;;
esac

# A definition's co-runner (corunner: a command that runs until killed)
# competes for the CPUs during its runs, without the preload and outside
# their CPU time. It runs from the first of a workload's consecutive runs
# in the plan to the last (started per run, it cost a second and its own
# start-up each time); it has a second to start first. The command goes
# to the background itself, so that $! is its pid (not a subshell's,
# whose kill would leave it running).
corunner_workload=
corunner_pid=
# Whether the co-runner, if any, still runs: by its state in /proc, since
# kill -0 passes a zombie that the shell has not reaped yet.
corunner_alive() {
	[ -z "$corunner_pid" ] && return 0
	stat=
	read -r stat 2>/dev/null <"/proc/$corunner_pid/stat"
	# The state follows the command name, in parentheses.
	stat=${stat##*) }
	[ -n "$stat" ] && [ "${stat%% *}" != Z ]
}
stop_corunner() {
	[ -n "$corunner_pid" ] || return 0
	# (Quietly: the shell reports a killed job as "Terminated".)
	{
		kill "$corunner_pid"
		wait "$corunner_pid"
	} 2>/dev/null
	corunner_pid=
}
# Start workload $1's co-runner unless it runs already.
start_corunner() {
	[ "$1" = "$corunner_workload" ] && corunner_alive && return 0
	stop_corunner
	corunner_workload=$1
	corunner_command=$(. "$defs/$1.sh" && echo "${corunner:-}")
	[ -n "$corunner_command" ] || return 0
	eval "$corunner_command </dev/null >/dev/null 2>&1 &"
	corunner_pid=$!
	sleep 1
}

# The environment that runs libadaptive's policy $1: P, P-spinN (a spin
# bound of N us) and either with -unfair (no handoffs: a starvation bound
# of 10 s), as workloads/vm-bench.sh checked them.
library_preload() {
	policy=${1%-unfair}
	options=
	[ "$policy" = "$1" ] || options=" ADAPTIVE_STARVE_US=10000000"
	case "$policy" in
	*-spin[0-9]*)
		options=" ADAPTIVE_SPIN_US=${policy##*-spin}$options"
		policy=${policy%-spin*}
		;;
	esac
	echo "LD_PRELOAD=$lib ADAPTIVE_POLICY=$policy$options"
}

total=$(wc -l <"$plan")
done_runs=0
start=$(date +%s)
echo "bench: $part on the $kernel kernel, boot $boot, $vcpus vCPUs, ${seconds}s runs${multimodal_calibration:+ (multimodal at $multimodal_calibration iterations/ms)}: $total runs of"
for w in $workloads; do
	(. "$defs/$w.sh" && echo "    $w: $description")
done
while read -r rep w t p position; do
	start_corunner "$w"
	(
		. "$defs/$w.sh"
		cmd=$(wl_command "$t" "$seconds" "$p")
		case "$p" in
		glibc) preload= ;;
		glibc-adaptive | kernel-spin | empty-preload) preload="LD_PRELOAD=/workloads/lib$p.so" ;;
		*) preload=$(library_preload "$p") ;;
		esac
		# One thread runs at the speed of its vCPU's host CPU, which on
		# this project's hosts changes from second to second:
		# the speed over the run lets the analysis compare one-thread runs
		# at equal speed. Only where that thread runs alone: with others
		# (more threads, or a program's background threads) the policy
		# decides which vCPUs are busy, so the speed is no longer the
		# host's alone, and the sampler would preempt lock holders
		# (workloads/vcpu_speed.h).
		speed_option=
		[ "$t" = 1 ] && [ "${alone_at_1_thread:-}" = 1 ] && speed_option=--vcpu-speed
		# A run may take twice its time plus start-up before it is killed.
		# (Not from the plan, which is this loop's standard input.)
		eval "$preload timeout $((2 * ${seconds%.*} + 120)) /workloads/cputime $speed_option $cmd" </dev/null >"$out" 2>&1
		rc=$?
		speed=$(sed -n 's/^cputime: .* vcpu_speed=\([0-9.]*\)$/\1/p' "$out")
		result=$(wl_parse "$t" "$out")
		# A co-runner that died early leaves a run without competition
		# (and the next run starts another).
		if ! corunner_alive; then
			status="corunner-died"
		elif [ "$rc" -ne 0 ]; then
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
		if [ "$rep" -gt 0 ]; then
			echo "CSV,$w,$kernel,$p,$t,$vcpus,$rep,$(fields ops_per_sec,cpu_ns_per_op,p50_us,p99_us "$result"),$status,$boot,$(fields seconds,fairness,p999_us,max_us "$result"),$position,$speed"
		fi
	)
	done_runs=$((done_runs + 1))
	elapsed=$(($(date +%s) - start))
	left=$((elapsed * (total - done_runs) / done_runs))
	label="rep=$rep"
	[ "$rep" = 0 ] && label="warm-up, discarded"
	echo "bench: [$done_runs/$total] $w threads=$t policy=$p $label; ${elapsed}s elapsed, about ${left}s left in this boot"
done <"$plan"
stop_corunner
