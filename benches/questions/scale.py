"""intruder's three questions at scale (issue 34: 100,000 attacks on 1,000,000 records in ≤ 30 s
on 2 cores): the adult-like population of run.py at N records (original, control and a noisy
copy as the release), then `questions_bench` for each question; prints one JSON line per
question: CPU and wall time of the question alone (files read before), and the whole process's
user + system time as /usr/bin/time reports it (files read included).

Usage (from the repository root, after `cargo build --release -p intruder-questions --example
questions_bench`):
    /tmp/anon/bin/python benches/questions/scale.py [--n 1000000] [--attacks 100000]
        [--link-attacks N] [--only NAME] [--bench PATH] [--release FILE]
"""

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402  (the generators and the parameters of the side-by-side run)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--attacks", type=int, default=100_000)
    ap.add_argument("--link-attacks", type=int, default=None,
                    help="attacks for linkability and inference (default: --attacks)")
    ap.add_argument("--only", default="", help="run only the questions whose name contains this")
    ap.add_argument("--bench", default=str(run.BENCH), help="the questions_bench binary")
    ap.add_argument("--release", default="release.csv",
                    help="the release, a file of the work directory: release.csv (the noisy copy), "
                         "original.csv (the copy) or release_independent.csv (written if missing: "
                         "an independent draw with every column shuffled, run.py's)")
    ap.add_argument("--work", default=str(run.ROOT / "target" / "questions-scale"))
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    paths = [work / "original.csv", work / "control.csv", work / "release.csv"]
    if not all(p.exists() for p in paths):
        ori = run.adult_like(args.n, 1)
        ori.to_csv(paths[0], index=False)
        run.adult_like(args.n, 2).to_csv(paths[1], index=False)
        run.noisy_copy(ori, 3).to_csv(paths[2], index=False)
    if args.release == "release_independent.csv" and not (work / args.release).exists():
        run.independent(args.n, 4).to_csv(work / args.release, index=False)
    paths[2] = work / args.release
    link_attacks = args.attacks if args.link_attacks is None else args.link_attacks
    for name, question, params, _ in run.questions(args.attacks):
        if args.only not in name:
            continue
        if question != "singling-out":
            params = params.replace(f"n_attacks = {args.attacks}", f"n_attacks = {link_attacks}")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([args.bench, question, *map(str, paths), params, "1"], check=True,
                             capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = json.loads(out.stdout)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        r.update({"question": name, "n": args.n, "release": args.release, "process_cpu_s": round(cpu, 2)})
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
