"""The examples in the tools package's docstrings and in docs/tools.md run as written."""

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

MODULES = [
    "calling",
    "context",
    "decorators",
    "descriptions",
    "foreign",
    "schema",
    "signature",
    "tool",
    "typeschema",
    "validation",
    "wrappers",
]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def _public_names() -> dict[str, Any]:
    from typing import Annotated, Literal

    names: dict[str, Any] = {name: getattr(st, name) for name in st.__all__}
    names.update(Annotated=Annotated, Literal=Literal)
    return names


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"statetools.tools.{name}")
    outcome = doctest.testmod(module, extraglobs=_public_names(), optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def test_the_tools_guide_runs_top_to_bottom(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _python_blocks(DOCS.read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    module = types.ModuleType("docs_tools")  # a real module, as when run as a script
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"docs/tools.md block {number}", "exec"), module.__dict__)
        except Exception as exc:  # pragma: no cover - shown when a snippet breaks
            pytest.fail(f"block {number} of docs/tools.md failed: {exc!r}\n{block}")
