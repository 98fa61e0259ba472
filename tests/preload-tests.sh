#!/bin/sh
# Tests of libadaptive.so as users run it: LD_PRELOAD on the test
# programs and on real ones (sysbench, stress-ng), every policy, its
# environment variables, its statistics, and, on a kernel with the
# feature, proof that the sched-state path is taken. POSIX sh: it runs
# on the host and, under busybox, in the guest. Every command runs with
# a time limit (bounded.sh, beside this script): one that hangs fails
# its test, which says so.
#
# usage: preload-tests.sh PREFIX LIBADAPTIVE TESTS_DIR WORKLOADS_DIR EXPECT
#   TESTS_DIR holds host/mutex_semantics and helpers/; WORKLOADS_DIR fastpath;
#   EXPECT: sched-state on a kernel with rseq sched_state_ptr, spin-count without.
set -u

if [ $# -ne 5 ]; then
	sed -n '2,11s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
prefix=$1
lib=$2
tests=$3
workloads=$4
expect=$5
semantics=$tests/host/mutex_semantics
helpers=$tests/helpers
out=${TMPDIR:-/tmp}/preload-tests.$$
trap 'rm -f "$out"' EXIT
# shellcheck source=tests/bounded.sh
. "$(dirname "$0")/bounded.sh"

# The limits of preloaded, in seconds on the host (bounded.sh scales
# them), against what the commands took on a 2-core host loaded by a
# kernel build (2026-12-04): 0.3 s at most for the helpers (owner_blocks
# holds its mutex that long) and sysbench mutex; 3 s for a whole
# mutex_semantics run, whose cases have a limit of their own (10 s
# each, in the harness); 2.4 s for stress-ng's 2 s run; 8 to 20 s for
# sysbench threads, which yields 1000 times per event; random_stress
# runs STRESS_SECONDS, then fails by its own watchdog 5 s into a hang.
quick_limit=5
semantics_limit=30
stress_ng_limit=20
sysbench_threads_limit=60
random_stress_limit=$((${STRESS_SECONDS:-2} + 20))

# A test whose command timed out fails for that reason, whatever else
# its output shows or lacks.
pass() {
	if [ -n "$timed_out" ]; then
		fail "$1"
	else
		echo "PASS $prefix/$1"
	fi
}

fail() {
	if [ -n "$timed_out" ]; then
		echo "FAIL $prefix/$1: timed out after $timed_out s"
	else
		echo "FAIL $prefix/$1: $2"
	fi
	tail -n 15 "$out" | sed 's/^/    /'
}

# The value of counter $1 in the last stats line of the output.
stat_of() {
	sed -n "s/^libadaptive: pid=.* $1=\([0-9]*\).*/\1/p" "$out" | tail -n 1
}

stats_line() {
	grep '^libadaptive: pid=' "$out" | tail -n 1
}

# Run a command with the library preloaded, for at most $1 seconds;
# output in $out, status in $rc, timed_out set if it was stopped.
preloaded() {
	seconds=$1
	shift
	bounded "$seconds" env LD_PRELOAD="$lib" "$@" >"$out" 2>&1
}

# The semantics tests, renamed under a label, with the preload. A run
# stopped by its limit fails as a whole too: its later cases never ran.
semantics_with() {
	label=$1
	shift
	preloaded "$semantics_limit" "$@" "$semantics"
	sed -E "s#^(PASS|FAIL|SKIP) mutex/[^/]*/#\1 $prefix/mutex/$label/#" "$out"
	if [ -n "$timed_out" ] || { [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; }; then
		fail "mutex/$label" "exit status $rc"
	fi
}

# The policies of the library; sched-state-multi and spin-single are
# vm-bench's ablations (config.h).
library_policies="sched-state spin-count spin futex spin-single sched-state-multi"

for policy in $library_policies glibc; do
	semantics_with "$policy" ADAPTIVE_POLICY="$policy"
done
semantics_with glibc-rseq-off GLIBC_TUNABLES=glibc.pthread.rseq=0

# Random mixes of every mutex operation on every mutex type; the output
# starts with the seed that replays the mix.
for policy in $library_policies glibc; do
	preloaded "$random_stress_limit" ADAPTIVE_POLICY="$policy" "$helpers/random_stress"
	if [ "$rc" -eq 0 ]; then
		pass "stress/random_$policy"
	else
		fail "stress/random_$policy" "exit status $rc, $(head -n 1 "$out")"
	fi
done

# glibc's rseq registration stays glibc's, in every policy: its cpu_id is
# current in every thread after contended locking.
for policy in $library_policies; do
	preloaded "$quick_limit" ADAPTIVE_POLICY="$policy" "$helpers/glibc_rseq_intact"
	case "$rc" in
	0) pass "rseq/glibc_registration_intact_$policy" ;;
	77) echo "SKIP $prefix/rseq/glibc_registration_intact_$policy: $(head -n 1 "$out")" ;;
	*) fail "rseq/glibc_registration_intact_$policy" "status $rc" ;;
	esac
