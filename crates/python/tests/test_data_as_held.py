"""Data as users hold it (issue 38): categoricals with numeric-looking labels stay categorical in
pandas, polars and pyarrow; the toolkit's warnings are Python warnings of the package's class
from every kind of input; per-record results keep a pandas index; the masking log is flat; every
typo of one call is reported at once."""

import warnings

import pytest

import intruder
from conftest import DATA, ROOT

TESTDATA = DATA / "testdata.csv"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
PRAM = [{"method": "pram", "variables": ["roof"], "pd": 0.8}]


def _pandas():
    import pandas as pd

    return pd.read_csv(TESTDATA)


def categorical_tables():
    """sdcMicro's testdata with `roof` (codes 2, 4, 5, 6, 9) as a category, held every way a
    user holds one."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    df = _pandas()
    roof_text = df["roof"].astype(str)
    return {
        "pandas astype(category)": df.assign(roof=df["roof"].astype("category")),
        "pandas astype(str).astype(category)": df.assign(roof=roof_text.astype("category")),
        "pandas ordered category": df.assign(
            roof=pd.Categorical(df["roof"], categories=[9, 6, 5, 4, 2], ordered=True)
        ),
        "polars Categorical": pl.from_pandas(df).with_columns(
            pl.col("roof").cast(pl.Utf8).cast(pl.Categorical)
        ),
        "polars Enum": pl.from_pandas(df).with_columns(
            pl.col("roof").cast(pl.Utf8).cast(pl.Enum(["9", "6", "5", "4", "2"]))
        ),
        "pyarrow dictionary": pa.Table.from_pandas(df).set_column(
            1, "roof", pa.array(roof_text).dictionary_encode()
        ),
        "pyarrow dictionary of integers": pa.Table.from_pandas(df).set_column(
            1, "roof", pa.array(df["roof"]).dictionary_encode()
        ),
    }


@pytest.mark.parametrize("name", sorted(categorical_tables()))
def test_categoricals_with_numeric_labels_stay_categorical(name, cli, tmp_path):
    data = categorical_tables()[name]
    _, schema = intruder.read(data)
    roof = schema.split('[columns."roof"]', 1)[1]
    assert 'type = "categorical"' in roof.split("[columns.", 1)[0], schema
    assert 'categories = ["2", "4", "5", "6", "9"]' in roof.split("[columns.", 1)[0], schema
    masked, log = intruder.mask(data, PRAM, seed=3)
    assert log["cells_changed"] > 0
    # The command line with the column declared categorical gives the same masking.
    s = tmp_path / "s.toml"
    s.write_text('[columns.roof]\ntype = "categorical"\n')
    out, cli_log = tmp_path / "m.csv", tmp_path / "log.json"
    cli("mask", "--data", TESTDATA, "--schema", s, "--method", "pram", "--set",
        "variables=roof", "--set", "pd=0.8", "--seed", "3", "--out", out, "--log", cli_log)
    import json

    assert log["cells_changed"] == json.loads(cli_log.read_text())["log"]["cells_changed"]


def test_an_integer_column_is_still_refused_by_pram_with_the_way_out():
    with pytest.raises(intruder.IntruderError, match=r"roof.*is integer; expected a categorical"):
        intruder.mask(_pandas(), PRAM, seed=1)


def _warned(call):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = call()
    return result, [(x.category, str(x.message)) for x in w]


def test_weights_below_one_warn_from_every_input(tmp_path):
    """A weight of 0.5 is warned about as the CLI warns, from a DataFrame and from a path."""
    df = _pandas().assign(sampling_weight=0.5)
    path = tmp_path / "half.csv"
    df.to_csv(path, index=False)
    for data in (df, path, str(path)):
        for measure in ("frequency", "individual"):
            _, warned = _warned(
                lambda: intruder.risk(data, KEYS, measure=measure, weight="sampling_weight")
            )
            hits = [m for c, m in warned if issubclass(c, intruder.IntruderWarning)]
            assert any("below 1" in m and "sampling_weight" in m for m in hits), warned


def test_a_detected_delimiter_and_decimal_comma_are_warned_and_read(tmp_path):
    df = _pandas()
    path = tmp_path / "semi.csv"
    df.to_csv(path, index=False, sep=";", decimal=",")
    r, warned = _warned(lambda: intruder.risk(path, KEYS))
    assert r.summary["sample_uniques"] == intruder.risk(df, KEYS).summary["sample_uniques"]
    text = " ".join(m for c, m in warned if c is intruder.IntruderWarning)
    assert "separated by ';'" in text and "decimal comma" in text, warned
    u, warned = _warned(
        lambda: intruder.utility(path, path, variables=["savings", "income"])
    )
    assert "moments" in u["measures"], u["measures"]


def test_a_left_out_utility_measure_is_warned():
    df = _pandas().assign(water=lambda d: d["water"].astype(str).astype("category"))
    u, warned = _warned(lambda: intruder.utility(df, df, variables=["water", "income"]))
    assert "moments" not in u["measures"]
    assert any("left out" in m and "'water'" in m for _, m in warned), warned


def test_deprecated_names_warn_as_deprecations():
    df = _pandas()
    _, warned = _warned(
        lambda: intruder.mask(df, [{"method": "round", "columns": ["age"], "base": 5}], seed=1)
    )
    assert any(
        issubclass(c, intruder.IntruderDeprecationWarning) and issubclass(c, FutureWarning)
        for c, _ in warned
    ), warned


def test_per_record_results_keep_the_pandas_index():
    df = _pandas()
    df.index = [f"hh{i}" for i in range(len(df))]
    r = intruder.risk(df, KEYS, per_record=True)
    assert r.per_record.index.equals(df.index)
    assert list(r.per_record["row"][:2]) == [1, 2]
    masked, log = intruder.mask(df, [{"method": "subsample", "fraction": 0.3}], seed=2)
    assert len(masked) == log["rows_out"] < len(df)
    assert list(masked.index) == [df.index[r - 1] for r in log["kept_rows"]]
    known = df.iloc[::7].copy()
    known["pid"] = range(len(known))
    released = df.copy()
    released["pid"] = -1
    released.loc[known.index, "pid"] = known["pid"]
    released.loc[released["pid"] == -1, "pid"] = range(10_000, 10_000 + int((released["pid"] == -1).sum()))
    a = intruder.attack(known, released, keys=KEYS[:4], truth="pid")
    assert a.per_record.index.equals(known.index)
    first = a.candidates.iloc[0]
    assert first["intruder_index"] == known.index[first["intruder_row"] - 1]
    assert first["released_index"] == released.index[first["released_row"] - 1]


def test_the_masking_log_is_flat():
    _, log = intruder.mask(
        _pandas(), [{"method": "local-suppression", "keys": KEYS, "k": 3}], seed=1
    )
    for key in ("rows_in", "rows_out", "cells_changed", "suppressions", "records_changed",
                "kept_rows", "steps", "pipeline", "seed"):
        assert key in log, key
    assert "log" not in log
    assert log["suppressions"] == log["steps"][0]["suppressions"] > 0


def test_every_typo_of_a_call_is_reported_at_once():
    with pytest.raises(intruder.IntruderError) as e:
        intruder.risk(
            _pandas(), ["urbrur", "rooof", "walls", "water", "Sex"], weight="sampling_weigth"
        )
    text = str(e.value)
    for x in ("3 problems", "'rooof' (did you mean 'roof'?)", "'Sex' (did you mean 'sex'?)",
              "weight:", "'sampling_weigth' (did you mean 'sampling_weight'?)"):
        assert x in text, text
    with pytest.raises(intruder.IntruderError) as e:
        intruder.mask(_pandas(), [{"method": "local-suppression", "keys": ["rooof", "sexx"],
                                   "k": 3, "kk": 1}], seed=1)
    text = str(e.value)
    for x in ("'rooof' (did you mean 'roof'?)", "'sexx' (did you mean 'sex'?)",
              "kk: unknown key"):
        assert x in text, text


def test_a_truth_column_named_as_a_key_says_so():
    df = _pandas().assign(pid=range(4580))
    with pytest.raises(intruder.IntruderError, match="ground truth"):
        intruder.attack(df.iloc[:50], df, keys=["roof", "pid"], truth="pid")
