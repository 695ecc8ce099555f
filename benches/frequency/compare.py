#!/usr/bin/env python3
"""Side-by-side frequency counting: intruder vs DuckDB GROUP BY vs pandas groupby, same file.

Builds (once) a CSV of N rows x 10 skewed categorical keys (integer codes, probabilities
proportional to 1/rank), 10% missing in 3 of them, seed 20261126; then times, on that file:
  - CSV loading (each tool separately);
  - the listwise counting step: class sizes over complete records, and per-record class size
    (what `intruder risk` needs: f_k for every record);
  - intruder's wildcard n_match;
  - end-to-end `intruder risk` (listwise and wildcard), with peak memory from /usr/bin/time.
Counting steps report the best of 3 runs. Usage:
  python3 benches/frequency/compare.py [--rows 10000000] [--out benches/frequency/results.json]
Reading alone (our reader on 1 and 2 threads, CSV and Parquet, against DuckDB) is timed by
read_compare.py beside this script.
Needs: pip install duckdb pandas numpy; a release build (cargo build --release -p intruder-cli
-p intruder-benches).
"""
import argparse, json, os, platform, subprocess, sys, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CARD = [2, 3, 5, 8, 12, 20, 30, 50, 80, 120]
KEYS = [f"k{i}" for i in range(10)]


def build(path, rows, seed=20261126):
    rng = np.random.default_rng(seed)
    cols = []
    for k, c in enumerate(CARD):
        p = 1.0 / np.arange(1, c + 1)
        p /= p.sum()
        v = rng.choice(c, size=rows, p=p).astype(np.int64)
        s = v.astype(str).astype(object)
        if k >= 7:
            s[rng.random(rows) < 0.10] = ""
        cols.append(s)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(",".join(KEYS) + "\n")
        step = 1_000_000
        for a in range(0, rows, step):
            block = np.column_stack([c[a:a + step] for c in cols])
            f.write("\n".join(",".join(r) for r in block) + "\n")
    os.replace(tmp, path)


def best(f, n=3):
    """Best wall time of n runs, with the process CPU time (all threads) of that run."""
    b, cpu, out = float("inf"), float("nan"), None
    for _ in range(n):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        wall = time.perf_counter() - t
        if wall < b:
            b, cpu = wall, time.process_time() - c
    return (b, cpu), out


def run_duckdb(path):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    t = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{path}', header=true, all_varchar=false)")
    load = time.perf_counter() - t
    keys = ",".join(KEYS)
    notnull = " AND ".join(f"{k} IS NOT NULL" for k in KEYS)
    classes_s, classes = best(lambda: con.execute(
        f"SELECT count(*) FROM (SELECT {keys}, count(*) AS f FROM t WHERE {notnull} GROUP BY {keys})").fetchone()[0])
    uniq_s, uniques = best(lambda: con.execute(
        f"SELECT count(*) FROM (SELECT count(*) AS f FROM t WHERE {notnull} GROUP BY {keys}) WHERE f = 1").fetchone()[0])
    per_s, _ = best(lambda: con.execute(
        f"SELECT sum(f) FROM (SELECT count(*) OVER (PARTITION BY {keys}) AS f FROM t WHERE {notnull})").fetchone()[0])
    return {"tool": f"duckdb {duckdb.__version__}", "threads": int(threads), "load_s": load,
            "group_by_s": classes_s[0], "group_by_cpu_s": classes_s[1], "uniques_s": uniq_s[0],
            "per_record_s": per_s[0], "per_record_cpu_s": per_s[1],
            "classes": classes, "uniques": uniques}


