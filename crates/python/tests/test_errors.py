"""Mistakes raise intruder.IntruderError (a ValueError) naming the culprit, with the message the
command line prints (after its own prefix: the file name or the surface, `intruder risk` vs
`intruder.risk()`)."""

import pytest

import intruder
from conftest import DATA, READERS

TESTDATA = DATA / "testdata.csv"
FREE1 = DATA / "free1.csv"


def problem_lines(message):
    """The `  - key: reason` lines of a parameter error, the part every surface shares."""
    return [line.strip() for line in message.splitlines() if line.strip().startswith("- ")]


def after_label(message):
    """The message after the first `label: ` (the file or table name differs by surface)."""
    first = message.strip().splitlines()[0]
    return first.split(": ", 1)[1] if ": " in first else first


def test_intruder_error_is_a_value_error():
    assert issubclass(intruder.IntruderError, ValueError)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_unknown_key_column_names_it_as_the_cli_does(kind, cli):
    data = READERS[kind](TESTDATA)
    with pytest.raises(intruder.IntruderError) as e:
        intruder.risk(data, ["urbrur", "nosuch"])
    assert "'nosuch'" in str(e.value)
    code, _, stderr = cli(
        "risk", "--data", TESTDATA, "--keys", "urbrur,nosuch", check=False
    )
    assert code != 0
    # "data: no column named 'nosuch'; the columns are: …" in both; only the label differs.
    assert after_label(str(e.value)) == after_label(stderr.removeprefix("error: "))


@pytest.mark.parametrize(
    "kwargs,flags,named",
    [
        ({"population_sise": 10}, ["--set", "population_sise=10"], "population_sise"),
        (
            {"measure": "suda2", "max_msu_size": -1},
            ["--measure", "suda2", "--set", "max_msu_size=-1"],
            "max_msu_size",
        ),
        ({"measure": "nosuch"}, ["--measure", "nosuch"], "nosuch"),
        ({"missing": "sometimes"}, ["--missing", "sometimes"], "missing"),
    ],
)
def test_bad_risk_parameter_names_it_as_the_cli_does(cli, kwargs, flags, named):
    data = READERS["pandas"](TESTDATA)
    with pytest.raises(intruder.IntruderError) as e:
        intruder.risk(data, ["urbrur", "sex"], **kwargs)
    assert named in str(e.value)
    code, _, stderr = cli(
        "risk", "--data", TESTDATA, "--keys", "urbrur,sex", *flags, check=False
    )
    assert code != 0
    if problem_lines(stderr):
        assert problem_lines(str(e.value)) == problem_lines(stderr)
    else:  # a flag clap refused before any parameter was read: the reason is still there
        assert named in stderr


def test_bad_defence_parameter_names_the_step_and_key(cli, tmp_path):
    data = READERS["polars"](FREE1)
    with pytest.raises(intruder.IntruderError) as e:
        intruder.mask(
            data, [{"method": "local-suppression", "keys": ["SEX"], "k": "x"}], seed=1
        )
    assert "step[1].k: expected an integer" in str(e.value)
    code, _, stderr = cli(
        "mask", "--data", FREE1, "--method", "local-suppression", "--set", "keys=SEX",
        "--set", "k=x", "--seed", "1", "--out", tmp_path / "m.csv", check=False,
    )
    assert code != 0
    # The CLI's single method is not a numbered step; the reason is the same.
    assert [p.split(": ", 1)[1] for p in problem_lines(str(e.value))] == [
        p.split(": ", 1)[1] for p in problem_lines(stderr)
    ]


def test_unknown_defence_suggests_the_name():
    with pytest.raises(intruder.IntruderError, match="did you mean 'local-suppression'"):
        intruder.mask(
            READERS["pyarrow"](FREE1),
            [{"method": "local-supression", "keys": ["SEX"], "k": 3}],
            seed=1,
        )


