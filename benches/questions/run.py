"""The three questions of anonymisation side by side with anonymeter 1.1 (issue 34).

On a 30,000-record adult-like file (generated here, seeded: the columns of UCI adult with
their dependencies — education and education_num, relationship from marital status and sex,
income from age, education, hours and marital status), a 30,000-record control set from the
same population, and three releases of the original:

- copy         the original itself (every risk should be near 1);
- noisy        a masked copy: age ±2, hours ±3, fnlwgt ×e^N(0, 0.05), and 10% of each
               categorical column redrawn from its marginal;
- independent  a fresh draw of the population with every column shuffled on its own (every
               risk should be near 0).

each question runs with 2,000 attacks in both tools, with the same parameters: singling out
(univariate; multivariate with 3 columns), linkability (anonymeter's notebook's two sets of
auxiliary columns, 10 neighbours), inference of income (categorical, exact) and of age
(numeric, within 5%) from every other column. One more row runs multivariate singling out on
the noisy release with a control set of 7,500 records (the control-size correction).

CPU time: anonymeter's is time.process_time() around `evaluate()` (every thread of the Python
process), after an untimed warm-up run of each evaluator on 300 records (numba compiles its
distance then; the warm-up is not counted); intruder's is /proc/self/stat's user + system
time around the question inside `questions_bench` (crates/questions/examples), files read
before the clock starts. Both run on the same machine, one after the other.

Usage (from the repository root; anonymeter needs Python ≤ 3.11):
    python3 -m venv /tmp/anon && /tmp/anon/bin/pip install anonymeter==1.1.0
    cargo build --release -p intruder-questions --example questions_bench
    /tmp/anon/bin/python benches/questions/run.py [--work DIR] [--attacks 2000] [--n 30000]

Writes DIR/*.csv, benches/questions/results.jsonl (one line per tool and question, raw) and
prints the comparison table (benches/questions/README.md keeps a copy).
"""

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "target" / "release" / "examples" / "questions_bench"

EDUCATION = [("Preschool", 1, 0.002), ("1st-4th", 2, 0.005), ("5th-6th", 3, 0.010), ("7th-8th", 4, 0.020),
             ("9th", 5, 0.016), ("10th", 6, 0.029), ("11th", 7, 0.036), ("12th", 8, 0.013),
             ("HS-grad", 9, 0.322), ("Some-college", 10, 0.223), ("Assoc-voc", 11, 0.042),
             ("Assoc-acdm", 12, 0.033), ("Bachelors", 13, 0.164), ("Masters", 14, 0.054),
             ("Prof-school", 15, 0.018), ("Doctorate", 16, 0.013)]
WORKCLASS = [("Private", 0.70), ("Self-emp-not-inc", 0.08), ("Local-gov", 0.064), ("State-gov", 0.04),
             ("Self-emp-inc", 0.034), ("Federal-gov", 0.03), ("Without-pay", 0.0005), ("Never-worked", 0.0002)]
RACE = [("White", 0.854), ("Black", 0.096), ("Asian-Pac-Islander", 0.031), ("Amer-Indian-Eskimo", 0.0096),
        ("Other", 0.0083)]
OCCUPATION = ["Prof-specialty", "Craft-repair", "Exec-managerial", "Adm-clerical", "Sales", "Other-service",
              "Machine-op-inspct", "Transport-moving", "Handlers-cleaners", "Farming-fishing", "Tech-support",
              "Protective-serv", "Priv-house-serv", "Armed-Forces"]
COUNTRIES = ["United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada", "El-Salvador", "India",
             "Cuba", "England", "China", "South", "Jamaica", "Italy", "Dominican-Republic", "Japan", "Guatemala",
             "Poland", "Vietnam", "Columbia", "Haiti", "Portugal", "Taiwan", "Iran", "Greece", "Nicaragua", "Peru",
             "Ecuador", "France", "Ireland", "Hong", "Thailand", "Cambodia", "Trinadad&Tobago", "Yugoslavia",
             "Outlying-US(Guam-USVI-etc)", "Laos", "Scotland", "Honduras", "Hungary", "Holand-Netherlands"]


def choice(rng, labels, weights, size):
    w = np.asarray(weights, dtype=float)
    return rng.choice(np.asarray(labels, dtype=object), size=size, p=w / w.sum())


