#!/bin/sh
# make vm-bench's outputs belong to the run that wrote them: a run clears
# what an earlier run left in build/bench (its boot logs, its instruction
# counts), so that a copy of the directory (docs/bench/) carries no log
# of a boot that this run did not make. vm-bench.sh runs here from a
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
for f in locks-patched-boot1.log locks-patched-boot2.log kernel-stock-boot1.log \
	kernel-cost-icount.txt kernel-cost.csv results.csv summary.md old.svg; do
	echo "from an earlier run" >"$dir/build/bench/$f"
done

# One boot of one cell: this run writes locks-patched-boot1.log only.
env PATH="$dir/bin:$PATH" BUILD_DIR="$dir/build" PROFILE=contract WORKLOADS=ptsematest THREADS=2 \
	POLICIES="glibc sched-state" REPS=1 BOOTS=1 \
	"$dir/top/workloads/vm-bench.sh" >"$dir/out" 2>&1 || true
stale=$(grep -l "from an earlier run" "$dir"/build/bench/* 2>/dev/null || true)
if [ -z "$stale" ] && [ -f "$dir/build/bench/locks-patched-boot1.log" ]; then
	pass "a run leaves no output of an earlier run in build/bench"
else
	fail "left from an earlier run:$(echo "$stale" | sed "s|$dir/build/bench/| |g" | tr -d '\n'); output: $(head -c 300 "$dir/out")"
fi
