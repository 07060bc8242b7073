"""Tool definitions in a provider's wire form, rebuilt only for what changed.

The loop hands a model the same tuple of definitions while the visible tools do not
change; an adapter then sends the same tools list again. When the tools change, each
definition's wire form is found by identity, so only tools new to the request are
converted. Per-request work grows with the changes, not with the number of tools.

A ``key`` given with the tools (the provider-native modes pass the run's first
visible names) is handed to ``finish``; the list is reused while both the tools and
the key are the same objects. Tools that only grew or shrank at the end (a run's
catalogue gaining a tool, the next run's catalogue) are compared at C speed, and
only the difference is converted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from statetools.tools.fields import ToolDefinition

__all__ = ["WireTools"]

Wire = dict[str, Any]


class WireTools:
    """A cache of one adapter's wire forms of tool definitions.

    ``convert`` turns one definition into its wire form; ``finish`` may adjust the
    finished list, given the ``key`` the tools came with (it gets a new list it may
    change; shared wire forms must be copied before they are changed). When tools are
    only appended, ``extend`` (if given) may build the finished list from the last one
    and the new tools' wire forms, or return None to have ``finish`` run on them all.
    The list returned is shared by every request that gets it: callers must not
    change it.

    >>> wire = WireTools(lambda d: {"name": d.name})
    >>> tools = (ToolDefinition("ping", "Ping.", {"type": "object"}),)
    >>> wire(tools)
    [{'name': 'ping'}]
    >>> wire(tools) is wire(tools)
    True
    >>> marked = WireTools(lambda d: {"name": d.name}, lambda w, key: [{**w[0], "key": key}])
    >>> marked(tools, "k")
    [{'name': 'ping', 'key': 'k'}]
    """

    __slots__ = ("_convert", "_each", "_extend", "_finish", "_last")

    def __init__(
        self,
        convert: Callable[[ToolDefinition], Wire],
        finish: Callable[[list[Wire], Any], list[Wire]] | None = None,
        extend: Callable[[list[Wire], list[Wire], Any], list[Wire] | None] | None = None,
    ) -> None:
        self._convert = convert
        self._finish = finish
        self._extend = extend
        self._each: dict[int, tuple[ToolDefinition, Wire]] = {}
        self._last: _Built | None = None

    def __call__(self, tools: tuple[ToolDefinition, ...], key: object = None) -> list[Wire]:
        last = self._last
        if last is not None and (last.key is key or last.key == key):
            if last.tools is tools and last.key is key:
                return last.finished
            # the last tools again, with more after them or fewer at the end (compared
            # in C, each element by identity first): only the difference is looked at
            known = len(last.tools)
            if len(tools) >= known and tools[:known] == last.tools:
                return self._appended(last, tools, key)
            if len(tools) < known and tools == last.tools[: len(tools)]:
                for tool in last.tools[len(tools) :]:
                    self._each.pop(id(tool), None)
                return self._keep(tools, key, last.plain[: len(tools)])
        before = self._each
        each: dict[int, tuple[ToolDefinition, Wire]] = {}
        wire: list[Wire] = []
        for tool in tools:
            known_form = before.get(id(tool))
            form = (
                known_form[1]
                if known_form is not None and known_form[0] is tool
                else self._convert(tool)
            )
            each[id(tool)] = (tool, form)
            wire.append(form)
        self._each = each  # only the current tools are kept
        return self._keep(tools, key, wire)

    def _appended(self, last: _Built, tools: tuple[ToolDefinition, ...], key: object) -> list[Wire]:
        if len(tools) == len(last.tools):  # equal tools, or an equal key
            self._last = _Built(tools, key, last.plain, last.finished)
            return last.finished
        added = tools[len(last.tools) :]
        fresh = [self._convert(tool) for tool in added]
        self._each.update((id(tool), (tool, form)) for tool, form in zip(added, fresh, strict=True))
        finished = None
        if self._finish is not None and self._extend is not None:
            finished = self._extend(last.finished, fresh, key)
        return self._keep(tools, key, last.plain + fresh, finished)

    def _keep(
        self,
        tools: tuple[ToolDefinition, ...],
        key: object,
        plain: list[Wire],
        finished: list[Wire] | None = None,
    ) -> list[Wire]:
        if finished is None:
            finished = plain if self._finish is None else self._finish(list(plain), key)
        self._last = _Built(tools, key, plain, finished)
        return finished


class _Built(NamedTuple):
    """The last tools and key, their wire forms as converted and as finished (one value:
    an adapter may be used from several threads)."""

    tools: tuple[ToolDefinition, ...]
    key: object
    plain: list[Wire]
    finished: list[Wire]
