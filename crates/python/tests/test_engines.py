"""``engine=``, ``memory_limit=`` and ``scratch_dir=``: risk and the exact attack on ``local`` are the default's
figures; on ``datafusion`` they are the same figures when the package is built with the
``cluster`` feature, and a clear error naming the feature when it is not."""

import csv

import pytest

import intruder
from conftest import DATA

TESTDATA = DATA / "testdata.csv"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def same(a, b):
    """Equal, numbers to a relative 1e-12 (an engine sums in another order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


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
        # sums of weights and risks added in another order: equal to a relative 1e-12
        assert same(got.summary, base.summary)


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


def test_an_engine_reads_files_itself_with_the_local_figures(tmp_path):
    """Two files on another engine: the engine reads them itself and the package only the
    truth (docs/cluster.md, "What the command line reads"); the keys still come from the
    schema's roles and are checked by name against every column of the files."""
    roles = (
        '[columns.rec]\nrole = "identifier"\n[columns.region]\nrole = "key"\n'
        '[columns.age]\nrole = "key"\n[columns.sex]\nrole = "key"\n'
    )
    regions = ["north", "south", "east", "west"]
    rel = [["rec", "id", "region", "age", "sex"]]
    for i in range(300):
        rel.append([f"R{i:04}", str(i), regions[(i * 7) % 4], str(20 + 5 * ((i * 11) % 9)),
                    "f" if (i * 13) % 5 < 2 else "m"])
    intr = [["rec", "pid", "region", "age", "sex"]] + [
        [f"I{r[1]}", *r[1:]] for r in rel[1:] if int(r[1]) % 4 == 0
    ]
    paths = {}
    for name, body in (("released", rel), ("intruder", intr)):
        paths[name] = tmp_path / f"{name}.csv"
        with open(paths[name], "w", newline="") as f:
            csv.writer(f).writerows(body)
        (tmp_path / f"{name}.schema.toml").write_text(roles)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'blocking = [["region"]]\ncomparison = [\n'
        '  { column = "age", preset = "exact" },\n  { column = "sex", preset = "exact" },\n]\n'
    )
    known, released = str(paths["intruder"]), str(paths["released"])
    truth = dict(truth_intruder="pid", truth_released="id")
    for args in (
        dict(method="exact", missing="listwise"),
        dict(method="fellegi-sunter", linkage_spec=str(spec)),
    ):
        base = intruder.attack(known, released, **args, **truth)
        got = run_or_not_built(
            lambda: intruder.attack(known, released, engine="datafusion", **args, **truth)
        )
        if got is None:
            return
        assert same(got.evaluation, base.evaluation), args
        assert got.evaluation["keys"] == base.evaluation["keys"], args
    with pytest.raises(ValueError, match="regoin"):
        intruder.attack(known, released, method="exact", keys=["regoin", "age"],
                        engine="datafusion", **truth)
