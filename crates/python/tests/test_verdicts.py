"""Issue 32 from Python: a defence states the intruder it protects against, and every masking
run is cross-examined by the toolkit's exact attack (the same figures as ``intruder mask``)."""

import csv
import json
import random
import warnings

import pytest

import intruder
from conftest import DATA

KEYS = ["urbrur", "roof", "walls", "water", "sex", "postcode"]


@pytest.fixture(scope="module")
def postcode_file(tmp_path_factory):
    """sdcMicro's testdata with an id and a postcode drawn from 10,000 values (as
    benches/verdicts/make_data.py writes it): nearly every record is unique on the keys."""
    out = tmp_path_factory.mktemp("verdicts") / "testdata_postcode.csv"
    rows = list(csv.reader(open(DATA / "testdata.csv", newline="")))
    rng = random.Random(20261128)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id"] + rows[0] + ["postcode"])
        for i, r in enumerate(rows[1:]):
            w.writerow([i + 1] + r + ["P%05d" % rng.randrange(10000)])
    return out


def step(**extra):
    return {"method": "local-suppression", "keys": KEYS, "k": 3, **extra}


def rules(log):
    return {r["rule"]: r for r in log["cross_examination"]["checks"][0]["rules"]}


def test_the_default_promise_holds_under_every_rule(postcode_file, cli):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        _, log = intruder.mask(str(postcode_file), [step()], seed=1)
    check = log["cross_examination"]["checks"][0]
    assert check["verdict"] == "holds"
    assert check["claim"]["protect_against"] == "all"
    r = rules(log)
    for rule in ("listwise", "as-value", "wildcard"):
        assert r[rule]["unsafe_records"] == 0
        assert r[rule]["min_class"] is None or r[rule]["min_class"] >= 3
    for rule in ("listwise", "wildcard"):
        assert r[rule]["attack"]["rate"] <= 1 / 3
        assert r[rule]["attack"]["unique_correct"] == 0
    # the command line says the same
    _, out, _ = cli(
        "mask", "--data", postcode_file, "--method", "local-suppression",
        "--set", "keys=" + ",".join(KEYS), "--set", "k=3", "--seed", "1",
        "--out", postcode_file.parent / "cli.csv", "--format", "json",
    )
    j = json.loads(out)
    assert j["verdict"] == "holds"
    assert j["check_listwise_rate"] == pytest.approx(r["listwise"]["attack"]["rate"], abs=1e-12)
    assert j["check_wildcard_rate"] == pytest.approx(r["wildcard"]["attack"]["rate"], abs=1e-12)


def test_the_wildcard_rule_alone_is_caught_with_a_warning_naming_rule_and_figure(postcode_file):
    with pytest.warns(UserWarning, match=r"does not cover the listwise rule: \d+ of \d+ records"):
        _, log = intruder.mask(str(postcode_file), [step(protect_against="wildcard")], seed=1)
    check = log["cross_examination"]["checks"][0]
    assert check["verdict"] == "contradicted"
    r = rules(log)
    # two blanks per class satisfy the wildcard count; the complete records stay unique
    assert r["wildcard"]["min_class"] >= 3
    assert r["listwise"]["min_class"] == 1
    assert r["listwise"]["attack"]["rate"] > 0.9
    assert r["listwise"]["attack"]["unique_correct"] > 4000


def test_the_check_can_be_skipped_and_given_keys(postcode_file):
    _, log = intruder.mask(str(postcode_file), [step()], seed=1, check=False)
    assert log["cross_examination"] is None
    recode = {"method": "global-recode", "variables": ["water"], "map": {"1": "w1", "2": "w2"}}
    _, log = intruder.mask(
        str(postcode_file), [recode], seed=1, check_keys=["urbrur", "water", "sex"]
    )
    check = log["cross_examination"]["checks"][0]
    assert check["verdict"] == "no-claim"
    assert check["keys"] == ["urbrur", "water", "sex"]
    # a public recoding: the intruder maps what they know the same way, so records are found
    assert rules(log)["listwise"]["attack"]["rate"] > 0
    # and the recoded records are not "changed"
    assert log["records_changed"] == 0
    assert log["records_recoded"] > 0


def test_utility_reads_a_public_recoding_on_the_released_scale(cli_json, tmp_path):
    """A recoded category is not a changed one: given the change log, utility() maps the
    original through the log's public recodings before comparing (as `intruder utility --log`;
    before the facade, Python compared labels and told the two files apart)."""
    import pandas as pd

    letters = ["a", "b", "c", "d"]
    original = pd.DataFrame(
        {
            "water": [letters[i % 4] for i in range(40)],
            "income": [float(10 * i) for i in range(40)],
        }
    )
    recode = {
        "method": "global-recode",
        "variables": ["water"],
        "map": {"a": "piped", "b": "piped", "c": "other", "d": "other"},
    }
    masked, log = intruder.mask(original, [recode], seed=1, check=False)
    assert sorted(set(masked["water"])) == ["other", "piped"]
    by_label = intruder.utility(original, masked, variables=["water"], measures="pmse")
    on_scale = intruder.utility(original, masked, variables=["water"], measures="pmse", log=log)
    assert by_label["pmse"] > 0.2
    assert on_scale["pmse"] == 0.0
    # the same figures as the command line given the same files and log
    o, m, lg = tmp_path / "o.csv", tmp_path / "m.csv", tmp_path / "log.json"
    original.to_csv(o, index=False)
    masked.to_csv(m, index=False)
    lg.write_text(json.dumps(log))
    expected = cli_json(
        "utility", "--original", o, "--masked", m, "--log", lg,
        "--variables", "water", "--measure", "pmse",
    )
    assert expected["pmse"] == on_scale["pmse"]
