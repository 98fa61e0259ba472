# shellcheck shell=sh disable=SC2034,SC2154 # sourced by workloads/run-bench.sh, which sets defs
# Owners that wait for a disk: our multimodal mix (multimodal.sh), whose
# 1% of blocking sections, instead of sleeping, write a 4 KiB record to a
# file on ext4 on the guest's virtio disk and fdatasync it under the lock,
# as a database commits its log. The disk is an image file on the host
# (vm-bench attaches it, run-bench.sh mounts it on /mnt/disk), so the
# holder really waits for the host's fdatasync of that file. A commit
# took 2.4 ms in the guest, 0.6 ms of it on the CPU (ext4 and the block
# layer under TCG); on tmpfs the same took 64 us (multimodal -t 1
# -m 0:0:1, 2026-12-05). Unlike multimodal's sleeps, then, this owner is
# on its CPU for part of its blocking section and waits for a device for
# the rest.
# shellcheck source=workloads/defs/multimodal.sh
. "$defs/multimodal.sh"
# run-bench.sh picks workloads by this line, so it is not left to the source.
part=locks
description="multimodal 90:9:1 with fdatasync on a virtio disk in place of the sleeps"
expect_blocked=1
wl_command() {
	echo "sh -c 'grep -q \" /mnt/disk ext4 \" /proc/mounts || { echo no disk mounted on /mnt/disk; exit 1; };
		exec /workloads/multimodal -t $1 -d $2 $(multimodal_options) -f /mnt/disk/multimodal.log'"
}
