#!/usr/bin/env python3
"""Benchmarks of intruder-attack against scikit-learn, side by side on the same data.

Usage (from the repository root):
    cargo build --release -p intruder-eval --example attack_bench
    python3 benches/attack/run.py [--quick] [--dir /tmp/attack-bench]

Writes the data with a fixed seed (numpy PCG64, seed 20261126), then times:
  1. nearest-neighbour linkage, 10,000 intruder x 1,000,000 released x 14 keys:
     intruder-attack `nearest` (exact, all ties at the best) vs scikit-learn NearestNeighbors
     (algorithm="brute" and "kd_tree", k=5); checks that the smallest distances agree;
  2. exact key matching on WAS-sized files (20,000 x 20,000; 5 keys of 53, 3, 10, 7, 10 levels);
  3. k-means re-identification on Bender-sized files (273 intruder, 19,082 released, 14 keys)
     vs scikit-learn KMeans with the same precomputed centres (one iteration) + predict.
Values are multiples of 1/1024 so that the CSV text is exact in both readers.
Requires numpy and scikit-learn (pip install scikit-learn).
"""
import argparse, json, os, subprocess, sys, time

import numpy as np

SEED = 20261126
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "target", "release", "examples", "attack_bench")


def write_csv(path, ids, X, names):
    with open(path, "w") as f:
        f.write("pid," + ",".join(names) + "\n")
        body = np.column_stack([ids.astype(np.float64), X])
        np.savetxt(f, body, fmt=["%d"] + ["%.10f"] * X.shape[1], delimiter=",")


def rust(method, ipath, rpath, names, best=None):
    cmd = [BIN, method, ipath, rpath, ",".join(names), "pid"] + ([best] if best else [])
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    res = json.loads(out.strip().splitlines()[-1])
    res["wall_s"] = round(wall, 3)
    return res


def bench_nn(d, n_i, n_r, dim):
    rng = np.random.default_rng(SEED)
    R = rng.integers(0, 1 << 14, size=(n_r, dim)) / 1024.0
    twins = rng.choice(n_r, size=n_i, replace=False)
    I = R[twins] + rng.integers(-64, 65, size=(n_i, dim)) / 1024.0
    names = [f"k{j}" for j in range(dim)]
    ip, rp = os.path.join(d, "nn_i.csv"), os.path.join(d, "nn_r.csv")
    write_csv(ip, twins, I, names)
    write_csv(rp, np.arange(n_r), R, names)
    print(f"## nearest: {n_i} x {n_r} x {dim}", flush=True)
    best = os.path.join(d, "nn_best.csv")
    r = rust("nearest", ip, rp, names, best)
    print("intruder-attack nearest:", json.dumps(r), flush=True)
    from sklearn.neighbors import NearestNeighbors
    out = {"intruder": r}
    ours = np.loadtxt(best, skiprows=1)
    for algo in ["brute", "kd_tree"]:
        t = time.perf_counter()
        nn = NearestNeighbors(n_neighbors=5, algorithm=algo).fit(R)
        fit = time.perf_counter() - t
        t = time.perf_counter()
        dist, idx = nn.kneighbors(I)
        q = time.perf_counter() - t
        agree = float(np.mean(np.isclose(dist[:, 0], ours, rtol=1e-9, atol=1e-9)))
        rate = float(np.mean(idx[:, 0] == twins))
        print(f"sklearn {algo}: fit {fit:.3f}s query {q:.3f}s total {fit + q:.3f}s; "
              f"best distance agrees with intruder on {agree:.4%}; first-neighbour rate {rate:.4f}", flush=True)
        out[algo] = {"fit_s": fit, "query_s": q, "agree": agree, "rate": rate}
    return out


def bench_exact(d, n):
    rng = np.random.default_rng(SEED + 1)
    levels = [53, 3, 10, 7, 10]
    names = ["area", "accom", "beds", "children", "hhtype"]
    R = np.column_stack([rng.integers(0, L, size=n) for L in levels]).astype(np.float64)
    twins = rng.choice(n, size=n, replace=False)
    I = R[twins]
    ip, rp = os.path.join(d, "ex_i.csv"), os.path.join(d, "ex_r.csv")
    write_csv(ip, twins, I, names)
    write_csv(rp, np.arange(n), R, names)
    print(f"## exact: {n} x {n} x {len(levels)}", flush=True)
    r = rust("exact", ip, rp, names)
    print("intruder-attack exact:", json.dumps(r), flush=True)
    return r


def bench_kmeans(d, n_i, n_r, dim):
    rng = np.random.default_rng(SEED + 2)
    R = rng.integers(0, 64, size=(n_r, dim)) / 4.0
    twins = rng.choice(n_r, size=n_i, replace=False)
    I = R[twins] + rng.integers(-2, 3, size=(n_i, dim)) / 4.0
    names = [f"k{j}" for j in range(dim)]
    ip, rp = os.path.join(d, "km_i.csv"), os.path.join(d, "km_r.csv")
    write_csv(ip, twins, I, names)
    write_csv(rp, np.arange(n_r), R, names)
    print(f"## kmeans: {n_i} x {n_r} x {dim}", flush=True)
    r = rust("kmeans", ip, rp, names)
    print("intruder-attack kmeans:", json.dumps(r), flush=True)
    from sklearn.cluster import KMeans
    C = np.unique(I, axis=0)
    t = time.perf_counter()
    km = KMeans(n_clusters=len(C), init=C, n_init=1, max_iter=1).fit(C)
    lab = km.predict(R)
    s = time.perf_counter() - t
    print(f"sklearn KMeans(init=centres, max_iter=1) fit+predict: {s:.3f}s", flush=True)
    return {"intruder": r, "sklearn_s": s}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/attack-bench")
    ap.add_argument("--quick", action="store_true", help="100,000 released records instead of 1,000,000")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    if not os.path.exists(BIN):
        sys.exit(f"build first: cargo build --release -p intruder-eval --example attack_bench ({BIN} missing)")
    print("load average before:", os.getloadavg(), "cpus:", os.cpu_count(), flush=True)
    res = {
        "nearest": bench_nn(a.dir, 10_000, 100_000 if a.quick else 1_000_000, 14),
        "exact": bench_exact(a.dir, 20_000),
        "kmeans": bench_kmeans(a.dir, 273, 19_082, 14),
    }
    print("load average after:", os.getloadavg(), flush=True)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
