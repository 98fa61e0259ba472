#!/usr/bin/env bash
# Build the guest initramfs: busybox-static, vm-image/init, and the given
# host files with their shared-library closures.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] OUTPUT.cpio.gz [HOST_PATH=GUEST_PATH...]

The root has Debian's merged-/usr layout, busybox-static's applets,
/init from vm-image/init, and each HOST_PATH (file or directory) at
GUEST_PATH with the libraries its ELF files need (vm-image/stage-files.sh).
EOF
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
'') usage >&2; exit 2 ;;
esac
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox

[ -x "$busybox" ] ||
	{ echo "build-initramfs: no $busybox: install busybox-static (make deps)" >&2; exit 1; }

# Rebuild only when an input changed: the files themselves (path, size,
# time) and the scripts that build the image.
inputs_id() {
	local spec
	for spec in "$busybox=" "$here/init=" "$here/stage-files.sh=" "$0=" "$@"; do
		find -L "${spec%%=*}" -type f -printf '%p %s %T@\n'
		echo "$spec"
	done | sha256sum
}
id=$(inputs_id "$@")
if [ -f "$out" ] && [ "$id" = "$(cat "$out.inputs" 2>/dev/null)" ]; then
	echo "[initramfs] $(basename "$out") is up to date"
	exit 0
fi

root=$out.root
rm -rf "$root"
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,root,job}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

"$busybox" --list-full | while IFS= read -r applet; do
	[ -e "$root/$applet" ] || ln -s /usr/bin/busybox "$root/$applet"
done
install -m 0755 "$here/init" "$root/init"
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/:/bin/sh' \
	>"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$root/etc/group"

# glibc dlopen()s libgcc_s for pthread_exit() and pthread_cancel().
"$here/stage-files.sh" "$root" "$busybox=/usr/bin/busybox" \
	/lib/x86_64-linux-gnu/libgcc_s.so.1=/lib/x86_64-linux-gnu/libgcc_s.so.1 "$@"

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$id" >"$out.inputs"
rm -rf "$root"
echo "[initramfs] $(basename "$out"): $(du -h "$out" | cut -f1)"