done

# Bad environment values: a clear message, the default, and a working program.
check_bad_env() {
	name=$1
	message=$2
	shift 2
	preloaded "$quick_limit" ADAPTIVE_STATS=1 "$@" "$helpers/exit_paths" return
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exit status $rc"
	elif ! grep -q "$message" "$out"; then
		fail "$name" "no message '$message'"
	elif [ "$(stat_of acquisitions)" != 2000 ]; then
		fail "$name" "the library did not run with its defaults"
	else
		pass "$name"
	fi
}
check_bad_env env/bad_policy "ADAPTIVE_POLICY=bogus is not one of" ADAPTIVE_POLICY=bogus
check_bad_env env/bad_spin_us "ADAPTIVE_SPIN_US=20us is not a number" ADAPTIVE_SPIN_US=20us
check_bad_env env/negative_spin_count "ADAPTIVE_SPIN_COUNT=-5 is not a number" \
	ADAPTIVE_SPIN_COUNT=-5
check_bad_env env/starve_out_of_range "ADAPTIVE_STARVE_US=0 is not a number" ADAPTIVE_STARVE_US=0

# One stats line per process, whichever way it exits.
for how in return exit _exit _Exit; do
	preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/exit_paths" "$how"
	lines=$(grep -c '^libadaptive: pid=' "$out")
	if [ "$rc" -ne 0 ] || [ "$lines" -ne 1 ] || [ "$(stat_of acquisitions)" != 2000 ]; then
		fail "stats/exit_by_$how" "status $rc, $lines stats lines"
	else
		pass "stats/exit_by_$how"
	fi
done

# The effective policy, as the stats report it.
for policy in $library_policies; do
	want=$policy
	case "$policy" in
	sched-state*) [ "$expect" = sched-state ] || want=$expect ;;
	esac
	preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_POLICY="$policy" "$helpers/exit_paths" return
	if stats_line | grep -q "policy=$want requested=$policy "; then
		pass "stats/policy_$policy"
	else
		fail "stats/policy_$policy" "expected policy=$want requested=$policy"
	fi
done

# Mutexes typed with pthread_mutexattr_settype() are taken, not passed on.
preloaded "$quick_limit" ADAPTIVE_STATS=1 "$workloads/fastpath" -n 1000
if [ "$(stat_of passthrough)" = 0 ] && [ "$(stat_of acquisitions)" -ge 1000 ]; then
	pass stats/typed_normal_mutex_taken
else
	fail stats/typed_normal_mutex_taken "$(stats_line)"
fi

