#!/usr/bin/env python3
"""Fellegi-Sunter on the local engine and on DataFusion (issue 37), side by side.

Generates data-synth's `linkage-pair` (N x N, half overlapping) as CSV and Parquet once, runs
`intruder attack --method fellegi-sunter` with the 1M benchmark's specification
(benches/linkage/linkage_1m.toml) on each engine asked for, under /usr/bin/time -v, and checks
that every engine gives the local engine's figures (the attack's JSON: counts exactly, numbers
to 1e-12 relative). Appends one JSON line per run to OUT.

    python3 benches/engine/linkage.py --rows 1000000 --engines local,datafusion \
        --memory-limit 4GiB --bin-dir target/release --work /tmp/fs1m --out FILE

On a Ballista cluster (an engine `ballista://HOST:PORT`): `--scratch-dir DIR` (a directory the
executors see), and `--executor-pids` / `--shuffle-dirs` (the executors' processes and work
directories on this machine) to record their CPU seconds and the bytes they wrote.

Binaries: cargo build --release -p intruder-cli --features parquet,cluster.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from run import process_cpu, tree_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "linkage", "linkage_1m.toml")


def close(a, b, at=""):
    """Differences between two JSON values (numbers to 1e-12 relative)."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{at}.{k}: only in one")
            else:
                out += close(a[k], b[k], f"{at}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{at}: {len(a)} against {len(b)} items")
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                out += close(x, y, f"{at}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or abs(a - b) > 1e-12 * max(abs(a), abs(b), 1e-300):
            out.append(f"{at}: {a} against {b}")
    elif a != b:
        out.append(f"{at}: {a} against {b}")
    return out


def to_parquet(csv, schema, pq):
    """The CSV as Parquet (pyarrow; integer columns of the schema as int64, the others as
    text, empty cells as nulls), in row groups of a million records."""
    import pyarrow
    import pyarrow.csv as pc
    import pyarrow.parquet as pp
    ints, col = [], None
    for line in open(schema):
        m = re.match(r"\[columns\.(\w+)\]", line.strip())
        if m:
            col = m.group(1)
        elif col and line.strip() == 'type = "integer"':
            ints.append(col)
    t = pc.read_csv(csv, convert_options=pc.ConvertOptions(
        column_types={c: pyarrow.int64() for c in ints}, strings_can_be_null=True))
    pp.write_table(t, pq + ".tmp", row_group_size=1 << 20)
    os.replace(pq + ".tmp", pq)


def run(cmd):
    """The process, its wall time, peak resident bytes, CPU seconds and phase times (the
    `INTRUDER_FS_TIMING` lines: `label: phase: seconds s`)."""
    t = time.time()
    env = dict(os.environ, INTRUDER_FS_TIMING="1")
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    wall = time.time() - t
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr))
    phases = {}
    for label, what, secs in re.findall(r"^([\w -]+?): ([^:\n]+): ([\d.]+) s$", p.stderr, re.M):
        key = f"{label}: {what}"
        phases[key] = round(phases.get(key, 0.0) + float(secs), 3)
    return p, wall, int(rss.group(1)) * 1024 if rss else None, round(cpu, 2), phases


