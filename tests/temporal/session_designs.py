"""A design for the Temporal tests: a research playbook and a notes facade, with a
model whose answers depend only on the request (see ScriptByRequest)."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.temporal import ScriptByRequest


def search(query: str) -> str:
    """Search the archive."""
    return f"3 articles about {query}"


def summarize(text: str) -> str:
    """Summarize a text."""
    return f"summary: {text[:20]}"


def read_note(name: str) -> str:
    """Read a note."""
    return f"note {name} is empty"


def write_note(name: str, text: str) -> str:
    """Write a note."""
    return f"wrote {len(text)} characters to {name}"


RESEARCH = (
    st.PlaybookTool("research", "Research a topic")
    .with_tool(search)
    .with_tool(st.Tool.from_function(summarize))
    .unlocked_by(search)
)
NOTES = st.UnfoldingTool.of(
    "notes", "Read and write notes", [st.Tool.from_function(read_note), write_note]
)
DESIGN = [RESEARCH, NOTES]

STEPS: list[Any] = [
    ("search", {"query": "tides"}),
    ("summarize", {"text": "Tides follow the moon and the sun."}),
    ("notes", {}),
    [("write_note", {"name": "tides", "text": "Tides follow the moon."}), ("nope", {})],
    "Saved a note on tides.",
    ("read_note", {"name": "tides"}),
    "The note is empty.",
]
MODEL = ScriptByRequest(STEPS)