# Handoffs to starving waiters are spaced by at least the starvation
# bound (20 ms here) on a mutex whose waiters starve all the time (8
# threads, 5% of sections asleep for 0.2-2 ms): at most one per 20 ms of
# the run, rounded up, and at least one. Without the spacing, the host
# saw 400 in a 2 s run.
for policy in sched-state spin futex; do
	started=$(date +%s)
	preloaded "$stress_ng_limit" ADAPTIVE_STATS=1 ADAPTIVE_STARVE_US=20000 ADAPTIVE_POLICY="$policy" \
		"$workloads/multimodal" -t 8 -d 2 -m 90:5:5 -b 200:2000
	most=$((($(date +%s) - started + 1) * 50 + 1))
	handoffs=$(stat_of handoffs)
	if [ "$rc" -ne 0 ]; then
		fail "fairness/handoffs_spaced_$policy" "status $rc"
	elif [ "${handoffs:-0}" -lt 1 ] || [ "$handoffs" -gt "$most" ]; then
		fail "fairness/handoffs_spaced_$policy" "${handoffs:-no} handoffs, expected 1 to $most"
	else
		pass "fairness/handoffs_spaced_$policy"
	fi
done

# The default bound, 100 ms, spaces handoffs by at least as much: the
# same mix sees at most one per 100 ms (none as a rule: the longest wait
# was 60 to 90 ms on the host). With 1 ms, the host saw 740 in 2 s.
started=$(date +%s)
preloaded "$stress_ng_limit" ADAPTIVE_STATS=1 "$workloads/multimodal" -t 8 -d 2 -m 90:5:5 -b 200:2000
most=$((($(date +%s) - started + 1) * 10 + 1))
handoffs=$(stat_of handoffs)
if [ "$rc" -ne 0 ]; then
	fail fairness/default_bound_spaces_handoffs "status $rc"
elif [ "${handoffs:-x}" = x ] || [ "$handoffs" -gt "$most" ]; then
	fail fairness/default_bound_spaces_handoffs "${handoffs:-no} handoffs, expected at most $most"
else
	pass fairness/default_bound_spaces_handoffs
fi

# A lock's spin history (preload/policy.h): the single spinner spins a
# quarter of the bound, and the rest only on a lock where no more than
# three quarters of such long spins lost. long_holds' owner holds its
# mutex on its CPU for HOLD_US each round of 96 while the waiter, on the
# other CPU, spins on it; with a 2 ms bound, the first quarter ends at
# 0.5 ms.
# Holds of 5 ms outlast every spin: after the first 22 long spins lost,
# the phases stop at the quarter (about 65), but for one in 8 that
# still spins long, so that about 31 long spins lose in all; at least
# 26 shows that probes happen. Holds of 1 ms end within the rest of the
# bound: the long spins win and none is cut. On the host the
# sched-state policy spins by count (no kernel feature), so there only
# spin-single is run.
# spin_history_case NAME POLICY HOLD_US CHECK: long_holds under POLICY
# passes spin_history/NAME_POLICY if the function CHECK returns true.
spin_history_case() {
	preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_POLICY="$2" ADAPTIVE_SPIN_US=2000 \
		"$helpers/long_holds" "$3"
	if [ "$rc" -eq 3 ]; then
		echo "SKIP $prefix/spin_history/$1_$2: one CPU"
	elif [ "$rc" -eq 0 ] && $4 2>/dev/null; then
		pass "spin_history/$1_$2"
	else
		fail "spin_history/$1_$2" "status $rc; $(stats_line)"
	fi
}
losing_spins_cut() {
	[ "$(stat_of spin_cut)" -ge 48 ] && [ "$(stat_of long_spin_losses)" -ge 26 ]
}
winning_spins_kept() {
	[ "$(stat_of long_spin_wins)" -ge 72 ] && [ "$(stat_of spin_cut)" -le 12 ]
}
history_policies=spin-single
[ "$expect" = sched-state ] && history_policies="sched-state spin-single"
for policy in $history_policies; do
	spin_history_case losing_spins_cut "$policy" 5000 losing_spins_cut
	spin_history_case winning_spins_kept "$policy" 1000 winning_spins_kept
done

