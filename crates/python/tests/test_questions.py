"""The three questions from Python (``intruder.attack(..., method="linkability", control=df)``):
the same answer as ``intruder attack --method … --format json``, hand-computed rates, and the
errors of bad input."""

import math

import pytest

import intruder

ORIGINAL = "age,town,income\n20,a,100\n35,b,200\n50,c,300\n65,d,400\n"
CONTROL = "age,town,income\n22,b,150\n37,c,250\n52,d,350\n67,a,450\n"


@pytest.fixture()
def files(tmp_path):
    ori = tmp_path / "original.csv"
    ori.write_text(ORIGINAL)
    ctl = tmp_path / "control.csv"
    ctl.write_text(CONTROL)
    return ori, ctl


def wilson_centre(k, n, z=1.959963984540054):
    return (k + z * z / 2) / (n + z * z)


def test_linkability_of_a_copy_from_pandas(files):
    import pandas as pd

    ori, ctl = (pd.read_csv(p) for p in files)
    q = intruder.attack(
        ori, ori, method="linkability", control=ctl, aux_cols=[["age"], ["town"]], n_attacks=4, seed=7
    )
    assert isinstance(q, intruder.QuestionResult)
    assert (q.question, q.n_attacks, q.n_success, q.n_control) == ("linkability", 4, 4, 0.0)
    assert math.isclose(q.attack_rate.value, wilson_centre(4, 4), abs_tol=1e-12)
    assert math.isclose(q.control_rate.value, wilson_centre(0, 4), abs_tol=1e-12)
    expected = (q.attack_rate.value - q.control_rate.value) / (1 - q.control_rate.value)
    assert math.isclose(q.risk, expected, abs_tol=1e-12)
    assert q.risk_ci == (q.report["risk_ci_low"], q.report["risk_ci_high"])
    assert q.params["aux_cols"] == [["age"], ["town"]]
    assert "linkability" in repr(q)


@pytest.mark.parametrize(
    "method, params",
    [
        ("singling-out", {"mode": "univariate", "n_attacks": 4}),
        ("singling-out", {"n_cols": 2, "n_attacks": 4}),
        ("linkability", {"aux_cols": [["age"], ["town"]], "n_attacks": 3, "n_neighbors": 2}),
        ("inference", {"aux_cols": ["age", "town"], "secret": "income", "n_attacks": 4}),
        ("inference", {"aux_cols": ["age"], "secret": "town", "n_attacks": 4, "confidence_level": 0.9}),
    ],
)
def test_python_and_the_command_line_give_the_same_answer(files, cli_json, method, params):
    import pandas as pd

    ori, ctl = files
    py = intruder.attack(
        pd.read_csv(ori), pd.read_csv(ori), method=method, control=pd.read_csv(ctl), seed=3, **params
    )
    sets = []
    for k, v in params.items():
        text = repr(v).replace("'", '"') if isinstance(v, list) else str(v)
        sets += ["--set", f"{k}={text}"]
    from_cli = cli_json(
        "attack", "--method", method, "--original", ori, "--control", ctl, "--released", ori,
        "--seed", "3", *sets,
    )
    for drop in ("version",):
        from_cli.pop(drop)
        py.report.pop(drop)
    assert py.report == from_cli


def test_bad_input_is_a_clear_error(files):
    import pandas as pd

    ori, ctl = (pd.read_csv(p) for p in files)
    with pytest.raises(intruder.IntruderError, match="needs control="):
        intruder.attack(ori, ori, method="inference", aux_cols=["age"], secret="income")
    with pytest.raises(intruder.IntruderError, match="missing 'income'"):
        intruder.attack(
            ori, ori, method="inference", control=ctl[["age", "town"]], aux_cols=["age"], secret="income"
        )
    with pytest.raises(intruder.IntruderError, match="no column 'income'"):
        intruder.attack(
            ori, ori[["age", "town"]], method="inference", control=ctl, aux_cols=["age"], secret="income"
        )
    with pytest.raises(intruder.IntruderError, match="also an auxiliary column"):
        intruder.attack(
            ori, ori, method="inference", control=ctl, aux_cols=["age", "income"], secret="income"
        )
    with pytest.raises(intruder.IntruderError, match="n_attacks = 5"):
        intruder.attack(
            ori, ori, method="inference", control=ctl, aux_cols=["age"], secret="income", n_attacks=5
        )
    with pytest.raises(intruder.IntruderError, match="truth= apply to linkage attacks"):
        intruder.attack(ori, ori, method="singling-out", control=ctl, truth="age")
    with pytest.raises(intruder.IntruderError, match="control= belongs to the three questions"):
        intruder.attack(ori, ori, method="exact", control=ctl, keys=["age"])