def test_bad_attack_parameter_names_it_as_the_cli_does(cli):
    data = READERS["pyarrow"](TESTDATA)
    with pytest.raises(intruder.IntruderError) as e:
        intruder.attack(data, data, keys=["urbrur"], truth="ori_hid", top_kk=3)
    assert "top_kk" in str(e.value)
    code, _, stderr = cli(
        "attack", "--intruder", TESTDATA, "--released", TESTDATA, "--keys", "urbrur",
        "--truth", "ori_hid", "--set", "top_kk=3", check=False,
    )
    assert code != 0
    assert problem_lines(str(e.value)) == problem_lines(stderr)


def test_attack_unknown_key_column():
    data = READERS["pandas"](TESTDATA)
    with pytest.raises(intruder.IntruderError, match="no column named 'nosuch'"):
        intruder.attack(data, data, keys=["urbrur", "nosuch"], truth="ori_hid")


def test_attack_needs_something_to_score():
    data = READERS["pandas"](TESTDATA)
    with pytest.raises(intruder.IntruderError, match="nothing to score"):
        intruder.attack(data, data, keys=["urbrur"])


def test_utility_unknown_variable():
    data = READERS["pandas"](TESTDATA)
    with pytest.raises(intruder.IntruderError, match="variables: .*no column named 'nosuch'"):
        intruder.utility(data, data, variables=["nosuch"])


def test_unknown_family_and_generator():
    with pytest.raises(intruder.IntruderError, match="did you mean 'risk'"):
        intruder.methods("risks")
    with pytest.raises(intruder.IntruderError, match="nosuch"):
        intruder.synth("nosuch")


def test_run_threads_zero_is_refused(tmp_path):
    with pytest.raises(intruder.IntruderError, match="threads"):
        intruder.run(
            DATA.parents[1] / "experiments" / "quickstart.toml",
            out=tmp_path / "out",
            threads=0,
        )


def test_not_a_table_is_a_type_error():
    with pytest.raises(TypeError, match="expected a pandas, polars or pyarrow table"):
        intruder.risk(42, ["a"])


def test_parquet_footer_columns_refuse_parameters_before_reading(tmp_path, cli):
    """A misspelt key (or a step's missing parameter) of a Parquet file given by its path is
    reported from the file's footer, before the table is read, as the command line reports it
    (attack, risk, mask): the file's unreadable column (a value its schema's categories lack) is
    never reached."""
    import pyarrow
    import pyarrow.parquet

    table = pyarrow.table({"id": [1, 2, 3, 4], "a": ["x", "y", "x", "y"], "b": [1, 2, 1, 2]})
    paths = [tmp_path / "i.parquet", tmp_path / "r.parquet"]
    for p in paths:
        pyarrow.parquet.write_table(table, p)
    schema = {"a": {"type": "categorical", "categories": ["x"]}}
    schema_file = tmp_path / "s.toml"
    schema_file.write_text('[columns.a]\ntype = "categorical"\ncategories = ["x"]\n')
    i, r = (str(p) for p in paths)

    def attack(keys):
        with pytest.raises(intruder.IntruderError) as e:
            intruder.attack(i, r, keys=keys, truth="id", released_schema=schema)
        code, _, stderr = cli(
            "attack", "--intruder", i, "--released", r, "--released-schema", schema_file,
            "--truth", "id", "--keys", ",".join(keys), check=False,
        )
        assert code != 0
        assert problem_lines(str(e.value)) == problem_lines(stderr)
        return str(e.value)

    assert "'y'" in attack(["a", "b"])  # the file cannot be read
    message = attack(["a", "zz"])
    assert "no column named 'zz'" in message and "'y'" not in message

    with pytest.raises(intruder.IntruderError) as e:
        intruder.risk(r, ["a", "zz"], schema=schema)
    assert "no column named 'zz'" in str(e.value) and "'y'" not in str(e.value)

    def mask(step):
        with pytest.raises(intruder.IntruderError) as e:
            intruder.mask(r, [step], seed=1, schema=schema)
        return str(e.value)

    assert "'y'" in mask({"method": "local-suppression", "keys": ["a", "b"], "k": 2})
    message = mask({"method": "local-suppression", "keys": ["a", "zz"], "k": 2})
    assert "no column named 'zz'; the columns are: id, a, b" in message, message
    assert "'y'" not in message
    message = mask({"method": "local-suppression", "keys": ["a", "b"]})
    assert "k: is required but missing" in message and "'y'" not in message, message
