#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How a host_speed trace's CPUs changed speed.

Per CPU: the loops, the 5th, 50th and 95th percentile speeds, and the
mean speed per half second. With two CPUs, the correlation of their
half-second means: near 0 where they change speed independently, near 1
where together.

usage: phases.py TRACE
"""
import statistics
import sys
from collections import defaultdict

BIN = 0.5


def main(path):
    loops = defaultdict(list)
    for text in open(path):
        cpu, start, speed = text.split()
        loops[int(cpu)].append((float(start), float(speed)))
    means = {}
    for cpu, trace in sorted(loops.items()):
        speeds = sorted(v for _, v in trace)
        at = [speeds[len(speeds) * q // 100] for q in (5, 50, 95)]
        print(f"CPU {cpu}: {len(trace)} loops; 5th, 50th, 95th percentile "
              f"{at[0]:.0f}, {at[1]:.0f}, {at[2]:.0f} M/s "
              f"(95th / 5th: {at[2] / at[0]:.2f})")
        bins = defaultdict(list)
        for start, speed in trace:
            bins[int(start / BIN)].append(speed)
        means[cpu] = {b: statistics.fmean(v) for b, v in bins.items()}
        print(f"  per {BIN} s:", " ".join(f"{means[cpu][b]:.0f}" for b in sorted(bins)))
    if len(means) == 2:
        a, b = means.values()
        both = sorted(set(a) & set(b))
        r = statistics.correlation([a[k] for k in both], [b[k] for k in both])
        print(f"correlation of the CPUs' half-second means: {r:.2f} ({len(both)} bins)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    main(sys.argv[1])