# Robust mutexes go to glibc, and are counted.
preloaded "$quick_limit" ADAPTIVE_STATS=1 "$semantics" robust_owner_died
if grep -q '^libadaptive: pid=.* passthrough=[1-9]' "$out"; then
	pass stats/robust_mutex_passed_to_glibc
else
	fail stats/robust_mutex_passed_to_glibc "no passthrough counted"
fi

# Another library's constructor locks before libadaptive's constructor ran:
# lock, timedlock, clocklock and a recursive lock take the mutex (4), the
# recursive relock and the failed trylock do not.
preloaded "$quick_limit" LD_PRELOAD="$lib $helpers/libearly_lock.so" ADAPTIVE_STATS=1 LD_DEBUG=files \
	"$helpers/exit_paths" idle
order=$(sed -n 's/.*calling init: .*\/\(lib[a-z_]*\.so\).*/\1/p' "$out" | tr '\n' ' ')
case "$order" in
*libearly_lock.so*libadaptive.so*)
	if grep -q '^early_lock: 0 failures' "$out" && [ "$(stat_of acquisitions)" = 4 ]; then
		pass constructor_order/lock_before_our_constructor
	else
		fail constructor_order/lock_before_our_constructor "its locks failed or missed us"
	fi
	;;
*) fail constructor_order/lock_before_our_constructor "constructor order: $order" ;;
esac

# Calls passed on reach the next definition: a profiler preloaded after us
# sees each of the five calls on a robust mutex.
preloaded "$quick_limit" LD_PRELOAD="$lib $helpers/libnext_profiler.so" "$helpers/passthrough_calls"
counts=$(grep '^next_profiler:' "$out")
case "$rc:$counts" in
0:*lock=[1-9]*trylock=[1-9]*unlock=[1-9]*timedlock=[1-9]*clocklock=[1-9]*)
	pass passthrough/reaches_next_definition ;;
*) fail passthrough/reaches_next_definition "status $rc, ${counts:-no counts}" ;;
esac

# Lock elision is what glibc does, not what GLIBC_TUNABLES says: a next
# definition that marks mutexes elided as glibc does turns the library
# off; the tunable alone, on a CPU where glibc cannot elide, does not.
preloaded "$quick_limit" LD_PRELOAD="$lib $helpers/libnext_profiler.so" NEXT_PROFILER_ELIDE=1 \
	"$helpers/exit_paths" return
if [ "$rc" -eq 0 ] && grep -q 'glibc lock elision is enabled' "$out" &&
	grep -q '^next_profiler: lock=2[0-9][0-9][0-9] ' "$out"; then
	pass elision/detected_from_glibc
else
	fail elision/detected_from_glibc "status $rc, not left to glibc"
fi
if grep -qw rtm /proc/cpuinfo; then
	echo "SKIP $prefix/elision/tunable_alone_changes_nothing: this CPU has RTM"
else
	preloaded "$quick_limit" ADAPTIVE_STATS=1 GLIBC_TUNABLES=glibc.elision.enable=1 \
		"$helpers/exit_paths" return
	if [ "$rc" -eq 0 ] && [ "$(stat_of acquisitions)" = 2000 ]; then
		pass elision/tunable_alone_changes_nothing
	else
		fail elision/tunable_alone_changes_nothing "status $rc, $(stats_line)"
	fi
fi

# Without a thread-specific key of its own, the library must not write
# into another library's.
preloaded "$quick_limit" LD_PRELOAD="$lib $helpers/libexhaust_keys.so" "$helpers/exit_paths" return
if [ "$rc" -eq 0 ] && grep -q '^exhaust_keys: first key intact' "$out"; then
	pass keys/other_library_key_intact
else
	fail keys/other_library_key_intact "status $rc, $(grep '^exhaust_keys: first' "$out")"
fi

