"""docs/unfolding.md, chaining.md and wrappers.md run as written; docstring examples pass."""

from __future__ import annotations

import doctest
import importlib
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import statetools as st

DOCS = Path(__file__).resolve().parents[2] / "docs"
MODULES = [
    "statetools.definitions.unfolding",
    "statetools.definitions.unfold_call",
    "statetools.definitions.chaining",
    "statetools.definitions.discovery",
    "statetools.engine.bindings",
    "statetools.engine.run_facts",
    "statetools.engine.facades",
    "statetools.tools.decorators",
]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("page", ["unfolding.md", "chaining.md", "wrappers.md"])
def test_page_runs_top_to_bottom(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    module = types.ModuleType(f"docs_{page.replace('.', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"docs/{page} block {number}", "exec"), module.__dict__)
        except Exception as exc:  # pragma: no cover - shown when a snippet breaks
            pytest.fail(f"block {number} of docs/{page} failed: {exc!r}\n{block}")


def _names() -> dict[str, Any]:
    return {name: getattr(st, name) for name in st.__all__}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, extraglobs=_names(), optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0