def adult_like(n, seed):
    """`n` records of an adult-like population drawn with `seed`."""
    rng = np.random.default_rng(seed)
    age = np.clip(np.round(17 + rng.gamma(2.2, 9.5, n)), 17, 90).astype(int)
    sex = choice(rng, ["Male", "Female"], [0.67, 0.33], n)
    race = choice(rng, [r for r, _ in RACE], [p for _, p in RACE], n)
    e = rng.choice(len(EDUCATION), size=n, p=np.array([p for *_, p in EDUCATION]) / sum(p for *_, p in EDUCATION))
    education = np.array([EDUCATION[i][0] for i in e], dtype=object)
    education_num = np.array([EDUCATION[i][1] for i in e])
    p_married = np.clip((age - 18) / 25, 0.02, 0.62)
    u = rng.random(n)
    marital = np.where(u < p_married, "Married-civ-spouse",
                       np.where(u < p_married + np.clip(0.9 - (age - 17) / 30, 0.05, 0.9) * (1 - p_married),
                                "Never-married",
                                choice(rng, ["Divorced", "Separated", "Widowed", "Married-spouse-absent",
                                             "Married-AF-spouse"], [0.6, 0.12, 0.12, 0.05, 0.01], n))).astype(object)
    widowed_young = (marital == "Widowed") & (age < 45)
    marital[widowed_young] = "Divorced"
    relationship = np.where(marital == "Married-civ-spouse", np.where(sex == "Male", "Husband", "Wife"),
                            np.where((marital == "Never-married") & (age < 25) & (rng.random(n) < 0.65),
                                     "Own-child",
                                     choice(rng, ["Not-in-family", "Unmarried", "Other-relative"],
                                            [0.6, 0.3, 0.1], n))).astype(object)
    workclass = choice(rng, [w for w, _ in WORKCLASS], [p for _, p in WORKCLASS], n)
    # Occupation leans on education: professional and managerial jobs with a degree.
    high = education_num >= 13
    occ_high = [0.35, 0.03, 0.25, 0.07, 0.12, 0.03, 0.01, 0.01, 0.005, 0.01, 0.06, 0.03, 0.001, 0.001]
    occ_low = [0.05, 0.16, 0.09, 0.13, 0.11, 0.12, 0.08, 0.06, 0.05, 0.035, 0.025, 0.02, 0.006, 0.0004]
    occupation = np.where(high, choice(rng, OCCUPATION, occ_high, n), choice(rng, OCCUPATION, occ_low, n))
    hours = np.where(rng.random(n) < 0.47, 40, np.clip(np.round(rng.normal(40, 12, n)), 1, 99)).astype(int)
    fnlwgt = np.round(np.exp(rng.normal(12.0, 0.45, n))).astype(int)
    capital_gain = np.where(rng.random(n) < 0.92, 0, np.round(np.exp(rng.normal(8.5, 1.0, n)), -1)).astype(int)
    capital_loss = np.where(rng.random(n) < 0.953, 0, np.clip(np.round(rng.normal(1900, 350, n)), 150, 4400))
    country_weights = [0.91 / 0.09] + [1.0 / (k + 1) ** 1.3 for k in range(len(COUNTRIES) - 1)]
    native_country = choice(rng, COUNTRIES, country_weights, n)
    logit = (-9.0 + 0.045 * np.minimum(age, 60) + 0.33 * education_num + 0.03 * hours
             + 1.2 * (marital == "Married-civ-spouse") + 0.3 * (sex == "Male") + 0.0004 * capital_gain)
    income = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), ">50K", "<=50K").astype(object)
    return pd.DataFrame({
        "age": age, "workclass": workclass, "fnlwgt": fnlwgt, "education": education,
        "education_num": education_num, "marital_status": marital, "occupation": occupation,
        "relationship": relationship, "race": race, "sex": sex, "capital_gain": capital_gain,
        "capital_loss": capital_loss.astype(int), "hours_per_week": hours, "native_country": native_country,
        "income": income})