def run_pandas(path):
    import pandas as pd
    t = time.perf_counter()
    df = pd.read_csv(path)
    load = time.perf_counter() - t
    g_s, sizes = best(lambda: df.groupby(KEYS, dropna=True).size())
    per_s, _ = best(lambda: df.groupby(KEYS, dropna=True)[KEYS[0]].transform("size"))
    return {"tool": f"pandas {pd.__version__}", "threads": 1, "load_s": load, "group_by_s": g_s[0],
            "group_by_cpu_s": g_s[1], "per_record_s": per_s[0], "per_record_cpu_s": per_s[1],
            "classes": int(len(sizes)), "uniques": int((sizes == 1).sum())}


def run_intruder(path):
    binary = os.path.join(ROOT, "target", "release", "risk_timings")
    out = subprocess.run([binary, path, ",".join(KEYS), "--repeat", "3"], check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)
    res = {"tool": "intruder (library steps)", **r}
    cli = os.path.join(ROOT, "target", "release", "intruder")
    for policy in ["listwise", "wildcard"]:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v", cli, "risk", "--data", path, "--keys", ",".join(KEYS),
                            "--missing", policy, "--format", "json"], check=True, capture_output=True, text=True)
        wall = time.perf_counter() - t
        rss = next(int(l.split()[-1]) * 1024 for l in p.stderr.splitlines() if "Maximum resident set size" in l)
        res[f"cli_{policy}_s"] = wall
        res[f"cli_{policy}_peak_rss_bytes"] = rss
        res[f"cli_{policy}_json"] = json.loads(p.stdout)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"))
    a = ap.parse_args()
    data_dir = os.path.join(ROOT, "benches", "data")
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, f"freq_{a.rows}.csv")
    if not os.path.exists(path):
        t = time.perf_counter()
        build(path, a.rows)
        print(f"built {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    results = {"rows": a.rows, "keys": 10, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
               "date": time.strftime("%Y-%m-%d %H:%M"), "load_average_before": os.getloadavg(), "runs": []}
    for f in (run_intruder, run_duckdb, run_pandas):
        r = f(path)
        print(json.dumps({k: v for k, v in r.items() if not k.endswith("_json")}), file=sys.stderr)
        results["runs"].append(r)
    with open(a.out + ".tmp", "w") as f:
        json.dump(results, f, indent=2)
    os.replace(a.out + ".tmp", a.out)
    i, d, p = results["runs"]
    assert i["listwise_classes"] == d["classes"] == p["classes"], "tools disagree on the number of classes"
    assert i["listwise_uniques"] == d["uniques"] == p["uniques"], "tools disagree on the number of uniques"
    print(f"load average before the run: {results['load_average_before']}")
    print("| step | intruder | DuckDB | pandas |\n|---|---|---|---|")
    print(f"| load CSV | {i['load_s']:.2f} s | {d['load_s']:.2f} s | {p['load_s']:.2f} s |")
    print(f"| class sizes (listwise) | {i['listwise_s']:.3f} s wall, {i['listwise_cpu_s']:.2f} s CPU (includes per-record f_k) | GROUP BY {d['group_by_s']:.3f} s wall, {d['group_by_cpu_s']:.2f} s CPU | groupby {p['group_by_s']:.3f} s wall, {p['group_by_cpu_s']:.2f} s CPU |")
    print(f"| per-record f_k (listwise) | (same step) | window count {d['per_record_s']:.3f} s wall, {d['per_record_cpu_s']:.2f} s CPU | transform {p['per_record_s']:.3f} s wall, {p['per_record_cpu_s']:.2f} s CPU |")
    print(f"| wildcard n_match | {i['wildcard_s']:.2f} s wall, {i['wildcard_cpu_s']:.2f} s CPU | – | – |")
    print(f"| end-to-end `intruder risk` listwise / wildcard | {i['cli_listwise_s']:.2f} s / {i['cli_wildcard_s']:.2f} s | | |")
    print(f"| peak memory listwise / wildcard | {i['cli_listwise_peak_rss_bytes'] / 2**30:.2f} / {i['cli_wildcard_peak_rss_bytes'] / 2**30:.2f} GiB | | |")


if __name__ == "__main__":
    main()
