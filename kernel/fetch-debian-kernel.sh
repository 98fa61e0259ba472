#!/usr/bin/env bash
# Fetch Debian's own build of the 6.12 release that linux-source-6.12
# holds, without installing it: the stock kernel of make test's guest
# suite. It is the kernel users of the library run, with the
# distribution's configuration, and fetching it takes seconds where
# building the tarball unpatched took minutes of make test's budget.
# (make vm-bench still builds build/bzImage-stock from the tarball: a
# kernel-cost comparison needs the patched kernel's own configuration.)
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help]

Downloads linux-image-<release>+deb12-cloud-amd64-unsigned, <release>
being that of the installed linux-source-6.12, with apt-get download
and extracts its kernel to build/vmlinuz-debian. The cloud flavour has
everything the guest uses built in (serial console, initramfs, ACPI
power-off) and boots fastest under TCG. A no-op when that release is
already there.

Environment: BUILD_DIR (default <project>/build).
EOF
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
image=$build/vmlinuz-debian
dir=$build/kernel/debian

say() { printf '[kernel debian] %s\n' "$*"; }
die() { printf '[kernel debian] error: %s\n' "$*" >&2; exit 1; }

version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (make deps)"
# 6.12.118-1~deb12u1 -> linux-image-6.12.118+deb12-cloud-amd64-unsigned
package=linux-image-${version%%-*}+deb12-cloud-amd64-unsigned

if [ -f "$image" ] && [ "$(cat "$dir/package.stamp" 2>/dev/null)" = "$package=$version" ]; then
	exit 0
fi
mkdir -p "$dir"
rm -rf "$dir/deb" "$dir/root"
mkdir "$dir/deb"
say "downloading $package $version"
# Its output goes to the log: as root, apt also warns that user _apt
# cannot write here and that it downloads as root instead, which is fine.
download() { (cd "$dir/deb" && apt-get download "$package=$version") >"$dir/apt.log" 2>&1; }
if ! download; then
	# Package lists older than the installed linux-source: refresh them.
	[ "$(id -u)" -eq 0 ] || die "apt-get download failed, see $dir/apt.log"
	say "refreshing the package lists"
	apt-get update -qq >>"$dir/apt.log" 2>&1 || die "apt-get update failed, see $dir/apt.log"
	download || die "no $package $version in the archive, see $dir/apt.log"
fi
dpkg-deb -x "$dir"/deb/*.deb "$dir/root"
kernel=$(find "$dir/root/boot" -name 'vmlinuz-*' -print -quit)
[ -n "$kernel" ] || die "the package has no /boot/vmlinuz-*"
cp "$kernel" "$image.tmp"
mv "$image.tmp" "$image"
echo "$package=$version" >"$dir/package.stamp"
rm -rf "$dir/deb" "$dir/root"
say "ready: ${image#"$top"/} ($(basename "$kernel"))"
