#!/usr/bin/env bash
# Boot a guest kernel with the project's initramfs, run one shell command
# in it, print the command's output, and exit with its exit status.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}

usage() {
	cat <<EOF
usage: $0 [--help] [options] COMMAND

Runs COMMAND with busybox sh in the guest, in /job, and exits with its
exit status; 255 when none came back (boot failure, panic, hang).

Options:
  --kernel IMAGE     kernel image (default build/bzImage)
  --initramfs FILE   base initramfs (default build/initramfs.cpio.gz)
  --file PATH        make host file PATH (and its libraries) available
                     as /extra/<name>; repeatable
  --disk FILE        attach raw image FILE as a virtio disk, /dev/vda in
                     the guest; a flush there (fdatasync) is an
                     fdatasync of FILE on the host
  --timeout SECONDS  overall deadline (default \$TIMEOUT or 600)
Environment:
  VCPUS (default 2), MEM (default 1G), ACCEL (auto, kvm, tcg or
  icount; default auto: KVM only if a probe boot with it reaches user
  space on this machine, cached in build/vm/accel.cache; icount: one TCG
  thread whose guest clock counts guest instructions, 1 ns each, for
  deterministic cost measurements), GRACE (default 60:
  seconds granted past the deadline while the guest still prints),
  KERNEL_CMDLINE (appended to the kernel command line), MONITOR (a
  path: QEMU's human monitor listens on this Unix socket, for "info
  jit" and the like while the guest runs).

A kernel panic, oops, BUG or WARN in the console fails the run even if
the command succeeded. Logs: build/vm/runs/<time>/{console,results}.log,
build/vm/last -> the latest run.
EOF
}

kernel=$build/bzImage
initramfs=$build/initramfs.cpio.gz
timeout=${TIMEOUT:-600}
files=()
disk=
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--kernel) kernel=$2; shift 2 ;;
	--initramfs) initramfs=$2; shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-vm: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "run-vm: expected one COMMAND argument, got $#" >&2; usage >&2; exit 2; }
command=$1

vcpus=${VCPUS:-2}
mem=${MEM:-1G}
accel=${ACCEL:-auto}
grace=${GRACE:-60}

die() { printf 'run-vm: error: %s\n' "$*" >&2; exit 255; }

if ! [[ "$vcpus" =~ ^[1-9][0-9]*$ ]] || [ "$vcpus" -gt 16 ]; then
	die "VCPUS=$vcpus: expected 1 to 16"
fi
[[ "$mem" =~ ^[1-9][0-9]*[MG]$ ]] || die "MEM=$mem: expected a size like 512M or 2G"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "timeout $timeout: expected seconds"
[[ "$grace" =~ ^[0-9]+$ ]] || die "GRACE=$grace: expected seconds"
case "$accel" in auto | kvm | tcg | icount) ;; *) die "ACCEL=$accel: expected auto, kvm, tcg or icount" ;; esac
[ -f "$kernel" ] || die "no kernel image $kernel (make kernel, or make kernel-stock)"
[ -f "$initramfs" ] || die "no initramfs $initramfs (make initramfs)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: install qemu-system-x86 (make deps)"
for f in "${files[@]}"; do [ -f "$f" ] || die "--file $f: no such file"; done
[ -z "$disk" ] || [ -f "$disk" ] || die "--disk $disk: no such file"
disk_opts=()
[ -z "$disk" ] || disk_opts=(-drive "file=${disk//,/,,},format=raw,if=virtio,cache=writeback")
monitor_opts=()
[ -z "${MONITOR:-}" ] || monitor_opts=(-monitor "unix:${MONITOR//,/,,},server=on,wait=off")

mkdir -p "$build/vm/runs"
run=$build/vm/runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run"
ln -sfn "runs/$(basename "$run")" "$build/vm/last"
# Keep the last 20 runs.
find "$build/vm/runs" -mindepth 1 -maxdepth 1 -type d | sort | head -n -20 | xargs -r rm -rf

