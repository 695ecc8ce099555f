"""The FEBRL4 files as the toolkit reads them: the values the Splink notebook gives Splink, and
the true person as a truth column.

The notebook reads `splink_datasets.febrl4a/b` (pyarrow's CSV reader, strings_can_be_null=True)
and its `prepare_data` trims date_of_birth, soc_sec_id and postcode (cast to text) and nothing
else. So, as Splink sees them:
- column names are trimmed (the notebook's rename_columns);
- given_name, surname, street_number, address_1, address_2, suburb and state keep the leading
  space of the CSV (" michaela"), and a blank field is the text " ": a value, not a null
  (pyarrow nulls only empty fields, and every FEBRL field holds at least the space);
- date_of_birth is trimmed: a blank one is the empty text "" (a value too: block_on
  ("date_of_birth") pairs two of them; the date levels read it as no date);
- soc_sec_id and postcode are read as integers by pyarrow, then cast to text: their digits
  without leading zeros (" 0800" is "800").
The schema written beside each file declares no missing token, as no value of the notebook's
data is null. `cluster` is the `rec-N` part of `rec_id` (the notebook's
`regexp_extract(rec_id, '^([^-]+-[^-]+)', 1)`), a column the schema marks as truth (only the
evaluator reads it).

Usage: python3 prepare.py OUTDIR   (writes febrl4a.csv, febrl4b.csv and their .schema.toml)
"""
import csv
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
schema = """# FEBRL4 as prepared by benches/linkage/febrl4/prepare.py: the values Splink's notebook reads
missing = []
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


def as_splink_reads(column, value):
    if column == "date_of_birth":
        return value.strip()
    if column in ("soc_sec_id", "postcode"):
        return str(int(value))
    return value


for src, dst in [("dataset4a.csv", "febrl4a"), ("dataset4b.csv", "febrl4b")]:
    with open(os.path.join(here, src), newline="") as f:
        rows = list(csv.reader(f))
    head = [h.strip() for h in rows[0]]
    with open(os.path.join(out, dst + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head + ["cluster"])
        for r in rows[1:]:
            r = [as_splink_reads(c, v) for c, v in zip(head, r)]
            w.writerow(r + [re.match(r"^([^-]+-[^-]+)", r[0]).group(1)])
    with open(os.path.join(out, dst + ".schema.toml"), "w") as f:
        f.write(schema)
