#!/bin/sh
# make install and make uninstall, with PREFIX and DESTDIR, into a
# scratch directory: the library lands in $DESTDIR$PREFIX/lib, works
# from there, and uninstall removes it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
lib=$dest/opt/adaptive/lib/libadaptive.so
# shellcheck source=tests/bounded.sh
. "$top/tests/bounded.sh"

if make -s -C "$top" BUILD="$build" DESTDIR="$dest" PREFIX=/opt/adaptive install >"$dest.log" 2>&1 &&
	[ -f "$lib" ]; then
	# 0.1 s on the host: see preload-tests.sh's limits.
	bounded 5 env LD_PRELOAD="$lib" ADAPTIVE_STATS=1 "$build/tests/helpers/exit_paths" return \
		>"$dest.log" 2>&1
	if [ -n "$timed_out" ]; then
		echo "FAIL install/prefix_and_destdir: the installed library timed out after $timed_out s"
	elif grep -q '^libadaptive: pid=.* acquisitions=2000 ' "$dest.log"; then
		echo "PASS install/prefix_and_destdir"
	else
		echo "FAIL install/prefix_and_destdir: the installed library: $(tail -n 3 "$dest.log")"
	fi
else
	echo "FAIL install/prefix_and_destdir: $(tail -n 3 "$dest.log")"
fi
if make -s -C "$top" BUILD="$build" DESTDIR="$dest" PREFIX=/opt/adaptive uninstall >"$dest.log" 2>&1 &&
	[ ! -e "$lib" ]; then
	echo "PASS install/uninstall"
else
	echo "FAIL install/uninstall: $(tail -n 3 "$dest.log")"
fi
rm -f "$dest.log"
