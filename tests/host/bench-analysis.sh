#!/bin/sh
# workloads/analyze.py on a synthetic results.csv with known ratios: a
# policy 10% faster, one equal and one 20% slower than glibc, the first
# one 5% faster than its own variant without handoffs (-unfair), and the
# default policy (sched-state) 10% slower, which breaks the contract, under a
# drift of +-40% from repetition to repetition that pairing must cancel
# and 2% noise per run. The intervals must hold the true ratios and be
# narrow (under 8% wide: unpaired they would be about 30%), the verdicts
# must follow, a rerun must print the same summary, and the
# plot must have its error bars.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# What the generators of synthetic results below share.
cat >"$dir/synthetic.py" <<'EOF'
import csv

HEADER = ("workload,kernel,policy,threads,vcpus,rep,ops_per_sec,cpu_ns_per_op,p50_us,p99_us,"
          "status,accel,date,boot,seconds,fairness,p999_us,max_us,position,vcpu_speed").split(",")


def run(workload, policy, threads, rep, boot, ops, p99="", fairness="", position="", speed=""):
    """A successful run on the patched kernel with 2 vCPUs."""
    return [workload, "patched", policy, threads, 2, rep, f"{ops:.1f}", f"{1e9 / ops:.0f}", "",
            p99, "ok", "tcg", "2026-01-01T00:00Z", boot, "2.000", fairness, "", "", position,
            speed]


