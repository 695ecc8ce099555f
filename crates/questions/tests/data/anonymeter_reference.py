"""Reference numbers from anonymeter 1.1.0 for crates/questions/tests (rates.rs, worked.rs).

Run with anonymeter installed (Python 3.11):
    python3 -m venv /tmp/anon && /tmp/anon/bin/pip install anonymeter==1.1.0
    /tmp/anon/bin/python anonymeter_reference.py > anonymeter_reference.csv

Lines (comma-separated, numbers as Python's repr):
    rate,n_total,n_success,confidence_level,value,error
        anonymeter.stats.confidence.success_rate
    risk,n_attacks,n_success,n_control,n_baseline,confidence_level,attack,attack_error,control,control_error,baseline,baseline_error,risk,ci_low,ci_high
        anonymeter.stats.confidence.EvaluationResults(...) and its .risk()
    correction,n_original,n_control,sizes (;-separated),successes (;-separated),anonymeter_factor,least_squares_factor
        singling out's control-size correction: anonymeter's _fit_model(sizes, successes)
        (scipy's curve_fit from anonymeter's starting point), factor = model(n_original) /
        model(n_control); and the same factor at the least-squares optimum (a grid over log w,
        then scipy's bounded minimize_scalar, norm at its optimum for each w). curve_fit stops
        far from the optimum on these series (its sum of squares is 10^2-10^4 times larger).
    example,question,n_success,n_control
        the evaluators on the worked examples of worked.rs (whose main and control counts do
        not depend on anonymeter's random draws)
"""

import warnings

import numpy as np
import pandas as pd

from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator
from anonymeter.evaluators.singling_out_evaluator import _fit_model, singling_out_probability_integral
from anonymeter.stats.confidence import EvaluationResults, success_rate
from scipy.optimize import minimize_scalar

warnings.simplefilter("ignore")

for n, k, cl in [(6, 4, 0.95), (6, 2, 0.95), (6, 0, 0.95), (6, 6, 0.95), (500, 37, 0.95), (2000, 0, 0.95),
                 (2000, 2000, 0.95), (2000, 613, 0.95), (2000, 613, 0.99), (2000, 613, 0.68), (100, 12.75, 0.95)]:
    r = success_rate(n_total=n, n_success=k, confidence_level=cl)
    print(f"rate,{n},{k!r},{cl!r},{r.value!r},{r.error!r}")

for n, s, c, b, cl in [(6, 4, 2, 1, 0.95), (500, 120, 40, 3, 0.95), (2000, 1950, 30, 2, 0.95), (2000, 40, 55, 60, 0.95),
                       (2000, 613, 598.4, 12, 0.9), (100, 12, 3.25, 1, 0.95)]:
    e = EvaluationResults(n_attacks=n, n_success=s, n_baseline=b, n_control=c, confidence_level=cl)
    risk = e.risk()
    print(f"risk,{n},{s},{c!r},{b},{cl!r},{e.attack_rate.value!r},{e.attack_rate.error!r},"
          f"{e.control_rate.value!r},{e.control_rate.error!r},{e.baseline_rate.value!r},{e.baseline_rate.error!r},"
          f"{risk.value!r},{risk.ci[0]!r},{risk.ci[1]!r}")

# The control-size correction on successes that follow the model (plus noise), and on a
# flat series.
rng = np.random.default_rng(0)
for n_ori, n_c, w, scale, noise in [(30000, 6000, 2e-4, 600.0, 3.0), (20000, 4000, 1e-3, 300.0, 2.0),
                                    (10000, 2500, 5e-5, 50.0, 1.0)]:
    sizes = np.repeat(np.linspace(min(1000, n_c), n_c, 10).astype(int), 5)
    model = np.array([singling_out_probability_integral(s, 0, w) for s in sizes])
    succ = np.round(scale * model / model.max() + rng.normal(0, noise, len(sizes)))
    fitted = _fit_model(sizes, succ)
    factor = fitted(n_ori) / fitted(n_c)

    def sse(log_w):
        f = np.array([singling_out_probability_integral(s, 0, 10.0**log_w) for s in sizes])
        norm = max(0.0, (succ * f).sum() / (f * f).sum())
        return ((succ - norm * f) ** 2).sum()

    grid = np.linspace(np.log10(1e-4 / sizes.max()), 0.0, 2001)
    i = int(np.argmin([sse(g) for g in grid]))
    opt = minimize_scalar(sse, bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 2000)]), method="bounded",
                          options={"xatol": 1e-12})
    w = 10.0**opt.x
    least = singling_out_probability_integral(n_ori, 0, w) / singling_out_probability_integral(n_c, 0, w)
    print(f"correction,{n_ori},{n_c},{';'.join(str(s) for s in sizes)},{';'.join(repr(float(s)) for s in succ)},"
          f"{factor!r},{least!r}")

# Worked examples (worked.rs).
R = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70], "town": list("abcdef"),
                  "income": [100.0, 200.0, 300.0, 400.0, 500.0, 600.0]})
O = pd.DataFrame({"age": [21, 31, 41, 52, 69, 58], "town": list("abdcfe"),
                  "income": [104.0, 215.0, 290.0, 400.0, 640.0, 476.0]})
C = pd.DataFrame({"age": [22, 33, 44, 48, 66, 12], "town": list("bccdaf"),
                  "income": [96.0, 230.0, 300.0, 385.0, 560.0, 150.0]})
res = LinkabilityEvaluator(ori=O, syn=R, control=C, aux_cols=(["age"], ["town"]), n_attacks=6,
                           n_neighbors=1).evaluate(n_jobs=1).results()
print(f"example,linkability,{res.n_success},{res.n_control}")
for name, secret, regression in [("inference-town", "town", False), ("inference-income", "income", True),
                                 ("inference-income-exact", "income", False)]:
    res = InferenceEvaluator(ori=O, syn=R, control=C, aux_cols=["age"], secret=secret, regression=regression,
                             n_attacks=6).evaluate(n_jobs=1).results()
    print(f"example,{name},{res.n_success},{res.n_control}")

# Univariate singling out: the release yields 4 predicates that single out in it.
R = pd.DataFrame({"age": [20, 30, 30, 40, 40, 50], "town": list("aabbcc")})
O = pd.DataFrame({"age": [18, 20, 20, 35, 45, 50, 55], "town": list("xyyxyxy")})
C = pd.DataFrame({"age": [15, 19, 33, 47, 50, 58], "town": list("xyxyxy")})
res = SinglingOutEvaluator(ori=O, syn=R, control=C, n_attacks=6, seed=1).evaluate(mode="univariate").results()
print(f"example,singling-out-univariate,{res.n_success},{res.n_control}")

# Multivariate singling out over both columns: 4 of the release's 6 records give a predicate
# that singles out in it.
R = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70], "town": list("aabbcc")})
O = pd.DataFrame({"age": [18, 19, 39, 45, 55, 75], "town": list("aabbbc")})
C = pd.DataFrame({"age": [10, 35, 41, 49, 65, 80], "town": list("babbca")})
res = SinglingOutEvaluator(ori=O, syn=R, control=C, n_attacks=6, n_cols=2, max_attempts=10000,
                           seed=1).evaluate(mode="multivariate").results()
print(f"example,singling-out-multivariate,{res.n_success},{res.n_control}")
