"""The examples in the provider modules' docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest

import statetools as st

MODULES = [
    "_provider",
    "_openai",
    "openai_chat",
    "openai_responses",
    "anthropic_messages",
    "anthropic_wire",
    "anthropic_disclosure",
    "model_strings",
]


def _public_names() -> dict[str, Any]:
    names: dict[str, Any] = {name: getattr(st, name) for name in st.__all__}
    names["st"] = st
    return names


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"statetools.models.{name}")

    outcome = doctest.testmod(module, extraglobs=_public_names(), optionflags=doctest.ELLIPSIS)

    assert outcome.failed == 0
    assert outcome.attempted > 0
