"""docs/yaml.md runs as written, and the spec modules' docstring examples hold."""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import re
import types
from pathlib import Path

import pytest
import yaml

import statetools as st

PAGE = Path(__file__).resolve().parents[2] / "docs" / "yaml.md"
MODULES = ["design", "dump", "forms", "problems", "references", "source"]


def _blocks(kind: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"^```{kind}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def test_the_page_runs_top_to_bottom_and_prints_what_it_shows() -> None:
    blocks = _blocks("python")
    assert len(blocks) >= 8
    module = types.ModuleType("__main__")  # as when the page is run as a script
    printed = io.StringIO()
    for number, block in enumerate(blocks, start=1):
        with contextlib.redirect_stdout(printed):
            exec(compile(block, f"docs/yaml.md block {number}", "exec"), module.__dict__)
    shown = "".join(block for block in _blocks("text"))
    assert printed.getvalue() == shown


def test_every_yaml_example_is_valid_yaml() -> None:
    blocks = _blocks("yaml")
    assert len(blocks) >= 6
    for block in blocks:
        assert isinstance(yaml.safe_load(block), dict | list)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"statetools.spec.{name}")
    names = {name: getattr(st, name) for name in st.__all__}
    outcome = doctest.testmod(module, extraglobs=names, optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0
