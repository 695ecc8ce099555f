"""Reference values of the distance to the closest record from SDMetrics 0.32
(`DCROverfittingProtection.compute_breakdown`, `calculate_dcr`), for
crates/questions/tests/membership.rs.

Run: python -m venv v && v/bin/pip install sdmetrics==0.32.0 &&
     v/bin/python crates/questions/tests/data/sdmetrics_reference.py
Writes dcr_training.csv, dcr_holdout.csv, dcr_release.csv (a mixed-type fixture with missing
values, drawn with numpy's seeded generator) and dcr_reference.csv (the figures).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import sdmetrics
from sdmetrics.single_table import DCROverfittingProtection
from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr

HERE = Path(__file__).parent
rng = np.random.default_rng(20261202)


def draw(n):
    age = rng.integers(18, 90, size=n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    income = np.round(rng.lognormal(10, 0.6, size=n), 2)
    income[rng.random(n) < 0.08] = np.nan
    sex = rng.choice(["f", "m"], size=n).astype(object)
    region = rng.choice(["north", "south", "east", "west", "centre"], size=n).astype(object)
    region[rng.random(n) < 0.1] = None
    return pd.DataFrame({"age": age, "income": income, "sex": sex, "region": region})


training = draw(300)
holdout = draw(200)
# A release that copies a third of the training records and draws the rest afresh.
release = pd.concat([training.sample(n=80, random_state=1), draw(170)], ignore_index=True)
for name, df in [("training", training), ("holdout", holdout), ("release", release)]:
    df.to_csv(HERE / f"dcr_{name}.csv", index=False, float_format="%.2f", na_rep="NA")
# Read back what was written, so both sides see the same values.
training, holdout, release = (
    pd.read_csv(HERE / f"dcr_{n}.csv", na_values=["NA"]) for n in ("training", "holdout", "release")
)
metadata = {
    "columns": {
        "age": {"sdtype": "numerical"},
        "income": {"sdtype": "numerical"},
        "sex": {"sdtype": "categorical"},
        "region": {"sdtype": "categorical"},
    }
}
b = DCROverfittingProtection.compute_breakdown(training, release, holdout, metadata, None)
to_training = calculate_dcr(release, training, metadata)
to_holdout = calculate_dcr(release, holdout, metadata)
rows = [
    ("sdmetrics_version", sdmetrics.__version__),
    ("score", repr(float(b["score"]))),
    ("closer_to_training", repr(float(b["synthetic_data_percentages"]["closer_to_training"]))),
    ("median_dcr_release", repr(float(to_training.median()))),
    ("median_dcr_holdout", repr(float(to_holdout.median()))),
    ("exact_copies", repr(float((to_training == 0).mean()))),
]
pd.DataFrame(rows, columns=["figure", "value"]).to_csv(HERE / "dcr_reference.csv", index=False)
print(pd.DataFrame(rows))
