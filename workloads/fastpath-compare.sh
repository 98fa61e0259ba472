#!/usr/bin/env bash
# The uncontended fast path, glibc against libadaptive: build/workloads/fastpath
# run alternately with and without the preload (2 threads alive, so that
# glibc takes its atomic path), medians of the time per lock+unlock pair
# and their ratio, then instructions per pair counted by callgrind, which
# do not depend on the machine's load.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [--help] [-r REPS] [-k normal|recursive|errorcheck]

Needs build/workloads/fastpath and build/libadaptive.so (make tests);
valgrind for the instruction counts (skipped, with a note, without it).
EOF
}

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
reps=7
kind=normal
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	-r) reps=$2; shift 2 ;;
	-k) kind=$2; shift 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "fastpath-compare: -r $reps: expected a count" >&2; exit 2; }
bench=$build/workloads/fastpath
lib=$build/libadaptive.so
for f in "$bench" "$lib"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "fastpath-compare: missing $f (make tests)" >&2; exit 1; }
done

ns_per_pair() { sed -n 's/.*ns_per_pair=\([0-9.]*\).*/\1/p'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

glibc=()
adaptive=()
for ((i = 1; i <= reps; i++)); do
	glibc+=("$("$bench" -k "$kind" | ns_per_pair)")
	adaptive+=("$(LD_PRELOAD=$lib "$bench" -k "$kind" | ns_per_pair)")
	printf '\rrun %d/%d' "$i" "$reps" >&2
done
echo >&2
g=$(printf '%s\n' "${glibc[@]}" | median)
a=$(printf '%s\n' "${adaptive[@]}" | median)
echo "fast path, $kind mutex, $reps alternating runs of 20M lock+unlock pairs, 2 threads alive:"
echo "  glibc        median $g ns/pair  (runs: ${glibc[*]})"
echo "  libadaptive  median $a ns/pair  (runs: ${adaptive[*]})"
# Runs i of both are a pair: slow drifts of the machine divide out.
if [ "$reps" -ge 2 ]; then
	PYTHONPATH=$top/workloads python3 -c '
import sys
from analyze import ratio_interval
g, a = (list(map(float, s.split())) for s in sys.argv[1:3])
print("  ratio libadaptive/glibc: %.3f [%.3f, %.3f] (geometric mean of the paired"
      " runs, 95%% interval)" % ratio_interval([x / y for x, y in zip(a, g)]))
' "${glibc[*]}" "${adaptive[*]}"
else
	awk -v g="$g" -v a="$a" 'BEGIN { printf "  ratio libadaptive/glibc: %.3f\n", a / g }'
fi

if ! command -v valgrind >/dev/null; then
	echo "  (valgrind missing: no instruction counts)"
	exit 0
fi
instructions() {
	"$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" -k "$kind" -n 1000000 2>&1 |
		sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
gi=$(instructions env)
ai=$(instructions env LD_PRELOAD="$lib")
echo "  instructions per pair (callgrind, whole program / 1M pairs): glibc $((gi / 1000000)), libadaptive $((ai / 1000000))"