def find(v, key):
    """The first value of `key` anywhere in the JSON value `v`, or None."""
    if isinstance(v, dict):
        if key in v:
            return v[key]
        v = list(v.values())
    if isinstance(v, list):
        for x in v:
            got = find(x, key)
            if got is not None:
                return got
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--engines", default="local,datafusion")
    ap.add_argument("--memory-limit", default="4GiB")
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--work", required=True)
    ap.add_argument("--format", default="parquet", choices=["csv", "parquet"])
    ap.add_argument("--assignment", default="greedy")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spec", default=SPEC,
                    help="the linkage specification (default: the 1M benchmark's, "
                         "benches/linkage/linkage_1m.toml)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--scratch-dir", default="", help="for ballista:// engines")
    ap.add_argument("--executor-pids", default="",
                    help="comma-separated pids of local executors (their CPU is recorded)")
    ap.add_argument("--shuffle-dirs", default="",
                    help="comma-separated work directories of local executors (bytes written)")
    ap.add_argument("--pairs-floor", type=float, default=None,
                    help="also write the scored pairs at or above this match probability "
                         "(--pairs-out) and compare each engine's file with the first's")
    a = ap.parse_args()
    pids = [int(x) for x in a.executor_pids.split(",") if x]
    dirs = [x for x in a.shuffle_dirs.split(",") if x]
    intruder = os.path.join(a.bin_dir, "intruder")
    data = os.path.join(a.work, "data")
    if not os.path.exists(os.path.join(data, "file-b.csv")):
        subprocess.run([intruder, "synth", "linkage-pair", "--out", data, "--seed", str(a.seed),
                        "--set", f"n={a.rows}", "--set", f"n_b={a.rows}", "--set", "overlap=0.5"],
                       check=True, stdout=subprocess.DEVNULL)
    files = {}
    for side in "ab":
        csv = os.path.join(data, f"file-{side}.csv")
        schema = os.path.join(data, f"file-{side}.schema.toml")
        if a.format == "parquet":
            pq = os.path.join(data, f"file-{side}.parquet")
            if not os.path.exists(pq):
                to_parquet(csv, schema, pq)
            files[side] = (pq, None)
        else:
            files[side] = (csv, schema)
    reference = None
    reference_pairs = None
    for engine in a.engines.split(","):
        out = os.path.join(a.work, re.sub(r"[^\w.-]+", "_", engine) + ".json")
        cmd = [intruder, "attack", "--method", "fellegi-sunter",
               "--intruder", files["a"][0], "--released", files["b"][0],
               "--linkage-spec", a.spec, "--truth", "person_id", "--threshold", "0.5",
               "--assignment", a.assignment, "--seed", str(a.seed), "--format", "json",
               "--out", out]
        pairs = out[: -len(".json")] + ".pairs.csv"
        if a.pairs_floor is not None:
            cmd += ["--pairs-out", pairs, "--pairs-floor", str(a.pairs_floor)]
        for side, flag in (("a", "--intruder-schema"), ("b", "--released-schema")):
            if files[side][1]:
                cmd += [flag, files[side][1]]
        if engine != "local":
            cmd += ["--engine", engine]
            if engine == "datafusion" and a.memory_limit:
                cmd += ["--memory-limit", a.memory_limit]
            if engine.startswith("ballista://") and a.scratch_dir:
                cmd += ["--scratch-dir", a.scratch_dir]
        on_cluster = engine.startswith("ballista://")
        cpu0 = process_cpu(pids) if on_cluster and pids else None
        bytes0 = tree_bytes(dirs) if on_cluster and dirs else None
        p, wall, rss, cpu, phases = run(cmd)
        line = {"rows": a.rows, "engine": engine, "format": a.format,
                "spec": os.path.basename(a.spec),
                "memory_limit": a.memory_limit if engine == "datafusion" else None,
                "assignment": a.assignment, "wall_s": round(wall, 3), "peak_rss_bytes": rss,
                "cpu_s": cpu, "phases_s": phases,
                "exit": p.returncode, "date": time.strftime("%Y-%m-%dT%H:%M:%S")}
        if cpu0 is not None:
            line["executors"] = len(pids)
            line["executor_cpu_s"] = round(process_cpu(pids) - cpu0, 2)
        if bytes0 is not None:
            line["shuffle_bytes"] = tree_bytes(dirs) - bytes0
        if p.returncode != 0:
            line["error"] = p.stderr.strip().splitlines()[-25:]
        else:
            got = json.load(open(out))
            for k in ("declared", "correct_matches", "precision", "recall", "f1"):
                line[k] = got.get(k)
            for k in ("candidate_pairs", "pairs_per_rule", "patterns"):
                line[k] = find(got, k)
            if a.pairs_floor is not None:
                line["pairs_floor"] = a.pairs_floor
                with open(pairs, "rb") as f:
                    body = f.read()
                line["pairs_written"] = body.count(b"\n") - 1
                if reference_pairs is None:
                    reference_pairs = body
                line["same_pairs_as_first"] = body == reference_pairs
            if reference is None:
                reference = got
                line["same_as_first"] = True
            else:
                d = close(reference, got)
                line["same_as_first"] = not d
                if d:
                    line["differences"] = d[:20]
        print(json.dumps(line), flush=True)
        with open(a.out, "a") as f:
            f.write(json.dumps(line) + "\n")
        if p.returncode != 0 or not line.get("same_as_first", False) \
                or line.get("same_pairs_as_first") is False:
            sys.exit(1)


if __name__ == "__main__":
    main()
