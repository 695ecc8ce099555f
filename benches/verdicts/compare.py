#!/usr/bin/env python3
"""Local suppression to k = 3, side by side: sdcMicro's localSuppression and intruder's
local-suppression (protect_against = all, the default, and = wildcard, sdcMicro's rule), on
the files of make_data.py. For each output: cells suppressed, the time, and what the toolkit's
own attacks achieve against it — the exact attack under listwise and wildcard matching, every
original record known (intruder attack --truth id), and the smallest class under each rule
(intruder risk --missing listwise|as-value|wildcard). Writes results/verdicts.json and
results/verdicts.md.

    python3 benches/verdicts/compare.py [--intruder target/release/intruder] [--skip-sdcmicro]

Needs R with sdcMicro (benches/sdcmicro/install.sh) unless --skip-sdcmicro.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

here = Path(__file__).resolve().parent
root = here.parents[1]
T7 = "urbrur,roof,walls,water,electcon,relat,sex"
# (file, keys, k): the postcode files, and the local-suppression cases of
# benches/sdcmicro/agreement.R (sdcMicro's own examples and data sets)
CASES = [
    ("testdata_postcode", "urbrur,roof,walls,water,sex,postcode", 3),
    ("testdata3_postcode", "urbrur,roof,walls,water,sex,postcode", 3),
    ("testdata2", T7, 2),
    ("testdata", T7, 3),
    ("testdata_na", T7, 3),
    ("free1", "REGION,SEX,AGE", 3),
]


def run(cmd, **kw):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stderr}")
    return p, wall


def judge(intruder, original, released, keys, k):
    """The attacks' figures against one released file."""
    out = {}
    for rule in ["listwise", "wildcard"]:
        p, _ = run([intruder, "attack", "--intruder", original, "--released", released,
                    "--keys", keys, "--missing", rule, "--truth", "id", "--format", "json"])
        j = json.loads(p.stdout)
        out[f"attack_{rule}"] = {
            "expected_correct": j["expected_correct"],
            "rate_per_target": j["expected_correct"] / j["intruder_records"],
            "correct_matches": j["correct_matches"],
            "unique_correct": j["unique_correct"],
        }
    for rule in ["listwise", "as-value", "wildcard"]:
        p, _ = run([intruder, "risk", "--data", released, "--keys", keys,
                    "--missing", rule, "--format", "json", "--set", f"k_anonymity={k}"])
        j = json.loads(p.stdout)
        out[f"risk_{rule}"] = {
            "records_fk_below_k": j.get("records_fk_below_k"),
            "min_k": j.get("min_k"),
            "n": j.get("n", j.get("n_total")),
        }
    return out


def suppressions(original, released, keys):
    import csv
    keys = keys.split(",")
    a = list(csv.DictReader(open(original)))
    b = list(csv.DictReader(open(released)))
    per = {k: sum(1 for x, y in zip(a, b) if x[k] != "" and y[k] == "") for k in keys}
    return per, sum(per.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--intruder", default=str(root / "target/release/intruder"))
    ap.add_argument("--skip-sdcmicro", action="store_true")
    ap.add_argument("--work", default=str(root / "target/verdicts"))
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    run([sys.executable, str(here / "make_data.py"), str(work)])
    results = []
    for name, keys, k in CASES:
        original = str(work / f"{name}.csv")
        for rule in ["all", "wildcard"]:
            out = str(work / f"{name}_intruder_{rule}.csv")
            p, wall = run(["/usr/bin/time", "-f", "%e %U %S %M", a.intruder, "mask", "--data", original,
                           "--method", "local-suppression", "--set", f"keys={keys}",
                           "--set", f"k={k}", "--set", f"protect_against={rule}",
                           "--seed", "1", "--out", out, "--format", "json"])
            e, u, s, m = p.stderr.strip().splitlines()[-1].split()
            per, total = suppressions(original, out, keys)
            results.append({"file": name, "keys": keys, "k": k,
                            "tool": f"intruder (protect_against = {rule})",
                            "suppressions": per, "total": total,
                            "seconds_wall": float(e), "seconds_cpu": float(u) + float(s),
                            "peak_rss_kb": int(m), **judge(a.intruder, original, out, keys, k)})
        if not a.skip_sdcmicro:
            out = str(work / f"{name}_sdcmicro.csv")
            js = str(work / f"{name}_sdcmicro.json")
            run(["Rscript", str(here / "sdcmicro_ls.R"), original, out, js, str(k), keys])
            r = json.load(open(js))
            per, total = suppressions(original, out, keys)
            results.append({"file": name, "keys": keys, "k": k,
                            "tool": f"sdcMicro {r['sdcmicro']} localSuppression",
                            "suppressions": per, "total": total,
                            "seconds_wall": r["seconds_elapsed"], "seconds_cpu": r["seconds_cpu"],
                            "peak_rss_kb": None, **judge(a.intruder, original, out, keys, k)})
    (here / "results").mkdir(exist_ok=True)
    json.dump(results, open(here / "results/verdicts.json", "w"), indent=1)
    lines = ["| file (k) | tool | cells suppressed | time (s, CPU) | exact attack, listwise: per target (unique) | exact attack, wildcard: per target (unique) | smallest class: listwise / as-value | records with n_match < k |",
             "|---|---|---:|---:|---:|---:|---|---:|"]
    for r in results:
        lw, wc = r["attack_listwise"], r["attack_wildcard"]
        show = lambda v: "–" if v is None else str(v)
        mk = " / ".join(show(r[f"risk_{x}"]["min_k"]) for x in ["listwise", "as-value"])
        lines.append(f"| {r['file']} ({r['k']}) | {r['tool']} | {r['total']:,} | "
                     f"{r['seconds_cpu']:.2f} | {100*lw['rate_per_target']:.2f}% ({lw['unique_correct']}) | "
                     f"{100*wc['rate_per_target']:.2f}% ({wc['unique_correct']}) | {mk} | "
                     f"{r['risk_wildcard']['records_fk_below_k']} |")
    (here / "results/verdicts.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


main()