def noisy_copy(df, seed):
    """The original masked: small noise on numbers, 10% of each category redrawn."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    n = len(df)
    out["age"] = np.clip(df["age"] + rng.integers(-2, 3, n), 17, 90)
    out["hours_per_week"] = np.clip(df["hours_per_week"] + rng.integers(-3, 4, n), 1, 99)
    out["fnlwgt"] = np.round(df["fnlwgt"] * np.exp(rng.normal(0, 0.05, n))).astype(int)
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c]):
            redraw = rng.random(n) < 0.10
            out.loc[redraw, c] = rng.choice(df[c].to_numpy(), size=int(redraw.sum()))
    return out


def independent(n, seed):
    """A fresh draw of the population with every column shuffled on its own."""
    rng = np.random.default_rng(seed + 1000)
    fresh = adult_like(n, seed)
    return pd.DataFrame({c: rng.permutation(fresh[c].to_numpy()) for c in fresh.columns})


ALL = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status", "occupation",
       "relationship", "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"]
LINK_AUX = (["workclass", "education", "hours_per_week", "capital_loss", "capital_gain"],
            ["race", "sex", "fnlwgt", "age", "native_country"])


def questions(n_attacks):
    """(name, intruder question, intruder TOML parameters, anonymeter run(ori, syn, control))."""
    toml_list = lambda cols: "[" + ", ".join(f'"{c}"' for c in cols) + "]"
    others = lambda secret: [c for c in ALL if c != secret]
    return [
        ("singling out, univariate", "singling-out", f'n_attacks = {n_attacks}\nmode = "univariate"',
         lambda o, s, c, seed: SinglingOutEvaluator(ori=o, syn=s, control=c, n_attacks=n_attacks, seed=seed)
         .evaluate(mode="univariate")),
        ("singling out, multivariate (3 columns)", "singling-out", f'n_attacks = {n_attacks}\nmode = "multivariate"\nn_cols = 3',
         lambda o, s, c, seed: SinglingOutEvaluator(ori=o, syn=s, control=c, n_attacks=n_attacks, n_cols=3, seed=seed)
         .evaluate(mode="multivariate")),
        ("linkability (10 neighbours)", "linkability",
         f"n_attacks = {n_attacks}\naux_cols = [{toml_list(LINK_AUX[0])}, {toml_list(LINK_AUX[1])}]\nn_neighbors = 10",
         lambda o, s, c, seed: LinkabilityEvaluator(ori=o, syn=s, control=c, aux_cols=LINK_AUX, n_attacks=n_attacks,
                                                    n_neighbors=10).evaluate(n_jobs=-2)),
        ("inference of income (exact)", "inference",
         f'n_attacks = {n_attacks}\naux_cols = {toml_list(others("income"))}\nsecret = "income"\nregression = false',
         lambda o, s, c, seed: InferenceEvaluator(ori=o, syn=s, control=c, aux_cols=others("income"), secret="income",
                                                  regression=False, n_attacks=n_attacks).evaluate(n_jobs=-2)),
        ("inference of age (within 5%)", "inference",
         f'n_attacks = {n_attacks}\naux_cols = {toml_list(others("age"))}\nsecret = "age"\nregression = true\ntolerance = 0.05',
         lambda o, s, c, seed: InferenceEvaluator(ori=o, syn=s, control=c, aux_cols=others("age"), secret="age",
                                                  regression=True, n_attacks=n_attacks).evaluate(n_jobs=-2)),
    ]


def anonymeter_row(run, ori, syn, control, seed):
    np.random.seed(seed)
    t0, w0 = time.process_time(), time.perf_counter()
    ev = run(ori, syn, control, seed)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = ev.results()
        risk = res.risk()
    return {"tool": "anonymeter", "n_attacks": res.n_attacks_ori, "n_success": int(res.n_success),
            "n_control": float(res.n_control), "n_baseline": int(res.n_baseline),
            "attack_rate": list(res.attack_rate), "control_rate": list(res.control_rate),
            "baseline_rate": list(res.baseline_rate), "risk": risk.value, "risk_ci": list(risk.ci),
            "warnings": [str(w.message) for w in caught], "cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}


def intruder_row(question, params, paths, seed):
    out = subprocess.run([str(BENCH), question, *map(str, paths), params, str(seed)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=str(ROOT / "target" / "questions-bench"))
    ap.add_argument("--attacks", type=int, default=2000)
    ap.add_argument("--n", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="run only the questions whose name contains this")
    ap.add_argument("--release", default="", help="run only on the releases whose name starts with this")
    ap.add_argument("--results", default=str(Path(__file__).with_name("results.jsonl")),
                    help="where the raw rows go (one JSON line per tool and question)")
    ap.add_argument("--anonymeter-results", default="",
                    help="take anonymeter's rows from this results.jsonl of an earlier run (same data and "
                         "seed) instead of running anonymeter again")
    args = ap.parse_args()
    logging_quiet()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    ori = adult_like(args.n, 1)
    control = adult_like(args.n, 2)
    small_control = control.iloc[: args.n // 4].reset_index(drop=True)
    releases = {"copy": ori.copy(), "noisy": noisy_copy(ori, 3), "independent": independent(args.n, 4)}
    paths = {"original": work / "original.csv", "control": work / "control.csv",
             "small_control": work / "control_small.csv"}
    ori.to_csv(paths["original"], index=False)
    control.to_csv(paths["control"], index=False)
    small_control.to_csv(paths["small_control"], index=False)
    for name, df in releases.items():
        paths[name] = work / f"release_{name}.csv"
        df.to_csv(paths[name], index=False)

    earlier = {}
    if args.anonymeter_results:
        for line in Path(args.anonymeter_results).read_text().splitlines():
            r = json.loads(line)
            if r["tool"] == "anonymeter":
                earlier[(r["release"], r["question"])] = r
    else:
        # Warm-up: numba compiles anonymeter's distance on the first search (not counted).
        few = ori.iloc[:300]
        for _, _, _, run in questions(50):
            run(few, few, control.iloc[:300], 0)

    plan = [(release, q) for release in releases for q in questions(args.attacks)]
    multivariate = questions(args.attacks)[1]
    plan.append(("noisy, control 7,500", multivariate))
    rows = []
    results = Path(args.results)
    with results.open("w") as sink:
        for release, (name, question, params, run) in plan:
            if (args.only and args.only not in name) or not release.startswith(args.release):
                continue
            syn_key = release.split(",")[0]
            ctl_key = "small_control" if "7,500" in release else "control"
            ctl_df = small_control if ctl_key == "small_control" else control
            a = earlier.get((release, name)) or anonymeter_row(run, ori, releases[syn_key], ctl_df, args.seed)
            b = intruder_row(question, params, [paths["original"], paths[ctl_key], paths[syn_key]], args.seed)
            for r in (a, b):
                r.update({"question": name, "release": release})
                sink.write(json.dumps(r) + "\n")
                sink.flush()
            rows.append((release, name, a, b))
            print(f"{release:22} {name:40} anonymeter {a['risk']:.3f} [{a['risk_ci'][0]:.3f}, {a['risk_ci'][1]:.3f}] "
                  f"{a['cpu_s']:8.2f} s | intruder {b['risk']:.3f} [{b['risk_ci'][0]:.3f}, {b['risk_ci'][1]:.3f}] "
                  f"{b['cpu_s']:6.2f} s", file=sys.stderr)
    print(table(rows))


def within(x, ci):
    return ci[0] - 1e-12 <= x <= ci[1] + 1e-12


def table(rows):
    lines = ["| release | question | anonymeter risk [95% CI] (attack / control / baseline rate) | intruder risk [95% CI] (attack / control / baseline rate) | each within the other's CI | CPU anonymeter | CPU intruder | CPU ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for release, name, a, b in rows:
        fmt = lambda r: (f"{r['risk']:.3f} [{r['risk_ci'][0]:.3f}, {r['risk_ci'][1]:.3f}] "
                         f"({r['attack_rate'][0]:.3f} / {r['control_rate'][0]:.3f} / {r['baseline_rate'][0]:.3f})")
        both = "yes" if within(b["risk"], a["risk_ci"]) and within(a["risk"], b["risk_ci"]) else (
            "intruder's in anonymeter's" if within(b["risk"], a["risk_ci"]) else
            "anonymeter's in intruder's" if within(a["risk"], b["risk_ci"]) else "**no**")
        ratio = a["cpu_s"] / max(b["cpu_s"], 0.01)
        lines.append(f"| {release} | {name} | {fmt(a)} | {fmt(b)} | {both} | {a['cpu_s']:.2f} s | {b['cpu_s']:.2f} s | {ratio:.0f}× |")
    return "\n".join(lines)


def logging_quiet():
    import logging
    logging.getLogger("anonymeter").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")


if __name__ == "__main__":
    main()
