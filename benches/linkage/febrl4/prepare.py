"""The FEBRL4 files as the toolkit reads them, as the Splink notebook's `prepare_data` does for
Splink: column names and values trimmed, and the true person (`cluster`, the `rec-N` part of
`rec_id`, the notebook's `regexp_extract(rec_id, '^([^-]+-[^-]+)', 1)`) added as a column the
schema marks as truth (only the evaluator reads it).

Usage: python3 prepare.py OUTDIR   (writes febrl4a.csv, febrl4b.csv and their .schema.toml)
"""
import csv
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
schema = """# FEBRL4 as prepared by benches/linkage/febrl4/prepare.py
[columns.rec_id]
type = "string"
role = "identifier"
[columns.cluster]
type = "string"
role = "truth"
"""
for col in ["given_name", "surname", "street_number", "address_1", "address_2", "suburb",
            "postcode", "state", "date_of_birth", "soc_sec_id"]:
    schema += f'[columns.{col}]\ntype = "string"\nrole = "key"\n'
for src, dst in [("dataset4a.csv", "febrl4a"), ("dataset4b.csv", "febrl4b")]:
    with open(os.path.join(here, src), newline="") as f:
        rows = list(csv.reader(f))
    head = [h.strip() for h in rows[0]]
    with open(os.path.join(out, dst + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head + ["cluster"])
        for r in rows[1:]:
            r = [v.strip() for v in r]
            w.writerow(r + [re.match(r"^([^-]+-[^-]+)", r[0]).group(1)])
    with open(os.path.join(out, dst + ".schema.toml"), "w") as f:
        f.write(schema)