# The job: the command, and the extra files, in a cpio archive appended
# to the base one; the kernel unpacks both.
job_cpio() {
	local root=$run/job-root specs=() f
	mkdir -p "$root/job"
	printf '%s\n' "$1" >"$root/job/cmd.sh"
	for f in "${files[@]}"; do specs+=("$f=/extra/$(basename "$f")"); done
	[ ${#specs[@]} -eq 0 ] || "$top/vm-image/stage-files.sh" "$root" "${specs[@]}"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1
	rm -rf "$root"
}

# Boot $kernel under accelerator $1 to run command $2, for at most $3
# seconds (plus the grace period), echoing the guest's output unless $4
# is "quiet". Sets exit_status (empty if none came back) and verdict (a
# message, empty if all went well). no_timer_check: under TCG on a busy
# host, the IO-APIC timer test at boot can miss its ticks and panic
# ("IO-APIC + timer doesn't work!"); KVM guests skip it the same way.
boot() {
	local accel_opts console=$run/console.log results=$run/results.log
	local boot_timeout=$3 qpid tpid='' start deadline last_size size
	case "$1" in
	kvm) accel_opts=(-accel kvm -cpu host) ;;
	tcg) accel_opts=(-accel "tcg,thread=multi" -cpu max) ;;
	# One TCG thread, and the guest clock advancing one nanosecond per
	# guest instruction: a guest-side timing is then an instruction count,
	# the same at every run of the same binaries.
	icount) accel_opts=(-accel "tcg,thread=single" -icount "shift=0,sleep=off" -cpu max) ;;
	esac
	cat "$initramfs" >"$run/initrd.cpio.gz"
	job_cpio "$2" >>"$run/initrd.cpio.gz"
	: >"$console"
	: >"$results"
	qemu-system-x86_64 -nodefaults -no-user-config -no-reboot -display none \
		"${accel_opts[@]}" -smp "$vcpus" -m "$mem" "${disk_opts[@]}" "${monitor_opts[@]}" \
		-kernel "$kernel" -initrd "$run/initrd.cpio.gz" \
		-append "console=ttyS0 loglevel=5 panic=-1 no_timer_check ${KERNEL_CMDLINE:-}" \
		-serial "file:$console" -serial "file:$results" \
		>"$run/qemu.log" 2>&1 &
	qpid=$!
	if [ "$4" != quiet ]; then
		tail -n +1 -f --pid="$qpid" "$results" | grep --line-buffered -v '^@@LIBADAPTIVE-EXIT' &
		tpid=$!
	fi
	start=$SECONDS
	deadline=$((start + boot_timeout))
	last_size=0
	verdict=
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 1
		if [ $SECONDS -ge "$deadline" ]; then
			size=$(($(stat -c %s "$console") + $(stat -c %s "$results")))
			if [ "$size" -gt "$last_size" ] && [ $SECONDS -lt $((deadline + grace)) ]; then
				last_size=$size
				sleep 9
				continue
			fi
			kill "$qpid" 2>/dev/null || true
			verdict="hung: no exit status after $((SECONDS - start)) s, guest killed"
			break
		fi
	done
	wait "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || wait "$tpid" 2>/dev/null || true
	exit_status=$(sed -n 's/^@@LIBADAPTIVE-EXIT \([0-9]*\)@@.*/\1/p' "$results" | tail -n 1)
	if [ -z "$verdict" ] && [ -z "$exit_status" ]; then
		verdict="no exit status came back (boot failure or crash)"
	fi
	if grep -qE 'Kernel panic|BUG:|Oops|WARNING:|general protection fault|Call Trace:' "$console"; then
		verdict="${verdict:+$verdict; }the kernel reported a panic, oops, BUG or WARN"
	fi
}

# KVM only where it really boots: /dev/kvm exists on machines where a KVM
# boot hangs. The answer is cached per machine, host kernel and QEMU.
choose_accel() {
	local cache=$build/vm/accel.cache key answer
	if [ "$accel" != auto ]; then
		echo "$accel"
		return
	fi
	if [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	key="$(cat /etc/machine-id 2>/dev/null || hostname) $(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	answer=$(awk -v k="$key" -F'\t' '$1 == k { print $2 }' "$cache" 2>/dev/null | tail -n 1)
	if [ -z "$answer" ]; then
		echo "run-vm: probing KVM with a 30 s boot" >&2
		grace=0 boot kvm true 30 quiet
		if [ "$exit_status" = 0 ] && [ -z "$verdict" ]; then answer=kvm; else answer=tcg; fi
		printf '%s\t%s\n' "$key" "$answer" >>"$cache"
	fi
	echo "$answer"
}

accel=$(choose_accel)
echo "run-vm: $(basename "$kernel"), $accel, $vcpus vCPUs, $mem, logs in ${run#"$top"/}" >&2
boot "$accel" "$command" "$timeout" echo

if [ -n "$verdict" ]; then
	echo "run-vm: FAILED: $verdict; console tail ($run/console.log):" >&2
	tail -n 40 "$run/console.log" >&2
	[ -n "$exit_status" ] && [ "$exit_status" != 0 ] && exit "$exit_status"
	exit 255
fi
[ "$exit_status" = 0 ] || echo "run-vm: the guest command exited with status $exit_status" >&2
exit "$exit_status"
