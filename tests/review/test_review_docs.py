"""docs/review.md runs as written, and the review modules' docstring examples pass."""

from __future__ import annotations

import doctest
import importlib
import re
import sys
import types
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "review.md"
MODULES = [
    "statetools.review.findings",
    "statetools.review.model",
    "statetools.review.scene",
    "statetools.review.tokens",
]


def test_review_page_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert len(blocks) >= 8
    module = types.ModuleType("docs_review")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"docs/review.md block {number}", "exec"), module.__dict__)
    printed = capsys.readouterr().out
    shown = re.findall(r"prints\n\n```text\n(.*?)```", text, flags=re.DOTALL)
    assert len(shown) == 2
    for output in shown:
        assert output in printed


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
