"""The alternatives to statetools, measured on the same tasks with the same counting.

Each baseline is a list of requests per task (the JSON entries of each request's
``tools`` array, as the OpenAI adapter writes them), measured by ``replay.measure``
(o200k_base tokens, caching as in ``replay.billed``). Every one follows the task's
ground-truth calls: one request per call and one per turn's answer, plus the requests
the baseline needs to find a tool.

- ideal tool search: one search tool of a real size always shown; the first use of a
  tool costs one search request whose answer loads exactly that tool (appended);
- OpenAI ``allowed_tools``: the whole catalogue in every request, the tools used so far
  listed as allowed in ``tool_choice`` (those tokens uncached in every request);
- two-layer catalogue (AutoAI): every tool as name + first sentence, parameters
  ``{"type": "object"}``, plus ``tool_detail``; the first use of a tool costs one
  detail request, after which the full tool replaces its base form, at the end;
- the catalogue's own grouping, where it has one: the groups (BFCL API classes, GitHub
  toolsets) of the tools a task uses, shown from the start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from replay import Measure, Task, billed, definition_entries, measure, prefix_breaks

import statetools as st
from statetools.models.base import ToolDefinition
from statetools.review.tokens import array_tokens, count_text

SEARCH_TOOL = ToolDefinition(
    "tool_search",
    "Search the available tools by what they do; the best match is loaded for your next request.",
    {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What the tool should do"}},
        "required": ["query"],
        "additionalProperties": False,
    },
)
"""The ideal search tool: one query argument, about the size of the real ones."""


def _turn_requests(
    task: Task, start: list[str], entry: Mapping[str, str], find: str | None
) -> list[list[str]]:
    """Requests of a task that starts with ``start`` entries; a tool's first use appends
    ``entry[tool]`` after one ``find`` request (None: no extra request, nothing added)."""
    shown = list(start)
    used: set[str] = set()
    requests: list[list[str]] = []
    for turn in task.turns:
        for call in turn:
            if find is not None and call.name not in used:
                requests.append(list(shown))  # the request that finds the tool
                shown.append(entry[call.name])
            used.add(call.name)
            requests.append(list(shown))
        requests.append(list(shown))
    return requests


def ideal_search(task: Task, texts: Mapping[str, str]) -> Measure:
    """The ideal tool search (see the module's docstring)."""
    (search,) = definition_entries([SEARCH_TOOL])
    return measure(_turn_requests(task, [search], texts, "search"))


def two_layer(task: Task, catalogue: Sequence[ToolDefinition]) -> Measure:
    """The two-layer catalogue of ``st.layered`` (see the module's docstring)."""
    layered = st.layered(*(_schema_only(t) for t in catalogue))
    base = definition_entries(
        [ToolDefinition(t.name, t.description, t.input_schema) for t in layered]
    )
    position = {t.name: i for i, t in enumerate(catalogue)}
    full = dict(zip((t.name for t in catalogue), definition_entries(catalogue), strict=True))
    requests: list[list[str]] = []
    shown = list(base)
    opened: set[str] = set()
    for turn in task.turns:
        for call in turn:
            if call.name not in opened:
                requests.append(list(shown))  # tool_detail(name)
                shown.remove(base[position[call.name]])
                shown.append(full[call.name])
                opened.add(call.name)
            requests.append(list(shown))
        requests.append(list(shown))
    return measure(requests)


def _schema_only(tool: ToolDefinition) -> st.Tool:
    return st.Tool.create(
        tool.name,
        tool.description or tool.name,
        lambda **_: "ok",
        schema=tool.input_schema,
    )


def allowed_tools(task: Task, catalogue: Sequence[ToolDefinition]) -> Measure:
    """OpenAI ``allowed_tools`` (see the module's docstring)."""
    entries = definition_entries(catalogue)
    requests = _turn_requests(task, entries, {}, None)
    used: list[str] = []
    allowed_tokens = 0
    for turn in task.turns:
        for call in [*turn, None]:
            if call is not None and call.name not in used:
                used.append(call.name)
            choice = {
                "type": "allowed_tools",
                "mode": "auto",
                "tools": [{"type": "function", "function": {"name": n}} for n in used],
            }
            allowed_tokens += count_text(json.dumps(choice))
    tokens = sum(array_tokens(e) for e in requests) + allowed_tokens
    return Measure(len(requests), tokens, billed(requests) + allowed_tokens, 0)


def own_grouping(
    task: Task, catalogue: Sequence[ToolDefinition], groups: Mapping[str, Sequence[str]]
) -> Measure:
    """The groups of the tools the task uses, shown in every request from the start."""
    wanted = {call.name for call in task.calls}
    names = {n for members in groups.values() if wanted & set(members) for n in members}
    shown = [t for t in catalogue if t.name in names or t.name in wanted]
    return measure(_turn_requests(task, definition_entries(shown), {}, None))


def github_toolsets(shared: Path) -> dict[str, list[str]]:
    """The GitHub MCP server's toolsets (tools the README lists in none form one more)."""
    data = json.loads((shared / "github_mcp" / "github_mcp_toolsets.json").read_text())
    toolsets = data["toolsets"]
    return {
        str(name): [m if isinstance(m, str) else str(m.get("name")) for m in members]
        for name, members in toolsets.items()
    }


__all__ = [
    "SEARCH_TOOL",
    "allowed_tools",
    "github_toolsets",
    "ideal_search",
    "own_grouping",
    "prefix_breaks",
    "two_layer",
]
