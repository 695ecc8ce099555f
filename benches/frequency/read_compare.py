#!/usr/bin/env python3
"""Reading and end-to-end times: intruder's parallel reader against DuckDB, CSV and Parquet.

On the file of compare.py (N rows x 10 skewed integer keys, 10% missing in three), built once;
the Parquet copy is written once by DuckDB (COPY ... (FORMAT parquet), snappy). Times:
  - reading only: intruder `read_timings` (RAYON_NUM_THREADS=1 and 2, best of --repeat) and the
    one-pass reader it replaced (once); DuckDB `CREATE TABLE AS SELECT * FROM read_csv_auto(...)`
    and `read_parquet(...)` with 1 and 2 threads (best of --repeat);
  - end to end: `intruder risk --missing listwise|wildcard` on CSV and on Parquet (1 and 2
    threads), wall time and
    peak memory from /usr/bin/time -v (best wall time of --repeat runs, the largest peak); DuckDB read_csv_auto + GROUP BY (the
    listwise class sizes), and GROUP BY straight from each file (best of --repeat);
  - the same keys as text in Parquet, dictionary-encoded and plain (written once with pyarrow):
    intruder risk listwise and wildcard end to end and DuckDB's GROUP BY, 2 threads.
Usage:
  python3 benches/frequency/read_compare.py [--rows 10000000] [--repeat 3]
Needs: pip install duckdb pyarrow pandas numpy; cargo build --release -p intruder-benches
--bin read_timings --features intruder-data/parquet; cargo build --release -p intruder-cli
--features parquet.
"""
import argparse, json, os, platform, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import compare  # noqa: E402

KEYS = compare.KEYS


