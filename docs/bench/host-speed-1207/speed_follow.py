#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How much of the one-thread runs' spread the vCPUs' speed explains.

For each 1-thread cell of a vm-bench results.csv with a vcpu_speed
column: over the runs of each policy, the correlation r of log throughput
with log speed and the slope of the least-squares line (1: the work is
bound by the speed; 0: by a timer); and over the pairs with glibc, the
standard deviation of the log ratios raw and about the line on their log
speed ratios (what analyze.py's intervals at equal speed stand on).

usage: speed_follow.py RESULTS.csv
"""
import csv
import math
import statistics
import sys
from collections import defaultdict


def line(x, y):
    """Slope, correlation and residual standard deviation of y on x."""
    slope = statistics.covariance(x, y) / statistics.variance(x)
    level = statistics.fmean(y) - slope * statistics.fmean(x)
    residual = math.sqrt(math.fsum((b - level - slope * a) ** 2 for a, b in zip(x, y))
                         / (len(x) - 2))
    return slope, statistics.correlation(x, y), residual


def main(path):
    runs = defaultdict(dict)
    for r in csv.DictReader(open(path, newline="")):
        if r["threads"] == "1" and r["status"] == "ok" and r.get("vcpu_speed"):
            runs[(r["workload"], r["policy"])][(r["boot"], r["rep"])] = (
                math.log(float(r["ops_per_sec"])), math.log(float(r["vcpu_speed"])))
    print("| workload | policy | runs | r | slope | pairs | spread raw | about the line |")
    print("|---|---|---|---|---|---|---|---|")
    for (w, p), mine in sorted(runs.items()):
        if len(mine) < 3:
            continue
        slope, r, _ = line([s for _, s in mine.values()], [o for o, _ in mine.values()])
        text = f"| {w} | {p} | {len(mine)} | {r:.2f} | {slope:.2f} |"
        base = runs.get((w, "glibc"))
        pairs = sorted(set(mine) & set(base or {}))
        if p == "glibc" or len(pairs) < 3:
            print(text + " | | |")
            continue
        y = [mine[k][0] - base[k][0] for k in pairs]
        x = [mine[k][1] - base[k][1] for k in pairs]
        print(text + f" {len(pairs)} | {statistics.stdev(y):.3f} | {line(x, y)[2]:.3f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    main(sys.argv[1])