# Programs nobody here wrote, in every policy: they must complete correctly.
for policy in sched-state spin-count spin futex glibc; do
	preloaded "$quick_limit" ADAPTIVE_POLICY="$policy" sysbench mutex --threads=4 --mutex-num=1 \
		--mutex-locks=2000 --mutex-loops=50 run
	if [ "$rc" -eq 0 ] && grep -q 'total number of events: *4$' "$out"; then
		pass "programs/sysbench_mutex_$policy"
	else
		fail "programs/sysbench_mutex_$policy" "status $rc"
	fi
done
preloaded "$sysbench_threads_limit" sysbench threads --threads=4 --thread-locks=1 --events=2000 --time=0 run
if [ "$rc" -eq 0 ] && grep -q 'total number of events: *2000$' "$out"; then
	pass programs/sysbench_threads
else
	fail programs/sysbench_threads "status $rc"
fi
# By time, not --mutex-ops: stress-ng 0.15 reports "could not create any
# pthreads" when its first thread ends the run before the second starts.
preloaded "$stress_ng_limit" stress-ng --mutex 2 --timeout 2 --metrics-brief
if [ "$rc" -eq 0 ] && grep -q 'successful run completed' "$out"; then
	pass programs/stress_ng_mutex
else
	fail programs/stress_ng_mutex "status $rc"
fi

# A sleeper that gets the lock at its first wake-up reads no clock: the
# starvation bound counts from a wake-up that finds the lock taken, and
# the read lay on the path of every handoff to a sleeper (one per wait
# before). relock_waits' waiter sleeps until the other thread unlocks.
for policy in futex sched-state; do
	bounded "$quick_limit" env LD_PRELOAD="$helpers/libcount_clock.so $lib" ADAPTIVE_POLICY=$policy \
		"$helpers/relock_waits" 50 >"$out" 2>&1
	reads=$(sed -n 's/^count_clock: monotonic_reads=//p' "$out")
	if [ "$rc" -eq 0 ] && [ "$reads" = 0 ]; then
		pass "fairness/first_wakeup_reads_no_clock_$policy"
	else
		fail "fairness/first_wakeup_reads_no_clock_$policy" "status $rc; ${reads:-no count of} clock reads"
	fi
done

if [ "$expect" = spin-count ]; then
	# Without the kernel feature: the bounded-spin fallback, said so.
	preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/exit_paths" return
	if [ "$(stat_of threads_unsupported)" -ge 1 ] && [ "$(stat_of threads_attached)" = 0 ]; then
		pass fallback/kernel_without_sched_state
	else
		fail fallback/kernel_without_sched_state "$(stats_line)"
	fi
	exit 0
fi

# With the kernel feature: states are attached to glibc's registration
# (in the test's child process; its parent locks nothing) ...
preloaded "$semantics_limit" ADAPTIVE_STATS=1 "$semantics" exclusion_blocking
if grep -q '^libadaptive: pid=.* threads_attached=[1-9]' "$out" &&
	! grep -q '^libadaptive: pid=.* threads_foreign=[1-9]' "$out"; then
	pass sched_state/attached_to_glibc_registration
else
	fail sched_state/attached_to_glibc_registration "$(stats_line)"
fi
# ... and waiters saw owners that sleep in the critical section off CPU.
if grep -q '^libadaptive: pid=.* owner_off_cpu=[1-9]' "$out"; then
	pass sched_state/owner_seen_off_cpu
else
	fail sched_state/owner_seen_off_cpu "no owner seen off CPU"
fi
# Under a policy that reads no states, no thread gets one: the kernel
# would update it at every switch for nothing (about 50 instructions).
preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_POLICY=futex "$helpers/exit_paths" return
if [ "$rc" -eq 0 ] && [ "$(stat_of acquisitions)" -ge 1 ] &&
	[ "$(stat_of threads_attached)$(stat_of threads_own)$(stat_of threads_foreign)$(stat_of threads_unsupported)" = 0000 ]; then
	pass sched_state/none_attached_under_futex
else
	fail sched_state/none_attached_under_futex "status $rc; $(stats_line)"
