"""The rest of the API against the command line: methods() is the registry `--list` reads,
synth() writes the CLI's files, run() the CLI's results.csv; set-valued cells arrive as lists or
as `a|b` text; the docstring examples run."""

import ast
import doctest
import json
import os
import re

import pytest

import intruder
from conftest import DATA, ROOT, columns_of, read_csv_cells

TESTDATA = DATA / "testdata.csv"
FAMILIES = ["attack", "defence", "risk", "utility", "generator"]


@pytest.mark.parametrize("family", FAMILIES)
def test_methods_lists_the_registry(family, cli):
    ms = intruder.methods(family)
    assert ms, family
    for m in ms:
        assert set(m) == {"name", "summary", "reference", "parameters", "figures", "example"}
        assert m["name"] and m["summary"]
        for p in m["parameters"]:
            assert {"name", "type", "required", "default", "doc"} <= set(p)
        for f in m["figures"]:
            assert set(f) == {"id", "name", "unit", "reference", "non_negative"}
            assert f["unit"] in {"count", "proportion", "score"}
    # The same names as the command line's list.
    command = {
        "attack": ["attack", "--list"],
        "defence": ["mask", "--list"],
        "risk": ["risk", "--list"],
        "utility": ["utility", "--list"],
        "generator": ["synth", "--list"],
    }[family]
    _, listed, _ = cli(*command)
    for m in ms:
        assert re.search(rf"(^|\W){re.escape(m['name'])}(\W|$)", listed), m["name"]


def test_methods_declare_the_figures_a_measure_reports():
    """A risk measure's declared figures name what risk() returns: frequency's sample uniques."""
    frequency = next(m for m in intruder.methods("risk") if m["name"] == "frequency")
    su = next(f for f in frequency["figures"] if f["id"] == "sample_uniques")
    assert su == {
        "id": "sample_uniques",
        "name": "sample uniques (records with f_k = 1)",
        "unit": "count",
        "reference": "Dalenius (1986); Mulder, Table 3",
        "non_negative": True,
    }
    pmse = next(m for m in intruder.methods("utility") if m["name"] == "pmse")
    assert [(f["id"], f["unit"], f["non_negative"]) for f in pmse["figures"]] == [
        ("pmse", "score", True),
        ("pmse_ratio", "score", True),
    ]
    assert all(m["figures"] == [] for m in intruder.methods("attack"))


def test_methods_parameters_are_keyword_arguments():
    """Every risk parameter is accepted by risk() under its registry name."""
    names = {p["name"] for m in intruder.methods("risk") for p in m["parameters"]}
    assert {"keys", "missing", "weight", "population_size", "max_msu_size"} <= names


def test_every_defences_example_masks_the_file_the_list_names(cli, tmp_path):
    """The example of each defence (``methods("defence")[i]["example"]``, what ``mask --list``
    prints) masks household-wave1.csv of ``synth household-panel`` as the command line does."""
    cli("synth", "household-panel", "--n", "300", "--seed", "2", "--out", tmp_path)
    data = tmp_path / "household-wave1.csv"
    for m in intruder.methods("defence"):
        needed = [p["name"] for p in m["parameters"] if p["required"] and not p["role"]]
        assert set(needed) <= set(m["example"] or {}), m["name"]
        steps = [{"method": m["name"], **(m["example"] or {})}]
        masked, log = intruder.mask(data, steps, seed=4, check=False)
        assert log["rows_out"] == len(masked), m["name"]
        # the command line takes each parameter's example as written (TOML value text)
        flags = []
        for p in m["parameters"]:
            if p["example"] is not None:
                flags += ["--set", f"{p['name']}={p['example']}"]
        out = tmp_path / f"{m['name']}.csv"
        _, cli_log, _ = cli("mask", "--data", data, "--method", m["name"], *flags, "--seed", "4",
                            "--no-check", "--out", out, "--format", "json")
        assert json.loads(cli_log)["rows_out"] == log["rows_out"], m["name"]
        assert json.loads(cli_log)["cells_changed"] == log["cells_changed"], m["name"]


def test_synth_equals_the_cli_files(cli, tmp_path):
    out = tmp_path / "lp"
    cli("synth", "linkage-pair", "--n", "60", "--seed", "3", "--out", out)
    got = intruder.synth("linkage-pair", n=60, seed=3)
    files = sorted(p for p in os.listdir(out) if p.endswith((".csv", ".csv.gz")))
    stems = sorted(re.sub(r"\.csv(\.gz)?$", "", f) for f in files)
    assert sorted(got) == stems
    for f in files:
        if f.endswith(".gz"):
            continue
        stem = f[: -len(".csv")]
        assert columns_of(got[stem]) == read_csv_cells(out / f), stem
    assert type(got[stems[0]]).__module__.split(".")[0] == "pandas"
    pl = intruder.synth("linkage-pair", n=60, seed=3, output="polars")
    assert type(pl[stems[0]]).__module__.split(".")[0] == "polars"


