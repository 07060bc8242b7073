"""The order of the visible tools: stable across turns, so a request's tools keep the
prefix of the previous one (new tools are appended; a tool hidden and shown again
before the next request returns to its place).

>>> order = ToolOrder()
>>> order.start(["search", "open"])
>>> order.hide("search"); order.show("search")  # back before the request: same place
True
>>> order.settle(); order.show("close")
False
>>> order.sorted(["close", "open", "search"])
['search', 'open', 'close']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, MutableMapping

from statetools.engine.overlay import Overlay

__all__ = ["ToolOrder"]


class ToolOrder:
    """Positions of the visible tools, settled once per model request.

    Each tool gets a sequence number when it enters the model's view. A tool hidden and
    shown again before the next request never left that view: it gets its number back
    and returns to its place. Only tools the model did not see at the last request are
    appended. Work is per change, never per visible tool.
    """

    __slots__ = ("_left", "_mark", "_next", "_seq")

    def __init__(self) -> None:
        self._seq: MutableMapping[str, int] = {}
        self._left: dict[str, int] = {}
        self._next = 0
        self._mark = 0

    def start(self, names: Iterable[str], numbered: Mapping[str, int] | None = None) -> None:
        """Number the tools visible when the run starts (or resumes), in order;
        ``numbered`` gives them numbered already (a dict shared by fresh runs, never
        written: this order keeps only its own changes)."""
        if numbered is not None:
            self._seq = Overlay(numbered)
        else:
            self._seq = dict(zip(names, itertools.count()))
        self._next = self._mark = len(self._seq)

    def show(self, name: str) -> bool:
        """Number ``name``; True when it returns to a place before the last tool."""
        seq = self._left.pop(name, None)
        if seq is None:
            self._seq[name] = self._next
            self._next += 1
            return False
        self._seq[name] = seq
        return True

    def renumber(self, name: str) -> None:
        """``name`` takes the place after every tool (a tool replaced by another form)."""
        self._seq[name] = self._next
        self._next += 1

    def hide(self, name: str) -> None:
        seq = self._seq.pop(name)
        if seq < self._mark:  # the model saw it at the last request
            self._left[name] = seq

    def settle(self) -> None:
        """A request is sent now: what left the view is gone, what is shown is seen."""
        self._left.clear()
        self._mark = self._next

    def sorted(self, names: Iterable[str]) -> list[str]:
        return sorted(names, key=self._seq.__getitem__)
