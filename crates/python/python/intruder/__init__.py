"""intruder: simulate data intruders against masked microdata, from pandas, polars and pyarrow.

Every method and parameter of the command line is here under the same name: the keyword
arguments of each function are the parameters of the family's registry (``intruder.methods``
lists them), read by the same code as ``intruder risk``, ``intruder mask``, ``intruder attack``,
``intruder utility``, ``intruder synth`` and ``intruder run``, so the numbers are the same.

Tables go in and out through the Arrow PyCapsule interface (``__arrow_c_stream__``): a pandas,
polars or pyarrow table is read without a file in between, and results come back as the kind of
table that was passed (pandas in, pandas out). A data file path is read as the command line
reads it. Errors raise :class:`IntruderError` (a ``ValueError``) with the command line's message;
what the command line prints as ``warning:`` or ``note:`` (weights below 1, a delimiter it
detected, a measure it left out, a deprecated name) is raised with ``warnings.warn`` as an
:class:`IntruderWarning`, whatever the input (a DataFrame or a file path). Per-record results of a
pandas input keep its index.

Example::

    >>> import pandas as pd, intruder
    >>> df = pd.DataFrame({"age": ["20s", "20s", "30s"], "sex": ["F", "F", "M"]})
    >>> intruder.risk(df, ["age", "sex"]).summary["sample_uniques"]
    1
"""

from __future__ import annotations

import json
import os
import warnings as _warnings
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _intruder
from ._intruder import ArrowTable, IntruderError

__all__ = [
    "ArrowTable",
    "AttackResult",
    "DistanceResult",
    "MembershipResult",
    "QuestionResult",
    "Rate",
    "IntruderDeprecationWarning",
    "IntruderError",
    "IntruderWarning",
    "RiskResult",
    "RunResult",
    "attack",
    "mask",
    "methods",
    "read",
    "risk",
    "run",
    "synth",
    "utility",
]

__version__ = _intruder.__version__



class IntruderWarning(UserWarning):
    """What the toolkit warns about or notes on the inputs — the command line's ``warning:`` and
    ``note:`` lines: weights below 1, a weight total far from the population size, intruder
    records sharing a truth id, a delimiter or decimal comma detected in a file, a utility
    measure left out, an attack or measure that failed in one setting of an experiment. Filter
    them with ``warnings.simplefilter("ignore", intruder.IntruderWarning)``."""


class IntruderDeprecationWarning(IntruderWarning, FutureWarning):
    """An old parameter name that still works for one release (use the new one)."""


_FAMILIES = ("attack", "defence", "risk", "utility", "generator")
_OUTPUTS = ("pandas", "polars", "pyarrow", "arrow")


# --------------------------------------------------------------------------------------------
# Tables in and out.


def _kind_of(table: Any) -> str:
    """The kind of table a value is: pandas, polars, pyarrow, path or arrow (anything else with
    ``__arrow_c_stream__``)."""
    if isinstance(table, (str, os.PathLike)):
        return "path"
    module = type(table).__module__.split(".")[0]
    if module == "pandas":
        return "pandas"
    if module == "polars":
        return "polars"
    if module == "pyarrow":
        return "pyarrow"
    return "arrow"


def _stream(table: Any, name: str) -> Any:
    """An object the native module can read: a path, or something with ``__arrow_c_stream__``."""
    if isinstance(table, (str, os.PathLike)):
        return os.fspath(table)
    module = type(table).__module__.split(".")[0]
    if module == "pandas":
        # Through pyarrow without the index: pandas' own `__arrow_c_stream__` (≥ 2.2) adds an
        # index other than a plain range as a column `__index_level_0__`, which a method would
        # then read as data (a synthesiser would release it, a question predicate on it).
        import pyarrow as pa

        return pa.Table.from_pandas(table, preserve_index=False)
    if hasattr(table, "__arrow_c_stream__"):
        return table
    if module == "pyarrow" and hasattr(table, "to_batches"):
        return table
    if isinstance(table, Mapping):  # a dict of columns
        import pyarrow as pa

        return pa.table(dict(table))
    raise TypeError(
        f"{name}: expected a pandas, polars or pyarrow table (any object with "
        f"__arrow_c_stream__) or a data file path, found {type(table).__name__}"
    )


