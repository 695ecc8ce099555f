#!/usr/bin/env python3
"""The engines' cost model (issue 37, docs/cluster.md "Cost model"): fitted to measured runs,
used to predict runs this machine cannot make.

Reads the JSON lines of `run.py` / `scaling.sh` (risk) and `linkage.py` (Fellegi-Sunter), fits

  risk, per engine and missing-value policy:
    cpu_s       = a + b * records                (CPU seconds of the whole run)
    wall_s      = a + b * records
    peak_rss    = a + b * records                (runs without a memory limit: what the
                                                  counting holds; with one, it is capped)
    shuffle     = a + b * records                (Ballista: bytes the executors wrote)
  Fellegi-Sunter, per engine:
    cpu_s       = a + b * (n_A + n_B) + c * candidate_pairs
    wall_s      = a + b * (n_A + n_B) + c * candidate_pairs

by least squares, prints each fit with its largest relative residual, and predicts the two
scenarios of the issue on the cluster described by the options (every figure an
extrapolation from this machine's cores; the assumptions are printed with it):

  * a 300,000,000-record census counted on 10 keys (`intruder risk`, listwise): executor CPU
    from the fit, divided over the cluster's cores with the parallel efficiency measured on
    the local Ballista cluster (1 -> 2 executors); shuffle bytes from the fit, over the
    network; memory per executor from the classes it holds;
  * 60,000,000 x 60,000,000 register linkage with `pairs_per_record` candidate pairs per
    intruder record: CPU from the fit; the bytes the plan moves per rule (both files
    repartitioned on the rule's columns) and the scored pairs sent to the driver.

    python3 benches/engine/cost_model.py --risk benches/engine/cost_risk_*.jsonl \
        --linkage benches/engine/cost_linkage_*.jsonl --out benches/engine/cost_model.json
"""

import argparse
import json
import os
import statistics


def lstsq(xs, ys):
    """Least-squares coefficients of ys ~ xs (each x a tuple of regressors, a constant
    column added first), each point weighted by 1/y (relative errors: the small runs count as
    much as the large), by the normal equations (a handful of points and regressors)."""
    raw = [(1.0,) + tuple(float(v) for v in x) for x in xs]
    k = len(raw[0])
    w = [1.0 / max(abs(float(y)), 1e-300) for y in ys]
    rows = [tuple(v * wi for v in r) for r, wi in zip(raw, w)]
    ys_w = [float(y) * wi for y, wi in zip(ys, w)]
    if len(rows) < k:
        raise SystemExit(f"cost_model: {len(rows)} measured sizes cannot fit {k} coefficients")
    a = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
    b = [sum(r[i] * y for r, y in zip(rows, ys_w)) for i in range(k)]
    # Gaussian elimination with partial pivoting.
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p], b[c], b[p] = a[p], a[c], b[p], b[c]
        if abs(a[c][c]) < 1e-300:
            raise SystemExit("cost_model: the measured sizes do not separate the coefficients")
        for r in range(c + 1, k):
            f = a[r][c] / a[c][c]
            for j in range(c, k):
                a[r][j] -= f * a[c][j]
            b[r] -= f * b[c]
    coef = [0.0] * k
    for c in reversed(range(k)):
        coef[c] = (b[c] - sum(a[c][j] * coef[j] for j in range(c + 1, k))) / a[c][c]
    fitted = [sum(cf * v for cf, v in zip(coef, r)) for r in raw]
    worst = max(abs(f - y) / max(abs(y), 1e-300) for f, y in zip(fitted, ys))
    return coef, worst


def read(paths):
    out = []
    for p in paths:
        with open(p) as f:
            out += [json.loads(line) for line in f if line.strip()]
    return out


def by_size(runs, key, value):
    """Median of `value(run)` per `key(run)` (repeated runs of one size count once)."""
    groups = {}
    for r in runs:
        v = value(r)
        if v is not None:
            groups.setdefault(key(r), []).append(v)
    return sorted((k, statistics.median(v)) for k, v in groups.items())


def fit(name, points, unit):
    """A fit of `points` [(x tuple, y)], as a dict, with its printed line."""
    coef, worst = lstsq([x for x, _ in points], [y for _, y in points])
    print(f"  {name}: " + " + ".join(f"{c:.4g}" for c in coef)
          + f"  ({unit}; {len(points)} sizes, worst relative residual {worst:.1%})")
    return {"coefficients": coef, "sizes": len(points), "worst_relative_residual": worst}


