#!/bin/sh
# make vm-bench's outputs belong to the run that wrote them: a run moves
# what an earlier run left in build/bench (its boot logs, its instruction
# counts, its results) to build/bench/previous/, so that a copy of the
# directory (docs/bench/) carries no log of a boot that this run did not
# make, and a run that fails loses nothing. vm-bench.sh runs here from a
# copy of the tree whose QEMU runner is a stub that boots nothing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

pass() { echo "PASS vm-bench-outputs: $1"; }
fail() { echo "FAIL vm-bench-outputs: $1"; }

mkdir -p "$dir/top/workloads" "$dir/top/vm-image" "$dir/build/bench"
cp -r "$top/workloads/vm-bench.sh" "$top/workloads/analyze.py" "$top/workloads/defs" \
	"$dir/top/workloads/"
# A boot that prints its first line and no results.
cat >"$dir/top/vm-image/run-vm.sh" <<'EOF'
#!/bin/sh
echo "run-vm: bzImage, tcg, 2 vCPUs, 1G, logs nowhere"
EOF
# Nor does the disk image of a boot need a real file system here.
mkdir -p "$dir/bin"
printf '#!/bin/sh\nexit 0\n' >"$dir/bin/mke2fs"
chmod +x "$dir/top/vm-image/run-vm.sh" "$dir/bin/mke2fs"
earlier="locks-patched-boot1.log locks-patched-boot2.log kernel-stock-boot1.log
kernel-cost-icount.txt kernel-cost.csv results.csv rows.csv summary.md old.svg"
for f in $earlier; do
	echo "from an earlier run" >"$dir/build/bench/$f"
done

# One boot of one cell, with no setting of the caller's but those below:
# this run writes locks-patched-boot1.log only.
run_once() {
	env -u SECONDS_PER_RUN -u SETS -u VCPUS -u MEM -u ACCEL -u BENCH_TIMEOUT \
		PATH="$dir/bin:$PATH" BUILD_DIR="$dir/build" PROFILE=contract WORKLOADS=ptsematest \
		THREADS=2 POLICIES="glibc sched-state" REPS=1 BOOTS=1 \
		"$dir/top/workloads/vm-bench.sh" >"$dir/out" 2>&1 || true
}
run_once
stale=$(grep -l "from an earlier run" "$dir"/build/bench/* 2>/dev/null || true)
kept=
for f in $earlier; do
	grep -qs "from an earlier run" "$dir/build/bench/previous/$f" || kept="$kept $f"
done
if [ -z "$stale" ] && [ -z "$kept" ] && [ -f "$dir/build/bench/locks-patched-boot1.log" ]; then
	pass "a run moves every output of an earlier run to build/bench/previous"
else
	fail "left in build/bench:$(echo "$stale" | sed "s|$dir/build/bench/| |g" | tr -d '\n'); missing from previous/:$kept; output: $(head -c 300 "$dir/out")"
fi

# A second run moves the first one's outputs; a run that finds nothing
# to move (build/bench emptied by hand) keeps previous/ as it is.
run_once
rm -f "$dir"/build/bench/*.log "$dir"/build/bench/*.csv "$dir"/build/bench/*.md \
	"$dir"/build/bench/*.svg
run_once
if [ -f "$dir/build/bench/previous/locks-patched-boot1.log" ]; then
	pass "a run with nothing to move leaves previous/ alone"
else
	fail "previous/ lost the last outputs: $(find "$dir/build/bench/previous" -type f -printf '%f ')"
fi
