#!/usr/bin/env python3
"""intruder.risk on a 10,000,000-row pandas DataFrame with 10 categorical keys, against the
command line's counting time (no CSV round trip) and pandas' groupby().transform("size").

The data are those of BENCHMARKS.md §1 (benches/frequency/compare.py, seed 20261126): 10 skewed
keys with 2 … 120 categories, 10% missing in the last three. The script

  1. writes the CSV once (benches/data/freq_N.csv, as compare.py does) for the command line;
  2. times what `intruder risk` does after reading that file — the registry's configure and the
     measure's assess, listwise — with target/release/risk_cli_assess (best of 3);
  3. in a fresh Python process per frame layout, builds the same data as a pandas DataFrame and
     measures intruder.risk(df, keys) (the first call for peak memory: the rise of the process's
     peak RSS during the call over its RSS before it, the peak reset through
     /proc/self/clear_refs; then the best of 3 for time) and
     df.groupby(keys)[k0].transform("size") (best of 3), pandas' export to Arrow
     (pa.table(df)) and intruder.risk on that pyarrow table (best of 3 each), and checks that intruder.risk's counts
     equal the command line's and pandas';

Frame layouts: "category" (every key a pandas Categorical: a dictionary array in Arrow) and
"numeric" (the keys as pd.read_csv gives them for this file: int64, float64 with NaN for the
three with missing values).

Usage (a release build of the extension in the active environment, and of the binaries):
  cargo build --release -p intruder-cli -p intruder-benches --bin risk_cli_assess
  (cd crates/python && maturin develop --release)
  python3 benches/python/risk_bench.py [--rows 10000000] [--repeat 3] [--out benches/python/results.json]
Raw outputs: the JSON file (every child's output as printed, the CLI's JSON, the environment).
"""

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benches", "frequency"))
from compare import CARD, KEYS, build  # noqa: E402  (the §1 data, bit for bit)

SEED = 20261126


def frame(rows, layout):
    """The §1 data as a pandas DataFrame: the same random draws as compare.build, in the same
    order, so the CSV and the frame hold the same values."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(SEED)
    cols = {}
    for k, c in enumerate(CARD):
        p = 1.0 / np.arange(1, c + 1)
        p /= p.sum()
        v = rng.choice(c, size=rows, p=p).astype(np.int64)
        miss = rng.random(rows) < 0.10 if k >= 7 else None
        if layout == "category":
            codes = v.astype(np.int8 if c < 127 else np.int16)
            if miss is not None:
                codes[miss] = -1
            cols[KEYS[k]] = pd.Categorical.from_codes(
                codes, categories=[str(i) for i in range(c)]
            )
        elif layout == "numeric":
            if miss is None:
                cols[KEYS[k]] = v
            else:
                f = v.astype(np.float64)
                f[miss] = np.nan
                cols[KEYS[k]] = f
        else:
            raise ValueError(layout)
        del v
    return pd.DataFrame(cols)


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def reset_peak():
    """Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def best(f, n=3):
    """Best wall time of n runs, with the process CPU time (all threads) of that run."""
    b, cpu, out = float("inf"), float("nan"), None
    for _ in range(n):
        gc.collect()
        t, c = time.perf_counter(), time.process_time()
        out = f()
        wall = time.perf_counter() - t
        if wall < b:
            b, cpu = wall, time.process_time() - c
    return {"wall_s": b, "cpu_s": cpu, "runs": n}, out


def child(rows, layout, repeat=3):
    """One measurement in a fresh process: prints one JSON object."""
    import numpy as np
    import pandas as pd

    import intruder

    t = time.perf_counter()
    df = frame(rows, layout)
    build_s = time.perf_counter() - t
    df_bytes = int(df.memory_usage(deep=True, index=False).sum())
    gc.collect()

    # Memory: the first call in a process that holds only the frame.
    rss_before = status("VmRSS")
    reset_peak()
    t = time.perf_counter()
    r = intruder.risk(df, KEYS)
    first_s = time.perf_counter() - t
    peak = status("VmHWM")
    summary = r.summary
    del r
    gc.collect()

    timing, _ = best(lambda: intruder.risk(df, KEYS), repeat)
    per_record, _ = best(lambda: intruder.risk(df, KEYS, per_record=True), n=1)
    # The call's two parts: pandas' own export to Arrow (what df.__arrow_c_stream__ does:
    # pyarrow.Table.from_pandas), and intruder.risk on the exported pyarrow table.
    import pyarrow as pa

    to_arrow, table = best(lambda: pa.table(df), repeat)
    on_arrow, _ = best(lambda: intruder.risk(table, KEYS), repeat)
    del table

    # pandas: every record's class size (what the risk measures need), listwise.
    pandas_t, sizes = best(
        lambda: df.groupby(KEYS, dropna=True, observed=True)[KEYS[0]].transform("size")
    )
    f = np.asarray(sizes, dtype=np.float64)
    pandas_counts = {
        "n": int(np.isfinite(f).sum()),
        "sample_uniques": int((f == 1).sum()),
        "classes": int(np.nansum(1.0 / f)),
    }
    print(
        json.dumps(
            {
                "layout": layout,
                "rows": rows,
                "dtypes": {k: str(v) for k, v in df.dtypes.items()},
                "dataframe_bytes": df_bytes,
                "build_frame_s": build_s,
                "rss_before_call_bytes": rss_before,
                "peak_rss_during_call_bytes": peak,
                "call_peak_increase_bytes": peak - rss_before,
                "first_call_s": first_s,
                "intruder_risk": timing,
                "intruder_risk_per_record": per_record,
                "pandas_to_arrow": to_arrow,
                "intruder_risk_on_pyarrow_table": on_arrow,
                "pandas_transform_size": pandas_t,
                "pandas_counts": pandas_counts,
                "summary": summary,
                "versions": {
                    "intruder": intruder.__version__,
                    "pandas": pd.__version__,
                    "numpy": np.__version__,
                    "python": platform.python_version(),
                },
            }
        )
    )


