#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Analyse build/bench/results.csv of workloads/vm-bench.sh: summary.md and
one SVG per lock workload, with the Python standard library only.

Lock workloads (those that ran on the patched kernel only): per cell
(workload, threads), each policy's ratio to glibc (no preload) for each
metric the workload measures: the geometric mean of the per-repetition
ratios, paired by boot and repetition (both ran in the same order of
the same boot), with a 95% interval over the pairs from Student's t on
the log ratios (ratio_interval()). The verdict is the same rule for every
policy and metric: better or worse when the interval excludes 1, "tie"
when it includes it.

Kernel cost (workloads that ran on both kernels): patched / stock, paired
by the repetition number of an alternating pair of boots, the same way.

usage: analyze.py [--command TEXT] RESULTS.csv OUTPUT_DIR
"""

import argparse
import csv
import math
import os
import statistics
import sys
from collections import Counter, defaultdict

BASELINE = "glibc"
POLICY_ORDER = ["sched-state", "sched-state-multi", "spin-single", "spin", "spin-count",
                "futex", "glibc-adaptive", "kernel-spin", "empty-preload"]
# The harness's control: a preload that defines nothing, at 1 thread.
CONTROL = "empty-preload"

# column, title, unit of the glibc figure, whether higher is better, and
# the verdict words for a ratio above and below 1.
METRICS = [
    ("ops_per_sec", "throughput (higher is better)", "ops/s", "faster", "slower"),
    ("cpu_ns_per_op", "CPU time per operation (lower is better)", "CPU ns/op",
     "costlier", "cheaper"),
    ("p99_us", "99th percentile latency: of lock acquisition for multimodal, of an "
     "operation for cache-bench (lower is better)", "p99 us", "longer", "shorter"),
    ("fairness", "fairness: fewest / most operations of a thread (higher is fairer)",
     "min/max", "fairer", "less fair"),
    ("p999_us", "99.9th percentile of lock acquisition latency (lower is better)", "p99.9 us",
     "longer", "shorter"),
    ("max_us", "longest lock acquisition wait (lower is better)", "max us", "longer",
     "shorter"),
]


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value > 0 and math.isfinite(value) else None


# Student's t distribution, 97.5th percentile, for 1 to 30 degrees of freedom.
T_975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t_from_normal(z, df):
    """
    The quantile of Student's t with @df degrees of freedom at the normal
    quantile @z: the Cornish-Fisher expansion, within 0.001 for 30 and
    more, within 0.005 of the 80th percentile for 7 and more.
    """
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def t_975(df):
    """The 97.5th percentile of Student's t with @df degrees of freedom."""
    if df <= len(T_975):
        return T_975[df - 1]
    return t_from_normal(1.959964, df)


def t_80(df):
    """The 80th percentile of Student's t with @df degrees of freedom."""
    return t_from_normal(0.841621, df)


