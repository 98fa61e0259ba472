#!/usr/bin/env bash
# Tests of vm-image/run-vm.sh: what it does with bad input, with the
# guest's exit status and output, with extra files, with a kernel panic
# and with a hung guest. Needs build/bzImage and build/initramfs.cpio.gz.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
run_vm=$top/vm-image/run-vm.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# check NAME EXPECTED_STATUS PATTERN [ENV=VALUE...] -- RUN_VM_ARGS...
# Runs run-vm.sh and expects its exit status and a line of its output
# (stdout and stderr) matching PATTERN.
check() {
	local name=$1 expected=$2 pattern=$3 envs=() rc=0
	shift 3
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$run_vm" "$@" >"$out" 2>&1 || rc=$?
	if [ "$rc" != "$expected" ]; then
		echo "FAIL runner/$name: exit status $rc, expected $expected"
	elif ! grep -qE -- "$pattern" "$out"; then
		echo "FAIL runner/$name: no line matching '$pattern' in the output"
	else
		echo "PASS runner/$name"
		return
	fi
	sed 's/^/    /' "$out" | tail -n 20
}

check rejects_bad_vcpus 255 'VCPUS=0: expected 1 to 16' VCPUS=0 -- true
check rejects_bad_mem 255 'MEM=lots: expected a size' MEM=lots -- true
check rejects_missing_kernel 255 'no kernel image /nonexistent' -- --kernel /nonexistent true
check rejects_missing_file 255 '--file /nonexistent: no such file' -- --file /nonexistent true
check exit_status_and_output 7 '^hello from the guest$' -- 'echo hello from the guest; exit 7'
check extra_file_with_libraries 0 '^sysbench 1\.' -- --file /usr/bin/sysbench '/extra/sysbench --version'
# shellcheck disable=SC2016 # expanded in the guest
check vcpus_and_mem 0 '^3 cpus [0-9]+ kB$' VCPUS=3 MEM=512M -- \
	'echo "$(nproc) cpus $(sed -n "s/MemTotal: *//p" /proc/meminfo)"'
check panic_fails_the_run 255 'kernel reported a panic' \
	'KERNEL_CMDLINE=rdinit=/nonexistent init=/nonexistent' -- --timeout 60 true
check hang_is_killed 255 'hung: no exit status after' GRACE=0 -- --timeout 8 'sleep 600'
