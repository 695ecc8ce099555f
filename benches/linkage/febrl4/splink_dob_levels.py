"""The level Splink 5's `DateOfBirthComparison` gives pairs of FEBRL-style dates of birth, as
the FEBRL4 notebook configures it (input_is_string=True, datetime_format="%Y%m%d",
invalid_dates_as_null=True): the values the test `date_of_birth_preset_as_splink_5` in
crates/attack/tests/splink_levels.rs asserts.

Usage: python3 splink_dob_levels.py   (needs splink 5.0.0 and duckdb; prints one line per pair)

Splink numbers the levels from the top: null -1, else 0, ..., exact 5; the toolkit numbers them
in the specification's order: null 0, exact 1, Levenshtein <= 1 2, within 1 month 3, 1 year 4,
10 years 5, else 6. Printed: a, b, Splink's comparison vector value, its level label, and the
toolkit's level index (null: 0, else 6 - value). Also printed: DuckDB's levenshtein and
damerau_levenshtein of the two texts (the notebook's level is the former).
"""
import logging

import duckdb
import pandas as pd

import splink
import splink.comparison_library as cl
from splink import DuckDBAPI, Linker, SettingsCreator

PAIRS = [
    ("19560409", "19560409"),  # exact
    ("19560409", "19560419"),  # one substitution
    ("19560409", "19650409"),  # one adjacent transposition (5 6): 2 edits, 9 years apart
    ("19560412", "19560421"),  # transposition in the day: 9 days apart
    ("19561210", "19561201"),  # transposition in the day: 9 days apart
    ("19560409", "19560490"),  # not a date on the right: null
    ("19560409", "19570301"),  # 326 days
    ("19560409", "18000101"),  # else
]

logging.getLogger("splink").setLevel(logging.ERROR)
settings = SettingsCreator(
    link_type="link_only",
    unique_id_column_name="id",
    comparisons=[
        cl.DateOfBirthComparison(
            "x", input_is_string=True, datetime_format="%Y%m%d", invalid_dates_as_null=True
        )
    ],
    blocking_rules_to_generate_predictions=["1=1"],
)
left = pd.DataFrame({"id": range(len(PAIRS)), "x": [a for a, _ in PAIRS]})
right = pd.DataFrame({"id": range(len(PAIRS)), "x": [b for _, b in PAIRS]})
db_api = DuckDBAPI()
linker = Linker([db_api.register(left), db_api.register(right)], settings)
labels = {
    lv.comparison_vector_value: lv.label_for_charts
    for lv in linker._settings_obj.comparisons[0].comparison_levels
}
pred = linker.inference.predict().as_pandas_dataframe()
pred = pred[pred.id_l == pred.id_r].sort_values("id_l")
print(f"# splink {splink.__version__}, duckdb {duckdb.__version__}")
for _, r in pred.iterrows():
    g = int(r["gamma_x"])
    a, b = r["x_l"], r["x_r"]
    lev, dl = duckdb.sql(
        f"select levenshtein('{a}', '{b}'), damerau_levenshtein('{a}', '{b}')"
    ).fetchall()[0]
    ours = 0 if g == -1 else 6 - g
    print(f"{a} {b} splink {g:2d} {labels[g]!r:40} toolkit {ours}  lev {lev} dl {dl}")