def risk_fits(runs):
    fits = {}
    engines = sorted({(r["engine"].split(":")[0], r["missing"], r.get("label", "")) for r in runs})
    for engine, missing, label in engines:
        sel = [r for r in runs if r.get("ok") and r["engine"].split(":")[0] == engine
               and r["missing"] == missing and r.get("label", "") == label]
        limited = {bool(r.get("memory_limit")) for r in sel}
        for lim in sorted(limited):
            s = [r for r in sel if bool(r.get("memory_limit")) == lim]
            if len({r["rows"] for r in s}) < 2:
                continue
            name = f"risk {engine} {missing}" + (f" {label}" if label else "") + \
                (" (memory limit)" if lim else "")
            print(name)
            f = {}
            for what, val, unit in (
                ("cpu_s", lambda r: r.get("executor_cpu_s", r["cpu_s"]) if engine == "ballista"
                 else r["cpu_s"], "s"),
                ("wall_s", lambda r: r["wall_s"], "s"),
                ("peak_rss_gib", lambda r: None if engine == "ballista" else r["peak_rss_gib"],
                 "GiB"),
                ("shuffle_bytes", lambda r: r.get("shuffle_bytes"), "bytes"),
            ):
                pts = [((n,), y) for n, y in by_size(s, lambda r: r["rows"], val)]
                if len(pts) >= 2:
                    f[what] = fit(f"{what} = a + b * records", pts, unit)
            fits[name] = f
    return fits


def linkage_fits(runs):
    fits = {}
    for engine in sorted({r["engine"] for r in runs}):
        s = [r for r in runs if r["engine"] == engine and r.get("exit") == 0
             and r.get("candidate_pairs") is not None]
        if len({r["rows"] for r in s}) < 3:
            continue
        print(f"fellegi-sunter {engine}")
        f = {}
        for what, val in (("cpu_s", lambda r: r["cpu_s"]), ("wall_s", lambda r: r["wall_s"])):
            pts = [((2 * n, p), y) for (n, p), y in
                   by_size(s, lambda r: (r["rows"], r["candidate_pairs"]), val)]
            f[what] = fit(f"{what} = a + b * (n_A + n_B) + c * pairs", pts, "s")
        fits[f"fellegi-sunter {engine}"] = f
    return fits


