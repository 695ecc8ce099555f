"""Membership inference at scale (issue 34: 1,000,000 records × 20 columns in ≤ 60 s on 2
cores), and side by side with SDMetrics 0.32 for the distances to the closest record.

The adult-like population of run.py (15 columns) with five more numeric columns (seeded
measurements correlated with age and hours) makes 20 columns; the original and the control set
are two draws of N records, the release a noisy copy of the original (run.noisy_copy, the five
extra columns ±1%). `membership_bench` runs each attack with 500 members and 500 non-members.

The SDMetrics row: DCROverfittingProtection.compute_breakdown on 5,000 records of each file
(its brute force is a pandas cross join, 1,000 × 1,000 rows per chunk), timed with
time.process_time(), against `membership_bench dcr` on the same files.

Usage (from the repository root):
    python3 -m venv /tmp/sdm && /tmp/sdm/bin/pip install sdmetrics==0.32.0
    cargo build --release -p intruder-questions --example membership_bench
    /tmp/sdm/bin/python benches/questions/membership.py [--n 1000000] [--targets 500] [--dcr-n 5000]
Prints one JSON line per run; benches/questions/membership.jsonl keeps them.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402  (the adult-like population and its noisy copy)

BENCH = run.ROOT / "target" / "release" / "examples" / "membership_bench"


def twenty_columns(df, seed):
    """The adult-like table with five more numeric columns (20 in all)."""
    rng = np.random.default_rng(seed)
    n = len(df)
    out = df.copy()
    for k in range(5):
        base = df["age"] * (k + 1) + df["hours_per_week"] * (5 - k)
        out[f"m{k + 1}"] = np.round(base * np.exp(rng.normal(0, 0.2, n)), 2)
    return out


def noisy(df, seed):
    out = run.noisy_copy(df, seed)
    rng = np.random.default_rng(seed + 100)
    for k in range(5):
        c = f"m{k + 1}"
        out[c] = np.round(df[c] * (1 + rng.uniform(-0.01, 0.01, len(df))), 2)
    return out


def bench(measure, paths, params):
    out = subprocess.run([str(BENCH), measure, *map(str, paths), params, "1"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--targets", type=int, default=500)
    ap.add_argument("--dcr-n", type=int, default=5000)
    ap.add_argument("--work", default=str(run.ROOT / "target" / "membership-scale"))
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    paths = [work / f"{name}-{args.n}.csv" for name in ("original", "control", "release")]
    if not all(p.exists() for p in paths):
        ori = twenty_columns(run.adult_like(args.n, 1), 11)
        ori.to_csv(paths[0], index=False)
        twenty_columns(run.adult_like(args.n, 2), 12).to_csv(paths[1], index=False)
        noisy(ori, 3).to_csv(paths[2], index=False)
    for attack in ("distance", "density-ratio"):
        r = bench("membership", paths, f'n_targets = {args.targets}\nattack = "{attack}"')
        r.update({"n": args.n, "columns": 20, "attack": attack})
        print(json.dumps(r), flush=True)
    # DCR side by side with SDMetrics on the first dcr_n records of each file.
    import pandas as pd
    small = [work / f"{name}-dcr-{args.dcr_n}.csv" for name in ("original", "control", "release")]
    frames = [pd.read_csv(p, nrows=args.dcr_n) for p in paths]
    for f, p in zip(frames, small):
        f.to_csv(p, index=False)
    r = bench("dcr", small, "")
    r.update({"n": args.dcr_n, "columns": 20})
    print(json.dumps(r), flush=True)
    from sdmetrics.single_table import DCROverfittingProtection
    metadata = {"columns": {c: {"sdtype": "numerical" if frames[0][c].dtype.kind in "if" else "categorical"}
                            for c in frames[0].columns}}
    cpu = time.process_time()
    b = DCROverfittingProtection.compute_breakdown(frames[0], frames[2], frames[1], metadata, None)
    cpu = time.process_time() - cpu
    print(json.dumps({"tool": "sdmetrics 0.32.0", "measure": "dcr", "n": args.dcr_n, "columns": 20,
                      "overfitting_protection": float(b["score"]),
                      "closer_to_training": float(b["synthetic_data_percentages"]["closer_to_training"]),
                      "cpu_s": round(cpu, 3)}), flush=True)


if __name__ == "__main__":
    main()
