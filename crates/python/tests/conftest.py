"""Shared fixtures: the command-line binary, the sdcMicro data, and readers that turn a CSV file
into a pandas, polars or pyarrow table."""

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "data" / "sdcmicro"


def _cli() -> Path:
    env = os.environ.get("INTRUDER_CLI")
    if env:
        return Path(env)
    for profile in ("debug", "release"):
        p = ROOT / "target" / profile / "intruder"
        if p.exists():
            return p
    found = shutil.which("intruder")
    if found:
        return Path(found)
    raise RuntimeError(
        "the intruder binary is needed to compare with the command line: "
        "cargo build -p intruder-cli (or set INTRUDER_CLI)"
    )


@pytest.fixture(scope="session")
def cli():
    """Runs the command line; returns (exit code, stdout, stderr)."""
    exe = _cli()

    def run(*args, check=True):
        p = subprocess.run(
            [str(exe), *map(str, args)], capture_output=True, text=True, cwd=ROOT
        )
        if check and p.returncode != 0:
            raise AssertionError(f"intruder {' '.join(map(str, args))}: {p.stderr}")
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args):
        return json.loads(cli(*args, "--format", "json")[1])

    return run


def read_pandas(path):
    import pandas as pd

    return pd.read_csv(path)


def read_pandas_categorical(path, columns=None):
    """pandas with the key columns as ``category`` dtype (dictionary arrays in Arrow)."""
    df = read_pandas(path)
    for c in columns or df.columns:
        if df[c].dtype != float:
            df[c] = df[c].astype("category")
    return df


def read_polars(path):
    import polars as pl

    return pl.read_csv(path, null_values=["NA", ""], infer_schema_length=None)


def read_polars_categorical(path, columns=None):
    import polars as pl

    df = read_polars(path)
    cols = [c for c in (columns or df.columns) if df[c].dtype != pl.Float64]
    return df.with_columns([pl.col(c).cast(pl.Utf8).cast(pl.Categorical) for c in cols])


def read_pyarrow(path):
    import pyarrow.csv as pacsv

    return pacsv.read_csv(path)


def read_pyarrow_dictionary(path, columns=None):
    import pyarrow as pa

    t = read_pyarrow(path)
    cols = []
    for name in t.column_names:
        c = t[name]
        if (columns is None or name in columns) and not pa.types.is_floating(c.type):
            c = c.cast(pa.string()).dictionary_encode()
        cols.append(c)
    return pa.table(cols, names=t.column_names)


READERS = {
    "pandas": read_pandas,
    "pandas-categorical": read_pandas_categorical,
    "polars": read_polars,
    "polars-categorical": read_polars_categorical,
    "pyarrow": read_pyarrow,
    "pyarrow-dictionary": read_pyarrow_dictionary,
}


@pytest.fixture(params=sorted(READERS))
def reader(request):
    """Each way of holding a CSV file as a table in memory."""
    return request.param, READERS[request.param]


def normalize(v):
    """A cell as a comparable value: integral floats as ints, NaN and None as None, numeric
    text as numbers."""
    if v is None or v == "":
        return None  # a CSV cell cannot tell empty text from missing
    if isinstance(v, float):
        if math.isnan(v):
            return None
        return int(v) if v.is_integer() else v
    if isinstance(v, str):
        if v in ("true", "false"):
            return v == "true"
        for number in (int, float):
            try:
                return normalize(number(v))
            except ValueError:
                pass
        return v
    if isinstance(v, list):
        return [normalize(x) for x in v]
    return v


def columns_of(table):
    """A table of any kind as {column: [normalized cells]}."""
    import pyarrow as pa

    t = pa.table(table)
    return {n: [normalize(x) for x in t[n].to_pylist()] for n in t.column_names}


def read_csv_cells(path):
    """A CSV file as {column: [normalized cells]}, text read as the command line writes it."""
    import csv

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {
        h: [normalize(r[j]) if r[j] != "" else None for r in body]
        for j, h in enumerate(header)
    }
