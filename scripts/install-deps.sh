#!/usr/bin/env bash
# Install the Debian 12 packages a make target needs; a no-op when they
# are all present. Installing needs root; otherwise it prints the command.
set -euo pipefail

declare -A groups=(
	[kernel]="linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils perl rsync"
	[vm]="qemu-system-x86 busybox-static cpio gzip e2fsprogs"
	[test]="sysbench stress-ng valgrind python3 strace"
	[bench]="sysbench stress-ng rocksdb-tools kyotocabinet-utils rt-tests libmemcached-tools libevent-2.1-7 python3"
)

usage() {
	echo "usage: $0 [--help] GROUP..."
	echo "groups:"
	for g in "${!groups[@]}"; do printf '  %-7s %s\n' "$g" "${groups[$g]}"; done | sort
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
wanted=()
for g in "$@"; do
	case "$g" in -h | --help) usage; exit 0 ;; esac
	[ -n "${groups[$g]:-}" ] || { echo "unknown group: $g" >&2; usage >&2; exit 2; }
	read -ra pkgs <<<"${groups[$g]}"
	wanted+=("${pkgs[@]}")
done

missing=()
for p in $(printf '%s\n' "${wanted[@]}" | sort -u); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages; as root, run: ${cmd[*]}" >&2
	exit 1
fi
echo "[deps] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
"${cmd[@]}" >/tmp/libadaptive-apt.log 2>&1 || {
	tail -n 20 /tmp/libadaptive-apt.log >&2
	echo "[deps] apt-get failed, see /tmp/libadaptive-apt.log" >&2
	exit 1
}
