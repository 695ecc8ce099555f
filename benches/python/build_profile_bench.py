"""Runtime of the Python package built with different cargo profiles (BENCHMARKS.md §11): the
same three calls timed on one machine, run alternately for each build so that the machine's
load falls on every build alike. Usage, once per built package (each in its own venv):

    python benches/python/build_profile_bench.py LABEL

1. `intruder.risk` on 10,000,000 rows x 10 categorical keys (pandas Categorical, int8 codes;
   best of 5);
2. local suppression to k = 3 on 6 keys of the first 300,000 rows (one call);
3. exact matching of 20,000 intruder records against those 300,000 on 7 keys (one call).
"""

import sys
import time

import numpy as np
import pandas as pd

import intruder

label = sys.argv[1] if len(sys.argv) > 1 else "build"
rng = np.random.default_rng(20261126)
n = 10_000_000
cards = [2, 3, 5, 7, 9, 12, 16, 20, 24, 30]
df = pd.DataFrame(
    {
        f"k{j}": pd.Categorical.from_codes(
            rng.integers(0, c, n).astype("int8"), categories=[str(i) for i in range(c)]
        )
        for j, c in enumerate(cards)
    }
)
keys = list(df.columns)
best = 1e9
for _ in range(5):
    t = time.perf_counter()
    r = intruder.risk(df, keys)
    best = min(best, time.perf_counter() - t)
print(label, "risk best of 5: %.3f s" % best, r.summary["sample_uniques"])
m = df.iloc[:300_000]
t = time.perf_counter()
masked, log = intruder.mask(
    m, [{"method": "local-suppression", "keys": keys[:6], "k": 3}], seed=1
)
print(label, "suppression 300k: %.3f s" % (time.perf_counter() - t), log["suppressions"])
t = time.perf_counter()
a = intruder.attack(
    m.iloc[:20000].assign(pid=range(20000)),
    m.assign(pid=range(len(m))),
    keys=keys[:7],
    truth="pid",
)
print(label, "exact attack 20k x 300k: %.3f s" % (time.perf_counter() - t))
