"""The docstring examples of every statetools module not covered by a test of its own."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from typing import Any

import pytest

import statetools as st

# Modules whose examples run in other tests (tests/*/test_*docs.py), with the globals
# those tests give them.
OWN_TESTS = {
    "spec": "design dump forms problems references source",
    "definitions": "unfolding unfold_call chaining discovery",
    "engine": "run_facts facades bindings",
    "models": "_provider _openai openai_chat openai_responses anthropic_messages "
    "anthropic_wire anthropic_disclosure model_strings",
    "review": "findings model scene tokens",
    "tools": "calling context decorators descriptions schema signature tool "
    "typeschema validation wrappers",
    "testing": "runs",
}
COVERED = {
    f"statetools.{package}.{name}" for package, names in OWN_TESTS.items() for name in names.split()
}


def _modules() -> list[str]:
    found = ["statetools"]
    for info in pkgutil.walk_packages(st.__path__, prefix="statetools."):
        found.append(info.name)
    return sorted(name for name in found if name not in COVERED)


def _globals() -> dict[str, Any]:
    names: dict[str, Any] = {name: getattr(st, name) for name in st.__all__}
    names["st"] = st
    return names


def test_the_covered_modules_exist() -> None:
    for name in COVERED:
        importlib.import_module(name)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, extraglobs=_globals(), optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0