def ours(path, threads, repeat, reference=False):
    args = [os.path.join(ROOT, "target", "release", "read_timings"), path, "--repeat", str(repeat)]
    if reference:
        args.append("--reference")
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run(args, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


def duck_read(path, threads, repeat, fn):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET threads = {threads}")
    best = float("inf")
    for _ in range(repeat):
        con.execute("DROP TABLE IF EXISTS t")
        t = time.perf_counter()
        con.execute(f"CREATE TABLE t AS SELECT * FROM {fn}('{path}')")
        best = min(best, time.perf_counter() - t)
    return best


def duck_read_group_by(path, threads):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET threads = {threads}")
    keys = ",".join(KEYS)
    notnull = " AND ".join(f"{k} IS NOT NULL" for k in KEYS)
    t = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv_auto('{path}')")
    n = con.execute(f"SELECT count(*) FROM (SELECT {keys}, count(*) AS f FROM t WHERE {notnull} GROUP BY {keys})").fetchone()[0]
    return time.perf_counter() - t, n


def duck_group_by(path, threads, repeat, fn):
    """DuckDB straight from the file, no table kept: the listwise class count (best of repeat)."""
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET threads = {threads}")
    keys = ",".join(KEYS)
    notnull = " AND ".join(f"{k} IS NOT NULL" for k in KEYS)
    best, n = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        n = con.execute(f"SELECT count(*) FROM (SELECT {keys}, count(*) AS f FROM {fn}('{path}') "
                        f"WHERE {notnull} GROUP BY {keys})").fetchone()[0]
        best = min(best, time.perf_counter() - t)
    return best, n


def risk(path, policy, threads=2, repeat=1):
    """The whole process, best wall time of `repeat` runs (as DuckDB's figures), its CPU time,
    and the largest peak memory of any run."""
    cli = os.path.join(ROOT, "target", "release", "intruder")
    cmd = ["/usr/bin/time", "-v", cli, "risk", "--data", path, "--keys", ",".join(KEYS),
           "--missing", policy, "--format", "json"]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t
        err = p.stderr.splitlines()
        rss = next(int(l.split()[-1]) * 1024 for l in err if "Maximum resident set size" in l)
        cpu = sum(float(l.split()[-1]) for l in err if "User time" in l or "System time" in l)
        run = {"command": " ".join(cmd[2:]), "threads": threads, "wall_s": wall, "cpu_s": cpu,
               "peak_rss_bytes": rss, "runs": repeat}
        if best is None or wall < best["wall_s"]:
            best = dict(run, peak_rss_bytes=max(rss, best["peak_rss_bytes"] if best else 0))
        else:
            best["peak_rss_bytes"] = max(best["peak_rss_bytes"], rss)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "read_results.json"))
    a = ap.parse_args()
    data_dir = os.path.join(ROOT, "benches", "data")
    os.makedirs(data_dir, exist_ok=True)
    csv = os.path.join(data_dir, f"freq_{a.rows}.csv")
    pq = os.path.join(data_dir, f"freq_{a.rows}.parquet")
    if not os.path.exists(csv):
        compare.build(csv, a.rows)
    if not os.path.exists(pq):
        import duckdb
        duckdb.connect().execute(f"COPY (SELECT * FROM read_csv_auto('{csv}')) TO '{pq}' (FORMAT parquet)")
    # The same keys as text, in the two layouts Python users write: dictionary-encoded (pandas'
    # category, intruder's categorical columns) and plain strings (pandas' object columns).
    variants = {"parquet-dict": os.path.join(data_dir, f"freq_{a.rows}_dict.parquet"),
                "parquet-text": os.path.join(data_dir, f"freq_{a.rows}_str.parquet")}
    for name, path in variants.items():
        if not os.path.exists(path):
            import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as ppq
            t = ppq.read_table(pq)
            cols = {k: pc.cast(t[k], pa.string()) for k in t.column_names}
            if name == "parquet-dict":
                cols = {k: v.dictionary_encode() for k, v in cols.items()}
            ppq.write_table(pa.table(cols), path)
    import duckdb
    r = {"rows": a.rows, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
         "date": time.strftime("%Y-%m-%d %H:%M"), "duckdb": duckdb.__version__,
         "load_average_before": os.getloadavg(), "csv_bytes": os.path.getsize(csv),
         "parquet_bytes": os.path.getsize(pq), "reading": [], "end_to_end": []}
    for fmt, path, fn in [("csv", csv, "read_csv_auto"), ("parquet", pq, "read_parquet")]:
        for threads in (1, 2):
            o = ours(path, threads, a.repeat)
            r["reading"].append({"tool": "intruder", "format": fmt, "threads": threads,
                                 "read_s": o["read_s"], "read_cpu_s": o["read_cpu_s"]})
            d = duck_read(path, threads, a.repeat, fn)
            r["reading"].append({"tool": "duckdb", "format": fmt, "threads": threads, "read_s": d})
            print(fmt, threads, o["read_s"], d, file=sys.stderr)
    o = ours(csv, 1, 1, reference=True)
    r["reading"].append({"tool": "intruder one-pass (before)", "format": "csv", "threads": 1,
                         "read_s": o["read_s"], "read_cpu_s": o["read_cpu_s"]})
    for fmt, path in [("csv", csv), ("parquet", pq)]:
        for policy, threads in (("listwise", 1), ("listwise", 2), ("wildcard", 1), ("wildcard", 2)):
            e = risk(path, policy, threads, a.repeat)
            e.update({"format": fmt, "policy": policy})
            r["end_to_end"].append(e)
            print(e, file=sys.stderr)
    for fmt, path in variants.items():
        for policy in ("listwise", "wildcard"):
            e = risk(path, policy, 2, a.repeat)
            e.update({"format": fmt, "policy": policy})
            r["end_to_end"].append(e)
            print(e, file=sys.stderr)
    t, n = duck_read_group_by(csv, 2)
    r["duckdb_read_csv_group_by_s"] = t
    r["duckdb_classes"] = n
    r["duckdb_group_by"] = []
    group_by_runs = [("csv", csv, "read_csv_auto", t) for t in (1, 2)]
    group_by_runs += [("parquet", pq, "read_parquet", t) for t in (1, 2)]
    group_by_runs += [(fmt, path, "read_parquet", 2) for fmt, path in variants.items()]
    for fmt, path, fn, threads in group_by_runs:
        d, n2 = duck_group_by(path, threads, a.repeat, fn)
        assert n2 == n, (n2, n)
        r["duckdb_group_by"].append({"format": fmt, "threads": threads, "seconds": d})
        print("duckdb group by", fmt, threads, d, file=sys.stderr)
    r["load_average_after"] = os.getloadavg()
    with open(a.out + ".tmp", "w") as f:
        json.dump(r, f, indent=2)
    os.replace(a.out + ".tmp", a.out)
    print(f"load average before/after: {r['load_average_before']} / {r['load_average_after']}")
    print("| reading | threads | intruder | DuckDB |\n|---|---|---|---|")
    for fmt in ("csv", "parquet"):
        for threads in (1, 2):
            i = next(x for x in r["reading"] if x["tool"] == "intruder" and x["format"] == fmt and x["threads"] == threads)
            d = next(x for x in r["reading"] if x["tool"] == "duckdb" and x["format"] == fmt and x["threads"] == threads)
            print(f"| {fmt} | {threads} | {i['read_s']:.2f} s ({i['read_cpu_s']:.2f} s CPU) | {d['read_s']:.2f} s |")
    print(f"| csv, one-pass reader (before) | 1 | {r['reading'][-1]['read_s']:.2f} s | |")
    for e in r["end_to_end"]:
        print(f"| end to end {e['format']} {e['policy']} | {e['threads']} | {e['wall_s']:.2f} s ({e['cpu_s']:.2f} s CPU), peak {e['peak_rss_bytes'] / 2**30:.2f} GiB | |")
    print(f"| DuckDB read_csv_auto into a table + GROUP BY | 2 | | {t:.2f} s |")
    for d in r["duckdb_group_by"]:
        print(f"| DuckDB GROUP BY straight from the {d['format']} file | {d['threads']} | | {d['seconds']:.2f} s |")


if __name__ == "__main__":
    main()
