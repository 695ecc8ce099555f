#!/usr/bin/env python3
"""`intruder risk` on the local engine and on DataFusion (issue 37's targets), side by side.

Writes the frequency benchmark's file as Parquet at the size asked (`intruder-bench-data`: 10
skewed integer keys, 10 % missing in the last three, BENCHMARKS.md §1's distribution), then runs
each (engine, missing-value policy) once in turn with `/usr/bin/time` (wall time, peak resident
memory), checks that every engine gives the local engine's figures (exact counts; sums of
weights to 1e-12 relative) and appends one JSON line per run to OUT.

    python3 benches/engine/run.py --rows 10000000 --out benches/engine/risk_10m.jsonl
    python3 benches/engine/run.py --rows 100000000 --engines datafusion,local \
        --memory-limit 4GiB --out benches/engine/risk_100m.jsonl

The binaries come from `cargo build --release -p intruder-cli --features parquet,cluster -p
intruder-engine --bins` (`--bin-dir`, default target/release). Exit status 1 when an engine's
figures differ from the local engine's.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile


def strip(v):
    """The JSON output without what may differ between engines (timings, the engine's name)."""
    if isinstance(v, dict):
        return {
            k: strip(x)
            for k, x in v.items()
            if "timing" not in k and k not in ("seconds", "engine")
        }
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def same(a, b, path="$"):
    """Where `a` and `b` differ (numbers to 1e-12 relative), or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a)} against {sorted(b)}"
        for k in a:
            d = same(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)):
        return None if a == b else f"{path}: {a!r} against {b!r}"
    if not isinstance(b, (int, float)):
        return f"{path}: {a!r} against {b!r}"
    if isinstance(a, int) and isinstance(b, int):
        return None if a == b else f"{path}: {a} against {b}"
    scale = max(abs(a), abs(b), 1e-300)
    return None if abs(a - b) <= 1e-12 * scale else f"{path}: {a!r} against {b!r}"


def tree_bytes(dirs):
    """Bytes of the files under `dirs` (Ballista keeps a job's shuffle files for five minutes
    after it ends, so the difference around a run is what the run wrote)."""
    total = 0
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                try:
                    total += os.path.getsize(os.path.join(root, f))
                except OSError:
                    pass
    return total


def process_cpu(pids):
    """CPU seconds (user + system) the processes `pids` have spent so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--engines", default="local,datafusion")
    ap.add_argument("--missing", default="listwise")
    ap.add_argument("--measure", default="frequency")
    ap.add_argument("--memory-limit", default="4GiB")
    ap.add_argument("--data-dir", default=tempfile.gettempdir())
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--out", required=True)
    ap.add_argument("--label", default="", help="a note stored with each line (scaling.sh: executors=N)")
    ap.add_argument("--shuffle-dirs", default="",
                    help="Ballista executors' work directories (comma-separated): each line records "
                         "the bytes the run wrote under them (shuffle files and results)")
    ap.add_argument("--executor-pids", default="",
                    help="Ballista executors' process ids (comma-separated): each line records the "
                         "CPU seconds they spent during the run")
    a = ap.parse_args()
    dirs = [d for d in a.shuffle_dirs.split(",") if d]
    pids = [int(x) for x in a.executor_pids.split(",") if x]

    data = os.path.join(a.data_dir, f"engine_bench_{a.rows}.parquet")
    if not os.path.exists(data):
        subprocess.run([os.path.join(a.bin_dir, "intruder-bench-data"), str(a.rows), data], check=True)
    keys = ",".join(f"k{i}" for i in range(1, 11))
    reference = {}
    failed = False
    for missing in a.missing.split(","):
        for engine in a.engines.split(","):
            cmd = [
                os.path.join(a.bin_dir, "intruder"), "risk", "--data", data, "--keys", keys,
                "--missing", missing, "--measure", a.measure, "--format", "json",
            ]
            if engine != "local":
                cmd += ["--engine", engine]
                if engine == "datafusion" and a.memory_limit:
                    cmd += ["--memory-limit", a.memory_limit]
            before = (tree_bytes(dirs), process_cpu(pids))
            with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
                p = subprocess.run(
                    ["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + cmd,
                    capture_output=True, text=True,
                )
                wall, rss_kib, user, sys_s = tf.read().split()[-4:]
            line = {
                "date": datetime.datetime.now().isoformat(timespec="seconds"),
                "rows": a.rows, "label": a.label, "engine": engine, "missing": missing, "measure": a.measure,
                "memory_limit": a.memory_limit if engine == "datafusion" else None,
                "ok": p.returncode == 0, "wall_s": float(wall),
                "cpu_s": round(float(user) + float(sys_s), 2),
                "peak_rss_gib": round(int(rss_kib) / 2**20, 3),
                "load_before": os.getloadavg()[0],
            }
            if dirs and engine.startswith("ballista"):
                line["shuffle_bytes"] = tree_bytes(dirs) - before[0]
            if pids and engine.startswith("ballista"):
                line["executor_cpu_s"] = round(process_cpu(pids) - before[1], 2)
            if p.returncode != 0:
                line["error"] = p.stderr.strip()[-2000:]
                failed = True
            else:
                figures = strip(json.loads(p.stdout))
                line["figures"] = figures
                if missing not in reference:
                    reference[missing] = (engine, figures)
                else:
                    d = same(reference[missing][1], figures)
                    line["same_as"] = reference[missing][0] if d is None else None
                    if d:
                        line["difference"] = d
                        failed = True
            print(json.dumps({k: v for k, v in line.items() if k != "figures"}), flush=True)
            with open(a.out, "a") as f:
                f.write(json.dumps(line) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
