#!/bin/sh
# The preload tests (tests/preload-tests.sh) on this machine's kernel,
# expecting what it supports: the sched-state policy if it can attach
# an rseq sched_state, else the spin-count fallback.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
expect=spin-count
if "$build/tests/helpers/sched_state_probe" >/dev/null; then
	expect=sched-state
fi
exec "$top/tests/preload-tests.sh" preload "$build/libadaptive.so" "$build/tests" \
	"$build/workloads" "$expect"
