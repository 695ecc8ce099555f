#!/usr/bin/env python3
"""The files of the verdicts benchmark (issue 32), written deterministically from sdcMicro's
data sets in data/sdcmicro/ (each with an `id` column added, the truth the attacks are scored
with):

- testdata.csv, testdata2.csv, free1.csv: as shipped;
- testdata_na.csv: testdata with the missing keys of benches/sdcmicro/agreement.R (record i
  loses roof when i % 20 == 0, water when i % 31 == 0, sex when i % 47 == 0, relat when
  i % 53 == 0, electcon when i % 29 == 0, i from 1);

- testdata_postcode.csv: testdata with an `id` and a `postcode` drawn uniformly from 10,000
  values (seed 20261128): with the five keys urbrur, roof, walls, water, sex, nearly every
  record is unique;
- testdata3_postcode.csv: testdata stacked three times (13,740 records, new ids) with the same
  kind of postcode, so that local suppression has 10,000 postcode values to deal with.

Usage: make_data.py OUTDIR
"""
import csv
import random
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
out.mkdir(parents=True, exist_ok=True)
rows = list(csv.reader(open(root / "data/sdcmicro/testdata.csv")))
header, body = rows[0], rows[1:]
def with_id(src, dst, blank=None):
    rows = list(csv.reader(open(root / "data/sdcmicro" / src)))
    header = rows[0]
    with open(out / dst, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id"] + header)
        for i, r in enumerate(rows[1:], start=1):
            if blank:
                for col, every in blank.items():
                    if i % every == 0:
                        r[header.index(col)] = ""
            w.writerow([i] + r)
    print(f"wrote {out / dst}: {len(rows) - 1} records")


with_id("testdata.csv", "testdata.csv")
with_id("testdata.csv", "testdata_na.csv",
        {"roof": 20, "water": 31, "sex": 47, "relat": 53, "electcon": 29})
with_id("testdata2.csv", "testdata2.csv")
with_id("free1.csv", "free1.csv")

for name, copies in [("testdata_postcode.csv", 1), ("testdata3_postcode.csv", 3)]:
    rng = random.Random(20261128)
    with open(out / name, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id"] + header + ["postcode"])
        i = 0
        for _ in range(copies):
            for r in body:
                i += 1
                w.writerow([i] + r + ["P%05d" % rng.randrange(10000)])
    print(f"wrote {out / name}: {i} records")
