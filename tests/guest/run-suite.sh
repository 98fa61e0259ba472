#!/bin/sh
# The guest test suite, run inside the VM by busybox sh. Prints one line
# per test (PASS, FAIL or SKIP, then the test's name) and ends with
# "N passed, N failed".
#
# usage: run-suite.sh patched|stock
#   patched: the kernel must support rseq sched_state_ptr;
#   stock:   it must not, and every test must skip cleanly without it.
set -u

kernel=${1:-}
case "$kernel" in
patched | stock) ;;
*) echo "usage: $0 patched|stock" >&2; exit 2 ;;
esac

selftests=/selftests/rseq
tests=/tests/guest
log=/tmp/suite.log
out=/tmp/test.out
: >"$log"

emit() {
	echo "$*" | tee -a "$log"
}

# Run a program that exits 0 (pass), 4 (kselftest skip) or else (fail);
# show its output when it fails.
#   run_program NAME EXPECT COMMAND...   EXPECT: pass, skip or pass-or-skip
run_program() {
	name=$1
	expect=$2
	shift 2
	"$@" >"$out" 2>&1
	rc=$?
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

# Run a harness program (tests/lib/harness.c), which prints its own lines.
run_harness() {
	"$@" >"$out" 2>&1
	rc=$?
	sed -E "s#^(PASS|FAIL|SKIP) #\1 $kernel/#" "$out" | tee -a "$log"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		emit "FAIL $kernel/$(basename "$1"): exit status $rc without a failed case"
	fi
}

# Selftests with glibc owning rseq, as upstream runs them.
cd "$selftests" || exit 1
run_program selftests/basic_test pass ./basic_test
run_program selftests/basic_percpu_ops_test pass ./basic_percpu_ops_test
run_program selftests/param_test_spinlock pass ./param_test -T s -t 4 -r 2000
run_program selftests/param_test_list pass ./param_test -T l -t 4 -r 2000
run_program selftests/param_test_membarrier pass ./param_test -T r -t 4 -r 2000

# The sched_state selftests attach their state to glibc's registration,
# or to their own when glibc registers none.
if [ "$kernel" = patched ]; then
	have=pass
else
	have=skip
fi
run_program selftests/sched_state_test "$have" ./sched_state_test
run_program selftests/sched_state_test_own_rseq "$have" \
	env GLIBC_TUNABLES=glibc.pthread.rseq=0 ./sched_state_test
run_program selftests/rseq_mutex "$have" ./rseq_mutex

# libadaptive on this kernel: sched-state where the feature is, the
# spin-count fallback where it is not.
if [ "$kernel" = patched ]; then
	expect=sched-state
else
	expect=spin-count
fi
sh /tests/preload-tests.sh "$kernel/preload" /usr/lib/libadaptive.so /tests /workloads \
	"$expect" | tee -a "$log"

# Last: the kernel stayed healthy through all of the above.
if dmesg | grep -E 'BUG:|WARNING:|Oops|general protection fault|Call Trace:' >"$out"; then
	emit "FAIL $kernel/kernel/dmesg_clean: the kernel reported problems"
	sed 's/^/    /' "$out"
else
	emit "PASS $kernel/kernel/dmesg_clean"
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
