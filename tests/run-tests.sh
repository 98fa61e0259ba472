#!/usr/bin/env bash
# Run the host tests, the guest tests, or both, and end with one line
# "N passed, N failed" over all of them. Exit status 1 if any failed.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] host|guest...

host:  the test programs of build/tests/host, tests/host/*.sh, the
       random stress test without the preload and, if make selftests
       built it, the series' sched_state_abi_test, on this machine's
       kernel (the library's fallback path; the ABI cases must skip);
guest: tests/vm-runner-tests.sh, then tests/guest/run-suite.sh in QEMU
       on build/bzImage (patched), build/bzImage-debug and, as the
       stock kernel, build/vmlinuz-debian (Debian's own 6.12).
Output and logs: build/test/<part>.log. The make targets build what
this needs first (make test, make host-test, make vm-test). Every
program runs with a time limit (tests/bounded.sh; TEST_TIMEOUT_SCALE
multiplies them all); STRESS_SECONDS sets the stress test's run time.
EOF
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
mkdir -p "$build/test"
# shellcheck source=tests/bounded.sh
. "$top/tests/bounded.sh"

# Run NAME, COMMAND..., for at most SECONDS. Harness programs and
# scripts print PASS/FAIL/SKIP lines themselves; a program that prints
# none gets one of its own, and so does one that fails without a FAIL
# line or is stopped by the limit.
#   run_checked NAME SECONDS COMMAND...
run_checked() {
	local name=$1 seconds=$2 out=$build/test/out
	shift 2
	bounded "$seconds" "$@" >"$out" 2>&1
	cat "$out"
	if [ -n "$timed_out" ]; then
		echo "FAIL $name: timed out after $timed_out s"
	elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $name: exit status $rc"
	elif [ "$rc" -eq 0 ] && ! grep -Eq '^(PASS|FAIL|SKIP) ' "$out"; then
		echo "PASS $name"
	fi
}

# The limits: a whole mutex_semantics run takes 3 s on a loaded 2-core
# host (its cases have limits of their own, in the harness); the
# stress test runs STRESS_SECONDS, and fails by its own watchdog within
# 5 s of a hang; the scripts limit each command they run, and their
# limit only stops one stuck between commands.
host_tests() {
	local t
	{
		for t in "$build"/tests/host/*; do
			[ -x "$t" ] || continue
			run_checked "$(basename "$t")" 30 "$t"
		done
		run_checked stress/random_no-preload $((${STRESS_SECONDS:-2} + 20)) \
			"$build/tests/helpers/random_stress"
		for t in "$top"/tests/host/*.sh; do
			run_checked "$(basename "$t")" 900 "$t"
		done
	} | sed -u 's/^\(PASS\|FAIL\|SKIP\) /\1 host\//'
	abi_selftests_on_host
}

# The series' ABI selftests, if make selftests built them: this kernel
# lacks the feature, so every case must skip. They find librseq.so in
# the current directory.
abi_selftests_on_host() {
	local dir=$build/selftests/rseq
	[ -x "$dir/sched_state_abi_test" ] || return 0
	bounded 30 env -C "$dir" ./sched_state_abi_test >"$build/test/abi.out" 2>&1
	sh "$top/tests/ksft-tap.sh" host/abi skip "$rc" <"$build/test/abi.out" || true
	[ -z "$timed_out" ] || echo "FAIL host/abi: timed out after $timed_out s"
}

guest_tests() {
	local kernel image rc
	# Each of its VM runs has a deadline of its own (run-vm.sh --timeout).
	run_checked vm-runner 900 "$top/tests/vm-runner-tests.sh"
	for kernel in patched debug stock; do
		case "$kernel" in
		patched) image=$build/bzImage ;;
		debug) image=$build/bzImage-debug ;;
		stock) image=$build/vmlinuz-debian ;;
		esac
		echo "[guest] the suite on $(basename "$image")"
		rc=0
		"$top/vm-image/run-vm.sh" --kernel "$image" "sh /tests/run-suite.sh $kernel" || rc=$?
		# 1 is the suite's own verdict, with FAIL lines; anything else is not.
		case "$rc" in
		0 | 1) ;;
		*) echo "FAIL guest/$kernel: the VM run failed (status $rc), see build/vm/last/console.log" ;;
		esac
	done
}

for part in "$@"; do
	case "$part" in
	host | guest) ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for part in "$@"; do
	"${part}_tests" 2>&1 | tee "$build/test/$part.log"
done

logs=()
for part in "$@"; do logs+=("$build/test/$part.log"); done
passed=$(cat "${logs[@]}" | grep -c '^PASS ' || true)
failed=$(cat "${logs[@]}" | grep -c '^FAIL ' || true)
skipped=$(cat "${logs[@]}" | grep -c '^SKIP ' || true)
[ "$failed" -eq 0 ] || { echo; echo 'Failed:'; cat "${logs[@]}" | grep '^FAIL '; }
echo "($skipped skipped; logs in ${build#"$top"/}/test)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
