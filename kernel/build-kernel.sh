#!/usr/bin/env bash
# Build the guest kernel, patched with kernel/patches/series, stock, or
# patched with lock debugging, out of tree under build/kernel/<variant>/.
# Incremental: the tree is unpacked and patched again only when the
# tarball or the series changed, and configured again only when a config
# fragment changed.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] patched|stock|debug

Builds from \$KERNEL_TARBALL (default /usr/src/linux-source-6.12.tar.xz,
Debian package linux-source-6.12) and kernel/config/guest.config merged
onto tinyconfig:
  patched  build/bzImage: with kernel/patches/series applied;
  stock    build/bzImage-stock: the tarball as it is;
  debug    build/bzImage-debug: the patched tree (the same source
           directory, built apart) with kernel/config/debug.config
           merged last: lockdep, sleep-in-atomic and rseq checks, full
           preemption.
Also installs the uapi headers of the tree under
build/kernel/<variant>/headers. One build at a time per source tree:
another waits for it (patched and debug share one).

Environment: BUILD_DIR (default <project>/build), JOBS (default nproc+1),
V=1 to show the full build output.
EOF
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
patched | stock | debug) variant=$1 ;;
*) usage >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
build=${BUILD_DIR:-$top/build}
jobs=${JOBS:-$(($(nproc) + 1))}
patches=$top/kernel/patches
config=$top/kernel/config
# What each variant is built from: a source tree (patched or stock) and
# config fragments, merged in this order.
tree=$variant
fragments=("$config/guest.config")
image=$build/bzImage-$variant
case "$variant" in
patched) image=$build/bzImage ;;
debug)
	tree=patched
	fragments+=("$config/debug.config")
	;;
esac
tree_dir=$build/kernel/$tree
src=$tree_dir/src
dir=$build/kernel/$variant
obj=$dir/obj
kmake=(make -C "$src" O="$obj" ARCH=x86_64)

say() { printf '[kernel %s] %s\n' "$variant" "$*"; }
die() { printf '[kernel %s] error: %s\n' "$variant" "$*" >&2; exit 1; }

[ -r "$tarball" ] ||
	die "no kernel source at $tarball: install linux-source-6.12 (make deps) or set KERNEL_TARBALL"

# The patches of the series, in order; dies naming any that is missing.
series_patches() {
	local p
	grep -v -e '^#' -e '^[[:space:]]*$' "$patches/series" | while read -r p; do
		[ -f "$patches/$p" ] || die "kernel/patches/series lists $p, which does not exist"
		printf '%s\n' "$p"
	done
}

# What the source tree is made of: the tarball and, when patched, the series.
source_id() {
	local list=()
	stat -c '%n %s %Y' "$tarball"
	if [ "$tree" = patched ]; then
		mapfile -t list < <(series_patches)
		(cd "$patches" && sha256sum series "${list[@]}")
	fi
}

# Unpack into a fresh directory and apply the series with zero fuzz.
# An existing tree is then updated only where the content differs, so
# that kbuild rebuilds just what the change touched.
prepare_source() {
	local tmp=$tree_dir/src.new p
	say "unpacking $(basename "$tarball") into ${src#"$build"/}"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	if [ "$tree" = patched ]; then
		series_patches >"$tree_dir/series.list"
		while read -r p; do
			say "applying $p"
			patch -d "$tmp" -p1 -F0 -N -s <"$patches/$p" ||
				die "patch $p does not apply with zero fuzz to $(basename "$tarball")"
		done <"$tree_dir/series.list"
	fi
	if [ -d "$src" ]; then
		say "updating the changed files of the existing tree"
		rsync -rlc --delete "$tmp/" "$src/"
		rm -rf "$tmp"
	else
		mv "$tmp" "$src"
	fi
}

# tinyconfig + the fragments, then check that no option of them was
# dropped. Where fragments disagree the last one wins, in merge_config.sh
# and in the check.
configure() {
	local line missing=() names=("${fragments[@]##*/}")
	say "configuring: tinyconfig + ${names[*]}"
	mkdir -p "$obj"
	"${kmake[@]}" -s tinyconfig >"$dir/config.log" 2>&1 ||
		die "make tinyconfig failed, see $dir/config.log"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" \
		>>"$dir/config.log" 2>&1 || die "merge_config.sh failed, see $dir/config.log"
	"${kmake[@]}" -s olddefconfig >>"$dir/config.log" 2>&1 ||
		die "make olddefconfig failed, see $dir/config.log"
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) grep -qx "# ${line%=n} is not set" "$obj/.config" || missing+=("$line") ;;
		*) grep -qx "$line" "$obj/.config" || missing+=("$line") ;;
		esac
	done < <(grep -h '^CONFIG_' "${fragments[@]}" | tac | awk -F= '!seen[$1]++')
	[ ${#missing[@]} -eq 0 ] ||
		die "options of ${names[*]} dropped by Kconfig (unmet dependencies?): ${missing[*]}"
}

# Run the build in the background and report progress every 20 s. The
# log lists every file built, which the progress counts, even when this
# runs under "make -s": kbuild reads -s from MAKEFLAGS and would log
# nothing.
build_image() {
	local log=$dir/build.log start=$SECONDS pid rc=0
	say "building bzImage with -j$jobs (log: $log)"
	if [ "${V:-0}" = 1 ]; then
		env -u MAKEFLAGS "${kmake[@]}" -j"$jobs" bzImage 2>&1 | tee "$log" || rc=$?
	else
		env -u MAKEFLAGS "${kmake[@]}" -j"$jobs" bzImage >"$log" 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1
			if (((SECONDS - start) % 20 == 0)); then
				say "... $((SECONDS - start)) s, $(grep -c '^  CC' "$log" || true) files compiled"
			fi
		done
		wait "$pid" || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$log" >&2
		die "build failed, see $log"
	fi
	say "built in $((SECONDS - start)) s"
}

mkdir -p "$tree_dir" "$dir"
# Several people may build in one BUILD_DIR. The lock of the source tree
# covers its source and every build of it (the debug variant's too); it
# goes with this process and with the build it started.
exec {lock}<"$tree_dir"
if ! flock -n "$lock"; then
	say "waiting for another build of ${tree_dir#"$build"/}"
	flock "$lock"
fi
if [ ! -d "$src" ] || [ "$(source_id)" != "$(cat "$tree_dir/source.stamp" 2>/dev/null)" ]; then
	rm -f "$tree_dir/source.stamp"
	prepare_source
	source_id >"$tree_dir/source.stamp"
fi
config_id=$(cat "${fragments[@]}" | sha256sum)
if [ ! -f "$obj/.config" ] || [ "$config_id" != "$(cat "$dir/config.stamp" 2>/dev/null)" ]; then
	configure
	echo "$config_id" >"$dir/config.stamp"
fi
build_image
"${kmake[@]}" -s headers_install INSTALL_HDR_PATH="$dir/headers" >/dev/null

cp "$obj/arch/x86/boot/bzImage" "$image.tmp"
mv "$image.tmp" "$image"
say "ready: ${image#"$top"/}"
