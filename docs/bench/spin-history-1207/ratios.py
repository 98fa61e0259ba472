#!/usr/bin/env python3
"""Ratios of compare.sh's runs: for each workload and thread count, the
geometric mean over rotations of the per-rotation ratio of throughput
and of CPU per operation, with a 95% t interval (analyze.py's t_975):
each library against glibc, then each later library against the first.

usage: ratios.py RUN_OUTPUT
"""
import collections
import math
import os
import re
import sys
from statistics import mean, stdev

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../workloads"))
from analyze import t_975  # noqa: E402

LINE = re.compile(r"wl=(\S+) t=(\d+) cfg=(\S+) ops=(\d+) wall_cpu=(\d+) (\d+)")


def interval(ratios):
    logs = [math.log(r) for r in ratios]
    centre = mean(logs)
    half = t_975(len(logs) - 1) * stdev(logs) / math.sqrt(len(logs))
    return "%.3f [%.3f, %.3f]" % tuple(math.exp(x) for x in (centre, centre - half, centre + half))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    # (workload, threads, rotation) -> configuration -> (ops/s, CPU ns/op)
    runs = collections.defaultdict(dict)
    seen = collections.Counter()
    libraries = []
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            wl, threads, cfg, ops, wall, cpu = m.groups()
            if cfg != "glibc" and cfg not in libraries:
                libraries.append(cfg)
            seen[wl, threads, cfg] += 1
            runs[wl, threads, seen[wl, threads, cfg]][cfg] = (int(ops) / int(wall), int(cpu) / int(ops))
    cells = sorted({key[:2] for key in runs})
    pairs_of = [(lib, "glibc") for lib in libraries] + [(lib, libraries[0]) for lib in libraries[1:]]
    for a, b in pairs_of:
        print(f"== {a}/{b}: throughput | CPU per operation")
        for cell in cells:
            pairs = [d for key, d in runs.items() if key[:2] == cell and a in d and b in d]
            if len(pairs) < 3:
                continue
            ops = interval([d[a][0] / d[b][0] for d in pairs])
            cpu = interval([d[a][1] / d[b][1] for d in pairs])
            print(f"{cell[0]:4} {cell[1]}t n={len(pairs):2}  {ops} | {cpu}")


if __name__ == "__main__":
    main()
