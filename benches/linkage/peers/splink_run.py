"""Splink (DuckDB backend) on the linkage benchmark: the model of benches/linkage/linkage.toml,
trained the way Splink's documentation recommends.

Usage: python3 splink_run.py FILE_A FILE_B [SEED]

Same candidate pairs (block on postcode OR birth_year + first letter of surname), same comparison
levels (null / exact with term frequencies / Jaro-Winkler >= 0.92 / >= 0.8 / else on the names;
null / exact / |diff| <= 1 / else on birth year; null / exact / Levenshtein <= 1 / else on the
postcode; null / exact / else on the rest). Training, Splink's recipe: the prior (lambda) from
deterministic rules (estimate_probability_two_random_records_match, recall 0.7), u by random
sampling of 10^7 pairs, m by two EM sessions, one blocked on postcode and one on first name +
surname. Predict at match probability >= 0.5, best one-to-one links
(cluster_using_single_best_links). person_id (the truth) is read only to score the links at the
end: precision = correct links / links, recall = correct links / persons in both files.
"""
import json
import sys
import time

import pandas as pd
import splink.comparison_level_library as cll
import splink.comparison_library as cl
from splink import DuckDBAPI, Linker, SettingsCreator, block_on

file_a, file_b = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
t0 = time.perf_counter()
dtypes = {"birth_year": "Int64", "birth_month": "Int64"}
da = pd.read_csv(file_a, dtype={**{c: str for c in ["record_id", "person_id", "first_name", "surname", "sex", "postcode", "occupation"]}, **dtypes}, keep_default_na=False, na_values=[""])
db = pd.read_csv(file_b, dtype={**{c: str for c in ["record_id", "person_id", "first_name", "surname", "sex", "postcode", "occupation"]}, **dtypes}, keep_default_na=False, na_values=[""])
db_api = DuckDBAPI()
sa = db_api.register(da, dataset_display_name="file_a")
sb = db_api.register(db, dataset_display_name="file_b")


def name(col):
    return cl.CustomComparison(
        [
            cll.NullLevel(col),
            cll.ExactMatchLevel(col, term_frequency_adjustments=True),
            cll.JaroWinklerLevel(col, 0.92),
            cll.JaroWinklerLevel(col, 0.8),
            cll.ElseLevel(),
        ],
        output_column_name=col,
    )


settings = SettingsCreator(
    link_type="link_only",
    unique_id_column_name="record_id",
    blocking_rules_to_generate_predictions=[
        block_on("postcode"),
        block_on("birth_year", "substr(surname, 1, 1)"),
    ],
    comparisons=[
        name("first_name"),
        name("surname"),
        cl.CustomComparison(
            [
                cll.NullLevel("birth_year"),
                cll.ExactMatchLevel("birth_year"),
                cll.AbsoluteDifferenceLevel("birth_year", 1),
                cll.ElseLevel(),
            ],
            output_column_name="birth_year",
        ),
        cl.ExactMatch("birth_month"),
        cl.ExactMatch("sex"),
        cl.CustomComparison(
            [
                cll.NullLevel("postcode"),
                cll.ExactMatchLevel("postcode"),
                cll.LevenshteinLevel("postcode", 1),
                cll.ElseLevel(),
            ],
            output_column_name="postcode",
        ),
        cl.ExactMatch("occupation"),
    ],
    retain_intermediate_calculation_columns=False,
    retain_matching_columns=False,
)
linker = Linker([sa, sb], settings, log_level="WARNING")
t1 = time.perf_counter()
linker.training.estimate_probability_two_random_records_match(
    [
        block_on("first_name", "surname", "birth_year"),
        block_on("postcode", "birth_year", "birth_month"),
    ],
    recall=0.7,
)
linker.training.estimate_u_using_random_sampling(max_pairs=1e7, seed=seed)
linker.training.estimate_parameters_using_expectation_maximisation(block_on("postcode"))
linker.training.estimate_parameters_using_expectation_maximisation(block_on("first_name", "surname"))
t2 = time.perf_counter()
pred = linker.inference.predict(threshold_match_probability=0.5)
clusters = linker.clustering.cluster_using_single_best_links(
    pred, duplicate_free_datasets=["file_a", "file_b"], threshold_match_probability=0.5
)
cdf = clusters.as_pandas_dataframe()
t3 = time.perf_counter()

# Score: a link is a cluster holding one record of each file.
ids_a = dict(zip(da["record_id"], da["person_id"]))
ids_b = dict(zip(db["record_id"], db["person_id"]))
links = tp = 0
for _, g in cdf.groupby("cluster_id"):
    a = [r for r, s in zip(g["record_id"], g["source_dataset"]) if s == "file_a"]
    b = [r for r, s in zip(g["record_id"], g["source_dataset"]) if s == "file_b"]
    if a and b:
        links += 1
        tp += int(ids_a[a[0]] == ids_b[b[0]])
twins = len(set(da["person_id"]) & set(db["person_id"]))
p = tp / links if links else 0.0
r = tp / twins if twins else 0.0
f1 = 2 * p * r / (p + r) if p + r else 0.0
print(json.dumps({
    "tool": "splink", "version": __import__("splink").__version__,
    "links": links, "correct": tp, "twins": twins,
    "precision": p, "recall": r, "f1": f1,
    "seconds_load": t1 - t0, "seconds_training": t2 - t1, "seconds_prediction": t3 - t2,
}, indent=1))
