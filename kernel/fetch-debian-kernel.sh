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
being that of the installed linux-source-6.12 (or the newest in the
archive if that one is gone), under
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

spec=$package=$version
# The archive keeps the newest release only: after an update that the
# installed linux-source-6.12 has not followed, take the newest image.
if ! apt-cache show "$spec" >/dev/null 2>&1; then
	newest=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned$' |
		cut -d' ' -f1 | sort -V | tail -n 1)
	[ -n "$newest" ] || die "no $package $version, and no other linux-image-6.12.*+deb12-cloud-amd64-unsigned, in the archive"
	printf '[kernel debian] no %s %s in the archive; using %s (upgrade linux-source-6.12 to match)\n' \
		"$package" "$version" "$newest"
	spec=$newest
fi
"$top/scripts/fetch-deb.sh" "$spec" "$dir"
kernel=$(find "$dir/boot" -name 'vmlinuz-*' -print -quit)
[ -n "$kernel" ] || die "$package has no /boot/vmlinuz-*"
if ! cmp -s "$kernel" "$image"; then
	cp "$kernel" "$image.tmp"
	mv "$image.tmp" "$image"
	printf '[kernel debian] ready: %s (%s)\n' "${image#"$top"/}" "$(basename "$kernel")"
fi