def ratio_interval(ratios):
    """
    Geometric mean of @ratios and its 95% interval: Student's t on the
    log ratios. No interval drawn from the ratios themselves, a bootstrap
    included, can cover 95% with 4 pairs:
    with no difference at all, all 4 fall on one side of 1 in 12.5% of
    cells (a percentile bootstrap excluded 1 in 43 of 200 such synthetic
    cells, this interval in 8: tests/host/bench-analysis.sh).
    """
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    mean = math.fsum(logs) / n
    half = t_975(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def equal_speed_interval(ratios, speed_ratios):
    """
    The ratio at equal vCPU speed and its 95% interval, or None: the
    intercept of the least-squares line of the log ratios on the log
    speed ratios (analysis of covariance), Student's t with n - 2
    degrees of freedom; with the line's slope and the residuals' standard
    deviation. Where the policy does not change the speed (the one-thread
    cells' table checks that), this estimates the same ratio as
    ratio_interval() and leaves out the spread that the host's changes of
    speed add (workloads/vcpu_speed.h).
    """
    y = [math.log(r) for r in ratios]
    x = [math.log(r) for r in speed_ratios]
    n = len(y)
    if n < EQUAL_SPEED_MIN_PAIRS:
        return None
    mx, my = math.fsum(x) / n, math.fsum(y) / n
    sxx = math.fsum((v - mx) ** 2 for v in x)
    if sxx == 0:
        return None
    slope = math.fsum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
    level = my - slope * mx
    spread = math.sqrt(math.fsum((b - level - slope * a) ** 2 for a, b in zip(x, y)) / (n - 2))
    half = t_975(n - 2) * spread * math.sqrt(1 / n + mx ** 2 / sxx)
    return math.exp(level), math.exp(level - half), math.exp(level + half), slope, spread


# Marks a figure at equal vCPU speed, in every table.
EQUAL_SPEED_MARK = " (eq. speed)"
# Fewer pairs compare raw: the line costs a degree of freedom, and with
# few pairs its t quantile (4.30 at 4 pairs) can widen the interval more
# than the line narrows it.
EQUAL_SPEED_MIN_PAIRS = 8
SPEED = "vcpu_speed"
# The metrics that the vCPUs' speed scales, and that are compared at
# equal speed where it was measured.
SPEED_SCALED = ("ops_per_sec", "cpu_ns_per_op")


def verdict(low, high, above, below):
    if low > 1:
        return above
    if high < 1:
        return below
    return "tie"


class Comparison:
    """
    Ratios of one policy to the baseline in one cell for one metric; at
    equal vCPU speed (equal_speed_interval()) when @speeds, the pair's
    speeds (policy's, baseline's), cover every pair. The spread is the
    standard deviation of the log ratios that the interval stands on.
    """

    def __init__(self, values, baseline, speeds=None):
        pairs = sorted(set(values) & set(baseline))
        self.ratios = [values[p] / baseline[p] for p in pairs]
        self.n = len(self.ratios)
        self.estimate = self.low = self.high = self.slope = None
        self.equal_speed = False
        # Degrees of freedom: n less those the estimate takes.
        self.fitted = 1
        if self.n < 2:
            return
        self.estimate, self.low, self.high = ratio_interval(self.ratios)
        self.spread = statistics.stdev(math.log(r) for r in self.ratios)
        mine, base = speeds or ({}, {})
        if all(p in mine and p in base for p in pairs):
            adjusted = equal_speed_interval(self.ratios, [mine[p] / base[p] for p in pairs])
            if adjusted:
                self.raw = (self.estimate, self.low, self.high)
                self.estimate, self.low, self.high, self.slope, self.spread = adjusted
                self.equal_speed = True
                self.fitted = 2

    def verdict(self, above, below):
        return verdict(self.low, self.high, above, below) if self.n >= 2 else "n/a"

    def interval(self):
        mark = EQUAL_SPEED_MARK if self.equal_speed else ""
        return f"{self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}]{mark}"

    def cell(self, above, below):
        if self.n < 2:
            return f"n/a ({self.n} pair{'s' if self.n != 1 else ''})"
        return f"{self.interval()} {self.verdict(above, below)}"


def load(paths):
    """
    The successful and the failed runs of the results files @paths. Runs
    pair within a file only: with more than one, boot b of the ith file
    becomes boot "i.b".
    """
    rows, failed = [], []
    for i, path in enumerate(paths, 1):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if len(paths) > 1:
                    row["boot"] = f"{i}.{row.get('boot') or '1'}"
                (rows if row["status"] == "ok" else failed).append(row)
    return rows, failed


def pair_key(row):
    return (row.get("boot") or "1", row["rep"])


def collect(rows):
    """values[(workload, kernel, threads, policy)][metric or SPEED][(boot, rep)]"""
    values = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        key = (row["workload"], row["kernel"], int(row["threads"]), row["policy"])
        for metric in [m for m, *_ in METRICS] + [SPEED]:
            value = number(row.get(metric))
            if value is not None:
                values[key][metric][pair_key(row)] = value
    return values


def positions_taken(rows):
    """positions[policy]: the places in its cell's order where the policy ran."""
    positions = defaultdict(set)
    for r in rows:
        if r.get("position"):
            positions[r["policy"]].add(int(r["position"]))
    return positions


def followers(rows):
    """follows[(a, b)]: the runs of policy b right after one of a, in a cell."""
    orders = defaultdict(list)
    for r in rows:
        if r.get("position"):
            orders[(r["workload"], r["threads"], pair_key(r))].append(r)
    follows = Counter()
    for runs in orders.values():
        runs.sort(key=lambda r: int(r["position"]))
        for before, after in zip(runs, runs[1:]):
            follows[(before["policy"], after["policy"])] += 1
    return follows


def design_table(out, rows, cells):
    """
    How each cell's runs (@rows: failed ones included) were laid out: its
    repetitions and boots, and in how many of its N positions every
    policy ran (all N when the cell had N repetitions); then, over the
    cells that ran the same policies, whether every policy took every
    position, and how often each ran right after each other one (what a
    run leaves behind for the next would favour a policy that always
    follows the same one).
    """
    by_cell = defaultdict(list)
    for r in rows:
        if r["kernel"] == "patched":
            by_cell[(r["workload"], int(r["threads"]))].append(r)
    out.append("## Design of the lock runs\n")
    out.append("| workload | threads | repetitions | boots | policies | "
               "positions of each policy |")
    out.append("|---|---|---|---|---|---|")
    groups = defaultdict(list)
    for w, t in cells:
        cell = by_cell[(w, t)]
        names = frozenset(r["policy"] for r in cell)
        groups[names].append((w, t))
        positions = positions_taken(cell)
        taken = {len(p) for p in positions.values()}
        note = (f"{min(taken)}{'' if len(taken) == 1 else f' to {max(taken)}'} of {len(names)}"
                if positions else "not recorded")
        out.append(f"| {w} | {t} | {len({pair_key(r) for r in cell})} | "
                   f"{len({r.get('boot') or '1' for r in cell})} | {len(names)} | {note} |")
    everyone = frozenset().union(*groups) if groups else frozenset()
    out.append("")
    for names, members in sorted(groups.items(), key=lambda g: (-len(g[0]), sorted(g[0]))):
        runs = [r for cell in members for r in by_cell[cell]]
        positions = positions_taken(runs)
        if not positions:
            continue
        n = len(names)
        whole = len(positions) == n and all(p == set(range(1, n + 1)) for p in positions.values())
        missing = sorted(everyone - names)
        line = (f"The {len(members)} cells {'without ' + ', '.join(missing) if missing else 'of every policy'}: "
                f"every policy in every one of the {n} positions: {'yes' if whole else 'no'}")
        follows = followers(runs)
        counts = [follows[(a, b)] for a in names for b in names if a != b]
        if counts:
            line += f"; each policy right after each other one {min(counts)} to {max(counts)} times"
        out.append(f"- {line}.")
    out.append("")


def lock_tables(out, failed, values, lock_workloads):
    """The tables of every metric; a policy without a successful run in a
    cell is "not run" there, or "failed" if it had runs."""
    tried = Counter((r["workload"], int(r["threads"]), r["policy"]) for r in failed
                    if r["kernel"] == "patched")
    cells = sorted({(w, t) for (w, k, t, p) in values if w in lock_workloads})
    policies = [p for p in POLICY_ORDER if any(k[3] == p for k in values)]
    policies += sorted({k[3] for k in values} - set(policies) - {BASELINE})
    results = {}
    for metric, title, unit, above, below in METRICS:
        shown = [(w, t) for (w, t) in cells if values[(w, "patched", t, BASELINE)].get(metric)]
        if not shown:
            continue
        out.append(f"## Lock workloads, {title}\n")
        out.append(f"| workload | threads | glibc {unit} (median) | "
                   + " | ".join(policies) + " |")
        out.append("|---|---|---|" + "---|" * len(policies))
        for w, t in shown:
            base = values[(w, "patched", t, BASELINE)][metric]
            line = [w, str(t), f"{statistics.median(base.values()):.4g}"]
            for p in policies:
                if (w, "patched", t, p) not in values:
                    line.append(f"failed ({tried[(w, t, p)]} runs)" if tried[(w, t, p)]
                                else "1 thread only" if p == CONTROL and t > 1
                                else "not run")
                    continue
                mine = values[(w, "patched", t, p)]
                c = Comparison(mine.get(metric, {}), base,
                               speeds_of(values, w, t, p) if metric in SPEED_SCALED else None)
                results[(metric, w, t, p)] = c
                line.append(c.cell(above, below))
            out.append("| " + " | ".join(line) + " |")
        if any(results.get((metric, w, t, p)) and results[(metric, w, t, p)].equal_speed
               for w, t in shown for p in policies):
            out.append(f"\nFigures marked{EQUAL_SPEED_MARK} compare runs at equal vCPU speed: "
                       "see \"One-thread cells at equal vCPU speed\".")
        out.append("")
    return cells, policies, results


def speeds_of(values, w, t, p):
    """
    The vCPU speeds of the pairs of policy @p and glibc in cell (@w, @t),
    for Comparison, at 1 thread only, where the harness measures them for
    programs whose one thread then runs alone (alone_at_1_thread in
    workloads/defs): there the policy cannot choose which vCPUs are busy
    or how fast they run; with more threads it can (spinning keeps a
    vCPU busy), and the speed would no longer be the host's alone.
    """
    if t != 1:
        return None
    return (values[(w, "patched", t, p)].get(SPEED, {}),
            values[(w, "patched", t, BASELINE)].get(SPEED, {}))


def equal_speed_table(out, values, cells, policies, results):
    """
    The one-thread cells compared at equal vCPU speed beside their raw
    figures, with the line's slope and each policy's vCPU speed against
    glibc's: the premise, that the policy does not change the speed,
    holds where that interval holds 1, per cell and over all of them.
    """
    rows, adjusted = [], defaultdict(list)
    for w, t in cells:
        for p in policies:
            c = results.get(("ops_per_sec", w, t, p))
            if not c or not c.equal_speed:
                continue
            adjusted[p].append(w)
            speed = Comparison(*speeds_of(values, w, t, p))
            raw = "{:.3f} [{:.3f}, {:.3f}]".format(*c.raw)
            rows.append(f"| {w} | {p} | {c.n} | {raw} | {c.interval()} | {c.slope:.2f} | "
                        f"{speed.interval()} |")
    if not rows:
        return
    out.append("## One-thread cells at equal vCPU speed\n")
    out.append("A guest under TCG runs at the speed at which the host runs each vCPU's "
               "thread, and that changes within and between runs (docs/bench/host-speed-1207/): "
               "at 1 thread, most of a run's spread. The cells below measured their vCPUs' "
               "speed in each run (`cputime --vcpu-speed`: a fixed "
               "loop timed on every vCPU every 50 ms, weighted by each vCPU's busy time), and "
               "their throughput and CPU per operation are the ratio at equal speed: the "
               "intercept of the least-squares line of the pairs' log ratios on their log "
               "speed ratios (slope: how much of the speed the ratio followed), with Student's "
               "t on n - 2 degrees of freedom. That is the raw geometric mean's ratio, less "
               "the host's share of the spread, where the policy leaves the vCPUs' speed "
               "alone, as it must where the program's one thread runs alone (the harness "
               "measures the speed only there: alone_at_1_thread in workloads/defs) and the "
               "sampler, a real-time thread timing a loop of its own, measures the host. The "
               "last column checks that premise against gross failures only (the speed spreads "
               "as much as the host's); the line under the table pools it over every "
               "cell.\n")
    out.append("| workload | policy | pairs | throughput, raw | at equal speed | slope | "
               "vCPU speed vs glibc |")
    out.append("|---|---|---|---|---|---|---|")
    out.extend(rows)
    out.append("")
    for p in policies:
        if p in adjusted:
            c = Comparison(*pooled_at_1_thread(values, adjusted[p], p, SPEED))
            out.append(f"- {p}: vCPU speed {c.interval()} of glibc's over the {c.n} pairs "
                       "of every cell above.")
    out.append("")


UNFAIR = "-unfair"
# The library's contract for its default policy (issue 12): throughput at
# least CONTRACT_OPS of glibc's with the interval's low end at least
# CONTRACT_OPS_LOW, and where it is not faster, CPU per operation at most
# CONTRACT_CPU of glibc's.
# A cell is judged from CONTRACT_MIN_PAIRS pairs: with 2, Student's t
# has one degree of freedom (12.7), and two ratios 1% apart already put
# the low end below CONTRACT_OPS_LOW.
DEFAULT_POLICY = "sched-state"
CONTRACT_OPS, CONTRACT_OPS_LOW, CONTRACT_CPU = 0.97, 0.95, 1.10
CONTRACT_MIN_PAIRS = 4


# Past this many pairs, a cell's spread is reported as too wide to show
# the contract at all.
CONTRACT_MAX_PAIRS = 1000


def pairs_to_show(comparison, bound):
    """
    The pairs that would put the low end of @comparison's interval at
    @bound or above 4 times in 5, were its estimate and spread the truth:
    the fewest n with (t_975 + t_80) s / sqrt(n) within the margin, the
    sample size of a one-sided test at 2.5% with a power of 80%. None if
    none up to CONTRACT_MAX_PAIRS would.
    """
    margin = math.log(comparison.estimate / bound)
    lost = comparison.fitted
    for n in range(lost + 1, CONTRACT_MAX_PAIRS + 1):
        if (t_975(n - lost) + t_80(n - lost)) * comparison.spread / math.sqrt(n) <= margin:
            return n
    return None


def contract_verdict(ops, cpu):
    """
    The contract in one cell, from the default policy's throughput and
    CPU comparisons with glibc, as (outcome, text): it holds; it fails,
    where an interval is wholly past a bound; or neither is shown.
    """
    cpu_applies = (ops.verdict("faster", "slower") != "faster" and cpu is not None and
                   cpu.n >= 2)
    cpu_over = cpu_applies and cpu.estimate > CONTRACT_CPU
    if ops.estimate >= CONTRACT_OPS and ops.low >= CONTRACT_OPS_LOW and not cpu_over:
        return "holds", "holds"
    broken = []
    if ops.high < CONTRACT_OPS:
        broken.append(f"throughput {ops.interval()}")
    if cpu_applies and cpu.low > CONTRACT_CPU:
        broken.append(f"CPU/op {cpu.interval()} while not faster")
    if broken:
        return "FAILS", "FAILS: " + "; ".join(broken)
    unshown = []
    if ops.estimate < CONTRACT_OPS:
        unshown.append(f"throughput {ops.interval()}, below {CONTRACT_OPS}")
    elif ops.low < CONTRACT_OPS_LOW:
        needed = pairs_to_show(ops, CONTRACT_OPS_LOW)
        unshown.append(f"throughput {ops.interval()}; " +
                       (f"{needed} pairs" if needed else f"more than {CONTRACT_MAX_PAIRS} pairs") +
                       " of this spread would show it 4 times in 5")
    if cpu_over:
        unshown.append(f"CPU/op {cpu.interval()} while not faster")
    return "not shown", "not shown: " + "; ".join(unshown)


def contract_table(out, cells, results):
    """Whether the default policy keeps the contract in each cell."""
    rows, outcomes = [], Counter()
    for w, t in cells:
        ops = results.get(("ops_per_sec", w, t, DEFAULT_POLICY))
        if not ops or ops.n < 2:
            continue
        if ops.n < CONTRACT_MIN_PAIRS:
            outcomes["not judged"] += 1
            rows.append(f"| {w} | {t} | not judged: {ops.n} pairs, fewer than "
                        f"{CONTRACT_MIN_PAIRS} (PROFILE=contract runs enough to judge) |")
            continue
        outcome, text = contract_verdict(ops, results.get(("cpu_ns_per_op", w, t,
                                                         DEFAULT_POLICY)))
        outcomes[outcome] += 1
        rows.append(f"| {w} | {t} | {text} |")
    if not rows:
        return
    judged, failed, unjudged = (len(rows) - outcomes["not judged"], outcomes["FAILS"],
                                outcomes["not judged"])
    out.append(f"## The contract, {DEFAULT_POLICY} against glibc: {outcomes['holds']} of "
               f"{judged} cells hold, {failed} fail{'s' if failed == 1 else ''}, "
               f"{outcomes['not shown']} not shown either way"
               f"{f', {unjudged} not judged' if unjudged else ''}\n")
    out.append(f"Throughput at least {CONTRACT_OPS} of glibc's, with the 95% interval's low "
               f"end at least {CONTRACT_OPS_LOW}; where not faster, CPU per operation at most "
               f"{CONTRACT_CPU} of glibc's. A cell fails where an interval is wholly past a "
               f"bound (throughput below {CONTRACT_OPS}, CPU above {CONTRACT_CPU}); where it "
               f"neither holds nor fails, its intervals are too wide to show either.\n")
    out.append("| workload | threads | verdict |")
    out.append("|---|---|---|")
    out.extend(rows)
    out.append("")


# Policies that neither read the owner's state (sched-state does, and the
# kernel's rt_mutex spins on it for kernel-spin) nor adapt to history
# (glibc-adaptive): the "fixed" ones that issue 11 compares with.
FIXED_POLICIES = ["glibc", "futex", "spin", "spin-count", "spin-single"]


def best_fixed_policy(values, w, t):
    """The fixed policy of cell (@w, @t) with the highest throughput, by
    its geometric mean ratio to glibc."""
    base = values.get((w, "patched", t, BASELINE), {}).get("ops_per_sec", {})
    best, best_ratio = None, 0.0
    for p in FIXED_POLICIES:
        ratio = Comparison(values.get((w, "patched", t, p), {}).get("ops_per_sec", {}),
                           base).estimate
        if ratio is not None and ratio > best_ratio:
            best, best_ratio = p, ratio
    return best


def alternatives_table(out, values, cells):
    """The default policy against glibc, glibc's adaptive mutex and the
    best fixed policy of each cell, in throughput and CPU per operation,
    paired like every ratio."""
    rows = []
    for w, t in cells:
        ours = values.get((w, "patched", t, DEFAULT_POLICY))
        if not ours:
            continue
        line = [w, str(t)]
        best = best_fixed_policy(values, w, t)
        for other, named in ((BASELINE, ""), ("glibc-adaptive", ""), (best, f"{best}: ")):
            theirs = values.get((w, "patched", t, other)) if other else None
            if not theirs:
                line += ["not run", ""]
                continue
            ops = Comparison(ours.get("ops_per_sec", {}), theirs.get("ops_per_sec", {}))
            cpu = Comparison(ours.get("cpu_ns_per_op", {}), theirs.get("cpu_ns_per_op", {}))
            line += [named + ops.cell("faster", "slower"), cpu.cell("costlier", "cheaper")]
        rows.append("| " + " | ".join(line) + " |")
    if not rows:
        return
    out.append(f"## {DEFAULT_POLICY} against glibc, glibc's adaptive mutex and the best "
               "fixed policy\n")
    out.append(f"Ratios of {DEFAULT_POLICY} to each, paired by boot and repetition like every "
               "other. The best fixed policy of a cell is the one of "
               f"{', '.join(FIXED_POLICIES)} that ran there with the highest throughput "
               "ratio to glibc; picked by its estimate, it favours that policy, so a tie "
               f"with it is a good result for {DEFAULT_POLICY}.\n")
    out.append("| workload | threads | ops vs glibc | CPU/op vs glibc | ops vs glibc-adaptive "
               "| CPU/op vs glibc-adaptive | ops vs best fixed | CPU/op vs best fixed |")
    out.append("|---|---|---|---|---|---|---|---|")
    out.extend(rows)
    out.append("")


def pooled_at_1_thread(values, workloads, p, metric):
    """
    Policy @p's and glibc's @metric at 1 thread in every one of
    @workloads, keyed by (workload, pair), for the pairs both have.
    """
    mine, base = {}, {}
    for w in workloads:
        theirs = values.get((w, "patched", 1, BASELINE), {}).get(metric, {})
        for pair, v in values.get((w, "patched", 1, p), {}).get(metric, {}).items():
            if pair in theirs:
                mine[(w, pair)], base[(w, pair)] = v, theirs[pair]
    return mine, base


def harness_bias_table(out, values, cells, policies):
    """
    Each policy against glibc at 1 thread, where no thread waits and no
    policy's waiting can matter, over every lock workload's pairs
    together: the control's interval (a preload that defines nothing)
    excludes 1 where the harness is biased, another policy's where its
    own code costs or saves at 1 thread. Pooled, because one interval per
    cell excludes 1 in 5% of unbiased cells, several in a run of a
    hundred.
    """
    alone = [w for w, t in cells if t == 1]
    rows = []
    for p in sorted(policies, key=lambda p: p != CONTROL):
        mine, base = pooled_at_1_thread(values, alone, p, "ops_per_sec")
        c = Comparison(mine, base)
        if c.n >= 2:
            workloads = len({w for w, _ in mine})
            bias = c.verdict("faster", "slower")
            rows.append(f"| {p} | {workloads} | {c.n} | {c.interval()} | "
                        f"{'none' if bias == 'tie' else bias} |")
    if not rows:
        return
    out.append("## The harness's bias and each policy's own cost at 1 thread\n")
    out.append("At 1 thread no thread of the workload waits for another, so no policy's "
               "waiting can matter: the pairs of every lock workload's 1-thread cell "
               f"together, per policy. {CONTROL}, a preload that defines nothing, measures "
               "the harness: where its interval excludes 1, the harness favours one side. "
               "Another policy's interval excludes 1 where its own code costs or saves "
               "at 1 thread: its fast path, and its locks between the program's own "
               "background threads.\n")
    out.append("| policy | workloads | pairs | throughput vs glibc | verdict |")
    out.append("|---|---|---|---|---|")
    out.extend(rows)
    out.append("")


def fairness_cost_table(out, values, cells):
    """Each policy P against P-unfair (P without handoffs), where both ran:
    what the handoffs cost and what they buy, paired like every ratio."""
    twins = sorted({k[3][:-len(UNFAIR)] for k in values if k[3].endswith(UNFAIR)})
    if not twins:
        return
    out.append("## The handoffs' cost: each policy / the same policy without handoffs\n")
    out.append("P-unfair is P with ADAPTIVE_STARVE_US=10000000, so that no waiter is "
               "ever handed the lock. Throughput and CPU per operation show the cost; "
               "the latency tail, the longest wait and fairness what the handoffs buy.\n")
    shown = [m for m in METRICS if m[0] != "p50_us"]
    out.append("| workload | threads | policy | " + " | ".join(m[0] for m in shown) + " |")
    out.append("|---|---|---|" + "---|" * len(shown))
    for w, t in cells:
        for p in twins:
            fair, unfair = values.get((w, "patched", t, p)), values.get((w, "patched", t, p + UNFAIR))
            if not fair or not unfair:
                continue
            line = [w, str(t), p]
            for metric, _, _, above, below in shown:
                c = Comparison(fair.get(metric, {}), unfair.get(metric, {}))
                line.append(c.cell(above, below))
            out.append("| " + " | ".join(line) + " |")
    out.append("")


def kernel_table(out, values, kernel_workloads):
    if not kernel_workloads:
        return
    out.append("## The kernel patch's own cost: patched / stock\n")
    out.append("The kernels ran in alternating boots, one repetition each; ratios are paired "
               "by the pair of boots, over the process's wall time (fixed work, start-up "
               "included), which TCG makes too noisy for a cost of a few percent: the "
               "instruction counts, where present, are the precise measure.\n")
    out.append("| workload | run | stock ops/s (median) | patched/stock ops | "
               "patched/stock CPU/op |")
    out.append("|---|---|---|---|---|")
    for w in sorted(kernel_workloads):
        for (kw, k, t, p) in sorted(values):
            if kw != w or k != "stock":
                continue
            stock = values[(w, "stock", t, p)]
            patched = values[(w, "patched", t, p)]
            ops = Comparison(patched["ops_per_sec"], stock["ops_per_sec"])
            cpu = Comparison(patched.get("cpu_ns_per_op", {}), stock.get("cpu_ns_per_op", {}))
            run = "no preload" if p == BASELINE else f"preload, {p}"
            out.append(f"| {w} | {run} | {statistics.median(stock['ops_per_sec'].values()):.4g} "
                       f"| {ops.cell('faster', 'slower')} | {cpu.cell('costlier', 'cheaper')} |")
    out.append("")


# The measures of kernel-cost-icount.sh that the summary shows, by metric.
INSTRUCTION_MEASURES = {
    "instructions_per_switch": "per context switch (pipe ping-pong of two threads)",
    "instructions_per_return": "per system call and return to user space (getppid)",
    "instructions_per_message": "per hackbench message (threads, socket pairs)",
}


def instruction_cost_table(out, path):
    """The rows of kernel-cost-icount.sh's kernel-cost.csv at @path."""
    counts = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["metric"] in INSTRUCTION_MEASURES:
                counts[(r["kernel"], r["case"], r["metric"])].append(float(r["value"]))
    out.append("## The kernel patch's own cost in guest instructions\n")
    out.append("QEMU's icount mode with one vCPU counts guest instructions exactly "
               "(workloads/kernel-cost-icount.sh), kernel and user space: median of the "
               "repetitions [lowest, highest]. A program whose threads race (hackbench) "
               "varies from run to run, which icount does not remove. state-attached: "
               "each thread attaches a state of its own (-s), which the stock kernel "
               "cannot.\n")
    out.append("| measure | case | stock | patched | patched - stock | relative | repetitions |")
    out.append("|---|---|---|---|---|---|---|")
    for metric, title in INSTRUCTION_MEASURES.items():
        for case in sorted({c for _, c, m in counts if m == metric}):
            stock, patched = counts.get(("stock", case, metric)), counts.get(("patched", case, metric))
            if not stock or not patched:
                continue
            s, p = statistics.median(stock), statistics.median(patched)
            out.append(f"| {title} | {case} | {s:.1f} [{min(stock):.1f}, {max(stock):.1f}] | "
                       f"{p:.1f} [{min(patched):.1f}, {max(patched):.1f}] | {p - s:+.1f} | "
                       f"{100 * (p - s) / s:+.2f}% | {min(len(stock), len(patched))} |")
    out.append("")


def svg_plot(path, workload, threads, policies, results):
    """Ratio to glibc against threads, with 95% intervals as error bars, on
    a logarithmic scale (a ratio and its inverse lie as far from 1):
    throughput on the left, CPU per operation on the right."""
    panels = [m for m in ("ops_per_sec", "cpu_ns_per_op")
              if any((m, workload, t, p) in results for t in threads for p in policies)]
    width, height, margin = 460, 360, 60
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
               "#e377c2", "#17becf", "#7f7f7f"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" '
             f'height="{height + 20 * len(policies) // 3 + 40}" font-family="sans-serif" '
             'font-size="11">',
             f'<text x="10" y="16" font-size="13">{workload}: ratio to glibc (log scale), '
             'geometric mean of paired ratios with 95% t interval</text>']
    for i, metric in enumerate(panels):
        x0 = i * width
        cells = [results[(metric, workload, t, p)] for t in threads for p in policies
                 if (metric, workload, t, p) in results]
        bounds = [math.log(v) for c in cells if c.n >= 2 for v in (c.low, c.high)] + [0.0]
        lo, hi = min(bounds), max(bounds)
        pad = (hi - lo) * 0.08 or 0.05
        lo, hi = lo - pad, hi + pad

        def y(v, lo=lo, hi=hi):
            return 30 + (height - margin) * (hi - math.log(v)) / (hi - lo)

        left, right = x0 + margin, x0 + width - 15
        parts.append(f'<text x="{x0 + width / 2}" y="{height + 5}" text-anchor="middle">'
                     f'threads ({"throughput" if metric == "ops_per_sec" else "CPU per op"}'
                     ')</text>')
        parts.append(f'<line x1="{left}" y1="{y(1):.1f}" x2="{right}" y2="{y(1):.1f}" '
                     'stroke="black" stroke-dasharray="4,3"/>')
        for tick in range(6):
            v = math.exp(lo + (hi - lo) * tick / 5)
            parts.append(f'<text x="{left - 5}" y="{y(v) + 4:.1f}" text-anchor="end">'
                         f'{v:.3g}</text>')
            parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{right}" y2="{y(v):.1f}" '
                         'stroke="#ddd"/>')
        slot = (right - left) / len(threads)
        for ti, t in enumerate(threads):
            parts.append(f'<text x="{left + slot * (ti + 0.5):.1f}" y="{height - 12}" '
                         f'text-anchor="middle">{t}</text>')
            for pi, p in enumerate(policies):
                c = results.get((metric, workload, t, p))
                if not c or c.n < 2:
                    continue
                x = left + slot * ti + slot * (pi + 1) / (len(policies) + 1)
                colour = colours[pi % len(colours)]
                parts.append(f'<line x1="{x:.1f}" y1="{y(c.low):.1f}" x2="{x:.1f}" '
                             f'y2="{y(c.high):.1f}" stroke="{colour}" stroke-width="1.5"/>')
                parts.append(f'<circle cx="{x:.1f}" cy="{y(c.estimate):.1f}" r="3" '
                             f'fill="{colour}"><title>{p}, {t} threads: {c.estimate:.3f} '
                             f'[{c.low:.3f}, {c.high:.3f}]</title></circle>')
    for pi, p in enumerate(policies):
        x, yy = 20 + (pi % 3) * 200, height + 25 + 18 * (pi // 3)
        parts.append(f'<rect x="{x}" y="{yy - 9}" width="10" height="10" '
                     f'fill="{colours[pi % len(colours)]}"/>')
        parts.append(f'<text x="{x + 15}" y="{yy}">{p}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def host_machine():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--command", default="make vm-bench",
                        help="the command that produced the results, for the summary")
    parser.add_argument("--kernel-cost", metavar="CSV",
                        help="kernel-cost.csv of workloads/kernel-cost-icount.sh, if it ran")
    parser.add_argument("results", nargs="+",
                        help="results.csv of vm-bench; several are pooled, paired within each")
    parser.add_argument("output_dir")
    args = parser.parse_args(argv)

    rows, failed = load(args.results)
    if not rows:
        print(f"analyze: no successful runs in {' '.join(args.results)}", file=sys.stderr)
        return 1
    values = collect(rows)
    kernels_of = defaultdict(set)
    for w, k, _, _ in values:
        kernels_of[w].add(k)
    kernel_workloads = {w for w, ks in kernels_of.items() if "stock" in ks}
    lock_workloads = set(kernels_of) - kernel_workloads

    first = rows[0]
    seconds = [float(r["seconds"]) for r in rows if number(r.get("seconds"))]
    out = ["# vm-bench summary\n",
           f"Command: `{args.command}`; {first['date']}, accelerator {first['accel']}, "
           f"{first['vcpus']} vCPUs; host CPU: {host_machine()}.\n",
           "Each figure is the tool's own rate over its measured interval "
           f"(median {statistics.median(seconds) if seconds else 0:.2f} s), never process "
           "wall time, after one discarded warm-up run per workload and boot. Cells: ratio "
           "of the policy to glibc (no preload) as the geometric mean of ratios paired by "
           "boot and repetition, [95% interval, Student's t on the log ratios], and the "
           "verdict: better or worse only when "
           "the interval excludes 1, the same rule for every policy. Under TCG every "
           "instruction is emulated and system calls and context switches are dilated "
           "unevenly: compare ratios, not absolute numbers.\n"]
    if any(r.get("accel") == "icount" for r in rows):
        out.append("Under icount (`ACCEL=icount`) the guest clock counts instructions and one "
                   "emulator thread runs the vCPUs in turn; QEMU ends a vCPU's turn at each "
                   "`pause`, so that every iteration of a spinning waiter lets the other vCPUs "
                   "run a whole turn. Spinning there costs far more guest time than on any CPU: "
                   "read only the cells where nobody spins (ADAPTIVE_STATS counts the spins).\n")
    if len(args.results) > 1:
        out.append(f"Pooled from {len(args.results)} result files, each file's boot b "
                   f"renamed i.b: {', '.join(f'{i} {p}' for i, p in enumerate(args.results, 1))}.\n")
    cells, policies, results = lock_tables(out, failed, values, lock_workloads)
    if cells:
        design_table(out, rows + failed, cells)
        harness_bias_table(out, values, cells, policies)
        equal_speed_table(out, values, cells, policies, results)
        contract_table(out, cells, results)
        alternatives_table(out, values, cells)
        fairness_cost_table(out, values, cells)
    kernel_table(out, values, kernel_workloads)
    if args.kernel_cost:
        try:
            instruction_cost_table(out, args.kernel_cost)
        except OSError as e:
            print(f"analyze: --kernel-cost: {e}", file=sys.stderr)
            return 1
    if failed:
        out.append("## Runs that failed\n")
        for r in failed:
            out.append(f"- {r['workload']} {r['kernel']} {r['policy']} threads={r['threads']} "
                       f"boot={r.get('boot', '')} rep={r['rep']}: {r['status']}")
        out.append("")
    try:
        os.makedirs(args.output_dir, exist_ok=True)
    except OSError as e:
        print(f"analyze: {args.output_dir}: {e}", file=sys.stderr)
        return 1
    with open(f"{args.output_dir}/summary.md", "w") as f:
        f.write("\n".join(out))
    for w in sorted(lock_workloads):
        threads = sorted({t for (cw, t) in cells if cw == w})
        svg_plot(f"{args.output_dir}/{w}.svg", w, threads, policies, results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