def write(path, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(HEADER)
        out.writerows(rows)
EOF
synthetic() { PYTHONPATH=$dir python3 - "$@"; }
# analyze.py on $dir/$1.csv, into $dir/$1 (which it makes).
analyze() { python3 "$top/workloads/analyze.py" "$dir/$1.csv" "$dir/$1" >/dev/null; }

synthetic "$dir/results.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(1)
truth = {"glibc": 1.0, "fast": 1.10, "same": 1.0, "slow": 0.80, "fast-unfair": 1.10 / 1.05,
         "sched-state": 0.90}
rows = []
for threads in (1, 4):
    for rep in range(1, 10):
        boot = 1 + (rep - 1) % 2
        drift = math.exp(rng.uniform(-0.4, 0.4))
        for i, (policy, ratio) in enumerate(truth.items()):
            ops = 1000 * drift * ratio * math.exp(rng.gauss(0, 0.02))
            rows.append(run("synthetic", policy, threads, rep, boot, ops, f"{100 / ratio:.2f}",
                            f"{0.9 * ratio / 1.1:.4f}", (i + rep) % len(truth) + 1))
rows.append(["synthetic", "patched", "slow", 4, 2, 10, "", "", "", "", "exit-124", "tcg",
             "2026-01-01T00:00Z", 2, "", "", "", "", ""])
write(sys.argv[1], rows)
EOF

pass() { echo "PASS bench-analysis: $1"; }
fail() { echo "FAIL bench-analysis: $1"; }

mkdir "$dir/a" "$dir/b"
if ! python3 "$top/workloads/analyze.py" "$dir/results.csv" "$dir/a" >"$dir/log" 2>&1; then
	fail "analyze.py failed: $(tail -n 3 "$dir/log")"
	exit 1
fi
python3 "$top/workloads/analyze.py" "$dir/results.csv" "$dir/b"

# The rows of workload $2 in the throughput table of summary $1: the
# thread count, then the cell of each policy named after them, by tabs.
throughput_cells() {
	python3 - "$@" <<'EOF'
import sys
path, workload, policies = sys.argv[1], sys.argv[2], sys.argv[3:]
table, header = "", None
for line in open(path):
    if line.startswith("## "):
        table, header = line, None
    elif table.startswith("## Lock workloads, throughput") and line.startswith("| workload"):
        header = [c.strip() for c in line.strip().strip("|").split("|")]
    elif header and line.startswith(f"| {workload} |"):
        cells = dict(zip(header, (c.strip() for c in line.strip().strip("|").split("|"))))
        print("\t".join([cells["threads"]] + [cells[p] for p in policies]))
EOF
}

# Each throughput cell: the true ratio inside the interval, and the verdict.
throughput_cells "$dir/a/summary.md" synthetic fast same slow | python3 -c '
import re, sys
expect = [("fast", 1.10, "faster"), ("same", 1.0, "tie"), ("slow", 0.80, "slower")]
for line in sys.stdin:
    threads, *cells = line.rstrip("\n").split("\t")
    for (policy, true, word), cell in zip(expect, cells):
        m = re.fullmatch(r"([0-9.]+) \[([0-9.]+), ([0-9.]+)\] (\w+)", cell)
        name = f"{policy} at {threads} threads"
        if not m:
            print(f"FAIL bench-analysis: {name}: cell {cell!r}")
        elif (not float(m[2]) <= true <= float(m[3]) or m[4] != word
              or float(m[3]) / float(m[2]) > 1.08):
            print(f"FAIL bench-analysis: {name}: {cell}, expected {true} {word}, "
                  "under 8% wide")
        else:
            print(f"PASS bench-analysis: {name}: {cell}")'

if grep -q '^| synthetic | 4 | .*cheaper' "$dir/a/summary.md" &&
	grep -q '^## Lock workloads, fairness' "$dir/a/summary.md" &&
	grep -q '^## Lock workloads, 99th' "$dir/a/summary.md"; then
	pass "CPU per operation, p99 and fairness tables"
else
	fail "CPU per operation, p99 or fairness table missing"
fi
if grep -q '^| synthetic | 4 | 10 | 2 | 6 | 6 of 6 |' "$dir/a/summary.md" &&
	grep -q '^- The 2 cells of every policy: every policy in every one of the 6 positions: yes' "$dir/a/summary.md"; then
	pass "design table: 10 repetitions (one failed), 2 boots, every policy in every position"
else
	fail "design table wrong: $(grep '^| synthetic | 4 | [0-9]* |' "$dir/a/summary.md" | tail -n 1)"
fi
cell=$(sed -n 's/^| synthetic | 4 | fast | \([^|]*\) |.*/\1/p' "$dir/a/summary.md")
if python3 -c '
import re, sys
m = re.fullmatch(r"([0-9.]+) \[([0-9.]+), ([0-9.]+)\] faster", sys.argv[1].strip())
sys.exit(not (m and float(m[2]) <= 1.05 <= float(m[3])))' "$cell"; then
	pass "handoff cost table: fast / fast-unfair $cell"
else
	fail "handoff cost table: fast / fast-unfair '${cell:-missing}', expected 1.05 faster"
fi
if grep -q '^## The contract, sched-state against glibc: 0 of 2 cells hold' "$dir/a/summary.md" &&
	grep -q '^| synthetic | 4 | FAILS: throughput 0\.[89]' "$dir/a/summary.md"; then
	pass "contract table: sched-state at 0.90 of glibc fails in both cells"
else
	fail "contract table missing or wrong: $(grep -A 6 '^## The contract' "$dir/a/summary.md" | tr '\n' ' ')"
fi
if grep -q 'slow threads=4 boot=2 rep=10: exit-124' "$dir/a/summary.md"; then
	pass "failed run listed"
else
	fail "failed run not listed"
fi
if cmp -s "$dir/a/summary.md" "$dir/b/summary.md"; then
	pass "a rerun prints the same summary"
else
	fail "a rerun prints another summary"
fi
bars=$(grep -c '<line x1="[0-9.]*" y1="[0-9.]*" x2="[0-9.]*" y2="[0-9.]*" stroke="#' "$dir/a/synthetic.svg" || true)
if [ "$bars" -ge 12 ]; then
	pass "plot with $bars error bars"
else
	fail "plot has $bars error bars, expected at least 12"
fi

# An incomplete design, 2 repetitions of 4 policies per cell: with the
# order offset by the cell (as run-bench.sh offsets its rows), the 3
# cells of all 4 policies put every policy in all 4 positions; with the
# same 2 orders in all, in 2 only. The definition skips b at 3 threads,
# whose positions are then those among 3. At 2 threads every run of a
# failed.
for offset in 1 0; do
	synthetic "$dir/design$offset.csv" "$offset" <<'EOF'
import sys
from synthetic import run, write
offset = int(sys.argv[2])
policies = ["glibc", "a", "b", "sched-state"]
rows = []
for cell, threads in enumerate((1, 2, 3, 4)):
    for rep in (1, 2):
        order = [policies[(rep - 1 + offset * cell + i) % 4] for i in range(4)]
        if threads == 3:
            order.remove("b")
        for position, policy in enumerate(order, 1):
            row = run("design", policy, threads, rep, rep, 1000 + rep, position=position)
            if threads == 2 and policy == "a":
                row[6:8], row[10] = ["", ""], "exit-124"
            rows.append(row)
write(sys.argv[1], rows)
EOF
	analyze "design$offset"
done
if grep -q '^| design | 2 | 2 | 2 | 4 | 2 of 4 |' "$dir/design1/summary.md" &&
	grep -q '^- The 3 cells of every policy: every policy in every one of the 4 positions: yes' \
		"$dir/design1/summary.md" &&
	grep -q '^- The 3 cells of every policy: every policy in every one of the 4 positions: no' \
		"$dir/design0/summary.md"; then
	pass "design table: 2 repetitions of 4 policies, every position only over the cells"
else
	fail "design table of an incomplete design wrong: $(grep -h -e '^| design | 2 ' -e '^- The ' "$dir"/design[01]/summary.md | tr '\n' ' ')"
fi
if grep -q '^| design | 3 | [^|]* | [^|]* | [^|]* | not run |' "$dir/design1/summary.md" &&
	grep -q '^| design | 2 | [^|]* | [^|]* | failed (2 runs) |' "$dir/design1/summary.md"; then
	pass "a skipped policy is not run, one whose runs all failed is failed"
else
	fail "skipped or failed policy wrong: $(grep '^| design | [23] | [0-9]* |' "$dir/design1/summary.md" | head -n 2 | tr '\n' ' ')"
fi
if grep -q '^| design | 1 | not judged: 2 pairs' "$dir/design1/summary.md" &&
	grep -q '^## The contract, sched-state against glibc: 0 of 0 cells hold, 0 fail, 0 not shown either way, 4 not judged' "$dir/design1/summary.md"; then
	pass "contract table: cells of 2 pairs are not judged"
else
	fail "contract table of 2 pairs wrong: $(grep -A 5 '^## The contract' "$dir/design1/summary.md" | tr '\n' ' ')"
fi

# How often each policy ran right after each other one: 4 policies in the
# 4 rows of run-bench.sh's Williams design, every pair once, against the
# rotations above (design1), where a policy always follows the same one.
synthetic "$dir/williams.csv" <<'EOF'
import sys
from synthetic import run, write
policies = ["glibc", "a", "b", "sched-state"]
rows = []
for rep, order in enumerate(("0 1 3 2", "1 2 0 3", "2 3 1 0", "3 0 2 1"), 1):
    for position, p in enumerate(order.split(), 1):
        rows.append(run("williams", policies[int(p)], 4, rep, 1, 1000, position=position))
write(sys.argv[1], rows)
EOF
analyze williams
if grep -q '^- The 1 cells of every policy: .*; each policy right after each other one 1 to 1 times' \
	"$dir/williams/summary.md" &&
	grep -q '^- The 3 cells of every policy: .*; each policy right after each other one 0 to [1-9][0-9]* times' \
		"$dir/design1/summary.md"; then
	pass "design table: how often each policy followed each other one"
else
	fail "followers wrong: $(grep -h '^- The ' "$dir/williams/summary.md" "$dir/design1/summary.md" | tr '\n' ' ')"
fi

# The 1-thread table, pooled over workloads: 12 workloads of 2
# repetitions, 4% noise per run; the control (empty-preload) and
# sched-state equal glibc, another policy is 6% faster (as its own code
# or a biased harness could make it). The control's row comes first.
synthetic "$dir/bias.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(4)
rows = []
for workload in range(12):
    for rep in (1, 2):
        drift = math.exp(rng.uniform(-0.4, 0.4))
        for policy, ratio in (("glibc", 1.0), ("sched-state", 1.0), ("biased", 1.06),
                              ("empty-preload", 1.0)):
            ops = 1000 * drift * ratio * math.exp(rng.gauss(0, 0.04))
            rows.append(run(f"w{workload}", policy, 1, rep, rep, ops))
write(sys.argv[1], rows)
EOF
analyze bias
if grep -A 2 '^| policy | workloads | pairs | throughput vs glibc | verdict |' "$dir/bias/summary.md" |
	grep -q '^| empty-preload | 12 | 24 | [01]\.[0-9]* \[0\.9[0-9]*, 1\.0[0-9]*\] | none |' &&
	grep -q '^| sched-state | 12 | 24 | [01]\.[0-9]* \[0\.9[0-9]*, 1\.0[0-9]*\] | none |' "$dir/bias/summary.md" &&
	grep -q '^| biased | 12 | 24 | 1\.0[0-9]* \[1\.0[0-9]*, 1\.[01][0-9]*\] | faster |' "$dir/bias/summary.md"; then
	pass "1-thread table: pairs pooled over workloads find a 6% difference, and none where there is none"
else
	fail "harness bias table wrong: $(grep -A 5 "harness's bias" "$dir/bias/summary.md" | tail -n 2 | tr '\n' ' ')"
fi

# The contract's outcomes, 8 pairs per cell: sched-state equal to glibc
# with 1% noise holds; 10% slower (and so 1.11 of its CPU) fails, both
# intervals wholly past their bounds; the others are not shown either
# way. Equal to glibc with +-10% in turn, the interval [0.918, 1.089]
# cannot show the 0.95 bound, and 33 pairs of that spread would 4 times
# in 5 (by hand: (t_975 + t_80) with 32 degrees of freedom, 2.0369 +
# 0.8530, times the spread 0.1019, over sqrt(33) is 0.0513, ln(1/0.95));
# 0.96 with the same spread is below 0.97 but not shown to be; and x2 or
# /2 in turn would take more than 1000 pairs.
synthetic "$dir/contract.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(5)
rows = []
for rep in range(1, 9):
    drift = math.exp(rng.uniform(-0.4, 0.4))
    swing = 1.1 if rep % 2 else 1 / 1.1
    for workload, ratio in (("tight", math.exp(rng.gauss(0, 0.01))), ("slower", 0.9),
                            ("wide", swing), ("nearly", 0.96 * swing),
                            ("huge", 2 if rep % 2 else 0.5)):
        rows.append(run(workload, "glibc", 2, rep, 1, 1000 * drift))
        rows.append(run(workload, "sched-state", 2, rep, 1, 1000 * drift * ratio))
write(sys.argv[1], rows)
EOF
analyze contract
missing=
for line in '^## The contract, sched-state against glibc: 1 of 5 cells hold, 1 fails, 3 not shown either way$' \
	'^| tight | 2 | holds |$' \
	'^| slower | 2 | FAILS: throughput 0\.900 \[0\.900, 0\.900\]; CPU/op 1\.111 \[1\.111, 1\.111\] while not faster |$' \
	'^| wide | 2 | not shown: throughput 1\.000 \[0\.918, 1\.089\]; 3[34] pairs of this spread would show it 4 times in 5 |$' \
	'^| nearly | 2 | not shown: throughput 0\.960 \[0\.88[0-9], 1\.04[0-9]\], below 0\.97 |$' \
	'^| huge | 2 | not shown: throughput 1\.000 \[[0-9.]*, [0-9.]*\]; more than 1000 pairs of this spread would show it 4 times in 5 |$'; do
	grep -q "$line" "$dir/contract/summary.md" || missing="$missing '$line'"
done
if [ -z "$missing" ]; then
	pass "contract table: holds, fails, and not shown with the pairs it would take"
else
	fail "contract table's outcomes wrong, missing$missing: $(grep -A 10 '^## The contract' "$dir/contract/summary.md" | tr '\n' ' ')"
fi

# Results of several runs pooled: analyze.py takes more than one
# results.csv, and pairs runs within a file only (each file's boots become
# "file.boot"), so two copies of the contract's cells give 16 pairs each
# from 2 boots, and the wide cell's interval narrows to [0.949, 1.054].
mkdir "$dir/pooled"
python3 "$top/workloads/analyze.py" "$dir/contract.csv" "$dir/contract.csv" "$dir/pooled" >/dev/null 2>&1 || true
if grep -q '^| wide | 2 | 16 | 2 | 2 |' "$dir/pooled/summary.md" &&
	grep -q '^| wide | 2 | not shown: throughput 1\.000 \[0\.949, 1\.054\];' "$dir/pooled/summary.md" &&
	grep -q '^Pooled from 2 result files' "$dir/pooled/summary.md"; then
	pass "results of two runs pooled, paired within each"
else
	fail "pooled results wrong: $(grep -e '^| wide | 2 |' -e '^Pooled' "$dir/pooled/summary.md" | tr '\n' ' ')"
fi

# Coverage with the few repetitions of a quick profile: 200 cells of 4
# paired repetitions (2 boots x 2) where a policy equals glibc and
# another is 25% faster, 4% noise per run. A 95% interval excludes 1 for
# the first in about 10 cells (here 8); the percentile bootstrap did in
# 43 (all 4 ratios on one side of 1 alone happens in 12.5% of cells).
# Both find the second in 199 or 200.
synthetic "$dir/coverage.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(2)
rows = []
for threads in range(1, 201):
    for rep in range(1, 5):
        drift = math.exp(rng.uniform(-0.4, 0.4))
        for policy, ratio in (("glibc", 1.0), ("same", 1.0), ("quarter", 1.25)):
            ops = 1000 * drift * ratio * math.exp(rng.gauss(0, 0.04))
            rows.append(run("coverage", policy, threads, rep, 1 + (rep - 1) % 2, ops))
write(sys.argv[1], rows)
EOF
analyze coverage
# The verdicts of the throughput table: "same" then "quarter", per cell.
verdicts=$(throughput_cells "$dir/coverage/summary.md" coverage same quarter |
	awk -F'\t' '{ n = split($2, a, " "); m = split($3, b, " "); print a[n], b[m] }')
excluded=$(echo "$verdicts" | awk '$1 != "tie"' | wc -l)
if grep -q '^| coverage | 1 | 4 | 2 | 3 | not recorded |' "$dir/coverage/summary.md"; then
	pass "design table: results without positions are not recorded"
else
	fail "design table without positions: $(grep '^| coverage | 1 | 4 |' "$dir/coverage/summary.md")"
fi
if [ "$excluded" -le 20 ]; then
	pass "coverage: $excluded of 200 intervals exclude 1 with no difference, 4 repetitions"
else
	fail "coverage: $excluded of 200 intervals exclude 1 with no difference, 4 repetitions"
fi
# And they are not so wide that they miss a real difference of 25%.
found=$(echo "$verdicts" | awk '$2 == "faster"' | wc -l)
if [ "$found" -ge 180 ]; then
	pass "power: $found of 200 intervals find a policy 25% faster, 4 repetitions"
else
	fail "power: $found of 200 intervals find a policy 25% faster, 4 repetitions"
fi

# The default policy against the alternatives: spin-count is the best
# fixed policy (1.2 of glibc, futex 0.9) and sched-state matches it,
# glibc-adaptive is 1.1 of glibc, so sched-state is 1.2 of glibc, 1.09 of
# glibc-adaptive and ties with spin-count.
synthetic "$dir/alternatives.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(3)
rows = []
for rep in range(1, 7):
    drift = math.exp(rng.uniform(-0.4, 0.4))
    for policy, ratio in (("glibc", 1.0), ("spin-count", 1.2), ("futex", 0.9),
                          ("glibc-adaptive", 1.1), ("sched-state", 1.2)):
        ops = 1000 * drift * ratio * math.exp(rng.gauss(0, 0.01))
        rows.append(run("alt", policy, 2, rep, 1 + (rep - 1) % 2, ops))
write(sys.argv[1], rows)
EOF
analyze alternatives
if grep -q '^| alt | 2 | 1\.[12][0-9]* \[[0-9.]*, [0-9.]*\] faster | [^|]* | 1\.0[7-9][0-9]* \[[0-9.]*, [0-9.]*\] faster | [^|]* | spin-count: [01]\.[09][0-9]* \[[0-9.]*, [0-9.]*\] tie |' "$dir/alternatives/summary.md"; then
	pass "alternatives table: faster than glibc and glibc-adaptive, ties with spin-count, the best fixed policy"
else
	fail "alternatives table wrong: $(grep '^| alt |' "$dir/alternatives/summary.md" | tail -n 1)"
fi

# The instruction counts of kernel-cost-icount.sh: per case, the medians
# of stock and patched per switch and their difference.
cat >"$dir/kernel-cost.csv" <<'CSV'
kernel,case,metric,value
stock,no-state,instructions_per_round_trip,8780
stock,no-state,instructions_per_switch,4390.0
stock,no-state,instructions_per_switch,4391.0
stock,no-state,instructions_per_switch,4390.0
patched,no-state,instructions_per_switch,4392.5
patched,no-state,instructions_per_switch,4392.5
patched,no-state,instructions_per_switch,4400.0
stock,state-attached,instructions_per_switch,4390.0
patched,state-attached,instructions_per_switch,4439.5
stock,no-state,instructions_per_return,700.0
patched,no-state,instructions_per_return,700.0
stock,no-state,instructions_per_message,20000.0
patched,no-state,instructions_per_message,20100.0
CSV
mkdir "$dir/c"
python3 "$top/workloads/analyze.py" --kernel-cost "$dir/kernel-cost.csv" "$dir/results.csv" "$dir/c"
if grep -qF '| no-state | 4390.0 [4390.0, 4391.0] | 4392.5 [4392.5, 4400.0] | +2.5 | +0.06% | 3 |' "$dir/c/summary.md" &&
	grep -qF '| state-attached | 4390.0 [4390.0, 4390.0] | 4439.5 [4439.5, 4439.5] | +49.5 | +1.13% | 1 |' "$dir/c/summary.md" &&
	grep -q '^| per system call .* | no-state | 700.0 \[700.0, 700.0\] | 700.0 \[700.0, 700.0\] | +0.0 | +0.00% | 1 |$' "$dir/c/summary.md" &&
	grep -q '^| per hackbench message .* | no-state | 20000.0 \[.*\] | 20100.0 \[.*\] | +100.0 | +0.50% | 1 |$' "$dir/c/summary.md"; then
	pass "instruction cost table: medians and ranges per switch, return and message, and their difference"
else
	fail "instruction cost table wrong: $(grep -A 5 'guest instructions' "$dir/c/summary.md" | tr '\n' ' ')"
fi
if ! python3 "$top/workloads/analyze.py" --kernel-cost "$dir/none.csv" "$dir/results.csv" "$dir/c" \
	>"$dir/log" 2>&1 && grep -q 'kernel-cost.*none.csv' "$dir/log"; then
	pass "a --kernel-cost file that does not exist is an error"
else
	fail "a missing --kernel-cost file went unnoticed: $(tail -n 1 "$dir/log")"
fi
if ! grep -q 'guest instructions' "$dir/a/summary.md"; then
	pass "no instruction cost table without --kernel-cost"
else
	fail "instruction cost table without --kernel-cost"
fi

# Runs under icount (ACCEL=icount) measure guest time as instructions,
# with one emulator thread for every vCPU: the summary says what that
# does to spinning, and says nothing of it for TCG's runs.
sed 's/,tcg,/,icount,/' "$dir/results.csv" >"$dir/icount.csv"
analyze icount
if grep -q 'accelerator icount' "$dir/icount/summary.md" &&
	grep -q '^Under icount.*spin' "$dir/icount/summary.md" &&
	! grep -q '^Under icount' "$dir/a/summary.md"; then
	pass "an icount run's summary says how icount treats spinning"
else
	fail "icount caveat: $(grep -c '^Under icount' "$dir/icount/summary.md" "$dir/a/summary.md" | tr '\n' ' ')"
fi

# One-thread cells at equal vCPU speed: 24 pairs whose runs each go at
# one of the host's two speeds (1 or 2.2, as docs/bench/host-speed-1207/
# found, with 2% noise on the work and 3% on the measured speed);
# sched-state is 0.99 of glibc, the control 1.0. Raw, the intervals are
# over 20% wide; at equal speed they must hold the truth and be under 8%
# wide, marked as such in the throughput table, with the raw figures,
# the slope (about 1) and the speed ratios (holding 1) in their own
# table. At 4 threads, with the same speeds, the raw ratio stays: the
# policy may change the speed there (speeds_of()).
synthetic "$dir/speed.csv" <<'EOF'
import math, random, sys
from synthetic import run, write
rng = random.Random(7)
rows = []
for threads in (1, 4):
    for rep in range(1, 25):
        for policy, ratio in (("glibc", 1.0), ("sched-state", 0.99), ("empty-preload", 1.0)):
            if threads > 1 and policy == "empty-preload":
                continue
            speed = rng.choice((1.0, 2.2))
            ops = 1000 * speed * ratio * math.exp(rng.gauss(0, 0.02))
            rows.append(run("w", policy, threads, rep, 1, ops,
                            speed=f"{200 * speed * math.exp(rng.gauss(0, 0.03)):.3f}"))
write(sys.argv[1], rows)
EOF
analyze speed
throughput_cells "$dir/speed/summary.md" w sched-state empty-preload | python3 -c '
import re, sys
for line in sys.stdin:
    threads, *cells = line.rstrip("\n").split("\t")
    for (policy, true), cell in zip((("sched-state", 0.99), ("empty-preload", 1.0)), cells):
        if cell == "1 thread only":
            continue
        name = f"{policy} at {threads} threads"
        m = re.fullmatch(r"([0-9.]+) \[([0-9.]+), ([0-9.]+)\]( \(eq\. speed\))? (\w+)", cell)
        if threads != "1":
            ok = m and not m[4] and float(m[3]) / float(m[2]) > 1.2
            what = "raw, over 20% wide"
        else:
            ok = (m and m[4] and float(m[2]) <= true <= float(m[3])
                  and float(m[3]) / float(m[2]) < 1.08)
            what = f"at equal speed, holding {true}, under 8% wide"
        status = "PASS" if ok else "FAIL"
        print(f"{status} bench-analysis: equal speed: {name}: {cell} ({what})")'
if python3 - "$dir/speed/summary.md" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
rows = re.findall(r"^\| w \| (\S+) \| 24 \| [0-9.]+ \[([0-9.]+), ([0-9.]+)\] \| [^|]+ \| "
                  r"([0-9.-]+) \| [0-9.]+ \[([0-9.]+), ([0-9.]+)\] \|$", text, re.M)
ok = len(rows) == 2 and all(float(hi) / float(lo) > 1.2 and 0.9 < float(slope) < 1.1
                            and float(slo) <= 1 <= float(shi)
                            for _, lo, hi, slope, slo, shi in rows)
pooled = re.findall(r"^- (\S+): vCPU speed [0-9.]+ \[([0-9.]+), ([0-9.]+)\] of glibc's over "
                    r"the 24 pairs", text, re.M)
sys.exit(not (ok and len(pooled) == 2 and all(float(a) <= 1 <= float(b) for _, a, b in pooled)))
EOF
then
	pass "equal speed table: raw intervals over 20% wide, slopes about 1, speed ratios holding 1"
else
	fail "equal speed table wrong: $(grep -A 7 '^## One-thread cells at equal' "$dir/speed/summary.md" | tr '\n' ' ')"
fi

# An output directory that does not exist yet is made, as a user who
# pools runs into a new one expects; one that cannot be made is an error
# that names it, not a traceback.
if python3 "$top/workloads/analyze.py" "$dir/results.csv" "$dir/new/out" >/dev/null 2>&1 &&
	[ -s "$dir/new/out/summary.md" ] && ls "$dir/new/out/"*.svg >/dev/null 2>&1; then
	pass "the output directory is made if missing"
else
	fail "no summary.md or plots in a new output directory"
fi
: >"$dir/file"
if python3 "$top/workloads/analyze.py" "$dir/results.csv" "$dir/file/out" >/dev/null 2>"$dir/err"; then
	fail "an output directory under a file was accepted"
elif grep -q "^analyze: $dir/file/out: " "$dir/err" && ! grep -q Traceback "$dir/err"; then
	pass "an output directory that cannot be made is a one-line error"
else
	fail "unmakeable output directory: $(head -n 2 "$dir/err")"
fi