def _default_output() -> str:
    for kind in ("pandas", "polars", "pyarrow"):
        try:
            __import__(kind)
            if kind == "pandas":
                __import__("pyarrow")
            return kind
        except ImportError:
            continue
    return "arrow"


def _convert(table: Optional[ArrowTable], kind: str) -> Any:
    """A native table as a table of ``kind``."""
    if table is None:
        return None
    if kind in ("path", "arrow") or kind not in _OUTPUTS:
        kind = _default_output() if kind == "path" else "pyarrow"
        try:
            __import__("pyarrow")
        except ImportError:
            return table
    if kind == "pandas":
        import pandas as pd

        if hasattr(pd.DataFrame, "from_arrow"):
            return pd.DataFrame.from_arrow(table)
        import pyarrow as pa

        return pa.table(table).to_pandas()
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(table)
    if kind == "pyarrow":
        import pyarrow as pa

        return pa.table(table)
    return table


def _output_kind(output: Optional[str], *tables: Any) -> str:
    if output is not None:
        if output not in _OUTPUTS:
            raise IntruderError(
                f"output: unknown kind '{output}'; expected one of: {', '.join(_OUTPUTS)}"
            )
        return output
    for t in tables:
        kind = _kind_of(t)
        if kind != "path":
            return kind
    return _default_output()


def _warn(messages: Sequence[str]) -> None:
    for m in messages:
        category = IntruderDeprecationWarning if "is deprecated" in m else IntruderWarning
        _warnings.warn(m, category, stacklevel=3)


def _pandas_index(table: Any) -> Any:
    """The index of a pandas input (``None`` for any other kind of table)."""
    if type(table).__module__.split(".")[0] == "pandas" and hasattr(table, "index"):
        return table.index
    return None


def _with_index(result: Any, index: Any, rows: Optional[Sequence[int]] = None) -> Any:
    """A pandas result with the input's index: row ``i`` of the result is row ``rows[i]``
    (1-based) of the input, or row ``i`` itself."""
    if index is None or type(result).__module__.split(".")[0] != "pandas":
        return result
    if rows is None:
        if len(result) != len(index):
            return result
        result.index = index
    else:
        result.index = index[[r - 1 for r in rows]]
    return result


def _params(**params: Any) -> Dict[str, Any]:
    """Keyword arguments as a parameter table: ``None`` means "not given"."""
    return {k: v for k, v in params.items() if v is not None}


def _listify(x: Union[str, Sequence[str], None]) -> Optional[List[str]]:
    if x is None:
        return None
    if isinstance(x, str):
        return [x]
    return list(x)


# --------------------------------------------------------------------------------------------
# methods()


def methods(family: str) -> List[Dict[str, Any]]:
    """The methods of a family, with their parameters, from the registry the command line uses.

    ``family`` is ``"attack"``, ``"defence"``, ``"risk"``, ``"utility"`` or ``"generator"``.
    Each method is a dict with ``name``, ``summary``, ``reference``, ``parameters``,
    ``figures`` and ``example``; each parameter has ``name``, ``type``, ``kind`` (one word),
    ``choices``, ``required``, ``default``, ``range``, ``role`` (the schema role it defaults
    to), ``aliases``, ``doc``, ``common`` (shared by the family) and ``example`` (its value in
    the method's example, as TOML text, or None). A defence's ``example`` is a dict of settings
    that masks household-wave1.csv of ``synth("household-panel")`` as written
    (``mask(data, [{"method": m["name"], **m["example"]}], seed=1)``); None when the method
    needs none or has none. Every parameter is a keyword
    argument of the family's function. ``figures`` lists what a risk or utility measure
    reports (``id`` as in its summary, the human ``name`` reports use, ``unit``, ``reference``,
    ``non_negative``); an attack's figures are the evaluator's, so its list is empty.

    Example::

        >>> import intruder
        >>> [m["name"] for m in intruder.methods("risk")][:2]
        ['frequency', 'individual']
    """
    return json.loads(_intruder.methods(family))


# --------------------------------------------------------------------------------------------
# risk()


class RiskResult:
    """What :func:`risk` returns: ``summary`` (the figures of ``intruder risk --format json``)
    and ``per_record`` (a table with ``row``, 1-based, and the measure's per-record columns, when
    asked for with ``per_record=True``; from a pandas input it keeps the input's index)."""

    __slots__ = ("summary", "per_record")

    def __init__(self, summary: Dict[str, Any], per_record: Any) -> None:
        self.summary = summary
        self.per_record = per_record

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.summary.items() if not isinstance(v, (list, dict))}
        return f"RiskResult({shown})"


