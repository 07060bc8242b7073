"""docs/integrations.md runs as written: its python blocks, top to bottom."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tests.test_docs import python_blocks

PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def test_the_integrations_page_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) == 7
    module = types.ModuleType("docs_integrations")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"docs/integrations.md block {number}", "exec"), module.__dict__)
