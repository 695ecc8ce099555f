"""Issue 35 from Python: ``generalise`` through the registry, as ``intruder mask --method
generalise`` — ARX's hierarchies, the optimum and its search in the log, the cross-examination,
generated hierarchies, and an unsatisfiable search's error."""

import json

import pytest

import intruder
from conftest import ROOT

ADULT = ROOT / "data" / "arx-adult"
KEYS = ["age", "sex", "race", "education", "marital-status"]


def hierarchies():
    return {c: str(ADULT / "hierarchies" / f"{c}.csv") for c in KEYS}


def test_the_optimum_on_adult_equals_the_command_line(cli, tmp_path):
    step = {"method": "generalise", "hierarchies": hierarchies(), "k": 5,
            "suppression_limit": 0.02, "metric": "loss"}
    import pandas as pd

    df = pd.read_csv(ADULT / "adult_subset.csv", sep=";", dtype=str)
    _, log = intruder.mask(df, [step], seed=1)
    d = log["steps"][0]["details"]
    assert d["levels"] == {"age": 4, "education": 1, "marital-status": 1, "race": 0, "sex": 0}
    assert d["suppressed"] == 57 and d["rows"] == 3017 and d["optimal"] is True
    check = log["cross_examination"]["checks"][0]
    assert check["verdict"] == "holds"
    rules = {r["rule"]: r for r in check["rules"]}
    assert rules["listwise"]["min_class"] == 5
    assert rules["listwise"]["attack"]["unique_correct"] == 0
    # the command line says the same
    h = ", ".join(f'"{c}" = "{p}"' for c, p in hierarchies().items())
    _, out, _ = cli(
        "mask", "--data", ADULT / "adult_subset.csv", "--delimiter", ";",
        "--method", "generalise", "--set", "hierarchies={ " + h + " }", "--set", "k=5",
        "--set", "suppression_limit=0.02", "--seed", "1", "--out", tmp_path / "m.csv",
        "--log", tmp_path / "log.json", "--format", "json",
    )
    cli_log = json.loads(open(tmp_path / "log.json").read())
    assert cli_log["log"]["steps"][0]["details"] == d


def test_generated_hierarchies_band_and_mask():
    import pandas as pd

    df = pd.DataFrame({"age": [21, 22, 23, 31, 32, 33, 41],
                       "zip": ["13053", "13068", "13053", "14850", "14853", "14850", "14853"]})
    step = {"method": "generalise", "k": 2, "suppression_limit": 0.3,
            "hierarchies": {"age": {"interval": [10]}, "zip": {"mask": True}}}
    masked, log = intruder.mask(df, [step], seed=1)
    # at (age 1, zip 1) the classes are ([20, 30), 1305*) 2, ([20, 30), 1306*) 1,
    # ([30, 40), 1485*) 3, ([40, 50), 1485*) 1: two records suppressed, which form a blank
    # class of 2 (protect_against = all), within the limit ⌊0.3 · 7⌋ = 2
    d = log["steps"][0]["details"]
    assert d["levels"] == {"age": 1, "zip": 1} and d["suppressed"] == 2
    kept = [0, 2, 3, 4, 5]
    assert [masked["zip"][i] for i in kept] == ["1305*"] * 2 + ["1485*"] * 3
    assert [masked["age"][i] for i in kept] == ["[20, 30)"] * 2 + ["[30, 40)"] * 3
    assert masked["zip"].isna().tolist() == [False, True, False, False, False, False, True]


def test_an_unsatisfiable_search_names_the_model_and_the_closest_levels():
    import pandas as pd

    df = pd.DataFrame({"age": [21, 22, 23, 31, 32, 33, 41]})
    step = {"method": "generalise", "k": 8, "hierarchies": {"age": {"interval": [10]}}}
    with pytest.raises(intruder.IntruderError, match=r"k-anonymity \(k = 8\).*the best found: levels age 2"):
        intruder.mask(df, [step], seed=1)