def run_cli(path, repeat=3):
    exe = os.path.join(ROOT, "target", "release", "risk_cli_assess")
    p = subprocess.run(
        [exe, path, ",".join(KEYS), "--missing", "listwise", "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(p.stdout), p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--layouts", default="category,numeric")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (pandas: 3)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.rows, a.child, a.repeat)
        return

    data_dir = os.path.join(ROOT, "benches", "data")
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, f"freq_{a.rows}.csv")
    if not os.path.exists(path):
        t = time.perf_counter()
        build(path, a.rows)
        print(f"built {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)

    results = {
        "rows": a.rows,
        "keys": KEYS,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load_average_before": os.getloadavg(),
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]),
    }
    cli, cli_raw = run_cli(path, a.repeat)
    print(f"cli: assess {cli['assess_s']:.3f} s (load {cli['load_s']:.2f} s)", file=sys.stderr)
    results["cli"] = cli
    results["cli_raw"] = cli_raw
    results["python"] = []
    for layout in a.layouts.split(","):
        p = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--rows", str(a.rows), "--repeat",
             str(a.repeat), "--child", layout],
            check=True,
            capture_output=True,
            text=True,
        )
        r = json.loads(p.stdout)
        r["raw_stdout"] = p.stdout
        results["python"].append(r)
        print(
            f"{layout}: intruder.risk {r['intruder_risk']['wall_s']:.3f} s, pandas "
            f"{r['pandas_transform_size']['wall_s']:.3f} s, call peak +"
            f"{r['call_peak_increase_bytes'] / 2**20:.0f} MiB on a "
            f"{r['dataframe_bytes'] / 2**20:.0f} MiB frame",
            file=sys.stderr,
        )
    results["load_average_after"] = os.getloadavg()
    with open(a.out + ".tmp", "w") as f:
        json.dump(results, f, indent=2)
    os.replace(a.out + ".tmp", a.out)

    # Same counts everywhere (the frame is the file's data).
    s = cli["summary"]
    for r in results["python"]:
        for k in ("n_total", "n_deleted", "n", "sample_uniques", "classes", "min_k", "k_le_5"):
            assert r["summary"][k] == s[k], (r["layout"], k, r["summary"][k], s[k])
        for k, v in r["pandas_counts"].items():
            assert s[k] == v, (r["layout"], "pandas", k, v, s[k])

    print(f"load average before / after: {results['load_average_before']} / {results['load_average_after']}")
    print("| frame | DataFrame | intruder.risk | CLI counting (assess) | ratio | pandas transform(\"size\") | speed-up | call peak memory | ÷ frame |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results["python"]:
        t = r["intruder_risk"]["wall_s"]
        p = r["pandas_transform_size"]["wall_s"]
        print(
            f"| {r['layout']} | {r['dataframe_bytes'] / 2**20:.0f} MiB | {t:.3f} s ({r['intruder_risk']['cpu_s']:.2f} s CPU) "
            f"| {cli['assess_s']:.3f} s ({cli['assess_cpu_s']:.2f} s CPU) | {t / cli['assess_s']:.2f}× "
            f"| {p:.2f} s | {p / t:.1f}× | +{r['call_peak_increase_bytes'] / 2**20:.0f} MiB "
            f"| {r['call_peak_increase_bytes'] / r['dataframe_bytes']:.2f}× |"
        )
    print()
    print("| frame | pandas → Arrow (pa.table) | intruder.risk on that pyarrow table | ratio to the CLI | with per_record=True |")
    print("|---|---|---|---|---|")
    for r in results["python"]:
        a = r["intruder_risk_on_pyarrow_table"]["wall_s"]
        print(
            f"| {r['layout']} | {r['pandas_to_arrow']['wall_s']:.3f} s | {a:.3f} s "
            f"| {a / cli['assess_s']:.2f}× | {r['intruder_risk_per_record']['wall_s']:.2f} s |"
        )


if __name__ == "__main__":
    main()