def risk(
    data: Any,
    keys: Union[str, Sequence[str], None] = None,
    *,
    missing: str = "listwise",
    measure: str = "frequency",
    weight: Optional[str] = None,
    sensitive: Optional[str] = None,
    group: Optional[str] = None,
    per_record: bool = False,
    schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    output: Optional[str] = None,
    **params: Any,
) -> RiskResult:
    """Disclosure risk of a table, as ``intruder risk``.

    ``keys`` are the key variables (default: the columns whose schema role is ``key``);
    ``missing`` is ``listwise``, ``as-value`` or ``wildcard``; ``measure`` is one of
    ``methods("risk")`` (the registry's measures; the default is ``frequency``);
    ``weight``, ``sensitive`` and ``group`` name columns of those roles. Any other parameter of
    the measure is a keyword argument (``population_size=``, ``max_msu_size=``, …).
    ``schema`` declares types and roles (``{"w": "weight", "m": "set"}`` or a TOML path).

    Example::

        >>> import pandas as pd, intruder
        >>> df = pd.DataFrame({"age": [40, 36, 40], "sex": ["M", "F", "M"]})
        >>> r = intruder.risk(df, ["age", "sex"], per_record=True)
        >>> r.summary["sample_uniques"], list(r.per_record["k"])
        (1, [2, 1, 2])
    """
    table = _params(
        keys=_listify(keys),
        missing=missing,
        measure=measure,
        weight=weight,
        sensitive=sensitive,
        group=group,
        **params,
    )
    summary, records, warned = _intruder.risk(
        _stream(data, "data"), table, schema, per_record
    )
    _warn(warned)
    kind = _output_kind(output, data)
    records = _with_index(_convert(records, kind), _pandas_index(data)) if per_record else None
    return RiskResult(json.loads(summary), records)


# --------------------------------------------------------------------------------------------
# mask()


def mask(
    data: Any,
    steps: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]],
    *,
    seed: int,
    schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    output: Optional[str] = None,
    check: bool = True,
    check_keys: Optional[Sequence[str]] = None,
) -> Tuple[Any, Dict[str, Any]]:
    """Masks a table with a pipeline of defences, as ``intruder mask``.

    ``steps`` is a list of dicts, each a pipeline step: ``{"method": "local-suppression",
    "keys": [...], "k": 3}`` (the methods and their parameters: ``methods("defence")``). Every
    random step draws from ``seed``. Returns ``(masked_table, log)``: the masked table (truth
    columns pass through, subset with the records; from a pandas input it keeps the index of the
    records kept) and the change log as one flat dict — ``rows_in``, ``rows_out``,
    ``cells_changed``, ``suppressions``, ``records_changed``, ``kept_rows`` (1-based rows of the
    input; :func:`utility` reads them), ``steps`` (the same per step), ``pipeline``, ``seed``.

    Unless ``check=False``, every promise of the pipeline (k on the keys of local suppression,
    risk suppression, record removal, MDAV; ``protect_against`` names the rule) is
    cross-examined with the exact attack on the output, every original record known:
    ``log["cross_examination"]`` holds the checks (per rule: the smallest class, the records
    below the promise, the attack's expected correct re-identifications per target) and each
    broken promise is also a warning naming the rule and the figure. ``check_keys`` adds a check
    on other keys.

    Example::

        >>> import pandas as pd, intruder
        >>> df = pd.DataFrame({"age": ["20s", "20s", "30s", "30s", "30s"],
        ...                    "sex": ["F", "F", "M", "M", "F"]})
        >>> masked, log = intruder.mask(df, [{"method": "local-suppression",
        ...     "keys": ["age", "sex"], "k": 2}], seed=1)
        >>> log["suppressions"], masked["age"].isna().tolist()
        (3, [True, True, False, False, True])
        >>> log["cross_examination"]["checks"][0]["verdict"]
        'holds'
    """
    if isinstance(steps, Mapping):
        steps = [steps]
    table, log, warned = _intruder.mask(
        _stream(data, "data"),
        [dict(s) for s in steps],
        int(seed),
        schema,
        bool(check),
        None if check_keys is None else [str(k) for k in check_keys],
    )
    _warn(warned)
    log = json.loads(log)
    checked = log.get("cross_examination") or {}
    for w in checked.get("warnings", []):
        _warnings.warn(w, IntruderWarning, stacklevel=2)
    # A synthesiser's records are no input record: they keep no index of the input.
    index = None if log.get("synthetic") else _pandas_index(data)
    masked = _with_index(_convert(table, _output_kind(output, data)), index, log.get("kept_rows"))
    return masked, log


