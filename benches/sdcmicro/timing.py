#!/usr/bin/env python3
"""Side-by-side timing of intruder and sdcMicro (issue 14's target and SUDA2), in one run.

Usage:
  python3 benches/sdcmicro/timing.py [--rows 1000000] [--repeat 3] [--r-repeat 2]
                                     [--suda2 100000,1000000] [--suda2-cap 600]
                                     [--intruder BIN] [--out benches/sdcmicro/results/timing.json]

The file: benches/frequency/compare.py's design (N rows × 10 skewed categorical keys k0…k9 with
2, 3, 5, 8, 12, 20, 30, 50, 80, 120 categories, probabilities ∝ 1/rank, seed 20261126) with no
missing key, plus a sampling weight w (uniform on [50, 150], two decimals) — built once in
benches/data/sdc_N.csv. Then:
  1. sdcMicro (Rscript timing.R risk): fread (timed apart), then measure_risk(keyVars, w) and
     freqCalc(keyVars, w) on the data.frame, each --r-repeat times, system.time() user+system
     and elapsed;
  2. the whole `intruder risk --measure individual --weight w` process under /usr/bin/time -v
     (reading the CSV included), --repeat times: wall, user, system, peak RSS;
  3. SUDA2 on the first 100,000 and all 1,000,000 records (--suda2): sdcMicro's suda2 (capped
     at --suda2-cap seconds, then reported as not finished) and `intruder risk --measure suda2`
     (whole process); scores compared record by record when both finish.
The load average (uptime) is recorded before and after every step. Needs numpy, R with
sdcMicro, and a release build of intruder (INTRUDER_BIN or --intruder).
"""
import argparse, csv, json, os, platform, re, subprocess, sys, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CARD = [2, 3, 5, 8, 12, 20, 30, 50, 80, 120]
KEYS = [f"k{i}" for i in range(10)]


def build(path, rows, seed=20261126):
    rng = np.random.default_rng(seed)
    cols = []
    for c in CARD:
        p = 1.0 / np.arange(1, c + 1)
        p /= p.sum()
        cols.append(rng.choice(c, size=rows, p=p).astype(np.int64).astype(str).astype(object))
    w = rng.integers(5000, 15001, size=rows)  # hundredths: 50.00 … 150.00
    cols.append(np.array([f"{x // 100}.{x % 100:02d}" for x in w], dtype=object))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(",".join(KEYS + ["w"]) + "\n")
        step = 1_000_000
        for a in range(0, rows, step):
            block = np.column_stack([c[a:a + step] for c in cols])
            f.write("\n".join(",".join(r) for r in block) + "\n")
    os.replace(tmp, path)


def head(src, dst, rows):
    with open(src) as f, open(dst + ".tmp", "w") as g:
        for i, line in enumerate(f):
            if i > rows:
                break
            g.write(line)
    os.replace(dst + ".tmp", dst)


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def loadavg():
    return list(os.getloadavg())


