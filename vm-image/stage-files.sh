#!/usr/bin/env bash
# Copy host files and directories into a guest root, each ELF file with
# its shared-library closure (loader and libraries, as the host's ldd
# resolves them) at the same paths, so that dynamic binaries run as they
# do on the host.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] ROOT HOST_PATH=GUEST_PATH...

Copies each HOST_PATH (a file or a directory, copied recursively) to
ROOT/GUEST_PATH, then the library closure of every ELF file copied.
A missing HOST_PATH or an unresolvable library is an error.
EOF
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
'') usage >&2; exit 2 ;;
esac
root=$1
shift

die() { printf 'stage-files: error: %s\n' "$*" >&2; exit 1; }

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }

# The libraries ldd resolves for ELF file $1, one path per line, except
# those under $2, which is copied as a whole. Libraries beside the file
# count as found: the kernel selftests load librseq.so with an rpath of
# "./".
closure() {
	local out skip
	out=$(LD_LIBRARY_PATH=$(dirname "$1")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		LC_ALL=C ldd "$1" 2>&1) || {
		case "$out" in *'not a dynamic executable'* | *'statically linked'*) return 0 ;; esac
		die "ldd $1: $out"
	}
	if grep -q 'not found' <<<"$out"; then
		die "$1 needs libraries the host lacks: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
	fi
	skip=$(realpath "$2")/
	awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' <<<"$out" |
		while IFS= read -r lib; do
			case "$(realpath "$lib")" in "$skip"*) ;; *) echo "$lib" ;; esac
		done
}

libs=$(mktemp)
trap 'rm -f "$libs"' EXIT
for spec in "$@"; do
	src=${spec%%=*}
	dst=$root/${spec#*=}
	[ "$spec" != "$src" ] || die "expected HOST_PATH=GUEST_PATH, got $spec"
	[ -e "$src" ] || die "no such file: $src"
	mkdir -p "$(dirname "$dst")"
	if [ -d "$src" ]; then
		mkdir -p "$dst"
		cp -a "$src/." "$dst/"
	else
		# Replace, never write through, a symlink already at $dst.
		rm -f "$dst"
		cp -L "$src" "$dst"
	fi
	while IFS= read -r -d '' f; do
		if is_elf "$f"; then
			closure "$f" "$src" >>"$libs"
		fi
	done < <(find "$src" -type f -print0)
done

sort -u "$libs" | while IFS= read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	rm -f "$root$lib"
	cp -L "$lib" "$root$lib"
done
