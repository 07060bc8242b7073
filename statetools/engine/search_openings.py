"""What each search facade may open now, kept per scheduler and worked out again only
where it can have changed.

:func:`~statetools.engine.tool_search.searchable_now` asks the scheduler about every
tool below every search facade: its cost grows with the facades' size. The models that
search deferred tools need that answer for every request, so :class:`SearchOpenings`
keeps it and works it out again only after the scheduler noted a change that could alter
what may show (its ``recorded`` count moves; a call nothing depends on leaves it). Even
then it asks only about the tools whose lock can change: a tool that sits right in its
search facade, under no condition and in no machine, opens whenever the facade is
unlocked and the tool was not removed, so those are not asked about one by one.

>>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
>>> trace = Tool.create("trace", "Trace a route", lambda: "ok")
>>> later = PlaybookTool("later", "Later").with_tool(trace).unlocked_by(ping)
>>> finder = Facade.searchable("find_tools", "Find tools", [ping, later])
>>> scheduler = Scheduler.for_items([finder])
>>> openings = SearchOpenings(scheduler)
>>> openings.now()
{'find_tools': ('ping',)}
>>> _ = scheduler.record(ToolCall("c1", "ping"), ToolResult.text("pong"))
>>> openings.now()
{'find_tools': ('ping', 'trace')}
"""

from __future__ import annotations

from collections.abc import Collection

from statetools.engine.graph import DisclosureGraph
from statetools.engine.scheduler import Scheduler
from statetools.engine.tool_search import search_facades

__all__ = ["SearchOpenings"]


def _settled(graph: DisclosureGraph, facade: str, name: str) -> bool:
    """Whether ``name``'s search lock under ``facade`` can only be the facade's own lock
    or its removal: it sits right in the facade, in one place, under no condition, in no
    machine, and is neither a facade nor a chained tool."""
    entry = graph.entries[name]
    return (
        entry.facade == facade
        and entry.condition is None
        and entry.machine is None
        and name not in graph.places
        and name not in graph.facades
        and name not in graph.chained
    )


class SearchOpenings:
    """What each search facade of ``scheduler``'s design may open now (as
    :func:`~statetools.engine.tool_search.searchable_now` gives it), kept while the
    scheduler notes no change that could alter it (see the module).

    :meth:`now` returns the same mapping object while nothing changed it, so a caller
    can tell "the same" by identity; ``worked_out`` counts the times it asked the
    scheduler again.

    >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
    >>> openings = SearchOpenings(Scheduler.for_items([Facade.searchable("find", "Find", [ping])]))
    >>> openings.now() is openings.now(), openings.worked_out
    (True, 1)
    """

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        graph = scheduler.graph
        self.facades = search_facades(scheduler)
        self._members: dict[str, tuple[str, ...]] = {}
        self._member_sets: dict[str, frozenset[str]] = {}
        self._gated: dict[str, tuple[str, ...]] = {}
        for facade in self.facades:
            index = graph.facades[facade].search_index
            members = tuple(tool.name for tool in index.tools if tool.name in graph.entries)
            self._members[facade] = members
            self._member_sets[facade] = frozenset(members)
            self._gated[facade] = tuple(m for m in members if not _settled(graph, facade, m))
        self._recorded: int | None = None
        self._now: dict[str, tuple[str, ...]] = {}
        self._closed: dict[str, frozenset[str] | None] = {}
        """Per facade, the members its search may not open (None: the facade is locked)."""
        self.worked_out = 0

    def now(self) -> dict[str, tuple[str, ...]]:
        """Every search facade with the tools below it that its search may open now.

        >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
        >>> SearchOpenings(Scheduler.for_items([Facade.searchable("find", "Find", [ping])])).now()
        {'find': ('ping',)}
        """
        scheduler = self.scheduler
        if scheduler.recorded == self._recorded:
            return self._now
        self._recorded = scheduler.recorded
        self.worked_out += 1
        removed = scheduler.snapshot().removed
        now: dict[str, tuple[str, ...]] = {}
        changed = False
        for facade in self.facades:
            closed = self._closed_now(facade, removed)
            if facade in self._closed and self._closed[facade] == closed:
                now[facade] = self._now[facade]  # the same tuple, for the adapters
                continue
            changed = True
            self._closed[facade] = closed
            if closed is None:
                now[facade] = ()
            else:
                now[facade] = tuple(m for m in self._members[facade] if m not in closed)
        if changed:
            self._now = now
        return self._now

    def _closed_now(self, facade: str, removed: Collection[str]) -> frozenset[str] | None:
        scheduler = self.scheduler
        if scheduler.explain(facade) is not None:
            return None
        members = self._member_sets[facade]
        closed = {name for name in removed if name in members}
        closed.update(
            m for m in self._gated[facade] if scheduler.search_lock(facade, m) is not None
        )
        return frozenset(closed)
