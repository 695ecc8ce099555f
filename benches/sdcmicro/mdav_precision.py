#!/usr/bin/env python3
"""Checks the explanation of the MDAV differences between sdcMicro and intruder.

sdcMicro's Mdav.cpp (OECD code) keeps distances in single precision (`typedef float TDist`,
Mdav.h): each term (x − y)²/σ² is cast to float and summed in float, over the variables in order. This script replays sdcMicro's MDAV loop (centroid → farthest record r → its
k nearest; farthest s from r → its k nearest; the last 2k−1 or fewer as one or two groups) once
with float32 distances and once with float64, and compares each partition with sdcMicro's and
intruder's outputs written by agreement.py, with ties in the sorted distances taken as sdcMicro's
hash sort takes them (of equal distances, the later record first) and as intruder does (the
lower row first). Partitions are compared as the released values show them (records grouped by
their group's means).

Usage: python3 benches/sdcmicro/mdav_precision.py [RESULTS_DIR]   (after agreement.py)
"""
import csv, gzip, json, os, sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def mdav(x, k, dtype, later_first=True):
    n, p = x.shape
    # Variance as Mdav.cpp forms it: running sums in record order, SquaredSum/n − mean².
    avr = np.cumsum(x, axis=0)[-1] / n
    var = np.cumsum(x * x, axis=0)[-1] / n - avr * avr
    w = np.where(var != 0, 1.0 / np.where(var != 0, var, 1.0), 1.0)

    def dist(rows, centre):
        # Terms cast to dtype, summed in dtype over the variables in order (ForLoopD).
        d = np.zeros(len(rows), dtype=dtype)
        for j in range(p):
            d = (d + ((x[rows, j] - centre[j]) ** 2 * w[j]).astype(dtype)).astype(dtype)
        return d

    left = np.arange(n)
    group = np.full(n, -1)
    g = 0
    while len(left) - k >= k:
        ngroups = 1 if len(left) - 2 * k < k else 2
        centre = np.cumsum(x[left], axis=0)[-1] / len(left)  # running sum, as AddRow
        d = dist(left, centre)
        far = left[int(np.argmax(d))]  # first of the largest
        for _ in range(ngroups):
            d = dist(left, x[far])
            nxt = left[int(np.argmax(d))]
            # k nearest: by distance, of equal distances the later record first.
            order = np.lexsort((-left if later_first else left, d))
            take = left[order[:k]]
            group[take] = g
            g += 1
            left = np.setdiff1d(left, take)
            far = nxt
    if len(left):
        group[left] = g
    return group


def open_csv(path):
    """PATH, or PATH.gz when agreement.py has gzipped its outputs."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", newline="")
    return open(path, newline="")


def partition_of_groups(group, x):
    """The partition the released values show: records grouped by their group's means (groups
    with equal means, e.g. groups of all-zero records, merge, as they do in the outputs)."""
    means = {}
    for gi in set(group.tolist()):
        means[gi] = tuple(round(float(v), 6) for v in x[group == gi].mean(axis=0))
    out = {}
    for i, gi in enumerate(group):
        out.setdefault(means[gi], []).append(i)
    return sorted(tuple(v) for v in out.values())


def partition_of_values(rows, vars_):
    out = {}
    for i, r in enumerate(rows):
        out.setdefault(tuple(round(float(r[v]), 6) for v in vars_), []).append(i)
    return sorted(tuple(v) for v in out.values())


def main():
    res = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results"))
    with open(os.path.join(res, "manifest.json")) as f:
        man = json.load(f)
    report = []
    for mc in man["mdav"]:
        vars_ = mc["variables"] if isinstance(mc["variables"], list) else [mc["variables"]]
        with open(os.path.join(res, mc["data"])) as f:
            rows = list(csv.DictReader(f))
        x = np.array([[float(r[v]) for v in vars_] for r in rows])
        with open_csv(os.path.join(res, "sdcmicro", f"mdav_{mc['name']}.csv")) as f:
            theirs = partition_of_values(list(csv.DictReader(f)), vars_)
        with open_csv(os.path.join(res, "intruder", f"mdav_{mc['name']}.csv")) as f:
            ours = partition_of_values(list(csv.DictReader(f)), vars_)
        p32 = partition_of_groups(mdav(x, mc["k"], np.float32), x)
        p64 = partition_of_groups(mdav(x, mc["k"], np.float64), x)
        p64e = partition_of_groups(mdav(x, mc["k"], np.float64, later_first=False), x)
        p32e = partition_of_groups(mdav(x, mc["k"], np.float32, later_first=False), x)
        dup = len(rows) - len({tuple(r) for r in x.tolist()})
        r = {"case": mc["name"], "records": len(rows), "duplicate_records": dup,
             "sdcmicro_equals_intruder": theirs == ours,
             "replay_float32_later_first_equals_sdcmicro": p32 == theirs,
             "replay_float64_later_first_equals_sdcmicro": p64 == theirs,
             "replay_float32_earlier_first_equals_sdcmicro": p32e == theirs,
             "replay_float64_earlier_first_equals_intruder": p64e == ours,
             "replay_float64_later_first_equals_intruder": p64 == ours}
        report.append(r)
        print(json.dumps(r))
    with open(os.path.join(res, "mdav_precision.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
