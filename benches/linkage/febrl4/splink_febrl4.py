"""Splink's FEBRL4 example (docs/demos/examples/duckdb/febrl4.nb.py, Splink 5), the detailed
model, run as the notebook runs it, then scored with the same one-to-one rule as the toolkit.

Usage: python3 splink_febrl4.py [--exploratory]  > splink.json

Cell by cell as in the notebook: the data (`splink_datasets.febrl4a/b`, read here from the
committed copies exactly as `splink_datasets` reads them: pyarrow CSV, strings_can_be_null),
`prepare_data` (DuckDB: trim date_of_birth, soc_sec_id, postcode; `cluster` from rec_id), the
detailed model's settings (7 blocking rules, NameComparison x2, DateOfBirthComparison,
DamerauLevenshteinAtThresholds x2, ExactMatch), training (probability two random records match
from the deterministic rules, recall 0.8; u by random sampling, max_pairs 1e6; EM blocked on
date_of_birth then on postcode, without term frequencies), prediction at match probability 0.2,
the accuracy analysis from the labels column and the match weights / m-u / unlinkables charts.
`--exploratory` adds the notebook's exploratory cells (completeness, profile, blocking chart).
`--trim-names` (a control, not the notebook) also trims given_name and surname, which the
notebook leaves with the leading space of the CSV (" michaela"): the space is a shared first
character that raises every name pair's Jaro-Winkler similarity.
`--model-json=PATH` also saves the trained model (`linker.misc.save_model_to_json`: every
level's m and u), after the model charts.
`--trimmed-nulls` (a control, not the notebook) trims every value and reads a blank one as null:
the values the toolkit was given until 2026-12-02 (BENCHMARKS.md §4.0).
The notebook's simple and extended models are not run (the comparison is the detailed model).

Scoring (not in the notebook): one-to-one links by `cluster_using_single_best_links` at match
probability >= 0.5 (the toolkit's greedy one-to-one at the same threshold); precision = correct
links / links, recall = correct links / 5,000 true pairs. CPU seconds per phase are the
process's (every DuckDB thread included), from time.process_time().
"""
import json
import os
import sys
import time

import duckdb
import pyarrow.csv as pa_csv

import splink
import splink.comparison_level_library as cll  # noqa: F401  (imported by the notebook)
import splink.comparison_library as cl
from splink import DuckDBAPI, Linker, SettingsCreator, block_on

HERE = os.path.dirname(os.path.abspath(__file__))
EXPLORATORY = "--exploratory" in sys.argv
TRIM_NAMES = "--trim-names" in sys.argv
TRIMMED_NULLS = "--trimmed-nulls" in sys.argv
MODEL_JSON = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--model-json=")), None)
phases = {}
clock = [time.perf_counter(), time.process_time()]


def lap(name):
    now = [time.perf_counter(), time.process_time()]
    phases[name] = {"wall": now[0] - clock[0], "cpu": now[1] - clock[1]}
    clock[:] = now


def read(name):
    # splink_datasets' loader: pa_csv.read_csv(..., ConvertOptions(strings_can_be_null=True))
    return pa_csv.read_csv(
        os.path.join(HERE, name),
        convert_options=pa_csv.ConvertOptions(strings_can_be_null=True),
    )


df_a = read("dataset4a.csv")
df_b = read("dataset4b.csv")


def prepare_data(data):
    data = data.rename_columns([column.strip() for column in data.column_names])
    return (
        duckdb.sql(
            """
            select
                * replace (
                    trim(cast(date_of_birth as varchar)) as date_of_birth,
                    trim(cast(soc_sec_id as varchar)) as soc_sec_id,
                    trim(cast(postcode as varchar)) as postcode
                ),
                regexp_extract(rec_id, '^([^-]+-[^-]+)', 1) as cluster
            from data
            """
        )
        .arrow()
        .read_all()
    )


dfs = [prepare_data(dataset) for dataset in [df_a, df_b]]
if TRIMMED_NULLS:
    value_columns = ["given_name", "surname", "street_number", "address_1", "address_2",
                     "suburb", "postcode", "state", "date_of_birth", "soc_sec_id"]
    dfs = [
        duckdb.sql(
            "select * replace ("
            + ", ".join(f"nullif(trim(cast({c} as varchar)), '') as {c}" for c in value_columns)
            + ") from d"
        )
        .arrow()
        .read_all()
        for d in dfs
    ]
if TRIM_NAMES:
    dfs = [
        duckdb.sql(
            "select * replace (trim(given_name) as given_name, trim(surname) as surname) from d"
        )
        .arrow()
        .read_all()
        for d in dfs
    ]
lap("load and prepare")

