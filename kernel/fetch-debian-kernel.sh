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

Unpacks linux-image-<release>+deb12-cloud-amd64-unsigned, <release>
being that of the installed linux-source-6.12, under
build/kernel/debian (scripts/fetch-deb.sh) and copies its kernel to
build/vmlinuz-debian. The cloud flavour has everything the guest uses
built in (serial console, initramfs, ACPI power-off) and boots fastest
under TCG. A no-op when that release is already there.

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

die() { printf '[kernel debian] error: %s\n' "$*" >&2; exit 1; }

version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (make deps)"
# 6.12.118-1~deb12u1 -> linux-image-6.12.118+deb12-cloud-amd64-unsigned
package=linux-image-${version%%-*}+deb12-cloud-amd64-unsigned

"$top/scripts/fetch-deb.sh" "$package=$version" "$dir"
kernel=$(find "$dir/boot" -name 'vmlinuz-*' -print -quit)
[ -n "$kernel" ] || die "$package has no /boot/vmlinuz-*"
if ! cmp -s "$kernel" "$image"; then
	cp "$kernel" "$image.tmp"
	mv "$image.tmp" "$image"
	printf '[kernel debian] ready: %s (%s)\n' "${image#"$top"/}" "$(basename "$kernel")"
fi
