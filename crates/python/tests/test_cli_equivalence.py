"""The Python functions give the command line's numbers on the sdcMicro data sets shipped in
data/, whether the table arrives from pandas, polars or pyarrow (plain or dictionary-encoded)."""

import csv
import json

import pytest

import intruder
from conftest import DATA, columns_of, normalize, read_csv_cells

TESTDATA = DATA / "testdata.csv"
FREE1 = DATA / "free1.csv"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


@pytest.fixture(scope="module")
def testdata_na(tmp_path_factory):
    """testdata.csv with missing key values (every 7th roof, every 11th sex: NA), so that the
    missing-value policies matter."""
    out = tmp_path_factory.mktemp("data") / "testdata_na.csv"
    with open(TESTDATA, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    for i, r in enumerate(rows[1:]):
        if i % 7 == 3:
            r[header.index("roof")] = "NA"
        if i % 11 == 5:
            r[header.index("sex")] = ""
    with open(out, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return out


def per_record_csv(path):
    cells = read_csv_cells(path)
    return cells


@pytest.mark.parametrize("missing", ["listwise", "as-value", "wildcard"])
def test_risk_per_record_equals_the_cli(reader, cli_json, tmp_path, testdata_na, missing):
    name, read = reader
    out = tmp_path / "per_record.csv"
    expected = cli_json(
        "risk",
        "--data",
        testdata_na,
        "--keys",
        ",".join(KEYS),
        "--weight",
        "sampling_weight",
        "--missing",
        missing,
        "--per-record",
        out,
    )
    data = read(testdata_na)
    got = intruder.risk(
        data, KEYS, weight="sampling_weight", missing=missing, per_record=True
    )
    assert got.summary == expected
    assert columns_of(got.per_record) == per_record_csv(out)
    # pandas in, pandas out; polars in, polars out; pyarrow in, pyarrow out.
    assert type(got.per_record).__module__.split(".")[0] == type(data).__module__.split(".")[0]


@pytest.mark.parametrize("missing", ["listwise", "as-value", "wildcard"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_risk_of_a_file_path_equals_the_cli(cli_json, tmp_path, testdata_na, missing, kind):
    """A file named by its path is read as the command line reads it (the facade's choice: the
    key columns alone when they suffice, else the table), with and without per-record figures."""
    import pyarrow.csv
    import pyarrow.parquet

    path = testdata_na
    if kind == "parquet":
        path = tmp_path / "testdata_na.parquet"
        table = pyarrow.csv.read_csv(
            testdata_na,
            convert_options=pyarrow.csv.ConvertOptions(
                null_values=["", "NA"], strings_can_be_null=True
            ),
        )
        # text keys stored with dictionaries, as pandas and DuckDB write them
        pyarrow.parquet.write_table(table, path, use_dictionary=True)
    flags = ["--keys", ",".join(KEYS), "--weight", "sampling_weight", "--missing", missing]
    assert intruder.risk(str(path), KEYS, weight="sampling_weight", missing=missing).summary == (
        cli_json("risk", "--data", path, *flags)
    )
    out = tmp_path / "per_record.csv"
    expected = cli_json("risk", "--data", path, *flags, "--per-record", out)
    got = intruder.risk(path, KEYS, weight="sampling_weight", missing=missing, per_record=True)
    assert got.summary == expected
    assert columns_of(got.per_record) == per_record_csv(out)


def test_risk_measures_and_parameters_equal_the_cli(cli_json, tmp_path):
    data = intruder.read(TESTDATA)[0]
    cases = [
        (["--measure", "suda2", "--max-msu-size", "3"], dict(measure="suda2", max_msu_size=3)),
        (
            ["--measure", "household", "--group", "ori_hid", "--weight", "sampling_weight"],
            dict(measure="household", group="ori_hid", weight="sampling_weight"),
        ),
        (
            ["--measure", "l-diversity", "--sensitive", "hhcivil"],
            dict(measure="l-diversity", sensitive="hhcivil"),
        ),
        (
            ["--measure", "t-closeness", "--sensitive", "hhcivil", "--set", "t=0.2"],
            dict(measure="t-closeness", sensitive="hhcivil", t=0.2),
        ),
        (
            [
                "--measure", "suda2", "--max-msu-size", "3", "--missing", "as-value",
                "--set", "drop_msus_with_missing=true",
            ],
            dict(measure="suda2", max_msu_size=3, missing="as-value", drop_msus_with_missing=True),
        ),
        (
            ["--set", "population_size=100000", "--unique-threshold", "2"],
            dict(population_size=100000, unique_threshold=2),
        ),
    ]
    for flags, kwargs in cases:
        out = tmp_path / "pr.csv"
        expected = cli_json(
            "risk", "--data", TESTDATA, "--keys", ",".join(KEYS[:5]), *flags, "--per-record", out
        )
        got = intruder.risk(data, KEYS[:5], per_record=True, **kwargs)
        assert got.summary == expected, flags
        assert columns_of(got.per_record) == per_record_csv(out), flags


def test_suppression_output_equals_the_cli(reader, cli, tmp_path):
    name, read = reader
    keys = ["REGION", "SEX", "AGE", "MARSTAT"]
    out, log = tmp_path / "masked.csv", tmp_path / "log.json"
    cli(
        "mask", "--data", FREE1, "--method", "local-suppression",
        "--set", "keys=" + ",".join(keys), "--set", "k=3", "--seed", "7",
        "--out", out, "--log", log,
    )
    data = read(FREE1)
    masked, got_log = intruder.mask(
        data, [{"method": "local-suppression", "keys": keys, "k": 3}], seed=7
    )
    expected_log = json.loads(log.read_text())
    # Python's log is flat: the figures of the command line's "log" beside the pipeline.
    assert {k: got_log[k] for k in expected_log["log"]} == expected_log["log"]
    assert got_log["pipeline"] == expected_log["pipeline"]
    assert got_log["suppressions"] > 0
    assert columns_of(masked) == read_csv_cells(out)
    assert type(masked).__module__.split(".")[0] == type(data).__module__.split(".")[0]


def test_a_pipeline_equals_the_cli(cli, tmp_path):
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(
        '[[step]]\nmethod = "pram"\nvariables = ["water"]\npd = 0.8\n'
        '[[step]]\nmethod = "noise"\nvariables = ["income"]\nnoise = 10\n'
    )
    schema = tmp_path / "s.toml"
    schema.write_text('[columns.water]\ntype = "categorical"\n')
    out, log = tmp_path / "masked.csv", tmp_path / "log.json"
    cli(
        "mask", "--data", TESTDATA, "--schema", schema, "--pipeline", pipeline,
        "--seed", "11", "--out", out, "--log", log,
    )
    from conftest import read_pandas

    masked, got_log = intruder.mask(
        read_pandas(TESTDATA),
        [{"method": "pram", "variables": ["water"], "pd": 0.8},
         {"method": "noise", "variables": ["income"], "noise": 10}],
        seed=11,
        schema={"water": "categorical"},
    )
    expected_log = json.loads(log.read_text())["log"]
    assert {k: got_log[k] for k in expected_log} == expected_log
    assert columns_of(masked) == read_csv_cells(out)


@pytest.fixture(scope="module")
def linkage_files(tmp_path_factory):
    """An intruder file (every 3rd record of testdata, keys and a person id) and a released file
    (all records with the id), both with the id as a truth column."""
    d = tmp_path_factory.mktemp("attack")
    with open(TESTDATA, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    keys = ["urbrur", "water", "relat", "sex", "age"]
    idx = [header.index(k) for k in keys]
    intr = [["pid", *keys]] + [[str(i + 1), *[r[j] for j in idx]] for i, r in enumerate(body) if i % 3 == 0]
    rel = [["pid", *header]] + [[str(i + 1), *r] for i, r in enumerate(body)]
    paths = d / "intruder.csv", d / "released.csv"
    for p, rows in zip(paths, (intr, rel)):
        with open(p, "w", newline="") as f:
            csv.writer(f).writerows(rows)
    return paths, keys


@pytest.mark.parametrize("method,extra_flags,extra", [
    ("exact", [], {}),
    ("exact", ["--missing", "wildcard"], {"missing": "wildcard"}),
    ("nearest", ["--top-k", "2"], {"top_k": 2}),
])
def test_attack_evaluation_equals_the_cli(reader, cli_json, tmp_path, linkage_files, method, extra_flags, extra):
    name, read = reader
    (ipath, rpath), keys = linkage_files
    per_record = tmp_path / "pr.csv"
    expected = cli_json(
        "attack", "--intruder", ipath, "--released", rpath, "--method", method,
        "--keys", ",".join(keys), "--truth", "pid", "--seed", "5",
        "--per-record", per_record, *extra_flags,
    )
    got = intruder.attack(
        read(ipath), read(rpath), method=method, keys=keys, truth="pid", seed=5, **extra
    )
    assert got.evaluation == expected
    assert columns_of(got.per_record) == read_csv_cells(per_record)
    # Every record's candidates: ranks from 1, the chosen row among the best.
    cands = columns_of(got.candidates)
    base = {"intruder_row", "released_row", "rank", "score"}
    # pandas inputs also give each pair's index in the inputs.
    extra_cols = {"intruder_index", "released_index"} if name.startswith("pandas") else set()
    assert set(cands) == base | extra_cols
    assert min(cands["rank"]) == 1
    n_intruder = expected["intruder_records"]
    assert set(cands["intruder_row"]) <= set(range(1, n_intruder + 1))
    pr = columns_of(got.per_record)
    best = {}
    for i, r, k in zip(cands["intruder_row"], cands["released_row"], cands["rank"]):
        if k == 1:
            best.setdefault(i, set()).add(r)
    for i, chosen in zip(pr["intruder_row"], pr["chosen_row"]):
        if chosen is not None:
            assert chosen in best[i]


def test_utility_equals_the_cli(cli_json, tmp_path):
    out, log = tmp_path / "masked.csv", tmp_path / "log.json"
    steps = [{"method": "noise", "variables": ["income", "expend"], "noise": 10}]
    from conftest import _cli  # noqa: F401  (the binary is needed)
    cli_json  # the fixture builds the binary path
    import subprocess

    pipeline = tmp_path / "p.toml"
    pipeline.write_text('[[step]]\nmethod = "noise"\nvariables = ["income", "expend"]\nnoise = 10\n')
    subprocess.run(
        [str(_cli()), "mask", "--data", str(TESTDATA), "--pipeline", str(pipeline),
         "--seed", "3", "--out", str(out), "--log", str(log)],
        check=True, capture_output=True,
    )
    expected = cli_json(
        "utility", "--original", TESTDATA, "--masked", out, "--log", log,
        "--variables", "income,expend,savings",
    )
    original = intruder.read(TESTDATA, output="polars")[0]
    masked, got_log = intruder.mask(original, steps, seed=3)
    got = intruder.utility(original, masked, variables=["income", "expend", "savings"], log=got_log)
    for key in ("original", "masked"):
        expected.pop(key, None)
    assert got == expected


@pytest.mark.parametrize("missing", ["listwise", "as-value", "wildcard"])
def test_keys_read_as_codes_count_as_the_cli(cli_json, tmp_path, missing):
    """Risk measures read keys as codes straight from the arrays; every layout of the same
    values (integers, floats with NaN, numeric text, text, dictionaries) counts as the command
    line counts the CSV, where `1` and `1.0`, or `0` and `-0`, are one number."""
    import pandas as pd
    import pyarrow as pa

    n = 60
    a = [i % 3 for i in range(n)]
    b = [None if i % 7 == 2 else (i * 5) % 4 - 1 for i in range(n)]  # -1..2, some missing
    c = ["1", "1.0", "2", "-0", "0", "x"] * (n // 6)  # numbers and a text
    d = ["-0.0", "0", "2.5", "1e3", "1000", "2.50"] * (n // 6)  # numbers only
    big = [(i % 4) * 10**9 for i in range(n)]  # a range past 2^24
    path = tmp_path / "codes.csv"
    cell = lambda v: "" if v is None else str(v)  # noqa: E731
    with open(path, "w") as f:
        f.write("a,b,c,d,big\n")
        for row in zip(a, b, c, d, big):
            f.write(",".join(cell(v) for v in row) + "\n")
    keys = ["a", "b", "c", "d", "big"]
    expected = cli_json("risk", "--data", path, "--keys", ",".join(keys), "--missing", missing)
    floats = pd.array([float("nan") if v is None else float(v) for v in b], dtype="float64")
    layouts = {
        "numbers": pd.DataFrame({"a": a, "b": floats, "c": c, "d": d, "big": big}),
        "nullable": pd.DataFrame(
            {"a": a, "b": pd.array(b, dtype="Int32"), "c": c, "d": d, "big": big}
        ),
        "text": pd.DataFrame({k: [cell(v) for v in col] for k, col in zip(keys, [a, b, c, d, big])}),
        "category": pd.DataFrame(
            {"a": a, "b": floats, "c": c, "d": d, "big": big}
        ).astype("category"),
        "arrow_float_d": pa.table(
            {"a": a, "b": b, "c": c, "d": [float(x) for x in d], "big": pa.array(big, pa.uint64())}
        ),
    }
    # Two batches, each column dictionary-encoded on its own (the dictionaries differ).
    columns = dict(zip(keys, [a, b, c, d, big]))
    halves = [
        pa.record_batch(
            {k: pa.array(v[lo:hi]).dictionary_encode() for k, v in columns.items()}
        )
        for lo, hi in ((0, n // 3), (n // 3, n))
    ]
    layouts["chunked_dictionaries"] = pa.Table.from_batches(halves)
    try:
        import polars as pl

        layouts["polars_categorical"] = pl.from_pandas(layouts["text"]).with_columns(
            pl.col(k).cast(pl.Categorical) for k in keys
        )
    except ImportError:
        pass
    for name, df in layouts.items():
        got = intruder.risk(df, keys, missing=missing, per_record=True)
        assert got.summary == expected, name
        # Without per-record figures the classes are counted from the arrays' codes (no
        # table) wherever the keys allow it: the same summary.
        lean = intruder.risk(df, keys, missing=missing)
        assert lean.summary == expected, name
