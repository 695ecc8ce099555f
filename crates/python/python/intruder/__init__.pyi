"""Type stubs of ``intruder``: the public API (docstrings and examples in ``__init__.py``)."""

import os
from typing import (
    Any,
    Dict,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    overload,
)

from ._intruder import ArrowTable as ArrowTable
from ._intruder import IntruderError as IntruderError

class IntruderWarning(UserWarning): ...
class IntruderDeprecationWarning(IntruderWarning, FutureWarning): ...

__version__: str

#: A table: pandas or polars DataFrame, pyarrow Table or RecordBatch, any object with
#: ``__arrow_c_stream__``, or the path of a data file (CSV, plain or gzip) read as the CLI reads it.
Table = Any
#: A schema: ``{"column": "type or role" | {"type": …, "role": …, "categories": […]}}`` or the
#: path of a schema TOML file.
SchemaLike = Union[Mapping[str, Any], str, os.PathLike, None]
Columns = Union[str, Sequence[str], None]
Family = Literal["attack", "defence", "risk", "utility", "generator"]
Output = Literal["pandas", "polars", "pyarrow", "arrow"]

def methods(family: Family) -> List[Dict[str, Any]]: ...

class RiskResult:
    summary: Dict[str, Any]
    per_record: Any
    def __init__(self, summary: Dict[str, Any], per_record: Any) -> None: ...

def risk(
    data: Table,
    keys: Columns = None,
    *,
    missing: Literal["listwise", "as-value", "wildcard"] = "listwise",
    measure: str = "frequency",
    weight: Optional[str] = None,
    sensitive: Optional[str] = None,
    group: Optional[str] = None,
    per_record: bool = False,
    schema: SchemaLike = None,
    output: Optional[Output] = None,
    **params: Any,
) -> RiskResult: ...
def mask(
    data: Table,
    steps: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]],
    *,
    seed: int,
    schema: SchemaLike = None,
    output: Optional[Output] = None,
    check: bool = True,
    check_keys: Optional[Sequence[str]] = None,
) -> Tuple[Any, Dict[str, Any]]: ...

class AttackResult:
    evaluation: Dict[str, Any]
    candidates: Any
    per_record: Any
    def __init__(self, evaluation: Dict[str, Any], candidates: Any, per_record: Any) -> None: ...

class Rate(NamedTuple):
    value: float
    error: float

class QuestionResult:
    question: str
    risk: float
    risk_ci: Tuple[float, float]
    attack_rate: Rate
    control_rate: Rate
    baseline_rate: Rate
    n_attacks: int
    n_success: int
    n_control: float
    n_baseline: int
    confidence_level: float
    warnings: List[str]
    params: Dict[str, Any]
    report: Dict[str, Any]
    def __init__(self, report: Dict[str, Any]) -> None: ...

class MembershipResult:
    attack: str
    auc: float
    tpr_at_fpr_1: float
    tpr_at_fpr_10: float
    advantage: float
    n_members: int
    n_non_members: int
    warnings: List[str]
    params: Dict[str, Any]
    report: Dict[str, Any]
    def __init__(self, report: Dict[str, Any]) -> None: ...

class DistanceResult:
    overfitting_protection: float
    closer_to_training: float
    baseline_protection: Optional[float]
    median_dcr_release: float
    median_dcr_holdout: float
    median_dcr_random: float
    median_nndr_release: float
    median_nndr_holdout: float
    exact_copies: float
    n_release: int
    warnings: List[str]
    params: Dict[str, Any]
    report: Dict[str, Any]
    def __init__(self, report: Dict[str, Any]) -> None: ...

Question = Literal["singling-out", "linkability", "inference"]

@overload
def attack(
    intruder: Table,
    released: Table,
    *,
    method: Literal["membership"],
    control: Table,
    seed: Optional[int] = None,
    schema: SchemaLike = None,
    intruder_schema: SchemaLike = None,
    control_schema: SchemaLike = None,
    released_schema: SchemaLike = None,
    **params: Any,
) -> MembershipResult: ...
@overload
def attack(
    intruder: Table,
    released: Table,
    *,
    method: Literal["dcr"],
    control: Table,
    seed: Optional[int] = None,
    schema: SchemaLike = None,
    intruder_schema: SchemaLike = None,
    control_schema: SchemaLike = None,
    released_schema: SchemaLike = None,
    **params: Any,
) -> DistanceResult: ...

@overload
def attack(
    intruder: Table,
    released: Table,
    *,
    method: Question,
    control: Table,
    seed: Optional[int] = None,
    schema: SchemaLike = None,
    intruder_schema: SchemaLike = None,
    control_schema: SchemaLike = None,
    released_schema: SchemaLike = None,
    **params: Any,
) -> QuestionResult: ...
@overload
def attack(
    intruder: Table,
    released: Table,
    *,
    method: str = "exact",
    keys: Columns = None,
    truth: Optional[str] = None,
    truth_intruder: Optional[str] = None,
    truth_released: Optional[str] = None,
    sensitive_truth: Optional[str] = None,
    seed: Optional[int] = None,
    schema: SchemaLike = None,
    intruder_schema: SchemaLike = None,
    released_schema: SchemaLike = None,
    output: Optional[Output] = None,
    control: None = None,
    control_schema: None = None,
    **params: Any,
) -> AttackResult: ...
def utility(
    original: Table,
    masked: Table,
    *,
    variables: Columns = None,
    measures: Columns = None,
    log: Optional[Mapping[str, Any]] = None,
    schema: SchemaLike = None,
    **params: Any,
) -> Dict[str, Any]: ...
def synth(
    name: str,
    *,
    n: Optional[int] = None,
    seed: int = 1,
    output: Optional[Output] = None,
    **params: Any,
) -> Dict[str, Any]: ...

class RunResult:
    results: Any
    out: str
    executed: int
    runs: int
    def __init__(self, results: Any, out: str, executed: int, runs: int) -> None: ...

def run(
    path: Union[str, os.PathLike],
    *,
    out: Union[str, os.PathLike, None] = None,
    threads: Optional[int] = None,
    force: bool = False,
    size: Optional[Literal["tiny", "paper"]] = None,
    output: Optional[Output] = None,
) -> RunResult: ...
def read(
    data: Table,
    *,
    schema: SchemaLike = None,
    output: Optional[Output] = None,
) -> Tuple[Any, str]: ...
