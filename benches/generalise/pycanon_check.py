"""generalise's output checked by pycanon 1.3.6 (k, ℓ, entropy ℓ, t with equal distance for a
categorical attribute), suppressed records dropped (they are released blank on every key).

Usage (a Python with the toolkit's package, pandas and pycanon installed):
    python3 benches/generalise/pycanon_check.py > benches/generalise/pycanon.txt

pycanon measures the released complete records only, so its t compares each class with their
distribution, where ARX's (and ours) compares with the whole file's.
"""
import pathlib

import pandas as pd
import intruder
from pycanon import anonymity

ADULT = pathlib.Path(__file__).resolve().parents[2] / "data" / "arx-adult"
KEYS = ["age", "sex", "race", "education", "marital-status"]
df = pd.read_csv(f"{ADULT}/adult_subset.csv", sep=";", dtype=str)
hier = {c: f"{ADULT}/hierarchies/{c}.csv" for c in KEYS}
cases = [
    ("k=5", {"k": 5}),
    ("k=5, distinct 3-diversity of occupation", {"k": 5, "models": [{"model": "l-diversity", "sensitive": "occupation", "l": 3, "variant": "distinct"}]}),
    ("k=5, entropy 3-diversity of occupation", {"k": 5, "models": [{"model": "l-diversity", "sensitive": "occupation", "l": 3, "variant": "entropy"}]}),
    ("k=5, 0.3-closeness of occupation (equal)", {"k": 5, "models": [{"model": "t-closeness", "sensitive": "occupation", "t": 0.3, "distance": "equal"}]}),
]
for name, extra in cases:
    step = {"method": "generalise", "hierarchies": hier, "suppression_limit": 0.05,
            "metric": "loss", "protect_against": "listwise", **extra}
    masked, log = intruder.mask(df, [step], seed=1, check=False)
    d = log["log"]["steps"][0]["details"]
    kept = masked.dropna(subset=KEYS).astype(str).reset_index(drop=True)
    k = anonymity.k_anonymity(kept, KEYS)
    l = anonymity.l_diversity(kept, KEYS, ["occupation"])
    el = anonymity.entropy_l_diversity(kept, KEYS, ["occupation"])
    t = anonymity.t_closeness(kept, KEYS, ["occupation"])
    print(f"{name}: levels {d['levels']}, suppressed {d['suppressed']}; pycanon on the {len(kept)} released complete records: k = {k}, l = {l}, entropy l = {el:.4f}, t = {t:.4f}")
