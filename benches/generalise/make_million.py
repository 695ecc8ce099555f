"""Writes a 1,000,000-record file with ARX's adult columns for the scale benchmark: records drawn
with replacement from data/arx-adult/adult.csv.gz, each field then replaced, with probability
1/2, by the same field of another record drawn at random (seed 20261128). Every value is covered
by ARX's hierarchies; the mixing makes most records unique on the 9 keys (a plain resample would
repeat adult's records ~33 times each and be 10-anonymous as it is).

Usage: python3 benches/generalise/make_million.py OUT.csv [N]
"""
import gzip
import random
import sys

n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
with gzip.open("data/arx-adult/adult.csv.gz", "rt") as f:
    lines = f.read().splitlines()
header, rows = lines[0], lines[1:]
split = [r.split(";") for r in rows]
rng = random.Random(20261128)
with open(sys.argv[1], "w") as out:
    out.write(header + "\n")
    for _ in range(n):
        rec = split[rng.randrange(len(split))][:]
        for j in range(len(rec)):
            if rng.random() < 0.5:
                rec[j] = split[rng.randrange(len(split))][j]
        out.write(";".join(rec) + "\n")
