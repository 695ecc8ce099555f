#!/usr/bin/env python3
"""Record swapping side by side: sdcMicro's recordSwap against intruder's record-swap.

    python3 benches/record_swap/compare.py [--intruder BIN] [--seeds N] [--out DIR] [--skip-r]

Runs compare.R (sdcMicro's side: data, cases, figures per seed), then `intruder mask --method
record-swap` on the same file with the same parameters and seeds, and writes
DIR/intruder.json (our figures per case and seed, from the change log's details) and
DIR/summary.md / DIR/summary.json (both tools side by side). The random number generators
differ (sdcMicro: std::mt19937 seeded with the seed; intruder: ChaCha20 from the pipeline's
seed), so the per-seed pairs differ; what must agree exactly is deterministic (households at
risk per level, the swap target, households at risk left unswapped), the rest in distribution.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_geo(path, hierarchy):
    """hid -> tuple of the hierarchy values, from the CSV at path."""
    import csv
    geo = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            geo.setdefault(row["hid"], tuple(row[c] for c in hierarchy))
    return geo


def first_differing(a, b):
    """The 0-based first level where geographies a and b differ."""
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


def run_intruder(binary, data, case, seed, tmp):
    """One intruder run: the figures compare.R computes for sdcMicro."""
    out, log = os.path.join(tmp, "m.csv"), os.path.join(tmp, "log.json")
    cmd = [binary, "mask", "--data", data, "--method", "record-swap",
           "--set", "hid=hid",
           "--set", "hierarchy=" + ",".join(case["hierarchy"]),
           "--set", "similar=" + case["similar"],
           "--set", "risk_variables=" + ",".join(case["risk_variables"]),
           "--set", f"k_anonymity={case['k']}",
           "--set", f"swaprate={case['swaprate']}",
           "--seed", str(seed), "--out", out, "--log", log, "--no-check", "--format", "json"]
    t0 = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    secs = time.time() - t0
    with open(log) as f:
        d = json.load(f)
    steps = d["log"]["steps"] if "log" in d else d["steps"]
    return steps[0]["details"], secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--intruder", default=os.environ.get("INTRUDER_BIN", os.path.join(ROOT, "target/debug/intruder")))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--skip-r", action="store_true", help="reuse DIR/sdcmicro.json")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not a.skip_r:
        subprocess.run(["Rscript", os.path.join(HERE, "compare.R"), a.out, str(a.seeds)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(a.out, "cases.json")) as f:
        cases = json.load(f)
    with open(os.path.join(a.out, "sdcmicro.json")) as f:
        sdc = json.load(f)
    data = os.path.join(a.out, "data.csv")
    ours = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            geo = read_geo(data, case["hierarchy"])
            runs = []
            for seed in range(1, a.seeds + 1):
                d, secs = run_intruder(a.intruder, data, case, seed, tmp)
                by_level = [0] * len(case["hierarchy"])
                for p in d["pairs"]:
                    by_level[first_differing(geo[p["household"]], geo[p["donor"]])] += 1
                runs.append({
                    "seed": seed,
                    "households_swapped": d["households_swapped"],
                    "records_swapped": d["records_swapped"],
                    "pairs": len(d["pairs"]),
                    "pairs_by_first_differing_level": by_level,
                    "swaps_by_level_made": [lv["swaps"] for lv in d["levels"]],
                    "no_donor": len(d["no_donor"]),
                    "target_swaps": d["target_swaps"],
                    "seconds": secs,
                })
            ours[case["name"]] = {"households": d["households"], "records": d["records"],
                                  "at_risk": [lv["at_risk"] for lv in d["levels"]], "runs": runs}
            print(case["name"], "done", file=sys.stderr)
    with open(os.path.join(a.out, "intruder.json"), "w") as f:
        json.dump(ours, f, indent=1)
    write_summary(a.out, cases, sdc, ours)


def stats(xs):
    """mean, min, max of xs."""
    return statistics.mean(xs), min(xs), max(xs)


def write_summary(out, cases, sdc, ours):
    """summary.md and summary.json: per case, both tools' figures."""
    lines = [f"# Record swapping: sdcMicro {sdc['version']['sdcMicro']} recordSwap vs intruder record-swap",
             "", f"Data: sdcMicro's createDat(10000) after set.seed(2021): {sdc[cases[0]['name']]['households']} households, "
             f"{sdc[cases[0]['name']]['records']} records. {len(ours[cases[0]['name']]['runs'])} seeds per case (1..N); "
             "mean [min, max] over the seeds.", ""]
    summary = {}
    for case in cases:
        n = case["name"]
        s, o = sdc[n], ours[n]
        levels = case["hierarchy"]
        row = {"at_risk": {"sdcmicro": s["at_risk"], "intruder": o["at_risk"]}}
        lines += [f"## {n}", "",
                  f"hierarchy {', '.join(levels)}; similar {case['similar']}; risk_variables "
                  f"{', '.join(case['risk_variables'])}; k_anonymity {case['k']}; swaprate {case['swaprate']}", "",
                  "| figure | sdcMicro | intruder |", "|---|---|---|",
                  f"| households at risk per level | {s['at_risk']} | {o['at_risk']} |"]
        for key, label in [("households_swapped", "households swapped"), ("records_swapped", "records swapped"),
                           ("pairs", "pairs")]:
            sv, ov = stats([r[key] for r in s["runs"]]), stats([r[key] for r in o["runs"]])
            row[key] = {"sdcmicro": sv, "intruder": ov}
            lines.append(f"| {label} | {sv[0]:.1f} [{sv[1]}, {sv[2]}] | {ov[0]:.1f} [{ov[1]}, {ov[2]}] |")
        for li, lv in enumerate(levels):
            sv = stats([r["pairs_by_first_differing_level"][li] for r in s["runs"]])
            ov = stats([r["pairs_by_first_differing_level"][li] for r in o["runs"]])
            row[f"pairs_differing_first_at_{lv}"] = {"sdcmicro": sv, "intruder": ov}
            lines.append(f"| pairs whose geographies first differ at {lv} | {sv[0]:.1f} [{sv[1]}, {sv[2]}] | {ov[0]:.1f} [{ov[1]}, {ov[2]}] |")
        made = [stats([r["swaps_by_level_made"][li] for r in o["runs"]]) for li in range(len(levels))]
        lines.append("| intruder: swaps made per level | — | " + ", ".join(f"{lv} {m[0]:.1f}" for lv, m in zip(levels, made)) + " |")
        sv = stats([r["at_risk_not_swapped"] for r in s["runs"]])
        ov = stats([r["no_donor"] for r in o["runs"]])
        lines.append(f"| households at risk not swapped (sdcMicro) / without a donor (intruder) | {sv[0]:.1f} | {ov[0]:.1f} |")
        sv, ov = stats([r["seconds"] for r in s["runs"]]), stats([r["seconds"] for r in o["runs"]])
        lines.append(f"| seconds per run (R call / whole debug-build process) | {sv[0]:.2f} | {ov[0]:.2f} |")
        lines.append("")
        summary[n] = row
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
