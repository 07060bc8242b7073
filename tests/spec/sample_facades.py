"""Facades built in Python, for the facade tests of the spec."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.definitions.unfolding import UnfoldingTool
from tests.spec import sample

read_file = st.Tool.create("read_file", "Read a file", lambda path: f"text of {path}")
write_file = st.Tool.create("write_file", "Write a file", lambda path, text: "written")
list_files = st.Tool.create("list_files", "List files", lambda: "a.txt")
help_files = st.Tool.create("help_files", "Explain the file tools", lambda: "help")

REGISTRY = [read_file, write_file, list_files, help_files, *sample.REGISTRY]

files = UnfoldingTool.by_category(
    "files",
    "Open the file tools",
    {"read": [read_file, list_files], "write": [write_file], None: [help_files]},
    usage_notes="Read before you write.",
)
"""A by-category facade with a tool in every category."""

nested = UnfoldingTool.of(
    "workspace",
    "Open the workspace tools",
    [
        UnfoldingTool.of(
            "documents",
            "Open the document tools",
            [UnfoldingTool.of("editing", "Open the editing tools", [write_file]), read_file],
        ),
        list_files,
    ],
    exclusive=True,
)
"""Three levels of facades."""


def _pick(arguments: dict[str, Any]) -> list[Any]:
    return [read_file] if arguments.get("mode") == "read" else [write_file]


picker = UnfoldingTool.selectable(
    "picker",
    "Open the tools for a mode",
    [read_file, write_file],
    st.InputSchema.of(st.Parameter.string("mode", "read or write")),
    _pick,
)
"""A selectable facade: Python only, named by import path in YAML."""