def timev(cmd, timeout=None):
    """Run cmd under /usr/bin/time -v: wall, user, system, peak RSS, stdout."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")

    def field(name):
        m = re.search(rf"{re.escape(name)}: (.+)", p.stderr)
        return m.group(1).strip() if m else None

    return {"wall_s": wall, "user_s": float(field("User time (seconds)")),
            "system_s": float(field("System time (seconds)")),
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "peak_rss_bytes": int(field("Maximum resident set size (kbytes)")) * 1024,
            "cpu_percent": field("Percent of CPU this job got"), "stdout": p.stdout}


def rscript(args, timeout=None):
    t = time.perf_counter()
    p = subprocess.run(["Rscript", os.path.join(HERE, "timing.R")] + args, capture_output=True,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"Rscript timing.R {' '.join(args)} failed:\n{p.stderr[-2000:]}")
    sys.stderr.write(p.stderr)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--r-repeat", type=int, default=2)
    ap.add_argument("--suda2", default="100000,1000000", help="record counts for SUDA2 ('' skips)")
    ap.add_argument("--suda2-cap", type=float, default=600.0)
    ap.add_argument("--intruder", default=os.environ.get(
        "INTRUDER_BIN", os.path.join(ROOT, "target", "release", "intruder")))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "timing.json"))
    a = ap.parse_args()
    data_dir = os.path.join(ROOT, "benches", "data")
    os.makedirs(data_dir, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    path = os.path.join(data_dir, f"sdc_{a.rows}.csv")
    if not os.path.exists(path):
        t = time.perf_counter()
        build(path, a.rows)
        print(f"built {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    version = subprocess.run([a.intruder, "--version"], capture_output=True, text=True).stdout.strip()
    res = {"rows": a.rows, "keys": KEYS, "file": os.path.relpath(path, ROOT), "intruder": version,
           "machine": f"{platform.machine()}, {os.cpu_count()} cores",
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "steps": []}

    def step(name, f):
        before, la_b = uptime(), loadavg()
        out = f()
        out.update(step=name, uptime_before=before, uptime_after=uptime(),
                   load_before=la_b, load_after=loadavg())
        res["steps"].append(out)
        print(f"{name}: done; load {la_b[0]:.2f} → {loadavg()[0]:.2f}", file=sys.stderr)
        return out

    # 1. sdcMicro measure_risk and freqCalc.
    rjson = a.out.replace(".json", "_sdcmicro_risk.json")

    def r_risk():
        total = rscript(["risk", path, ",".join(KEYS), "w", str(a.r_repeat), rjson])
        with open(rjson) as f:
            r = json.load(f)
        r["rscript_total_s"] = total
        return r

    r = step("sdcMicro measure_risk + freqCalc", r_risk)

    # 2. the whole intruder process.
    def ours():
        runs = []
        for _ in range(a.repeat):
            x = timev([a.intruder, "risk", "--data", path, "--keys", ",".join(KEYS),
                       "--measure", "individual", "--weight", "w", "--format", "json",
                       "--set", "global_risk_denominator=all"])
            x["report"] = json.loads(x.pop("stdout"))
            runs.append(x)
        return {"runs": runs, "command": f"intruder risk --data {os.path.relpath(path, ROOT)} "
                f"--keys {','.join(KEYS)} --measure individual --weight w --format json "
                f"--set global_risk_denominator=all"}

    o = step("intruder risk --measure individual", ours)
    rep = o["runs"][-1]["report"]
    o["agree"] = {
        "global_risk_ER": [r["global_risk_ER"], rep.get("expected_reidentifications")],
        "global_risk": [r["global_risk"], rep.get("global_risk")],
        "global_threshold": [r.get("global_threshold"), rep.get("global_threshold")],
    }

    # 3. SUDA2.
    for n in [int(x) for x in a.suda2.split(",") if x]:
        spath = path if n == a.rows else os.path.join(data_dir, f"sdc_{a.rows}_head{n}.csv")
        if n != a.rows and not os.path.exists(spath):
            head(path, spath, n)
        sj = a.out.replace(".json", f"_sdcmicro_suda2_{n}.json")
        sper = a.out.replace(".json", f"_sdcmicro_suda2_{n}.csv")

        def r_suda():
            try:
                total = rscript(["suda2", spath, ",".join(KEYS), "-", "1", sj, sper],
                                timeout=a.suda2_cap)
            except subprocess.TimeoutExpired:
                return {"finished": False, "cap_s": a.suda2_cap,
                        "note": f"sdcMicro's suda2 did not finish within {a.suda2_cap:.0f} s (killed)"}
            with open(sj) as f:
                x = json.load(f)
            x.update(finished=True, rscript_total_s=total)
            return x

        rs = step(f"sdcMicro suda2 {n}", r_suda)
        oper = a.out.replace(".json", f"_intruder_suda2_{n}.csv")

        def o_suda():
            x = timev([a.intruder, "risk", "--data", spath, "--keys", ",".join(KEYS),
                       "--measure", "suda2", "--format", "json", "--per-record", oper])
            x["report"] = json.loads(x.pop("stdout"))
            # The per-level contributions are hundreds of entries: kept in the per-record run only.
            x["report"].pop("level_contributions", None)
            return x

        os_ = step(f"intruder suda2 {n}", o_suda)
        if rs.get("finished"):
            with open(sper) as f, open(oper) as g:
                t, u = list(csv.DictReader(f)), list(csv.DictReader(g))
            ds = max(abs(float(x["score"]) - float(y["score"])) for x, y in zip(t, u))
            dd = max(abs(float(x["dis_score"]) - float(y["dis_score"])) for x, y in zip(t, u))
            os_["agree"] = {"max_abs_score_diff": ds, "max_abs_dis_score_diff": dd,
                            "records": len(t)}
        os.remove(oper) if os.path.exists(oper) else None
        os.remove(sper) if os.path.exists(sper) else None

    with open(a.out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
    os.replace(a.out + ".tmp", a.out)

    # Table.
    mr = r["measure_risk"]
    best_mr = min(mr, key=lambda x: x["elapsed_s"])
    fc = min(r["freqCalc"], key=lambda x: x["elapsed_s"])
    best_o = min(o["runs"], key=lambda x: x["wall_s"])
    print(f"\n{a.rows:,} records × 10 keys + weight; data.table threads {r['data_table_threads']}")
    print("| step | wall | CPU (user+sys) | load before → after |\n|---|---|---|---|")
    print(f"| R fread | {r['fread']['elapsed_s']:.2f} s | {r['fread']['cpu_s']:.2f} s | |")
    print(f"| sdcMicro measure_risk (compute only), best of {len(mr)} | {best_mr['elapsed_s']:.2f} s "
          f"(runs: {', '.join('%.2f' % x['elapsed_s'] for x in mr)}) | {best_mr['cpu_s']:.2f} s | "
          f"{r['load_before'][0]:.2f} → {r['load_after'][0]:.2f} |")
    print(f"| sdcMicro freqCalc (compute only), best of {len(r['freqCalc'])} | {fc['elapsed_s']:.2f} s | "
          f"{fc['cpu_s']:.2f} s | |")
    print(f"| whole `intruder risk --measure individual --weight w`, best of {len(o['runs'])} | "
          f"{best_o['wall_s']:.2f} s (runs: {', '.join('%.2f' % x['wall_s'] for x in o['runs'])}) | "
          f"{best_o['cpu_s']:.2f} s | {o['load_before'][0]:.2f} → {o['load_after'][0]:.2f} |")
    print(f"ratio intruder whole process / measure_risk compute: wall "
          f"{best_o['wall_s'] / best_mr['elapsed_s']:.3f}, CPU {best_o['cpu_s'] / best_mr['cpu_s']:.3f}")
    print(f"agreement: {o['agree']}")
    for s in res["steps"]:
        if "suda2" in s["step"]:
            if "wall_s" in s:
                print(f"{s['step']}: {s['wall_s']:.2f} s wall, {s['cpu_s']:.2f} s CPU, load "
                      f"{s['load_before'][0]:.2f} → {s['load_after'][0]:.2f} {s.get('agree', '')}")
            elif s.get("finished"):
                print(f"{s['step']}: {s['suda2']['elapsed_s']:.1f} s wall, {s['suda2']['cpu_s']:.1f} s CPU, "
                      f"load {s['load_before'][0]:.2f} → {s['load_after'][0]:.2f}")
            else:
                print(f"{s['step']}: {s.get('note')}")


if __name__ == "__main__":
    main()
