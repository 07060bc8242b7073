"""The tools one run shows now, in the order the model sees them, and what was last
handed out.

A :class:`~statetools.engine.scheduler.Scheduler` owns one :class:`VisibleTools`:
it is the only holder of its containers. A fresh run starts from the graph's shared
start (a read-only mapping, the same for every fresh run) and keeps only its own
changes (an :class:`Overlay`). The order is stable across turns (:class:`ToolOrder`),
and what is handed out is a :class:`Shown`: the same object until something changes.

>>> ping, pong = (Tool.create(n, n.title(), lambda: "ok") for n in ("ping", "pong"))
>>> visible = VisibleTools()
>>> visible.start({"ping": ping})
>>> visible.show("pong", pong); visible.hide("ping")
>>> list(visible), visible.shown().names
(['pong'], ('pong',))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from itertools import chain, filterfalse
from typing import Any, TypeVar

import attrs

from statetools.tools.fields import ToolDefinition
from statetools.tools.tool import BaseTool

__all__ = ["Overlay", "Shown", "ToolOrder", "VisibleTools"]

V = TypeVar("V")

_EMPTY: Mapping[Any, Any] = {}
_NOTHING: Mapping[str, BaseTool] = {}


@attrs.frozen(eq=False)
class Shown:
    """The visible tools, in order, with their names and definitions.

    The scheduler hands out the same object until the visible tools change, so a
    caller can tell "nothing changed" by identity (``is``) and reuse what it built.

    >>> from statetools.tools.tool import Tool
    >>> Shown.of([Tool.create("ping", "Ping.", lambda: "pong")]).names
    ('ping',)
    """

    tools: tuple[BaseTool, ...]
    names: tuple[str, ...]
    definitions: tuple[ToolDefinition, ...]

    @classmethod
    def of(cls, tools: Iterable[BaseTool]) -> Shown:
        """What ``tools`` show, in order."""
        listed = tuple(tools)
        return cls(listed, tuple(t.name for t in listed), tuple(t.definition for t in listed))


class Overlay(MutableMapping[str, V]):
    """A mapping that starts from a shared dict and keeps only its own changes.

    Every fresh run of a compiled graph starts with the same visible tools in the same
    order. Each run reads them from one dict the graph holds (never written) and
    records only what it changes (names removed, names added after them), so a run, or
    an MCP gateway session, costs memory for what it changed, not for the catalogue.

    It is a mutable mapping over ``base`` (a dict nobody writes to), in dict order: the
    items of ``base`` not removed, then the ones added. Setting a new value for a key
    still held from ``base`` (rare: a tool swapped for another form) copies ``base``
    once and goes on as a plain dict.

    >>> shared = {"a": 1, "b": 2, "c": 3}
    >>> mine = Overlay(shared)
    >>> del mine["b"]
    >>> mine["d"] = 4
    >>> mine["b"] = 5  # shown again: it goes to the end, as in a dict
    >>> list(mine.items()), shared
    ([('a', 1), ('c', 3), ('d', 4), ('b', 5)], {'a': 1, 'b': 2, 'c': 3})

    >>> order = Overlay({"x": 0})
    >>> order["y"] = 1
    >>> order.pop("x"), dict(order), len(order)
    (0, {'y': 1}, 1)
    """

    __slots__ = ("_added", "_base", "_removed")

    def __init__(self, base: Mapping[str, V] = _EMPTY) -> None:
        self._base: Mapping[str, V] = base
        self._removed: set[str] | None = None
        """Keys of ``base`` removed (a key removed and added again is also in ``_added``)."""
        self._added: dict[str, V] | None = None

    def _in_base(self, key: str) -> bool:
        removed = self._removed
        return key in self._base and (removed is None or key not in removed)

    def __getitem__(self, key: str) -> V:
        added = self._added
        if added is not None and key in added:
            return added[key]
        if self._in_base(key):
            return self._base[key]
        raise KeyError(key)

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value of ``key``, or ``default``."""
        added = self._added
        if added is not None and key in added:
            return added[key]
        return self._base[key] if self._in_base(key) else default

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        added = self._added
        return (added is not None and key in added) or self._in_base(key)

    def __setitem__(self, key: str, value: V) -> None:
        if self._in_base(key):  # a new value in place: become a plain dict
            self._own()
        added = self._added
        if added is None:
            added = self._added = {}
        added[key] = value

    def __delitem__(self, key: str) -> None:
        added = self._added
        if added is not None and key in added:
            del added[key]
        elif self._in_base(key):
            if self._removed is None:
                self._removed = set()
            self._removed.add(key)
        else:
            raise KeyError(key)

    def pop(self, key: str, *default: V) -> V:  # type: ignore[override]
        """Remove ``key`` and give its value (``default`` when it is not here).

        >>> Overlay({"a": 1}).pop("a"), Overlay({"a": 1}).pop("b", 0)
        (1, 0)
        """
        added = self._added
        if added is not None and key in added:
            return added.pop(key)
        if self._in_base(key):
            if self._removed is None:
                self._removed = set()
            self._removed.add(key)
            return self._base[key]
        if default:
            return default[0]
        raise KeyError(key)

    def _own(self) -> None:
        """Copy what is held from ``base`` into a dict of this mapping's own."""
        self._added = dict(self.items())
        self._base = _EMPTY
        self._removed = None

    def clear(self) -> None:
        """Remove every item (``base`` is left as it is)."""
        self._base = _EMPTY
        self._removed = None
        self._added = None

    def __iter__(self) -> Iterator[str]:
        removed, added = self._removed, self._added
        mine = (
            iter(self._base) if removed is None else filterfalse(removed.__contains__, self._base)
        )
        return mine if added is None else chain(mine, added)  # C iterators: no Python per key

    def __len__(self) -> int:
        return (
            len(self._base)
            - (len(self._removed) if self._removed is not None else 0)
            + (len(self._added) if self._added is not None else 0)
        )

    def __repr__(self) -> str:
        return f"Overlay({dict(self.items())!r})"