def test_run_equals_the_cli(cli, tmp_path):
    exp = ROOT / "experiments" / "quickstart.toml"
    cli("run", exp, "--tiny", "--threads", "2", "--out", tmp_path / "cli")
    got = intruder.run(exp, out=tmp_path / "py", size="tiny", threads=1)
    assert got.executed == got.runs > 0
    assert os.path.samefile(got.out, tmp_path / "py")
    expected = read_csv_cells(tmp_path / "cli" / "results.csv")
    assert columns_of(got.results) == expected
    # Stored runs are reused unless forced.
    again = intruder.run(exp, out=tmp_path / "py", size="tiny")
    assert again.executed == 0
    assert intruder.run(exp, out=tmp_path / "py", size="tiny", force=True).executed == got.runs


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_set_cells_as_lists_or_text(kind):
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    text = {"langs": ["en|fr", "en", "fr|en", "de", None], "sex": ["F", "F", "F", "M", "M"]}
    lists = {
        "langs": [["en", "fr"], ["en"], ["fr", "en"], ["de"], None],
        "sex": ["F", "F", "F", "M", "M"],
    }
    make = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[kind]
    a = intruder.risk(make(text), ["langs", "sex"], schema={"langs": "set"}, per_record=True)
    b = intruder.risk(make(lists), ["langs", "sex"], per_record=True)
    assert a.summary == b.summary
    assert columns_of(a.per_record) == columns_of(b.per_record)
    # {en, fr} overlaps {en}: three records share the F pattern; {de} is alone with M.
    assert columns_of(a.per_record)["n_match"] == [3, 3, 3, 2, 2]
    masked, _ = intruder.read(make(lists))
    assert columns_of(masked)["langs"][0] == ["en", "fr"]


def test_set_cells_equal_the_cli(cli_json, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("langs,sex\nen|fr,F\nen,F\nfr|en,F\nde,M\n,M\n")
    schema = tmp_path / "s.schema.toml"
    schema.write_text('[columns.langs]\ntype = "set"\n')
    expected = cli_json("risk", "--data", path, "--keys", "langs,sex")
    import pandas as pd

    lists = pd.DataFrame(
        {"langs": [["en", "fr"], ["en"], ["fr", "en"], ["de"], None], "sex": list("FFFMM")}
    )
    assert intruder.risk(lists, ["langs", "sex"]).summary == expected


def test_gil_is_released_during_computation():
    """Two risk() calls on two Python threads overlap (the GIL is released while Rust counts)."""
    import threading
    import time

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    n = 400_000
    df = pd.DataFrame({f"k{j}": rng.integers(0, 50, n) for j in range(5)})
    keys = list(df.columns)
    intruder.risk(df, keys)  # warm up
    t0 = time.perf_counter()
    intruder.risk(df, keys)
    one = time.perf_counter() - t0
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    for _ in range(3):
        intruder.risk(df, keys)
    stop.set()
    th.join()
    # With the GIL held the ticker would not tick during a call; released, it ticks throughout.
    assert len(ticks) > 3 * one / 0.01, (len(ticks), one)


def test_docstring_examples_run(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(intruder, "intruder", globs={})
    assert sum(len(t.examples) for t in tests) >= 8
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, result


def _checked(block):
    """A README block in which every top-level line `EXPRESSION   # VALUE`, whose VALUE reads
    as a Python literal, asserts that the expression equals it."""
    out, checks = [], 0
    for line in block.splitlines():
        m = re.match(r"^(\S.*?)\s+#\s+(.+)$", line)
        if m and not line.startswith("#"):
            try:
                ast.parse(m[1], mode="eval")  # an expression, not a statement
                want = ast.literal_eval(m[2])
            except (ValueError, SyntaxError):
                out.append(line)
                continue
            out.append(f"assert ({m[1]}) == {want!r}, ({m[1]!r}, {m[1]})")
            checks += 1
        else:
            out.append(line)
    return "\n".join(out), checks


def test_readme_python_examples_run(monkeypatch):
    """The ```python blocks of the README's Python section and of the package README run as
    written, and every value their comments show is the value they give."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2
    package = (ROOT / "crates" / "python" / "README.md").read_text()
    blocks += re.findall(r"```python\n(.*?)```", package, re.S)
    checks = 0
    for block in blocks:
        code, n = _checked(block)
        checks += n
        exec(compile(code, "README.md", "exec"), {})
    # The values shown: sample uniques and the largest individual risk, min_k after
    # suppression under wildcard, the index kept, PRAM on a category, the utility measures.
    assert checks >= 6, checks


def test_evaluator_warnings_are_python_warnings():
    """Intruder records sharing a truth id are scored with a warning, as `intruder attack`
    prints it: here as a Python warning naming the column and the rows."""
    import pyarrow as pa

    released = pa.table({"id": ["a", "b", "c"], "x": ["1", "2", "3"]})
    known = pa.table({"id": ["a", "b", "a"], "x": ["1", "2", "1"]})
    with pytest.warns(intruder.IntruderWarning, match=r"truth id 'a' appears on row 1 and again on row 3"):
        r = intruder.attack(known, released, keys=["x"], truth="id")
    assert r.evaluation["correct_matches"] == 3
