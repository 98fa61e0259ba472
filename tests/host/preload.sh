#!/bin/sh
# The preload tests (tests/preload-tests.sh) on this machine's kernel,
# expecting what it supports: the sched-state policy if it has rseq
# sched_state_ptr, else the spin-count fallback.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
expect=spin-count
if "$build/tests/guest/sched_state_abi" feature_size | grep -q '^PASS '; then
	expect=sched-state
fi
exec "$top/tests/preload-tests.sh" preload "$build/libadaptive.so" "$build/tests" \
	"$build/workloads" "$expect"
