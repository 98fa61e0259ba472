#!/bin/sh
# make vm-bench's settings: every variable that workloads/vm-bench.sh
# reads reaches it through make unchanged (a makefile variable of the same
# name would be exported in its place), and a setting it cannot run
# (a workload or policy it does not know, a thread count that is not a
# number) stops it with a message before it builds or boots anything.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

pass() { echo "PASS vm-bench-settings: $1"; }
fail() { echo "FAIL vm-bench-settings: $1"; }

# The environment a recipe of the project's Makefile sees, for each
# setting given to make in the environment.
# (A make that runs this test passes its flags and jobserver on: not to
# this one.)
settings="PROFILE SECONDS_PER_RUN BOOTS REPS SETS THREADS WORKLOADS POLICIES VCPUS MEM ACCEL
BENCH_TIMEOUT GRACE KERNEL_CMDLINE"
bad=
for var in $settings; do
	seen=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$var=value-of-$var" \
		make --no-print-directory -s -C "$top" -f Makefile -f - show-setting VAR="$var" \
		2>"$dir/make.err" <<'EOF'
show-setting:
	@printenv $(VAR)
EOF
	) || seen="$seen (make failed: $(head -c 200 "$dir/make.err"))"
	[ "$seen" = "value-of-$var" ] || bad="$bad $var (recipe sees '$seen')"
done
if [ -z "$bad" ]; then
	pass "make passes every setting to vm-bench.sh unchanged"
else
	fail "make replaces settings:$bad"
fi

# $1: what is checked; $2: the word the message must name; the rest:
# settings that vm-bench.sh --check must refuse with status 2 and one
# line of its own, building nothing.
refused() {
	what=$1
	word=$2
	shift 2
	rc=0
	env BUILD_DIR="$dir/build" "$@" "$top/workloads/vm-bench.sh" --check >"$dir/out" 2>&1 || rc=$?
	if [ "$rc" = 2 ] && grep '^vm-bench: ' "$dir/out" | grep -qF -- "$word" && [ ! -e "$dir/build" ]; then
		pass "$what"
	else
		fail "$what: status $rc, output: $(head -c 300 "$dir/out")"
	fi
}
refused "an unknown workload is refused" no-such-workload WORKLOADS="ptsematest no-such-workload"
refused "a kernel-part program is not a lock workload" ctxswitch WORKLOADS=ctxswitch
refused "an unknown policy is refused" no-such-policy POLICIES="glibc sched-state no-such-policy"
refused "a thread count must be a number" two THREADS="1 two"
refused "an unknown profile is refused" no-such-profile PROFILE=no-such-profile
refused "a path is not a workload's name" ../defs/ptsematest WORKLOADS=../defs/ptsematest
refused "an empty workload list is refused" "no workload" WORKLOADS=" "
refused "an empty thread list is refused" "no thread count" THREADS=" "
refused "a workload needs a thread count it runs at" ptsematest WORKLOADS=ptsematest THREADS=1
refused "glibc's own mutexes have no variant without handoffs" glibc-adaptive-unfair \
	POLICIES="glibc glibc-adaptive-unfair"
refused "the empty preload has no variant without handoffs" "variant without handoffs" \
	POLICIES="glibc empty-preload-unfair"
refused "the empty preload runs at 1 thread only" "empty-preload runs at 1 thread only" \
	POLICIES="glibc empty-preload" THREADS="2 4"
refused "only the policies that spin for a time take a spin bound" futex-spin5 \
	POLICIES="glibc futex-spin5"
refused "a count-bounded policy takes no spin bound" spin-count-spin5 \
	POLICIES="glibc spin-count-spin5"
refused "a spin bound is at least 1 us" sched-state-spin0 POLICIES="glibc sched-state-spin0"
refused "a spin bound is at most 1000000 us" "1 to 1000000" POLICIES="glibc sched-state-spin1000001"
refused "a spin bound of many digits is refused" "1 to 1000000" \
	POLICIES="glibc sched-state-spin99999999999999999999999"
refused "a spin bound has no leading zero" sched-state-spin007 POLICIES="glibc sched-state-spin007"
refused "a spin bound is a number" sched-state-spin5x POLICIES="glibc sched-state-spin5x"
refused "a spin bound comes before -unfair" "comes before -unfair" \
	POLICIES="glibc sched-state-unfair-spin5"

# Valid settings, the second a profile whose control (empty-preload,
# 1 thread only) has no 1-thread cell to run in, which it leaves out.
rc=0
env BUILD_DIR="$dir/build" PROFILE=contract WORKLOADS=ptsematest POLICIES="glibc sched-state-unfair sched-state-spin5 spin-spin50-unfair" \
	THREADS="2 4" "$top/workloads/vm-bench.sh" --check >"$dir/out" 2>&1 || rc=$?
env BUILD_DIR="$dir/build" PROFILE=quick THREADS="2 4" \
	"$top/workloads/vm-bench.sh" --check >>"$dir/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && [ ! -e "$dir/build" ]; then
	pass "valid settings pass the check, which builds nothing"
else
	fail "valid settings: status $rc, output: $(head -c 300 "$dir/out")"
fi
