#!/usr/bin/env python3
"""Times each action of the `intruder serve` page over HTTP (issue 36, "Speed").

Makes census look-alikes with `intruder synth` (100,000 and 1,000,000 records: the
population file), starts `intruder serve --port 0 --root DIR` (the release binary), and times
what the page asks for: the page, the registries, the file list, loading a file (first and
again), risk (frequency on five keys, first and again), writing the experiment (export), running
it (not a target: runs stream progress), the first records page after the run (the attack redone
once) and the next pages (from memory), and report.html. Each timed action is repeated; the
median and the first (cold) are kept. Raw figures go to benches/serve/results/<n>.json.

    cargo build --release -p intruder-cli
    python3 benches/serve/serve_bench.py            # 100,000 and 1,000,000 records
    python3 benches/serve/serve_bench.py --sizes 100000 --repeat 5
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(REPO, "target", "release", "intruder")
KEYS = ["k01", "k02", "k03", "k04", "k05"]


def call(base, token, method, path, body=None):
    """One request; returns (seconds, status, parsed JSON or text)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"X-Intruder-Token": token, "Content-Type": "application/json"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            raw, status = r.read(), r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    dt = time.perf_counter() - t
    try:
        return dt, status, json.loads(raw)
    except ValueError:
        return dt, status, raw.decode(errors="replace")


def timed(base, token, method, path, body=None, repeat=5):
    """Times an action `repeat` times: the first (cold), the median, every figure, in ms."""
    times, last = [], None
    for _ in range(repeat):
        dt, status, last = call(base, token, method, path, body)
        if status != 200:
            raise SystemExit(f"{method} {path}: {status} {str(last)[:400]}")
        times.append(dt * 1000)
    return {"first_ms": round(times[0], 1), "median_ms": round(statistics.median(times), 1),
            "all_ms": [round(x, 1) for x in times]}, last


def bench(n, root, repeat):
    rel = f"census-{n}/population.csv"
    if not os.path.exists(os.path.join(root, rel)):
        subprocess.run([BIN, "synth", "census", "--n", str(n), "--seed", "1", "--out",
                        os.path.join(root, f"census-{n}")], check=True, stdout=subprocess.DEVNULL)
    srv = subprocess.Popen([BIN, "serve", "--port", "0", "--root", root],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in srv.stdout:
            m = re.search(r"(http://[^\s/]+)/\?token=(\w+)", line)
            if m:
                url = m
                break
        base, token = url.group(1), url.group(2)
        source = {"place": "root", "path": rel}
        out = {"records": n, "file": rel, "keys": KEYS, "repeat": repeat,
               "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "load_average": os.getloadavg(), "cpus": os.cpu_count(), "actions": {}}
        a = out["actions"]
        a["page"], _ = timed(base, token, "GET", "/", repeat=repeat)
        a["registries"], _ = timed(base, token, "GET", "/api/registries", repeat=repeat)
        a["files"], _ = timed(base, token, "GET", "/api/files", repeat=repeat)
        a["load"], d = timed(base, token, "POST", "/api/load", {"source": source}, repeat=repeat)
        assert d["records"] == n, d.get("records")
        a["risk_frequency"], r = timed(base, token, "POST", "/api/risk",
                                       {"source": source, "params": {"keys": KEYS}}, repeat=repeat)
        # the page's other risk measures, each once (the first request is the one a page waits for)
        for name, params in [("risk_individual", {"measure": "individual", "keys": KEYS}),
                             ("risk_l_diversity", {"measure": "l-diversity", "keys": KEYS, "sensitive": "k06"}),
                             ("risk_suda2", {"measure": "suda2", "keys": KEYS})]:
            try:
                a[name], _ = timed(base, token, "POST", "/api/risk", {"source": source, "params": params},
                                   repeat=1)
            except SystemExit as e:
                a[name] = {"first_ms": None, "median_ms": None, "error": str(e)[:400]}
        exp = {"name": f"bench-{n}", "seed": 1, "replicates": 1,
               "data": {"released": rel, "truth": "person_id"},
               "scenario": {"keys": KEYS, "known": 0.1},
               "defence": [{"name": "none"}],
               "attack": [{"method": "exact", "name": "exact"}]}
        a["export_experiment"], w = timed(base, token, "POST", "/api/experiment",
                                          {"source": source, "experiment": exp}, repeat=repeat)
        assert w["problems"] == [], w
        t = time.perf_counter()
        _, status, j = call(base, token, "POST", "/api/run", {"source": source, "toml": w["toml"]})
        assert status == 200, j
        job = j["job"]
        polls = []
        while True:
            dt, _, st = call(base, token, "GET", f"/api/job/{job}")
            polls.append(dt * 1000)
            if st["state"] != "running":
                break
            time.sleep(0.05)
        assert st["state"] == "done", st
        out["run_not_a_target_ms"] = round((time.perf_counter() - t) * 1000, 1)
        a["job_poll"] = {"first_ms": round(polls[0], 1), "median_ms": round(statistics.median(polls), 1),
                         "max_ms": round(max(polls), 1), "polls": len(polls)}
        a["records_first_page"], _ = timed(base, token, "GET", f"/api/job/{job}/records", repeat=1)
        a["records_next_pages"], pg = timed(base, token, "GET", f"/api/job/{job}/records?offset=50&limit=50",
                                            repeat=repeat)
        out["records_counts"] = pg.get("counts")
        a["report_html"], _ = timed(base, token, "GET", f"/api/job/{job}/report.html", repeat=repeat)
        return out
    finally:
        srv.terminate()
        srv.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--root", default=None, help="where the synthetic files go (default: a temporary dir)")
    args = p.parse_args()
    root = args.root or tempfile.mkdtemp(prefix="serve-bench-")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    for n in (int(x) for x in args.sizes.split(",")):
        res = bench(n, os.path.abspath(root), args.repeat)
        with open(os.path.join(HERE, "results", f"{n}.json"), "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
        print(f"{n} records (load average {res['load_average'][0]:.2f}):")
        for k, v in res["actions"].items():
            if v["first_ms"] is None:
                print(f"  {k:22s} {v['error']}")
            else:
                print(f"  {k:22s} first {v['first_ms']:9.1f} ms   median {v['median_ms']:9.1f} ms")
        print(f"  run (not a target)     {res['run_not_a_target_ms']:9.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