def predict(a, risk, linkage):
    cores = a.executors * a.cores
    out = {"cluster": {"executors": a.executors, "cores_per_executor": a.cores,
                       "memory_per_executor_gib": a.executor_memory_gib,
                       "network_gbit_per_executor": a.network_gbit}}
    net = a.network_gbit * 1e9 / 8
    print(f"\nPredictions on {a.executors} executors x {a.cores} cores "
          f"({a.executor_memory_gib} GiB, {a.network_gbit} Gbit/s each), this machine's core speed:")
    eff = a.efficiency
    census = {}
    # The executors' CPU and shuffle of the largest measured cluster (two executors here).
    key = next((k for k in sorted(risk, reverse=True)
                if k.startswith("risk ballista listwise") and "shuffle_bytes" in risk[k]), None)
    local = next((k for k in risk if k.startswith("risk datafusion listwise")
                  and not k.endswith("(memory limit)")), None)
    if key:
        n = a.census_records
        cpu = sum(c * x for c, x in zip(risk[key]["cpu_s"]["coefficients"], (1, n)))
        shuffle = sum(c * x for c, x in zip(risk[key]["shuffle_bytes"]["coefficients"], (1, n))) \
            if "shuffle_bytes" in risk[key] else None
        compute = cpu / (cores * eff)
        move = shuffle / (a.executors * net) if shuffle else 0.0
        census = {"records": n, "executor_cpu_s": cpu, "shuffle_bytes": shuffle,
                  "compute_s": compute, "network_s": move, "wall_s": compute + move,
                  "efficiency": eff, "fit": key}
        if local and "peak_rss_gib" in risk[local]:
            rss = sum(c * x for c, x in zip(risk[local]["peak_rss_gib"]["coefficients"], (1, n)))
            census["memory_gib_unspilled"] = rss
            census["memory_gib_per_executor"] = rss / a.executors
        print(f"  census {n:,} records (listwise, 10 keys): executor CPU {cpu / 3600:.2f} h, "
              f"{compute:.0f} s of compute at efficiency {eff:.2f}"
              + (f", {shuffle / 1e9:.1f} GB shuffled ({move:.0f} s on the network)" if shuffle else "")
              + f" -> about {census['wall_s']:.0f} s"
              + (f"; counting state {census['memory_gib_unspilled']:.1f} GiB in all, "
                 f"{census['memory_gib_per_executor']:.1f} GiB per executor" if "memory_gib_unspilled" in census else ""))
    out["census"] = census
    link = {}
    key = next((k for k in linkage if k.endswith("datafusion")), None)
    if key:
        n = a.register_records
        for rho in a.pairs_per_record:
            pairs = n * rho
            cpu = sum(c * x for c, x in zip(linkage[key]["cpu_s"]["coefficients"], (1, 2 * n, pairs)))
            # Each rule's join repartitions both files on the rule's columns: the dictionary
            # codes of the compared and blocking columns (`row_bytes` each).
            moved = a.rules * 2 * n * a.row_bytes
            # The weighing pass sends every scored pair above the threshold (at most all
            # candidates: intruder row, released row, weight) to the driver's assignment.
            to_driver = pairs * 24
            one_machine = cpu / (a.machine_cores * eff)
            cluster = cpu / (cores * eff) + moved / (a.executors * net) + to_driver / net
            link[str(rho)] = {"records": n, "pairs_per_record": rho, "candidate_pairs": pairs,
                              "cpu_s": cpu, "bytes_repartitioned": moved,
                              "bytes_to_driver": to_driver,
                              "one_machine_wall_s": one_machine,
                              "one_machine_cores": a.machine_cores,
                              "cluster_wall_s": cluster, "fit": key}
            print(f"  linkage {n:,} x {n:,}, {rho} pairs per record ({pairs:.3g} pairs): "
                  f"CPU {cpu / 3600:.1f} h; `--engine datafusion` on one {a.machine_cores}-core "
                  f"machine about {one_machine / 60:.0f} min; on the cluster (were it to run "
                  f"there) about {cluster / 60:.0f} min, {moved / 1e9:.0f} GB repartitioned, "
                  f"{to_driver / 1e9:.0f} GB of scored pairs to the driver")
    out["linkage"] = link
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--risk", nargs="*", default=[])
    ap.add_argument("--linkage", nargs="*", default=[])
    ap.add_argument("--executors", type=int, default=16)
    ap.add_argument("--cores", type=int, default=8, help="cores per executor")
    ap.add_argument("--executor-memory-gib", type=float, default=64)
    ap.add_argument("--network-gbit", type=float, default=10)
    ap.add_argument("--efficiency", type=float, default=None,
                    help="parallel efficiency (default: measured, 1 -> 2 local executors)")
    ap.add_argument("--machine-cores", type=int, default=64,
                    help="cores of the one machine `--engine datafusion` would run on")
    ap.add_argument("--census-records", type=int, default=300_000_000)
    ap.add_argument("--register-records", type=int, default=60_000_000)
    ap.add_argument("--pairs-per-record", type=float, nargs="*", default=[10, 64])
    ap.add_argument("--rules", type=int, default=3)
    ap.add_argument("--row-bytes", type=int, default=36,
                    help="bytes per record a rule's join moves (9 columns of 4-byte codes)")
    ap.add_argument("--out")
    a = ap.parse_args()
    runs = read(a.risk)
    risk = risk_fits(runs)
    linkage = linkage_fits(read(a.linkage))
    if a.efficiency is None:
        walls = {}
        for r in runs:
            if r.get("ok") and r["engine"].startswith("ballista") and r["missing"] == "listwise":
                walls.setdefault(r["rows"], {})[r.get("label")] = r["wall_s"]
        effs = [w["executors=1"] / (2 * w["executors=2"]) for w in walls.values()
                if "executors=1" in w and "executors=2" in w]
        a.efficiency = statistics.median(effs) if effs else 0.5
        print(f"parallel efficiency 1 -> 2 executors: {a.efficiency:.2f} "
              f"(median over {len(effs)} sizes)")
    out = {"risk": risk, "linkage": linkage, "predictions": predict(a, risk, linkage)}
    if a.out:
        with open(a.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