blocking_rules = [
    block_on("given_name", "surname"),
    "l.given_name = r.surname and l.surname = r.given_name",
    block_on("date_of_birth"),
    block_on("soc_sec_id"),
    block_on("state", "address_1"),
    block_on("street_number", "address_1"),
    block_on("postcode"),
]

if EXPLORATORY:
    from splink.blocking_analysis import chart_comparisons_from_blocking_rules
    from splink.exploratory import completeness_chart, profile_columns

    db_api = DuckDBAPI()
    completeness_chart([db_api.register(df) for df in dfs])
    db_api = DuckDBAPI()
    profile_columns([db_api.register(df) for df in dfs], column_expressions=["given_name", "surname"])
    db_api = DuckDBAPI()
    chart_comparisons_from_blocking_rules(
        [db_api.register(df) for df in dfs],
        blocking_rules=blocking_rules,
        link_type="link_only",
        unique_id_column_name="rec_id",
        source_dataset_column_name="source_dataset",
        record_sample_proportion=1.0,
    )
    lap("exploratory charts")

detailed_model_settings = SettingsCreator(
    unique_id_column_name="rec_id",
    link_type="link_only",
    blocking_rules_to_generate_predictions=blocking_rules,
    comparisons=[
        cl.NameComparison("given_name").configure(term_frequency_adjustments=True),
        cl.NameComparison("surname").configure(term_frequency_adjustments=True),
        cl.DateOfBirthComparison(
            "date_of_birth",
            input_is_string=True,
            datetime_format="%Y%m%d",
            invalid_dates_as_null=True,
        ),
        cl.DamerauLevenshteinAtThresholds("soc_sec_id", [1, 2]),
        cl.ExactMatch("street_number").configure(term_frequency_adjustments=True),
        cl.DamerauLevenshteinAtThresholds("postcode", [1, 2]).configure(
            term_frequency_adjustments=True
        ),
    ],
    retain_intermediate_calculation_columns=True,
)

db_api = DuckDBAPI()
# Display names only so that the one-to-one scoring below can name the two files.
dfs_sdf = [
    db_api.register(df, dataset_display_name=n) for df, n in zip(dfs, ["febrl4a", "febrl4b"])
]
linker_detailed = Linker(dfs_sdf, detailed_model_settings)
lap("linker")

deterministic_rules = [
    block_on("soc_sec_id"),
    block_on("given_name", "surname", "date_of_birth"),
]
linker_detailed.training.estimate_probability_two_random_records_match(
    deterministic_rules, recall=0.8
)
linker_detailed.training.estimate_u_using_random_sampling(max_pairs=1e6)
session_dob = linker_detailed.training.estimate_parameters_using_expectation_maximisation(
    block_on("date_of_birth"), estimate_without_term_frequencies=True
)
session_pc = linker_detailed.training.estimate_parameters_using_expectation_maximisation(
    block_on("postcode"), estimate_without_term_frequencies=True
)
lap("training")

linker_detailed.visualisations.match_weights_chart()
linker_detailed.visualisations.m_u_parameters_chart()
linker_detailed.evaluation.unlinkables_chart()
lap("model charts")
if MODEL_JSON:
    linker_detailed.misc.save_model_to_json(MODEL_JSON, overwrite=True)

predictions = linker_detailed.inference.predict(threshold_match_probability=0.2)
lap("prediction (p >= 0.2)")

linker_detailed.evaluation.accuracy_analysis_from_labels_column("cluster", output_type="accuracy")
lap("accuracy analysis from labels")

clusters = linker_detailed.clustering.cluster_using_single_best_links(
    predictions, duplicate_free_datasets=["febrl4a", "febrl4b"], threshold_match_probability=0.5
)
cdf = clusters.as_pandas_dataframe()
lap("one-to-one links (p >= 0.5)")

links = tp = 0
for _, g in cdf.groupby("cluster_id"):
    a = [c for c, s in zip(g["cluster"], g["source_dataset"]) if s == "febrl4a"]
    b = [c for c, s in zip(g["cluster"], g["source_dataset"]) if s == "febrl4b"]
    if a and b:
        links += 1
        tp += int(a[0] == b[0])
twins = 5000
p = tp / links if links else 0.0
r = tp / twins
pdf = predictions.as_pandas_dataframe()
print(json.dumps({
    "tool": "splink", "version": splink.__version__, "duckdb": duckdb.__version__,
    "exploratory": EXPLORATORY,
    "trim_names": TRIM_NAMES,
    "trimmed_nulls": TRIMMED_NULLS,
    "candidate_pairs_p_ge_0.2": len(pdf),
    "probability_two_random_records_match":
        linker_detailed._settings_obj._probability_two_random_records_match,
    "links": links, "correct": tp, "twins": twins,
    "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
    "phases": phases,
    "cpu_total": time.process_time(),
}, indent=1))
