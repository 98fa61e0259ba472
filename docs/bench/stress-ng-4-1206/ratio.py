# Paired ratios of alt.sh output: python3 ratio.py FILE [BASE]; geometric mean of
# per-repetition ratios to BASE (default glibc) with a 95% Student t interval.
import sys, math, collections
from statistics import mean, stdev
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("R ")]
d = collections.defaultdict(dict)
for _, b, r, p, v in rows:
    d[(b, r)][p] = float(v)
pols = sorted({p for _, _, _, p, _ in rows})
base = sys.argv[2] if len(sys.argv) > 2 else "glibc"
# Student's t, 97.5% quantile, by degrees of freedom.
t975 = {7: 2.365, 11: 2.201, 13: 2.160, 15: 2.131, 17: 2.110, 23: 2.069, 27: 2.052,
        31: 2.040, 35: 2.030, 47: 2.012, 63: 1.998}
for p in pols:
    if p == base: continue
    l = [math.log(v[p] / v[base]) for v in d.values() if p in v and base in v]
    n = len(l); m = mean(l); se = stdev(l) / math.sqrt(n)
    t = t975[n - 1]
    print(f"{p} vs {base}: {math.exp(m):.3f} [{math.exp(m - t*se):.3f}, {math.exp(m + t*se):.3f}] n={n}")
for p in pols:
    print(p, sorted(int(v[p]/1000) for v in d.values() if p in v))
