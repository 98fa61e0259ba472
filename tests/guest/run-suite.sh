#!/bin/sh
# The guest test suite, run inside the VM by busybox sh. Prints one line
# per test (PASS, FAIL or SKIP, then the test's name) and ends with
# "N passed, N failed".
#
# usage: run-suite.sh patched|debug|stock
#   patched: the kernel must support PR_RSEQ_SCHED_STATE;
#   debug:   the same, on the patched kernel with lock debugging
#            (kernel/config/debug.config);
#   stock:   it must not, and every test must skip cleanly without it.
# The argument also prefixes every test name. Every program runs with a
# time limit (/tests/bounded.sh), so that a hang fails it by name before
# the runner's deadline ends the whole run; TEST_TIMEOUT_SCALE, if set,
# replaces the scale chosen below.
set -u

kernel=${1:-}
case "$kernel" in
patched | debug) feature=present ;;
stock) feature=absent ;;
*) echo "usage: $0 patched|debug|stock" >&2; exit 2 ;;
esac

selftests=/selftests/rseq
log=/tmp/suite.log
out=/tmp/test.out
: >"$log"

# The limits are set for the host (bounded.sh, the test harness,
# random_stress's watchdog), with ten times or more what each command
# took there. The TCG guest runs 3 to 10 times slower; the debug
# kernel's checks made the library's tests 2.1 to 4.1 times slower
# again (README). Scale them for the worst of that, with room to spare.
if [ "$kernel" = debug ]; then
	scale=8
else
	scale=3
fi
export TEST_TIMEOUT_SCALE="${TEST_TIMEOUT_SCALE:-$scale}"
# shellcheck source=tests/bounded.sh
. /tests/bounded.sh

emit() {
	echo "$*" | tee -a "$log"
}

# Run a program that exits 0 (pass), 4 (kselftest skip) or else (fail),
# for at most SECONDS (scaled); show its output when it fails.
#   run_program NAME EXPECT SECONDS COMMAND...
#   EXPECT: pass, skip or pass-or-skip
run_program() {
	name=$1
	expect=$2
	seconds=$3
	shift 3
	bounded "$seconds" "$@" >"$out" 2>&1
	if [ -n "$timed_out" ]; then
		emit "FAIL $kernel/$name: timed out after $timed_out s"
		sed 's/^/    /' "$out"
		return
	fi
	case "$rc" in
	0) got=pass ;;
	4) got=skip ;;
	*) got="exit status $rc" ;;
	esac
	case "$expect" in
	"$got" | pass-or-skip) ;;
	*)
		emit "FAIL $kernel/$name: $got, expected $expect"
		sed 's/^/    /' "$out"
		return
		;;
	esac
	if [ "$got" = skip ]; then
		emit "SKIP $kernel/$name: $(sed -n 's/.*# SKIP //p' "$out" | head -n 1)"
	else
		emit "PASS $kernel/$name"
	fi
}

# Selftests with glibc owning rseq, as upstream runs them.
cd "$selftests" || exit 1
# Limits: what the loops need, with room; no guest run has timed them
# but basic_percpu_ops_test.
run_program selftests/basic_test pass 10 ./basic_test
# 200 threads yield 100000 times each: 3 minutes on the patched kernel
# under TCG, 12 on the debug one (2026-12-04), for no lock dependency
# that param_test, which runs the same per-CPU operations, does not
# take; on the stock kernel, it tests nothing of the series. It runs on
# the patched kernel only, so that make test keeps within its time.
case "$kernel" in
debug) emit "SKIP $kernel/selftests/basic_percpu_ops_test: 20 million sched_yield() calls, too slow under lockdep; param_test covers its operations" ;;
stock) emit "SKIP $kernel/selftests/basic_percpu_ops_test: 3 minutes under TCG for nothing of the series; it runs on the patched kernel" ;;
*) run_program selftests/basic_percpu_ops_test pass 120 ./basic_percpu_ops_test ;;
esac
run_program selftests/param_test_spinlock pass 30 ./param_test -T s -t 4 -r 2000
run_program selftests/param_test_list pass 30 ./param_test -T l -t 4 -r 2000
run_program selftests/param_test_membarrier pass 30 ./param_test -T r -t 4 -r 2000

# The sched_state selftests attach their state to glibc's registration,
# or to their own when glibc registers none.
if [ "$feature" = present ]; then
	have=pass
else
	have=skip
