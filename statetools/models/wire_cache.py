"""Tool definitions in a provider's wire form, rebuilt only for what changed.

The loop hands a model the same tuple of definitions while the visible tools do not
change; an adapter then sends the same tools list again. When the tools change, each
definition's wire form is found by identity, so only tools new to the request are
converted. Per-request work grows with the changes, not with the number of tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from statetools.tools.definition import ToolDefinition

__all__ = ["WireTools"]

Wire = dict[str, Any]


class WireTools:
    """A cache of one adapter's wire forms of tool definitions.

    ``convert`` turns one definition into its wire form; ``finish`` may adjust the
    finished list (it gets a new list it may change; shared wire forms must be copied
    before they are changed).

    >>> wire = WireTools(lambda d: {"name": d.name})
    >>> tools = (ToolDefinition("ping", "Ping.", {"type": "object"}),)
    >>> wire(tools)
    [{'name': 'ping'}]
    >>> wire(tools) is wire(tools)
    True
    """

    __slots__ = ("_convert", "_each", "_finish", "_last")

    def __init__(
        self,
        convert: Callable[[ToolDefinition], Wire],
        finish: Callable[[list[Wire]], list[Wire]] | None = None,
    ) -> None:
        self._convert = convert
        self._finish = finish
        self._each: dict[int, tuple[ToolDefinition, Wire]] = {}
        self._last: tuple[tuple[ToolDefinition, ...], list[Wire]] | None = None

    def __call__(self, tools: tuple[ToolDefinition, ...]) -> list[Wire]:
        last = self._last
        if last is not None and last[0] is tools:
            return last[1]
        before = self._each
        each: dict[int, tuple[ToolDefinition, Wire]] = {}
        wire: list[Wire] = []
        for tool in tools:
            known = before.get(id(tool))
            form = known[1] if known is not None and known[0] is tool else self._convert(tool)
            each[id(tool)] = (tool, form)
            wire.append(form)
        if self._finish is not None:
            wire = self._finish(wire)
        self._each = each  # only the current tools are kept
        self._last = (tools, wire)
        return wire
