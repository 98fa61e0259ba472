#!/usr/bin/env bash
# Tests of vm-image/run-vm.sh: what it does with bad input, with the
# guest's exit status and output, with extra files and a disk, with a
# kernel panic and with a hung guest. Needs build/bzImage and
# build/initramfs.cpio.gz.
set -euo pipefail
# mke2fs and debugfs, for the disk tests, are in /usr/sbin.
PATH=$PATH:/usr/sbin:/sbin

top=$(cd "$(dirname "$0")/.." && pwd)
run_vm=$top/vm-image/run-vm.sh
out=$(mktemp)
disk_dir=$(mktemp -d)
trap 'rm -rf "$out" "$disk_dir"' EXIT

# check NAME EXPECTED_STATUS PATTERN COMMAND...
# Runs COMMAND and expects its exit status and a line of its output
# (stdout and stderr) matching PATTERN.
check() {
	local name=$1 expected=$2 pattern=$3 rc=0
	shift 3
	"$@" >"$out" 2>&1 || rc=$?
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

check rejects_bad_vcpus 255 'VCPUS=0: expected 1 to 16' env VCPUS=0 "$run_vm" true
check rejects_bad_mem 255 'MEM=lots: expected a size' env MEM=lots "$run_vm" true
check rejects_bad_accel 255 'ACCEL=fast: expected auto, kvm, tcg or icount' env ACCEL=fast "$run_vm" true
check rejects_missing_kernel 255 'no kernel image /nonexistent' "$run_vm" --kernel /nonexistent true
check rejects_missing_file 255 '--file /nonexistent: no such file' "$run_vm" --file /nonexistent true
check exit_status_and_output 7 '^hello from the guest$' "$run_vm" 'echo hello from the guest; exit 7'
check rejects_missing_disk 255 '--disk /nonexistent: no such file' "$run_vm" --disk /nonexistent true
# An ext4 image made on the host, read and written in the guest; the
# guest's write is on the host's file after the guest synced it.
mkdir "$disk_dir/root"
echo "made on the host" >"$disk_dir/root/marker"
mke2fs -q -F -t ext4 -d "$disk_dir/root" "$disk_dir/disk.img" 16M >/dev/null
check disk_attached 0 '^made on the host$' "$run_vm" --disk "$disk_dir/disk.img" \
	'mkdir -p /mnt/disk && mount -t ext4 /dev/vda /mnt/disk && cat /mnt/disk/marker &&
	echo "written in the guest" >/mnt/disk/reply && sync && umount /mnt/disk'
if debugfs -R 'cat /reply' "$disk_dir/disk.img" 2>/dev/null | grep -q '^written in the guest$'; then
	echo "PASS runner/disk_written_through"
else
	echo "FAIL runner/disk_written_through: the guest's file is not on the host's image"
fi
# MONITOR: QEMU's human monitor answers on its socket while the guest
# runs; the guest's status comes back as without it.
monitor_answers() {
	local sock=$disk_dir/monitor.sock pid rc=0
	MONITOR=$sock "$run_vm" 'sleep 5' >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 120); do
		[ -S "$sock" ] && break
		sleep 0.5
	done
	"$top/vm-image/qemu-monitor.py" "$sock" info version || rc=$?
	wait "$pid" || rc=$?
	return "$rc"
}
check monitor_answers 0 "^$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')" monitor_answers
check extra_file_with_libraries 0 '^sysbench 1\.' "$run_vm" --file /usr/bin/sysbench '/extra/sysbench --version'
# shellcheck disable=SC2016 # expanded in the guest
check vcpus_and_mem 0 '^3 cpus [0-9]+ kB$' env VCPUS=3 MEM=512M "$run_vm" \
	'echo "$(nproc) cpus $(sed -n "s/MemTotal: *//p" /proc/meminfo)"'
check panic_fails_the_run 255 'kernel reported a panic' \
	env 'KERNEL_CMDLINE=rdinit=/nonexistent init=/nonexistent' "$run_vm" --timeout 60 true
check hang_is_killed 255 'hung: no exit status after' env GRACE=0 "$run_vm" --timeout 8 'sleep 600'
# Make itself can only exit 2; the runner names the guest's status.
# shellcheck disable=SC2016 # expanded in the guest
check make_vm_run_passes_cmd_verbatim 0 "^quoted it's \\\$x\$" \
	make -s -C "$top" --no-print-directory vm-run CMD='x=quoted
for y in "it'\''s"; do echo "$x $y \$x"; done'
check make_vm_run_fails_with_the_guest 2 'guest command exited with status 3' \
	make -s -C "$top" --no-print-directory vm-run CMD='exit 3'