fi
# (owner_blocks' owner publishes its state before it blocks.)
preloaded "$quick_limit" ADAPTIVE_STATS=1 GLIBC_TUNABLES=glibc.pthread.rseq=0 "$helpers/owner_blocks" 50
if [ "$(stat_of threads_own)" -ge 1 ] && [ "$(stat_of threads_attached)" = 0 ]; then
	pass sched_state/own_registration_with_glibc_rseq_off
else
	fail sched_state/own_registration_with_glibc_rseq_off "$(stats_line)"
fi
# A state is attached only once a waiter may read it: threads that hand
# a mutex to a sleeper, as ptsematest's, and never spin on each other,
# attach none, and the kernel stores nothing at their context switches.
preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/relock_waits" 50
if [ "$rc" -eq 0 ] && [ "$(stat_of contended)" -ge 1 ] &&
	[ "$(stat_of threads_attached)$(stat_of threads_own)$(stat_of threads_foreign)" = 000 ]; then
	pass sched_state/none_attached_for_sleeping_handoffs
else
	fail sched_state/none_attached_for_sleeping_handoffs "status $rc; $(stats_line)"
fi
# An owner that a waiter found without a state attaches one when it
# releases the mutex to that waiter; the next waiters see it off CPU
# while it sleeps (owner_blocks: the waiter of its publish_state() asks,
# two more read, a quarter of the 200 ms hold after it began to sleep).
preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/owner_blocks" 200
if [ "$rc" -eq 0 ] && [ "$(stat_of threads_attached)" -ge 1 ] && [ "$(stat_of owner_off_cpu)" -ge 2 ]; then
	pass sched_state/owner_attaches_when_asked
else
	fail sched_state/owner_attaches_when_asked "status $rc; $(stats_line)"
fi
# States on which no spin wins are detached at a review, and attached
# again later to look once more: two threads on one CPU that yield
# inside the section find each other only off CPU, and nearly every
# unlock is contended. A thread retires its state at its first review
# (1024 contended unlocks, sched_state.h) and attaches it again 15
# reviews later, about 16400 unlocks; 60000 turns each leave room for
# 3 times that. Its waiter, finding it detached, sleeps at once
# (owner_retired). The helper asks the kernel too, so that a detach and
# an attachment again that only the counters saw fail.
preloaded "$semantics_limit" ADAPTIVE_STATS=1 "$helpers/yield_in_section" 60000
kernel_changes=$(sed -n 's/^iterations=[0-9]* kernel_detaches=\([0-9]*\) kernel_reattaches=\([0-9]*\)$/\1 \2/p' "$out")
if [ "$rc" -eq 0 ] && [ "$(stat_of states_retired)" -ge 2 ] && [ "$(stat_of states_resumed)" -ge 1 ] &&
	[ "$(stat_of owner_retired)" -ge 1 ] && [ "${kernel_changes% *}" -ge 1 ] 2>/dev/null &&
	[ "${kernel_changes#* }" -ge 1 ]; then
	pass sched_state/unused_states_retired_and_resumed
else
	fail sched_state/unused_states_retired_and_resumed \
		"status $rc; kernel saw ${kernel_changes:-nothing} (detaches, reattaches); $(stats_line)"
fi
# A thread that locks in a destructor run after the library's exit one
# attaches no state: nothing would clear its slot for a later thread with
# its tid. It spins on a running owner there, which attaches a waiter's
# state at any other time; the owner is the one thread attached. A run
# shows it only if that spin ran to its bound (the second spin_bound,
# after the blind one of publish_state's waiter), not if the owner was
# seen preempted: up to three tries.
tries=
for _ in 1 2 3; do
	preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/exit_destructor_locks"
	tries="$tries $(stat_of spin_bound)"
	[ "$rc" -ne 0 ] || [ "$(stat_of spin_bound)" -lt 2 ] || break
done
if [ "$rc" -eq 3 ]; then
	echo "SKIP $prefix/sched_state/none_attached_after_thread_exit: one CPU"
