#!/bin/sh
# In one boot, REPS rotations of 1 s runs of each workload below under
# glibc (no preload) and each library NAME=PATH, by default the library
# before the spin history ("old", /extra/libold.so) and the image's
# library ("new"), with cputime; the order reverses every other
# rotation. Then one run of the last library with ADAPTIVE_STATS=1 per
# stats cell. ratios.py reads the output.
#   mm    our multimodal mix, 90:9:1 of 100 ns / 20 us / 0.1-1 ms asleep
#   sw0   the multimodal sweep's first point (1 us / 10 us, 5-20 us outside)
#   sbt   sysbench threads, one lock, 100 yields
#   long  every section 100 us on CPU, 20-80 us outside
# usage: compare.sh REPS [NAME=PATH...]
case $1 in
[1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;
*)
	sed -n '2,12s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
reps=$1
shift
[ $# -gt 0 ] || set -- old=/extra/libold.so new=/usr/lib/libadaptive.so
configs="glibc="
for lib; do
	case $lib in
	glibc=*) echo "compare.sh: glibc names the run without a preload" >&2; exit 2 ;;
	*\ *) echo "compare.sh: no spaces in NAME=PATH: $lib" >&2; exit 2 ;;
	?*=/*) [ -f "${lib#*=}" ] || { echo "compare.sh: no library ${lib#*=}" >&2; exit 2; } ;;
	*) echo "compare.sh: expected NAME=PATH, got $lib" >&2; exit 2 ;;
	esac
	configs="$configs $lib"
	last=${lib#*=}
done
reversed=
for c in $configs; do reversed="$c $reversed"; done
cal=$(/workloads/multimodal -C | sed -n 's/^iterations_per_ms=//p')
echo "calibration=$cal"
# wl_command_of WORKLOAD THREADS: the command of a 1 s run, from the
# workload's definition in /workloads/defs (long: multimodal's, with
# its own mix).
# shellcheck disable=SC2034 # the definitions' wl_command reads them
wl_command_of() (
	defs=/workloads/defs
	multimodal_calibration=$cal
	# shellcheck disable=SC1090,SC1091 # the guest's definitions
	case $1 in
	mm) . "$defs/multimodal.sh" ;;
	sw0) . "$defs/multimodal-sweep-0.sh" ;;
	sbt) . "$defs/sysbench-threads.sh" ;;
	long)
		. "$defs/multimodal.sh"
		multimodal_args="-m 0:1:0 -l 100 -o 20000:80000"
		;;
	esac
	wl_command "$2" 1
)
# run WORKLOAD THREADS CONFIGURATION ENV...: one line of ops and CPU
run() {
	wl=$1 t=$2 cfg=$3
	shift 3
	cmd=$(wl_command_of "$wl" "$t")
	# shellcheck disable=SC2086 # $cmd is a command line
	env "$@" /workloads/cputime $cmd >/tmp/o 2>&1
	ops=$(sed -n 's/.*ops=\([0-9]*\) seconds.*/\1/p; s/.*total number of events: *\([0-9]*\)/\1/p' /tmp/o | head -1)
	c=$(sed -n 's/^cputime: status=0 wall_ns=\([0-9]*\) cpu_ns=\([0-9]*\).*/\1 \2/p' /tmp/o)
	echo "wl=$wl t=$t cfg=$cfg ops=$ops wall_cpu=$c"
}
rep=1
while [ "$rep" -le "$reps" ]; do
	for w in "mm 2" "mm 4" "sw0 2" "sw0 4" "sbt 2" "sbt 4" "long 2" "long 4"; do
		order=$configs
		[ $((rep % 2)) = 0 ] && order=$reversed
		for c in $order; do
			# shellcheck disable=SC2086
			run $w ${c%%=*} LD_PRELOAD=${c#*=}
		done
	done
	rep=$((rep + 1))
done
for w in "mm 4" "sw0 4" "sbt 4" "long 2"; do
	# shellcheck disable=SC2086
	set -- $w
	run "$1" "$2" stats ADAPTIVE_STATS=1 LD_PRELOAD="$last" >/dev/null
	grep '^libadaptive' /tmp/o | sed "s/^/$1 $2 /; s/threads_.*//"
done
