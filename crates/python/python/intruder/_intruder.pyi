"""The native half of ``intruder`` (Rust, PyO3): functions take the parameters as one dict and
return JSON text and Arrow tables; ``intruder/__init__.py`` wraps them. Use ``intruder.*``."""

from typing import Any, Dict, List, Optional, Tuple

__version__: str

class IntruderError(ValueError):
    """An error of the toolkit: the message is the one the command line prints."""

class ArrowTable:
    """A table produced by the toolkit, exported through the Arrow C stream interface."""

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...

def methods(family: str) -> str: ...
def risk(
    data: Any,
    params: Optional[Dict[str, Any]] = None,
    schema: Any = None,
    per_record: bool = False,
) -> Tuple[str, Optional[ArrowTable], List[str]]: ...
def mask(
    data: Any,
    steps: List[Dict[str, Any]],
    seed: int,
    schema: Any = None,
    check: bool = True,
    check_keys: Optional[List[str]] = None,
) -> Tuple[ArrowTable, str, List[str]]: ...
def attack(
    intruder: Any,
    released: Any,
    params: Optional[Dict[str, Any]] = None,
    truth: Optional[str] = None,
    truth_intruder: Optional[str] = None,
    truth_released: Optional[str] = None,
    sensitive_truth: Optional[str] = None,
    seed: int = 0,
    intruder_schema: Any = None,
    released_schema: Any = None,
) -> Tuple[str, ArrowTable, ArrowTable, List[str]]: ...
def question(
    original: Any,
    control: Any,
    released: Any,
    method: str,
    params: Optional[Dict[str, Any]] = None,
    seed: int = 0,
    original_schema: Any = None,
    control_schema: Any = None,
    released_schema: Any = None,
) -> Tuple[str, List[str]]: ...
def utility(
    original: Any,
    masked: Any,
    params: Optional[Dict[str, Any]] = None,
    measures: Optional[List[str]] = None,
    log: Optional[str] = None,
    schema: Any = None,
) -> Tuple[str, List[str]]: ...
def synth(
    name: str,
    n: Optional[int] = None,
    seed: int = 1,
    params: Optional[Dict[str, Any]] = None,
) -> Tuple[List[Tuple[str, ArrowTable]], str]: ...
def run(
    path: str,
    out: Optional[str] = None,
    threads: Optional[int] = None,
    force: bool = False,
    size: Optional[str] = None,
) -> Tuple[str, Optional[ArrowTable], List[str], int, int]: ...
def read(data: Any, schema: Any = None) -> Tuple[ArrowTable, str]: ...