elif [ "$rc" -eq 0 ] && [ "$(stat_of spin_bound)" -ge 2 ] && [ "$(stat_of threads_attached)" = 1 ]; then
	pass sched_state/none_attached_after_thread_exit
else
	fail sched_state/none_attached_after_thread_exit "status $rc; spin_bound of each try:${tries}; $(stats_line)"
fi
# An owner that attached a state of its own before the library could:
# its waiter cannot read it, and spins by the spin-count budget instead.
preloaded "$quick_limit" ADAPTIVE_STATS=1 "$helpers/owner_foreign"
if [ "$rc" -eq 3 ]; then
	echo "SKIP $prefix/sched_state/foreign_owner_spun_on_by_count: one CPU"
elif [ "$rc" -eq 0 ] && [ "$(stat_of threads_foreign)" = 1 ] &&
	[ "$(stat_of contended)" = 1 ] && [ "$(stat_of fallbacks)" = 1 ]; then
	pass sched_state/foreign_owner_spun_on_by_count
else
	fail sched_state/foreign_owner_spun_on_by_count "status $rc; $(stats_line)"
fi

# A program that locks all its memory (mlockall, as real-time programs
# do) locks every page the library maps, which must stay small however
# large pid_max is: systemd sets it to 4194304, where a table with a slot
# for every tid locked 256 MiB (2 MiB at the guest's 32768). The limit,
# 1 MiB, leaves room for the library's own pages.
pid_max=$(cat /proc/sys/kernel/pid_max)
if ! { echo 4194304 >/proc/sys/kernel/pid_max; } 2>/dev/null; then
	echo "SKIP $prefix/sched_state/mlockall_locks_little: cannot raise pid_max"
else
	bounded "$quick_limit" "$helpers/locked_memory" >"$out" 2>&1
	without=$(sed -n 's/^locked_kb=//p' "$out")
	preloaded "$quick_limit" "$helpers/locked_memory"
	with=$(sed -n 's/^locked_kb=//p' "$out")
	echo "$pid_max" >/proc/sys/kernel/pid_max
	if [ "$rc" -eq 0 ] && [ -n "$without" ] && [ -n "$with" ] && [ $((with - without)) -lt 1024 ]; then
		pass sched_state/mlockall_locks_little
	else
		fail sched_state/mlockall_locks_little "status $rc; locked ${without:-?} kB without the library, ${with:-?} kB with it"
	fi
fi

waiter_cpu_ms() {
	sed -n 's/.*waiter_cpu_ms=\([0-9]*\).*/\1/p' "$out"
}
# Pass NAME if a helper's waiters burned less (-lt) or at least (-ge) MS
# ms of CPU, run under the preload with its environment:
#   expect_waiter_cpu NAME -lt|-ge MS ENV... HELPER ARGS...
expect_waiter_cpu() {
	name=$1 op=$2 limit=$3
	shift 3
	preloaded "$quick_limit" "$@"
	ms=$(waiter_cpu_ms)
	if [ "$rc" -eq 0 ] && [ -n "$ms" ] && test "$ms" "$op" "$limit"; then
		pass "sched_state/$name"
	else
		fail "sched_state/$name" "waiters burned ${ms:-?} ms of CPU"
	fi
}
# A waiter stops spinning when the owner blocks, however long it may spin;
# the spin policy, same bound, shows that the measurement can tell.
expect_waiter_cpu waiters_sleep_while_owner_blocks -lt 50 \
	ADAPTIVE_SPIN_US=200000 "$helpers/owner_blocks" 300
expect_waiter_cpu control_spin_policy_burns_cpu -ge 100 \
	ADAPTIVE_POLICY=spin ADAPTIVE_SPIN_US=200000 "$helpers/owner_blocks" 300
