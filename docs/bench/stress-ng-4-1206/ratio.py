# Paired ratios of alt.sh output: python3 ratio.py FILE [BASE]; the
# geometric mean of each policy's per-repetition ratios to BASE (default
# glibc) with its 95% interval, as make vm-bench's summary computes it
# (workloads/analyze.py's ratio_interval), then each policy's rates in
# thousands.
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../workloads"))
from analyze import ratio_interval  # noqa: E402

rows = [line.split() for line in open(sys.argv[1]) if line.startswith("R ")]
rates = collections.defaultdict(dict)
for _, boot, rep, policy, value in rows:
    rates[(boot, rep)][policy] = float(value)
policies = sorted({row[3] for row in rows})
base = sys.argv[2] if len(sys.argv) > 2 else "glibc"
for p in policies:
    if p == base:
        continue
    ratios = [v[p] / v[base] for v in rates.values() if p in v and base in v]
    if ratios:
        mean, low, high = ratio_interval(ratios)
        print(f"{p} vs {base}: {mean:.3f} [{low:.3f}, {high:.3f}] n={len(ratios)}")
for p in policies:
    print(p, sorted(int(v[p] / 1000) for v in rates.values() if p in v))
