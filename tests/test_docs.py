"""The guides in docs/ run as written: each page's python blocks, top to bottom."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = [
    "loop.md",
    "playbooks.md",
    "state-machines.md",
    "search.md",
    "mcp.md",
    "durable.md",
    "sections.md",
    "skills.md",
]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("page", [*PAGES, "../README.md"])
def test_page_runs(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    assert blocks, f"{page} has no python examples"
    module = types.ModuleType(f"docs_{Path(page).stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        code = compile(block, f"docs/{page} block {number}", "exec")
        exec(code, module.__dict__)