# The same for a waiter that relocks a mutex it holds, which only another
# thread's unlock releases: its owner, itself, would read running. It
# spins under no policy, the blind spinner's included (which spun its
# whole bound on it before).
expect_waiter_cpu relocking_waiter_sleeps -lt 50 \
	ADAPTIVE_SPIN_US=200000 "$helpers/relock_waits" 300
expect_waiter_cpu relocking_waiter_sleeps_under_spin -lt 50 \
	ADAPTIVE_POLICY=spin ADAPTIVE_SPIN_US=200000 "$helpers/relock_waits" 300

# A waiter whose own CPU has another runnable thread sleeps at once rather
# than spin on the running owner (CPU_CONTENDED, kernel patch 6), however
# long it may spin (the library before the flag burned 114 ms here). It
# had no state of its own before: it attaches one to spin, which is read
# from then on. Alone on its CPU, it spins, which shows that the
# measurement can tell.
preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_SPIN_US=200000 "$helpers/waiter_shares_cpu" shared 300
ms=$(waiter_cpu_ms)
if [ "$rc" -eq 3 ]; then
	echo "SKIP $prefix/sched_state/waiter_sleeps_beside_runnable_thread: one CPU"
elif [ "$rc" -eq 0 ] && [ -n "$ms" ] && [ "$ms" -lt 10 ] && [ "$(stat_of cpu_contended)" -ge 1 ]; then
	pass sched_state/waiter_sleeps_beside_runnable_thread
else
	fail sched_state/waiter_sleeps_beside_runnable_thread "waiter burned ${ms:-?} ms of CPU; $(stats_line)"
fi
# The control: alone, the waiter spins until its bound, the owner's
# preemption or its own (a kernel thread on either CPU ends the spin
# early: 37 to 200 ms on the debug kernel), so it needs at least 20 ms,
# twice what the waiter beside a runnable thread may burn (1 to 2 ms
# seen), in one of three tries.
tries=
for _ in 1 2 3; do
	preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_SPIN_US=200000 "$helpers/waiter_shares_cpu" alone 300
	ms=$(waiter_cpu_ms)
	tries="$tries ${ms:-?}"
	[ "$rc" -ne 0 ] || [ -z "$ms" ] || [ "$ms" -lt 20 ] || break
done
if [ "$rc" -eq 3 ]; then
	echo "SKIP $prefix/sched_state/control_waiter_alone_spins: one CPU"
elif [ "$rc" -eq 0 ] && [ -n "$ms" ] && [ "$ms" -ge 20 ]; then
	pass sched_state/control_waiter_alone_spins
else
	fail sched_state/control_waiter_alone_spins "waiter burned${tries} ms; $(stats_line)"
fi

# A thread whose waits all find the owner off CPU stops deciding
# whether to spin, and waits as the futex policy does; once its owners
# run again, it spins again within a few waits (yield_then_hold: 2 x 200
# turns on one CPU, then 64 rounds in which the owner holds the mutex
# 2 ms on its own CPU). In the turns one thread skips about 160 waits
# (the other, attached first, sees its own CPU contended and an owner
# without a state, which does not count). A thread decides again at 1
# wait in 8, so the waiter should win 56 rounds or more; 32 leaves room
# for rechecks that find the owner preempted, where a build that never
# decides again wins none.
preloaded "$quick_limit" ADAPTIVE_STATS=1 ADAPTIVE_SPIN_US=200000 "$helpers/yield_then_hold" 200 64 2000
for check in "sleeping_waits_skip_the_decision spin_skips 100" "running_owner_ends_the_skip spin_wins 32"; do
	# shellcheck disable=SC2086 # split into name, counter and minimum
	set -- $check
	if [ "$rc" -eq 3 ]; then
		echo "SKIP $prefix/sched_state/$1: one CPU"
	elif [ "$rc" -eq 0 ] && [ "$(stat_of "$2")" -ge "$3" ]; then
		pass "sched_state/$1"
	else
		fail "sched_state/$1" "status $rc; $(stats_line)"
	fi
done
