# shellcheck shell=sh disable=SC2034,SC2154 # sourced by the multimodal-sweep-* definitions
# Not a workload (no part= line): what the points of the multimodal sweep
# share, fixed before it was run (issue 11). Our multimodal program
# (multimodal.sh) with on-CPU sections of 1 us and 10 us in equal parts,
# 5 to 20 us of work outside the lock (uniform), and, in a share of the
# sections that each point sets, an owner asleep for 20 to 200 us
# (uniform): 0, 1, 5 or 20%. At 0.5, 1 and 2 threads per vCPU (1, 2 and
# 4 threads on 2 vCPUs), whatever the profile's thread counts. The first
# run also had 1.5 per vCPU: its ratios to glibc were those of 2 or 4
# threads, within their intervals, and it made the quick profile too
# long for its 20 minutes.
#
# The load the threads offer the lock (mean hold over mean cycle, per
# thread, before any wait; multimodal's sleeps last what they ask, with a
# timer slack of 1 ns): 5.5 / 18 = 0.31 at 0%, 0.34 at 1%, 0.46 at 5%,
# 0.68 at 20%. So one thread per vCPU keeps it below 1 at every point but
# 20%, and two per vCPU saturate it everywhere but at 0% and 1%: the
# sweep crosses from a lock that is mostly free to one that never is.
# Under TCG the wake-ups add to the sleeps, so these are lower bounds.
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
threads_per_vcpu="0.5 1 2"

# The point where the owner sleeps in $1 percent of the sections.
sweep_point() {
	on_cpu=$((100 - $1))
	multimodal_args="-m $on_cpu:$on_cpu:$((2 * $1)) -s 1000 -l 10 -o 5000:20000 -b 20:200"
	description="multimodal sweep: 1 us / 10 us on CPU, 5-20 us outside, $1% asleep 20-200 us"
}
