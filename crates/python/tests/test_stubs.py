"""The type stubs (.pyi) say what the package does: every public function and native function
has a stub with the same parameters, kinds and defaults."""

import ast
import inspect
from pathlib import Path

import pytest

import intruder
from intruder import _intruder

PACKAGE = Path(intruder.__file__).parent


def stub_functions(path):
    tree = ast.parse(path.read_text())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def stub_signature(fn):
    """(name, kind, default as source text or None) for each parameter of a stub."""
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for p, d in zip(positional, defaults):
        out.append((p.arg, "positional", None if d is None else ast.literal_eval(d)))
    if a.vararg:
        out.append((a.vararg.arg, "var_positional", None))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "keyword_only", None if d is None else ast.literal_eval(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "var_keyword", None))
    return out


def runtime_signature(f):
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "var_positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword_only",
        inspect.Parameter.VAR_KEYWORD: "var_keyword",
    }
    return [
        (
            p.name,
            kinds[p.kind],
            None if p.default is inspect.Parameter.empty else p.default,
        )
        for p in inspect.signature(f).parameters.values()
    ]


PUBLIC = ["methods", "risk", "mask", "attack", "utility", "synth", "run", "read"]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_stub_matches(name):
    stubs = stub_functions(PACKAGE / "__init__.pyi")
    assert stub_signature(stubs[name]) == runtime_signature(getattr(intruder, name))


@pytest.mark.parametrize("name", PUBLIC)
def test_native_stub_matches(name):
    stubs = stub_functions(PACKAGE / "_intruder.pyi")
    assert stub_signature(stubs[name]) == runtime_signature(getattr(_intruder, name))


def test_stubs_cover_all_and_ship_typed():
    stubs = stub_functions(PACKAGE / "__init__.pyi")
    functions = [n for n in intruder.__all__ if inspect.isfunction(getattr(intruder, n))]
    assert sorted(functions) == sorted(stubs)
    assert (PACKAGE / "py.typed").exists()


@pytest.mark.parametrize("name", PUBLIC)
def test_every_function_has_a_runnable_example(name):
    doc = getattr(intruder, name).__doc__
    assert "Example::" in doc and ">>> " in doc, name
    assert "doctest: +SKIP" not in doc, name
