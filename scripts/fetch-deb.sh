#!/usr/bin/env bash
# Download a Debian package and unpack it into a directory, without
# installing it: for what only the guest runs (a stock kernel image, a
# daemon that installing would start on this machine).
set -euo pipefail

usage() {
	cat <<EOF2
usage: $0 [--help] PACKAGE[=VERSION] DIR

Unpacks PACKAGE (the candidate version, or VERSION) into DIR, which it
replaces; a no-op when DIR already holds that package and version
(DIR/.package). Refreshes the package lists once, as root, if apt does
not know the package. Its dependencies are not fetched: the caller
installs the libraries it needs.
EOF2
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
spec=$1
dir=$2
name=${spec%%=*}

say() { printf '[fetch %s] %s\n' "$name" "$*"; }
die() { printf '[fetch %s] error: %s\n' "$name" "$*" >&2; exit 1; }

candidate() { apt-cache policy "$name" 2>/dev/null | sed -n 's/^ *Candidate: //p'; }
if [ "$spec" = "$name" ]; then
	version=$(candidate)
	if [ -z "$version" ] || [ "$version" = "(none)" ]; then
		[ "$(id -u)" -eq 0 ] || die "apt knows no package $name"
		say "refreshing the package lists"
		apt-get update -qq || die "apt-get update failed"
		version=$(candidate)
	fi
	case "$version" in "" | "(none)") die "apt knows no package $name" ;; esac
else
	version=${spec#*=}
fi
[ "$(cat "$dir/.package" 2>/dev/null)" != "$name=$version" ] || exit 0

parent=$(dirname "$dir")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/deb"
say "downloading $name $version"
# Its output goes to the log: as root, apt also warns that user _apt
# cannot write here and that it downloads as root instead, which is fine.
download() { (cd "$tmp/deb" && apt-get download "$name=$version") >"$tmp/apt.log" 2>&1; }
if ! download; then
	[ "$(id -u)" -eq 0 ] || { cat "$tmp/apt.log" >&2; die "apt-get download failed"; }
	say "refreshing the package lists"
	if ! apt-get update -qq >>"$tmp/apt.log" 2>&1 || ! download; then
		cat "$tmp/apt.log" >&2
		die "no $name $version in the archive"
	fi
fi
dpkg-deb -x "$tmp"/deb/*.deb "$tmp/root"
echo "$name=$version" >"$tmp/root/.package"
rm -rf "$dir"
mv "$tmp/root" "$dir"
say "unpacked into $dir"