def test_a_result_that_does_not_beat_the_baseline_warns():
    import pandas as pd

    # A release of other people: singling out the original is no better than chance.
    ori = pd.DataFrame({"x": list(range(40))})
    ctl = pd.DataFrame({"x": list(range(100, 140))})
    rel = pd.DataFrame({"x": list(range(200, 240))})
    with pytest.warns(intruder.IntruderWarning, match="baseline"):
        q = intruder.attack(ori, rel, method="singling-out", control=ctl, mode="univariate", n_attacks=5)
    assert q.n_success == 0
    assert any("baseline" in w for w in q.warnings)


def test_methods_lists_the_questions_with_their_parameters():
    by_name = {m["name"]: m for m in intruder.methods("attack")}
    for name in ("singling-out", "linkability", "inference"):
        params = {p["name"] for p in by_name[name]["parameters"]}
        assert {"n_attacks", "confidence_level"} <= params
    assert {"aux_cols", "secret", "regression"} <= {p["name"] for p in by_name["inference"]["parameters"]}


def test_membership_and_distances_from_python(files, cli_json):
    import pandas as pd

    ori, ctl = (pd.read_csv(p) for p in files)
    with pytest.warns(intruder.IntruderWarning, match="4 non-members"):
        m = intruder.attack(ori, ori, method="membership", control=ctl, n_targets=4, seed=2)
    assert isinstance(m, intruder.MembershipResult)
    assert (m.auc, m.advantage, m.n_members, m.attack) == (1.0, 1.0, 4, "distance")
    d = intruder.attack(ori, ori, method="dcr", control=ctl)
    assert isinstance(d, intruder.DistanceResult)
    assert (d.exact_copies, d.overfitting_protection) == (1.0, 0.0)
    o, c = files
    for method, py in [("membership", m), ("dcr", d)]:
        extra = ["--set", "n_targets=4", "--seed", "2"] if method == "membership" else []
        from_cli = cli_json(
            "attack", "--method", method, "--original", o, "--control", c, "--released", o, *extra
        )
        from_cli.pop("version")
        ours = dict(py.report)
        ours.pop("version")
        assert ours == from_cli
    with pytest.raises(intruder.IntruderError, match="n_targets = 5"):
        intruder.attack(ori, ori, method="membership", control=ctl, n_targets=5)


@pytest.mark.parametrize("step", [{"method": "independent-marginals"}, {"method": "privbayes", "epsilon": 1.0}])
def test_a_synthetic_release_from_python_is_judged_by_the_questions(step):
    import pandas as pd

    # A frame with an index of its own: a synthetic record is no input record, so it keeps none.
    ori = pd.DataFrame(
        {"age": [20 + (i * 7) % 50 for i in range(60)], "town": list("abcdef") * 10},
        index=[f"p{i}" for i in range(60)],
    )
    ctl = pd.DataFrame({"age": [21 + (i * 5) % 50 for i in range(40)], "town": list("bcdefa") * 6 + list("abcd")})
    syn, log = intruder.mask(ori, [step], seed=3)
    assert log["synthetic"] == 1 and log["kept_rows"] == []
    assert len(syn) == 60 and list(syn.index) == list(range(60))
    assert list(syn.columns) == ["age", "town"]
    m = intruder.attack(ori, syn, method="membership", control=ctl, n_targets=30, seed=1)
    assert m.n_members == 30 and 0.0 <= m.auc <= 1.0


def test_a_pandas_index_is_never_read_as_a_column():
    import pandas as pd

    df = pd.DataFrame({"age": ["20s", "20s", "30s", "30s", "30s"], "sex": list("FFMMF")}, index=list("abcde"))
    masked, _ = intruder.mask(df, [{"method": "local-suppression", "keys": ["age", "sex"], "k": 2}], seed=1)
    assert list(masked.columns) == ["age", "sex"] and list(masked.index) == list("abcde")
    # What every method reads (a question's predicates use every column of the release).
    table, _ = intruder.read(df)
    assert list(table.columns) == ["age", "sex"]
