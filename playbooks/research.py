"""Tools of the research playbook (research.yaml): search, analyze, summarize, report.

The corpus is a handful of notes written for this example; handlers keep the run's
findings in the ToolCallContext under ``"notebook"`` (see :func:`new_context`).
"""

from __future__ import annotations

from typing import Any

import attrs

import statetools as st

CORPUS = {
    "n1": ("Tides", "Tides rise and fall twice a day, pulled mostly by the moon."),
    "n2": ("Spring tides", "When sun and moon align, tides are higher: spring tides."),
    "n3": ("Neap tides", "At quarter moons the pulls partly cancel and tides are lower."),
    "n4": ("Bread", "Sourdough rises because wild yeast and bacteria ferment the dough."),
}


@attrs.frozen
class Hit:
    """A note that matched a search."""

    note_id: str
    title: str


@attrs.define
class Notebook:
    """What a research run has found so far."""

    hits: list[Hit] = attrs.field(factory=list)
    findings: list[str] = attrs.field(factory=list)
    summary: str | None = None


def new_context() -> dict[str, Any]:
    """A fresh run context with an empty notebook."""
    return {"notebook": Notebook()}


def _notebook(ctx: st.ToolCallContext) -> Notebook:
    notebook = ctx.get("notebook")
    if not isinstance(notebook, Notebook):
        raise RuntimeError("no notebook in the run context; pass context=new_context()")
    return notebook


@st.llm_tool("Search the notes for a word; returns matching note ids and titles.")
def search(query: str, ctx: st.ToolCallContext) -> list[Hit]:
    words = query.lower().split()
    hits = [
        Hit(note_id, title)
        for note_id, (title, text) in CORPUS.items()
        if any(word in f"{title} {text}".lower() for word in words)
    ]
    _notebook(ctx).hits.extend(hits)
    return hits


@st.llm_tool("Read notes found by search and record what they say.")
def analyze(note_ids: list[str], ctx: st.ToolCallContext) -> str:
    notebook = _notebook(ctx)
    known = {hit.note_id for hit in notebook.hits}
    unknown = [n for n in note_ids if n not in known]
    if unknown:
        raise ValueError(f"search has not found {', '.join(unknown)}")
    notebook.findings.extend(CORPUS[n][1] for n in note_ids)
    return f"{len(note_ids)} notes analyzed."


@st.llm_tool("Summarize the findings in a few sentences of your own.")
def summarize(summary: str, ctx: st.ToolCallContext) -> str:
    notebook = _notebook(ctx)
    if not notebook.findings:
        raise ValueError("there are no findings to summarize yet")
    notebook.summary = summary
    return "Summary saved."


@st.llm_tool("Write the final report from the saved summary.", return_direct=True)
def report(title: str, ctx: st.ToolCallContext) -> str:
    notebook = _notebook(ctx)
    sources = ", ".join(hit.note_id for hit in notebook.hits)
    return f"# {title}\n\n{notebook.summary}\n\nSources: {sources}"
