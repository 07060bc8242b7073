"""The Responses API's ``allowed_tools`` mode with tools that appear at run time.

The ``tools`` array stays as it was in the first request; a tool that appeared at run
time (chaining, discovery, an injection) is sent as an ``additional_tools`` input item
after the tool result that revealed it. :class:`RunTimeTools` keeps the split and the
wire forms between requests, so a request costs what changed, not the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from statetools.models.base import ModelRequest, ToolCatalogue, ToolDefinition
from statetools.models.wire_cache import Wire, WireTools

__all__ = ["RunTimeTools", "split_run_time", "with_additional_tools"]


def split_run_time(
    request: ModelRequest,
) -> tuple[tuple[ToolDefinition, ...], dict[str, list[ToolDefinition]]]:
    """The tools to declare in ``tools``, and the tools that appeared at run time after
    a tool result, by the call id of that result (sent as ``additional_tools`` items
    there, so the ``tools`` array stays as it was in the first request).

    Without a catalogue every visible tool is declared:

    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> split_run_time(ModelRequest((UserMessage("Ping it."),), (ping,)))
    ((ToolDefinition(name='ping', description='Ping.', input_schema={'type': 'object'}),), {})
    """
    catalogue = request.catalogue
    if catalogue is None:
        return request.tools, {}
    return _split(catalogue, _first_shown(catalogue, _pending(catalogue)))


def _pending(catalogue: ToolCatalogue) -> set[str]:
    """The tools that appeared at run time and were not visible at the start."""
    return set(catalogue.run_time) - set(catalogue.initial)


def _first_shown(catalogue: ToolCatalogue, pending: set[str]) -> dict[str, str]:
    """The call id of the result that first showed each tool of ``pending``."""
    first_shown: dict[str, str] = {}
    if pending:
        for call_id, change in catalogue.changes.items():
            for name in change.added:
                if name in pending:
                    first_shown.setdefault(name, call_id)
    return first_shown


def _split(
    catalogue: ToolCatalogue, first_shown: dict[str, str]
) -> tuple[tuple[ToolDefinition, ...], dict[str, list[ToolDefinition]]]:
    """The declared tools and the later ones by call id. A catalogue names each tool
    once, and the tools shown first after a result are all run-time tools: when those
    are the catalogue's tail (as the loop keeps it), only the tail is looked at."""
    tools = catalogue.tools
    if not first_shown:  # the catalogue's own tuple: its wire form is kept by identity
        return tools, {}
    start = len(tools) - len(catalogue.run_time)
    if start < 0 or tuple(t.name for t in tools[start:]) != catalogue.run_time:
        start = 0
    later: dict[str, list[ToolDefinition]] = {}
    for tool in tools[start:]:
        if tool.name in first_shown:
            later.setdefault(first_shown[tool.name], []).append(tool)
    declared = tools[:start] + tuple(t for t in tools[start:] if t.name not in first_shown)
    return declared, later


class RunTimeTools:
    """:func:`split_run_time` in wire form, rebuilt only for what changed.

    The catalogue's parts stay the same objects while nothing changes, so a request
    like the last one costs no walk over the catalogue; a new change costs a look at
    the changes, and a tool first shown at run time one pass to split the catalogue
    again. Each tool is converted once (:class:`WireTools`).

    >>> split = RunTimeTools(lambda tool: {"name": tool.name})
    >>> ping = ToolDefinition("ping", "Ping.", {"type": "object"})
    >>> request = ModelRequest((UserMessage("Ping it."),), (ping,))
    >>> declared, later = split(request)
    >>> [tool["name"] for tool in declared], later
    (['ping'], {})
    """

    __slots__ = ("_additional", "_declared", "_last")

    def __init__(self, convert: Callable[[ToolDefinition], Wire]) -> None:
        self._declared = WireTools(convert)
        self._additional = WireTools(convert)
        self._last: _Split | None = None
        """What the last request gave, one value (adapters may be shared by threads)."""

    def __call__(self, request: ModelRequest) -> tuple[list[Wire], dict[str, list[Wire]]]:
        """The declared tools and, by call id, the tools sent after that result."""
        catalogue = request.catalogue
        if catalogue is None:
            return self._declared(request.tools), {}
        parts = (catalogue.tools, catalogue.initial, catalogue.run_time)
        last = self._last
        same = last is not None and all(a is b for a, b in zip(last.parts, parts, strict=True))
        if last is not None and same and last.changes is catalogue.changes:
            return last.result
        pending = last.pending if last is not None and same else _pending(catalogue)
        shown = _first_shown(catalogue, pending)
        if last is not None and same and shown == last.shown:
            result = last.result
        else:
            declared, later = _split(catalogue, shown)
            forms = iter(self._additional(tuple(t for tools in later.values() for t in tools)))
            result = (
                self._declared(declared),
                {call_id: [next(forms) for _ in tools] for call_id, tools in later.items()},
            )
        self._last = _Split(parts, catalogue.changes, pending, shown, result)
        return result


@attrs.frozen
class _Split:
    parts: tuple[object, ...]
    changes: object
    pending: set[str]
    shown: dict[str, str]
    result: tuple[list[Wire], dict[str, list[Wire]]]


def with_additional_tools(
    items: list[dict[str, Any]], later: Mapping[str, list[Wire]]
) -> list[dict[str, Any]]:
    """``items`` with an ``additional_tools`` item after each tool output that
    revealed tools that appeared at run time (``later``: their wire forms by the call
    id of that output).

    >>> ping = {"type": "function", "name": "ping"}
    >>> with_additional_tools(
    ...     [{"type": "function_call_output", "call_id": "c1", "output": "ok"}], {"c1": [ping]}
    ... )[1]["type"]
    'additional_tools'
    """
    if not later:
        return items
    result: list[dict[str, Any]] = []
    for item in items:
        result.append(item)
        tools = (
            later.get(item.get("call_id", ""))
            if item.get("type") == "function_call_output"
            else None
        )
        if tools:
            result.append({"type": "additional_tools", "role": "developer", "tools": tools})
    return result
