"""Pairs each blocking rule of Splink's FEBRL4 notebook adds (in order, a pair counted by the
first rule that finds it), counted by Splink 5 on the notebook's data (read and prepared as
splink_febrl4.py does, cell by cell as the notebook), for the persons rec-0 .. rec-(N-1): the
values the test `splink_febrl4_detailed_model_runs_with_every_level_and_blocking_rule` in
crates/attack/tests/febrl4.rs asserts (N = 1,500).

Usage: python3 splink_blocking_counts.py [N]   (default 1500; needs splink 5.0.0 and duckdb)
"""
import json
import os
import sys

import duckdb
import pyarrow.csv as pa_csv

import splink
from splink import DuckDBAPI, block_on
from splink.blocking_analysis import count_comparisons_from_blocking_rules

HERE = os.path.dirname(os.path.abspath(__file__))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1500


def read(name):
    return pa_csv.read_csv(
        os.path.join(HERE, name),
        convert_options=pa_csv.ConvertOptions(strings_can_be_null=True),
    )


def prepare_data(data):
    # The notebook's prepare_data, then only the persons rec-0 .. rec-(N-1).
    data = data.rename_columns([column.strip() for column in data.column_names])
    return (
        duckdb.sql(
            f"""
            select * from (
                select
                    * replace (
                        trim(cast(date_of_birth as varchar)) as date_of_birth,
                        trim(cast(soc_sec_id as varchar)) as soc_sec_id,
                        trim(cast(postcode as varchar)) as postcode
                    ),
                    regexp_extract(rec_id, '^([^-]+-[^-]+)', 1) as cluster
                from data
            ) where cast(split_part(cluster, '-', 2) as integer) < {N}
            """
        )
        .arrow()
        .read_all()
    )


dfs = [prepare_data(read(n)) for n in ["dataset4a.csv", "dataset4b.csv"]]
blocking_rules = [
    block_on("given_name", "surname"),
    "l.given_name = r.surname and l.surname = r.given_name",
    block_on("date_of_birth"),
    block_on("soc_sec_id"),
    block_on("state", "address_1"),
    block_on("street_number", "address_1"),
    block_on("postcode"),
]
db_api = DuckDBAPI()
counts = count_comparisons_from_blocking_rules(
    [db_api.register(df) for df in dfs],
    blocking_rules=blocking_rules,
    link_type="link_only",
    unique_id_column_name="rec_id",
    record_sample_proportion=1.0,
)
print(json.dumps({
    "splink": splink.__version__, "duckdb": duckdb.__version__, "persons": N,
    "records": [len(df) for df in dfs],
    "new_pairs_per_rule": [int(r["marginal_comparison_count"]) for r in counts],
}))