# --------------------------------------------------------------------------------------------
# attack()


class AttackResult:
    """What :func:`attack` returns: ``evaluation`` (the figures of ``intruder attack --format
    json``), ``candidates`` (one row per ranked candidate: ``intruder_row``, ``released_row``,
    both 1-based, ``rank`` and ``score``, higher is better; from pandas inputs also
    ``intruder_index`` and ``released_index``, the inputs' index of each) and ``per_record``
    (one row per intruder record, as ``intruder attack --per-record``; from a pandas input it
    keeps the intruder table's index)."""

    __slots__ = ("evaluation", "candidates", "per_record")

    def __init__(self, evaluation: Dict[str, Any], candidates: Any, per_record: Any) -> None:
        self.evaluation = evaluation
        self.candidates = candidates
        self.per_record = per_record

    def __repr__(self) -> str:
        shown = {
            k: v for k, v in self.evaluation.items() if not isinstance(v, (list, dict))
        }
        return f"AttackResult({shown})"


class Rate(NamedTuple):
    """A success rate: the centre of its Wilson score interval and the interval's half-width
    (anonymeter's ``SuccessRate``)."""

    value: float
    error: float


_QUESTIONS = ("singling-out", "linkability", "inference", "membership", "dcr")


class QuestionResult:
    """What :func:`attack` returns for the three questions (``method="singling-out"``,
    ``"linkability"`` or ``"inference"``), under anonymeter's names: ``risk`` and ``risk_ci``
    (its interval), ``attack_rate``, ``control_rate`` and ``baseline_rate`` (each a
    :class:`Rate`), ``n_attacks``, ``n_success``, ``n_control``, ``n_baseline``,
    ``confidence_level``, ``warnings``, ``params`` (as read, defaults filled in) and ``report``
    (the figures of ``intruder attack --format json``)."""

    __slots__ = (
        "question",
        "risk",
        "risk_ci",
        "attack_rate",
        "control_rate",
        "baseline_rate",
        "n_attacks",
        "n_success",
        "n_control",
        "n_baseline",
        "confidence_level",
        "warnings",
        "params",
        "report",
    )

    def __init__(self, report: Dict[str, Any]) -> None:
        self.report = report
        self.question = report["question"]
        self.risk = report["risk"]
        self.risk_ci = tuple(report["risk_ci"])
        for name in ("attack_rate", "control_rate", "baseline_rate"):
            setattr(self, name, Rate(report[name], report[name + "_error"]))
        for name in ("n_attacks", "n_success", "n_control", "n_baseline", "confidence_level"):
            setattr(self, name, report[name])
        self.warnings = list(report["warnings"])
        self.params = report["params"]

    def __repr__(self) -> str:
        lo, hi = self.risk_ci
        return (
            f"QuestionResult({self.question}: risk={self.risk:.4g} [{lo:.4g}, {hi:.4g}], "
            f"attack_rate={self.attack_rate.value:.4g}, control_rate={self.control_rate.value:.4g}, "
            f"baseline_rate={self.baseline_rate.value:.4g}, n_attacks={self.n_attacks})"
        )


class _Figures:
    """A result whose attributes are the figures of its report."""

    __slots__ = ("report",)
    _FIELDS: Tuple[str, ...] = ()

    def __init__(self, report: Dict[str, Any]) -> None:
        self.report = report

    def __getattr__(self, name: str) -> Any:
        if name in type(self)._FIELDS:
            return self.report[name]
        raise AttributeError(name)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(type(self)._FIELDS))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={self.report[k]:.4g}" if isinstance(self.report[k], float) else f"{k}={self.report[k]}"
            for k in type(self)._FIELDS
            if k in self.report and not isinstance(self.report[k], (list, dict))
        )
        return f"{type(self).__name__}({shown})"


