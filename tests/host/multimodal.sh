#!/bin/sh
# workloads/multimodal -f: the holder of a blocking section commits a
# record with fdatasync() on the file (one call per blocked section,
# counted by strace), the file keeps its fixed ring of records, and a
# file that cannot be opened fails the run with its name.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
multimodal=$top/build/workloads/multimodal
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if ! command -v strace >/dev/null; then
	echo "FAIL multimodal/fsync_sections: no strace (make deps)"
	exit 0
fi
if strace -f -qq -e trace=fdatasync -o "$dir/trace" \
	"$multimodal" -t 3 -n 3000 -m 90:5:5 -f "$dir/log" >"$dir/out" 2>&1; then
	blocked=$(sed -n 's/.* blocked=\([0-9]*\).*/\1/p' "$dir/out")
	syncs=$(grep -c 'fdatasync(.*) *= 0$' "$dir/trace" || true)
	size=$(stat -c %s "$dir/log")
	if [ "${blocked:-0}" -gt 0 ] && [ "$syncs" = "$blocked" ] && [ "$size" = 1048576 ]; then
		echo "PASS multimodal/fsync_sections: $syncs fdatasync calls for $blocked blocked sections"
	else
		echo "FAIL multimodal/fsync_sections: ${blocked:-no} blocked sections, $syncs fdatasync calls, a file of $size bytes (expected 1048576)"
	fi
else
	echo "FAIL multimodal/fsync_sections: exit status $?: $(tr '\n' ' ' <"$dir/out")"
fi

rc=0
"$multimodal" -t 2 -n 100 -f "$dir/missing/log" >"$dir/out" 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q "^multimodal: open $dir/missing/log: No such file" "$dir/out"; then
	echo "PASS multimodal/fsync_file_error_named"
else
	echo "FAIL multimodal/fsync_file_error_named: status $rc: $(tr '\n' ' ' <"$dir/out")"
fi

# Test $1 passes if each of $2... (an option and its value) is refused
# with the usage, status 2.
check_rejected() {
	name=$1
	shift
	bad=
	for args in "$@"; do
		# shellcheck disable=SC2086 # the option and its value
		rc=0 && "$multimodal" -t 1 -n 10 $args >/dev/null 2>&1 || rc=$?
		[ "$rc" = 2 ] || bad="$bad '$args' (status $rc)"
	done
	if [ -z "$bad" ]; then
		echo "PASS multimodal/$name"
	else
		echo "FAIL multimodal/$name:$bad"
	fi
}

check_rejected bad_ranges_rejected "-o 5:4" "-b 1:2:3" "-b 5:" "-o 0:18446744073709551615" \
	"-l 3600000001" "-s 3600000000001"

# Its sleeps last what they ask for: the default 50 us of timer slack
# would make the sweep's 20 us sleeps about 85 us.
strace -qq -e trace=prctl -o "$dir/trace" "$multimodal" -t 1 -n 10 >/dev/null 2>&1 || true
if grep -q 'PR_SET_TIMERSLACK, 1' "$dir/trace"; then
	echo "PASS multimodal/timer_slack_set"
else
	echo "FAIL multimodal/timer_slack_set: $(tr '\n' ' ' <"$dir/trace")"
fi

# -C prints the calibration (busy-loop iterations per ms), and -c uses one
# given: at 1 iteration per ms, 200 sections of a nominal 100 ms take no
# time, where the program's own calibration would make them 20 s.
cal=$("$multimodal" -C 2>&1 | sed -n 's/^iterations_per_ms=\([1-9][0-9]*\)$/\1/p')
if [ -n "$cal" ]; then
	echo "PASS multimodal/calibration_printed: $cal iterations per ms"
else
	echo "FAIL multimodal/calibration_printed: $("$multimodal" -C 2>&1 | tr '\n' ' ')"
fi
out=$(timeout 60 "$multimodal" -t 1 -n 200 -m 0:100:0 -l 100000 -c 1 2>&1) || true
secs=$(echo "$out" | sed -n 's/.* seconds=\([0-9]*\)\..*/\1/p')
if echo "$out" | grep -q ' iterations_per_ms=1$' && [ -n "$secs" ] && [ "$secs" -lt 5 ]; then
	echo "PASS multimodal/calibration_given_used: ${secs}s"
else
	echo "FAIL multimodal/calibration_given_used: $out"
fi
check_rejected bad_calibration_rejected "-c 0" "-c abc" "-c -5" "-c 1x" "-c 1000000000001" \
	"-c 18446744073709551616"
