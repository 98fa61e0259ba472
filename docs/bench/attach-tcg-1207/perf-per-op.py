#!/usr/bin/env python3
"""
usage: perf-per-op.py OUTDIR SECONDS BASE OTHER

QEMU's host CPU time per guest operation, by where it went, from a
prof.sh run: OUTDIR/guest.out has lines "RATE LABEL REP ... OPS_PER_S"
(the rate last), OUTDIR/perf.LABEL.REP the perf samples (1000 Hz, each
1 ms) of SECONDS during that phase. Prints, for labels BASE and OTHER,
the microseconds of host CPU per operation in total and per symbol
(QEMU's unnamed addresses grouped by 256-byte block; its TB lookup
helper, inside what nm calls curr_cflags in the build of Debian 12's QEMU
7.2.22+b3, named), largest changes first.
"""
import collections
import glob
import os
import re
import subprocess
import sys


def symbol(dso_sym):
    dso_sym = re.sub(r"\[JIT\] tid \d+", "[JIT]", dso_sym).strip()
    if dso_sym.startswith("[JIT]"):
        return "[JIT] translated guest code"
    m = re.match(r"qemu-system-x86_64\s+\[\.\] 0x0*([0-9a-f]+)$", dso_sym)
    if m:
        addr = int(m.group(1), 16)
        if 0x7D8550 <= addr < 0x7D8800:
            return "qemu helper_lookup_tb_ptr (after curr_cflags)"
        return "qemu 0x%x" % (addr >> 8 << 8)
    return dso_sym


def samples(path):
    report = subprocess.run(["perf", "report", "-i", path, "--stdio", "-n", "--sort", "dso,sym"],
                            capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in report.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(.*)$", line)
        if m:
            counts[symbol(m.group(2))] += int(m.group(1))
    return counts


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.strip())
    outdir, seconds, labels = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    rates = {}
    for line in open(os.path.join(outdir, "guest.out")):
        fields = line.split()
        if len(fields) >= 4 and fields[0] == "RATE":
            rates[(fields[1], fields[2])] = float(fields[-1])
    per_op = {}
    for label in labels:
        acc = collections.Counter()
        files = sorted(glob.glob(os.path.join(outdir, f"perf.{label}.*")))
        for path in files:
            ops = rates[(label, path.rsplit(".", 1)[1])] * seconds
            for sym, n in samples(path).items():
                acc[sym] += n * 1000.0 / ops / len(files)  # ms per sample -> us per op
        per_op[label] = acc
    base, other = (per_op[label] for label in labels)
    print(f"host CPU us per op: {labels[0]} {sum(base.values()):.3f}, "
          f"{labels[1]} {sum(other.values()):.3f}")
    print(f"{labels[0]:>10} {labels[1]:>10} {'change':>8}  where")
    for sym in sorted(set(base) | set(other), key=lambda s: other[s] - base[s], reverse=True)[:25]:
        print(f"{base[sym]:10.4f} {other[sym]:10.4f} {other[sym] - base[sym]:+8.4f}  {sym}")


if __name__ == "__main__":
    main()