class MembershipResult(_Figures):
    """What :func:`attack` returns for ``method="membership"``: ``auc``, ``tpr_at_fpr_1``,
    ``tpr_at_fpr_10``, ``advantage``, ``n_members``, ``n_non_members``, ``attack``,
    ``warnings``, ``params`` and ``report`` (the figures of ``intruder attack --format
    json``)."""

    __slots__ = ()
    _FIELDS = (
        "attack",
        "auc",
        "tpr_at_fpr_1",
        "tpr_at_fpr_10",
        "advantage",
        "n_members",
        "n_non_members",
        "warnings",
        "params",
    )


class DistanceResult(_Figures):
    """What :func:`attack` returns for ``method="dcr"``: SDMetrics' ``overfitting_protection``
    (with ``closer_to_training``) and ``baseline_protection``, the median distances
    ``median_dcr_release``, ``median_dcr_holdout``, ``median_dcr_random``, the ratios
    ``median_nndr_release`` and ``median_nndr_holdout``, ``exact_copies``, ``n_release``,
    ``warnings``, ``params`` and ``report``."""

    __slots__ = ()
    _FIELDS = (
        "overfitting_protection",
        "closer_to_training",
        "baseline_protection",
        "median_dcr_release",
        "median_dcr_holdout",
        "median_dcr_random",
        "median_nndr_release",
        "median_nndr_holdout",
        "exact_copies",
        "n_release",
        "warnings",
        "params",
    )


def _question(
    method: str,
    original: Any,
    released: Any,
    control: Any,
    seed: Optional[int],
    schemas: Tuple[Any, Any, Any],
    params: Dict[str, Any],
) -> Any:
    """A question without truth, as :func:`attack` asks it."""
    if control is None:
        raise IntruderError(
            f"method={method!r} needs control=: real records of the same population that the "
            "release never saw (without them the risk cannot separate what the release says "
            "about these people from what it says about everyone)"
        )
    report, warned = _intruder.question(
        _stream(original, "original"),
        _stream(control, "control"),
        _stream(released, "released"),
        method,
        _params(**params),
        0 if seed is None else int(seed),
        *schemas,
    )
    _warn(warned)
    parsed = json.loads(report)
    kind = {"membership": MembershipResult, "dcr": DistanceResult}.get(
        parsed["question"], QuestionResult
    )
    return kind(parsed)