fi
# sched_state_test sleeps some 3 s in all.
run_program selftests/sched_state_test "$have" 30 ./sched_state_test
run_program selftests/sched_state_test_own_rseq "$have" 30 \
	env GLIBC_TUNABLES=glibc.pthread.rseq=0 ./sched_state_test
run_program selftests/rseq_mutex "$have" 30 ./rseq_mutex
# The script that upstream's run_tests runs for the two tests above: it
# must pass with them here, and skip with them on the stock kernel.
run_program selftests/run_sched_state_tests "$have" 60 ./run_sched_state_tests.sh

# The ABI selftests of the series, one line per case: every case must
# pass on the patched kernels and skip on the stock one, where each must
# say that the feature is absent.
# 32 cases, most of which sleep for milliseconds, each under its harness's
# own 120 s limit.
bounded 60 ./sched_state_abi_test >"$out" 2>&1
sh /tests/ksft-tap.sh "$kernel/abi" "$have" "$rc" <"$out" | tee -a "$log"
[ -z "$timed_out" ] || emit "FAIL $kernel/abi: timed out after $timed_out s"
planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out")
absent=$(grep -c '^ok .* # SKIP kernel without PR_RSEQ_SCHED_STATE' "$out")
if [ "$feature" = present ]; then
	check=feature_detected
	want=0
else
	check=feature_absent
	want=${planned:-0}
fi
if [ "${planned:-0}" -gt 0 ] && [ "$absent" -eq "$want" ]; then
	emit "PASS $kernel/abi/$check"
else
	emit "FAIL $kernel/abi/$check: $absent of ${planned:-0} cases skipped for a kernel without the feature"
fi

# libadaptive on this kernel: sched-state where the feature is, the
# spin-count fallback where it is not.
if [ "$feature" = present ]; then
	expect=sched-state
else
	expect=spin-count
fi
sh /tests/preload-tests.sh "$kernel/preload" /usr/lib/libadaptive.so /tests /workloads \
	"$expect" | tee -a "$log"

# The kernel-cost programs' -s (workloads/own_state.h): each thread
# attaches a state where the kernel has the feature, none where it has
# not, and the run goes on; without -s, none.
if [ "$feature" = present ]; then
	want="0 2 1 4"
else
	want="0 0 0 0"
fi
got=
for command in "ctxswitch -n 100" "ctxswitch -s -n 100" "syscall_return -s -n 100" \
	"messaging -s -g 1 -f 2 -l 5"; do
	# shellcheck disable=SC2086 # the program and its options
	bounded 30 /workloads/$command >"$out" 2>&1
	got="$got${got:+ }$(sed -n 's/.* states=\([0-9]*\) .*/\1/p' "$out")"
done
if [ "$got" = "$want" ]; then
	emit "PASS $kernel/kernel-cost/own_states"
else
	emit "FAIL $kernel/kernel-cost/own_states: states attached '$got', expected '$want'"
	sed 's/^/    /' "$out"
fi

# vm-bench's guest side (workloads/run-bench.sh), whatever the kernel:
# on the patched one only.
if [ "$kernel" = patched ]; then
	sh /tests/bench-harness.sh "$kernel/bench" | tee -a "$log"
fi

# Last: the kernel stayed healthy through all of the above. Lockdep,
# sleep-in-atomic and preemption reports start with "WARNING:" or "BUG:".
if dmesg | grep -E 'BUG:|WARNING:|Oops|general protection fault|Call Trace:' >"$out"; then
	emit "FAIL $kernel/kernel/dmesg_clean: the kernel reported problems"
	sed 's/^/    /' "$out"
else
	emit "PASS $kernel/kernel/dmesg_clean"
fi
# Lockdep turns itself off at its first report, which may have left the
# log since: on a kernel with lockdep, it must still be on.
stats=/proc/lockdep_stats
if [ ! -r "$stats" ]; then
	if [ "$kernel" = debug ]; then
		emit "FAIL $kernel/kernel/lockdep_on: no $stats in the debug kernel"
	else
		emit "SKIP $kernel/kernel/lockdep_on: no lockdep in this kernel"
	fi
elif grep -Eq '^ *debug_locks: +1$' "$stats"; then
	emit "PASS $kernel/kernel/lockdep_on"
else
	emit "FAIL $kernel/kernel/lockdep_on: lockdep turned itself off ($(grep debug_locks "$stats"))"
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
