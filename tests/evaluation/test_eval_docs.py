"""docs/eval.md runs as written: its files are written where the page's Python runs, and
what the page says it prints is printed."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "eval.md"


def test_the_page_runs_and_prints_what_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PAGE.read_text(encoding="utf-8")
    files = re.findall(r"^```ya?ml\n# (\S+)\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert [name for name, _ in files] == ["tasks.yml", "desk.yaml"]
    for name, body in files:
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    module = types.ModuleType("docs_eval")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert len(blocks) == 2
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/eval.md block {number}", "exec"), module.__dict__)
    shown = re.findall(r"prints\n\n```text\n(.*?)```", text, flags=re.DOTALL)
    assert shown == ["flat 1/1 3 116\ndesk 1/1 4 44\n", "http://127.0.0.1:8080/v1/\n"]
    assert capsys.readouterr().out == "".join(shown)