def attack(
    intruder: Any,
    released: Any,
    *,
    method: str = "exact",
    keys: Union[str, Sequence[str], None] = None,
    truth: Optional[str] = None,
    truth_intruder: Optional[str] = None,
    truth_released: Optional[str] = None,
    sensitive_truth: Optional[str] = None,
    seed: Optional[int] = None,
    schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    intruder_schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    released_schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    output: Optional[str] = None,
    control: Any = None,
    control_schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    **params: Any,
) -> Union[AttackResult, QuestionResult, MembershipResult, DistanceResult]:
    """Links an intruder's table to a released table and scores the attack, as
    ``intruder attack``; or asks one of the three questions of anonymisation.

    **The three questions** (``method="singling-out"``, ``"linkability"`` or ``"inference"``,
    as anonymeter asks them): the first table is the *original* the release was made from,
    ``control`` the real records of the same population the release never saw, and the
    parameters are anonymeter's (``n_attacks=``, ``mode=``, ``n_cols=``, ``aux_cols=`` — two
    lists for linkability, one for inference —, ``n_neighbors=``, ``secret=``,
    ``regression=``, ``tolerance=``, ``confidence_level=``). They need no truth and return a
    :class:`QuestionResult`; ``intruder_schema=`` is the original's schema::

        >>> import pandas as pd, intruder
        >>> ori = pd.DataFrame({"age": [20, 35, 50, 65], "town": ["a", "b", "c", "d"]})
        >>> ctl = pd.DataFrame({"age": [22, 37, 52, 67], "town": ["b", "c", "d", "a"]})
        >>> q = intruder.attack(ori, ori, method="linkability", control=ctl,
        ...                     aux_cols=[["age"], ["town"]], n_attacks=4, seed=7)
        >>> q.n_success, q.n_control
        (4, 0.0)

    ``method="membership"`` (members: the first table's records; non-members: ``control``'s;
    ``attack="distance"`` or ``"density-ratio"``, ``n_targets=``, ``columns=``) returns a
    :class:`MembershipResult` (AUC, TPR at FPR 1% and 10%); ``method="dcr"`` (``columns=``)
    a :class:`DistanceResult` (SDMetrics' DCR protections and the NNDR).

    ``method`` is one of ``methods("attack")`` (the registry's attacks and the
    questions); ``keys`` are the key variables as named in the intruder's table (default:
    its columns with the schema role ``key``); ``truth`` names the person id in both tables
    (or ``truth_intruder`` with ``truth_released``), read as ground truth that only the
    evaluator sees. Any other parameter of the attack is a keyword argument (``key_map=``,
    ``missing=``, ``top_k=``, ``sensitive=`` with ``sensitive_truth=``, …). ``schema`` applies
    to both tables unless ``intruder_schema``/``released_schema`` are given.

    ``engine="datafusion"`` (with ``memory_limit=``) or ``"ballista://HOST:PORT"`` runs the
    exact attack and Fellegi–Sunter as the command line's ``--engine`` does, with the same
    figures (a package built with the ``cluster`` feature). Given two file paths (schemas as
    files, not dicts), the engine reads the files itself and the package reads only the
    truth and the released sensitive variable, so memory stays near the engine's limit
    (docs/cluster.md); given data frames, they reach the engine as temporary copies.

    Example::

        >>> import pandas as pd, intruder
        >>> i = pd.DataFrame({"id": [7], "area": [2], "beds": [5]})
        >>> r = pd.DataFrame({"id": [1, 7, 3], "area": [2, 2, 1], "beds": [5, 5, 3]})
        >>> a = intruder.attack(i, r, keys=["area", "beds"], truth="id", seed=1)
        >>> a.evaluation["expected_correct"], len(a.candidates)
        (0.5, 2)
    """
    if method.replace("_", "-") in _QUESTIONS:
        given = {
            "keys": keys,
            "truth": truth,
            "truth_intruder": truth_intruder,
            "truth_released": truth_released,
            "sensitive_truth": sensitive_truth,
            "output": output,
        }
        unused = [f"{k}=" for k, v in given.items() if v is not None]
        if unused:
            raise IntruderError(
                f"{', '.join(unused)} apply to linkage attacks against the truth, not to "
                f"method={method!r}"
            )
        return _question(
            method,
            intruder,
            released,
            control,
            seed,
            (
                intruder_schema if intruder_schema is not None else schema,
                control_schema if control_schema is not None else schema,
                released_schema if released_schema is not None else schema,
            ),
            params,
        )
    if control is not None or control_schema is not None:
        raise IntruderError(
            "control= belongs to the three questions (method='singling-out', 'linkability' "
            f"or 'inference'); method={method!r} links an intruder's table to the release"
        )
    table = _params(method=method, keys=_listify(keys), **params)
    evaluation, candidates, records, warned = _intruder.attack(
        _stream(intruder, "intruder"),
        _stream(released, "released"),
        table,
        truth,
        truth_intruder,
        truth_released,
        sensitive_truth,
        0 if seed is None else int(seed),
        intruder_schema if intruder_schema is not None else schema,
        released_schema if released_schema is not None else schema,
    )
    _warn(warned)
    kind = _output_kind(output, intruder, released)
    candidates = _convert(candidates, kind)
    known, rel = _pandas_index(intruder), _pandas_index(released)
    if type(candidates).__module__.split(".")[0] == "pandas":
        # The input's index of each candidate pair (its rows are 1-based row numbers).
        if known is not None:
            candidates["intruder_index"] = known[candidates["intruder_row"] - 1]
        if rel is not None:
            candidates["released_index"] = rel[candidates["released_row"] - 1]
    return AttackResult(
        json.loads(evaluation), candidates, _with_index(_convert(records, kind), known)
    )


# --------------------------------------------------------------------------------------------
# utility()


