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
