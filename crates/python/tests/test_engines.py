"""``engine=``, ``memory_limit=`` and ``scratch_dir=``: risk and the exact attack on ``local`` are the default's
figures; on ``datafusion`` they are the same figures when the package is built with the
``cluster`` feature, and a clear error naming the feature when it is not."""

import csv

import pytest

import intruder
from conftest import DATA

TESTDATA = DATA / "testdata.csv"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def run_or_not_built(call):
    """The result, or None when this build has no engines (and then the error says how to
    build them)."""
    try:
        return call()
    except ValueError as e:
        assert "cluster feature" in str(e), str(e)
        return None


@pytest.mark.parametrize("missing", ["listwise", "as-value", "wildcard"])
@pytest.mark.parametrize("measure", ["frequency", "individual"])
def test_risk_is_the_same_on_every_engine(reader, missing, measure):
    _, read = reader
    data = read(TESTDATA)
    args = dict(missing=missing, measure=measure, weight="sampling_weight")
    base = intruder.risk(data, KEYS, **args)
    assert intruder.risk(data, KEYS, engine="local", **args).summary == base.summary
    got = run_or_not_built(
        lambda: intruder.risk(data, KEYS, engine="datafusion", memory_limit="256MiB", **args)
    )
    if got is not None:
        assert got.summary == base.summary


def test_exact_attack_is_the_same_on_every_engine(reader, tmp_path):
    _, read = reader
    with open(TESTDATA, newline="") as f:
        rows = list(csv.reader(f))
    # Every third record known to the intruder, each record with its person id.
    rel = [["pid", *rows[0]]] + [[str(i), *r] for i, r in enumerate(rows[1:])]
    intr = [rel[0]] + [r for r in rel[1:] if int(r[0]) % 3 == 0]
    paths = tmp_path / "released.csv", tmp_path / "intruder.csv"
    for p, body in zip(paths, (rel, intr)):
        with open(p, "w", newline="") as f:
            csv.writer(f).writerows(body)
    released, known = read(paths[0]), read(paths[1])
    keys = ["urbrur", "water", "relat", "sex"]
    args = dict(method="exact", keys=keys, missing="wildcard", truth="pid")
    base = intruder.attack(known, released, **args)
    assert intruder.attack(known, released, engine="local", **args).evaluation == base.evaluation
    got = run_or_not_built(
        lambda: intruder.attack(known, released, engine="datafusion", **args)
    )
    if got is not None:
        assert got.evaluation == base.evaluation


def test_bad_engines_are_clear_errors(reader):
    _, read = reader
    data = read(TESTDATA)
    with pytest.raises(ValueError, match="expected local, datafusion or ballista://HOST:PORT"):
        intruder.risk(data, KEYS, engine="spark")
    with pytest.raises(ValueError, match="applies to --engine datafusion"):
        intruder.risk(data, KEYS, engine="local", memory_limit="1GiB")
    with pytest.raises(ValueError, match="per_record runs on the local engine only"):
        intruder.risk(data, KEYS, engine="datafusion", per_record=True)
    # A cluster's shared scratch directory (numbered copies, data frames) is a cluster's only.
    with pytest.raises(ValueError, match="--scratch-dir applies to --engine ballista://HOST:PORT"):
        intruder.risk(data, KEYS, engine="datafusion", scratch_dir="/tmp")