class ToolOrder:
    """Positions of the visible tools, settled once per model request: stable across
    turns, so a request's tools keep the prefix of the previous one (new tools are
    appended; a tool hidden and shown again before the next request returns to its
    place).

    Each tool gets a sequence number when it enters the model's view. A tool hidden and
    shown again before the next request never left that view: it gets its number back
    and returns to its place. Only tools the model did not see at the last request are
    appended. Work is per change, never per visible tool.

    >>> order = ToolOrder()
    >>> order.start(["search", "open"])
    >>> order.hide("search"); order.show("search")  # back before the request: same place
    True
    >>> order.settle(); order.show("close")
    False
    >>> order.sorted(["close", "open", "search"])
    ['search', 'open', 'close']
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


class VisibleTools(Overlay[BaseTool]):
    """The visible tools by name, in order (read as a mapping; change them only with
    the methods below), with the :class:`Shown` last handed out: the same object
    until a tool shows, hides or changes form.

    >>> ping = Tool.create("ping", "Ping", lambda: "pong")
    >>> visible = VisibleTools()
    >>> visible.start({"ping": ping})
    >>> visible.shown() is visible.shown(), "ping" in visible
    (True, True)
    """

    __slots__ = ("_order", "handed")

    def __init__(self) -> None:
        super().__init__(_NOTHING)
        self._order = ToolOrder()
        self.handed: Shown | None = None
        """What :meth:`shown` handed out last; None after any change (read it, never set it)."""

    def start(
        self,
        tools: Mapping[str, BaseTool] | Iterable[tuple[str, BaseTool]],
        positions: Mapping[str, int] | None = None,
    ) -> None:
        """Show ``tools`` as a run starts: with ``positions``, ``tools`` is the graph's
        shared start, read and never written (this run keeps only its changes);
        otherwise the tools are copied in, in order."""
        self.clear()
        if positions is not None:
            assert isinstance(tools, Mapping)
            self._base = tools
            self._order.start((), positions)
        else:
            self.update(tools)
            self._order.start(self)
        self.handed = None

    def keep_shown(self, shown: Shown) -> None:
        """Hand out ``shown`` (what a fresh run of the graph first shows) until a change."""
        self.handed = shown

    def show(self, name: str, tool: BaseTool) -> None:
        """Make ``name`` visible: back in its place if the model still has it in view."""
        self[name] = tool
        self.handed = None
        if self._order.show(name):  # rare: reorder in place
            tools = dict(self)
            self.clear()
            self.update((n, tools[n]) for n in self._order.sorted(tools))

    def hide(self, name: str) -> None:
        """Take ``name`` out of view."""
        del self[name]
        self.handed = None
        self._order.hide(name)

    def rebind(self, name: str, tool: BaseTool) -> None:
        """``name`` is shown as ``tool`` from now on, in its place."""
        self[name] = tool
        self.handed = None

    def move_to_end(self, name: str, tool: BaseTool) -> None:
        """``name`` is shown as ``tool`` from now on, after every other tool (a
        facade's short form swapped for the full one)."""
        del self[name]
        self[name] = tool
        self._order.renumber(name)
        self.handed = None

    def settle(self) -> None:
        """A request is sent now (see :meth:`ToolOrder.settle`)."""
        self._order.settle()

    def shown(self, build: Callable[[Shown], Shown] | None = None) -> Shown:
        """What to hand out: the same object until a change; ``build`` makes it from
        the visible tools when there was a change (code mode's view, say)."""
        shown = self.handed
        if shown is None:
            shown = Shown.of(self.values())
            shown = self.handed = build(shown) if build is not None else shown
        return shown