def utility(
    original: Any,
    masked: Any,
    *,
    variables: Union[str, Sequence[str], None] = None,
    measures: Union[str, Sequence[str], None] = None,
    log: Optional[Mapping[str, Any]] = None,
    schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    **params: Any,
) -> Dict[str, Any]:
    """What masking cost, as ``intruder utility --format json``.

    ``variables`` are the columns compared (default: the key and sensitive columns of the
    schema); ``measures`` are names from ``methods("utility")`` (default: those that apply);
    ``log`` is the change log :func:`mask` returned, so that records removed by masking are
    matched (``intruder utility --log``). Other parameters (``model=``, ``family=``, …) are
    keyword arguments.

    Example::

        >>> import pandas as pd, intruder
        >>> a = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [2.0, 4.0, 7.0]})
        >>> b = pd.DataFrame({"x": [1.0, 2.0, 4.0], "y": [2.0, 4.0, 7.0]})
        >>> u = intruder.utility(a, b, variables=["x", "y"], measures="moments")
        >>> round(u["moments"][0]["mean_masked"], 3), u["moments"][1]["mean_diff"]
        (2.333, 0.0)
    """
    table = _params(variables=_listify(variables), **params)
    report, warned = _intruder.utility(
        _stream(original, "original"),
        _stream(masked, "masked"),
        table,
        _listify(measures),
        None if log is None else json.dumps(dict(log)),
        schema,
    )
    _warn(warned)
    return json.loads(report)


# --------------------------------------------------------------------------------------------
# synth()


def synth(
    name: str,
    *,
    n: Optional[int] = None,
    seed: int = 1,
    output: Optional[str] = None,
    **params: Any,
) -> Dict[str, Any]:
    """A seeded synthetic data set with ground truth, as ``intruder synth NAME``.

    ``name`` is one of ``methods("generator")``; ``n`` the size; other parameters are keyword
    arguments (``keys=``, ``fraction=``, ``preset=``, …). Returns a dict from file stem
    (``population``, ``sample``, ``file-a``, …) to table (pandas unless ``output`` says
    ``polars``, ``pyarrow`` or ``arrow``).

    Example::

        >>> import intruder
        >>> files = intruder.synth("linkage-pair", n=50, seed=3)
        >>> sorted(files)[:2]
        ['file-a', 'file-b']
    """
    tables, _described = _intruder.synth(name, n, int(seed), _params(**params))
    kind = _output_kind(output)
    return {stem: _convert(t, kind) for stem, t in tables}


# --------------------------------------------------------------------------------------------
# run()


class RunResult:
    """What :func:`run` returns: ``results`` (the ``results.csv`` table), ``out`` (the output
    directory), ``executed`` (runs executed now) and ``runs`` (runs in the plan)."""

    __slots__ = ("results", "out", "executed", "runs")

    def __init__(self, results: Any, out: str, executed: int, runs: int) -> None:
        self.results = results
        self.out = out
        self.executed = executed
        self.runs = runs

    def __repr__(self) -> str:
        return f"RunResult(out={self.out!r}, executed={self.executed}, runs={self.runs})"


def run(
    path: Union[str, os.PathLike],
    *,
    out: Union[str, os.PathLike, None] = None,
    threads: Optional[int] = None,
    force: bool = False,
    size: Optional[str] = None,
    output: Optional[str] = None,
) -> RunResult:
    """Runs an experiment file, as ``intruder run``: every run not stored yet in ``out``
    (default ``results/<experiment name>/``) is executed on ``threads`` worker threads
    (``force=True`` reruns stored runs). ``size="tiny"`` or ``"paper"`` uses the file's
    ``[tiny]`` or ``[paper]`` sizes (``intruder run --tiny`` / ``--paper``).

    Example::

        >>> import intruder, tempfile
        >>> r = intruder.run("experiments/quickstart.toml", out=tempfile.mkdtemp(), size="tiny")
        >>> r.executed == r.runs, list(r.results.columns)[-2:]
        (True, ['metric', 'value'])
    """
    out_dir, results, warned, executed, runs = _intruder.run(
        os.fspath(path), None if out is None else os.fspath(out), threads, force, size
    )
    _warn(warned)
    return RunResult(_convert(results, _output_kind(output)), out_dir, executed, runs)


# --------------------------------------------------------------------------------------------
# read()


def read(
    data: Any,
    *,
    schema: Union[Mapping[str, Any], str, os.PathLike, None] = None,
    output: Optional[str] = None,
) -> Tuple[Any, str]:
    """A table as the toolkit reads it (types inferred or declared, missing cells as nulls),
    with its schema as TOML: what the other functions see of ``data``.

    Example::

        >>> import pandas as pd, intruder
        >>> t, schema = intruder.read(pd.DataFrame({"a": ["1", "NA", "3"]}))
        >>> list(t["a"].isna())
        [False, True, False]
    """
    table, schema_text = _intruder.read(_stream(data, "data"), schema)
    return _convert(table, _output_kind(output, data)), schema_text
