#!/bin/sh
# Interleaved 1 s runs of multimodal (90:9:1, 4 threads) under glibc and
# the library's sched-state at two spin bounds and futex; one line each.
# usage: spin.sh REPS
reps=$1; shift
lib=/usr/lib/libadaptive.so
cal=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
echo "calibration=$cal"
set -- "glibc:" "ss20:LD_PRELOAD=$lib ADAPTIVE_SPIN_US=20" \
	"ss5:LD_PRELOAD=$lib ADAPTIVE_SPIN_US=5" "futex:LD_PRELOAD=$lib ADAPTIVE_POLICY=futex"
rep=1
while [ "$rep" -le "$reps" ]; do
	for cfg in "$@"; do
		name=${cfg%%:*}
		env ${cfg#*:} /workloads/multimodal -t 4 -d 1 -c "$cal" -m 90:9:1 |
			sed -n "s/^threads=/rep=$rep cfg=$name threads=/p"
	done
	# rotate the order so no configuration always runs first
	first=$1; shift; set -- "$@" "$first"
	rep=$((rep + 1))
done
echo "stats:"
for cfg in "ss20:ADAPTIVE_SPIN_US=20" "ss5:ADAPTIVE_SPIN_US=5"; do
	env ADAPTIVE_STATS=1 LD_PRELOAD=$lib ${cfg#*:} /workloads/multimodal -t 4 -d 1 -c "$cal" -m 90:9:1 2>&1 |
		sed -n "s/^libadaptive:/${cfg%%:*}/p"
done
