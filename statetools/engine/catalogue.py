"""The catalogue of a run: every tool the design can show, and what each result changed.

Models that declare every tool and restrict them by other means (OpenAI's
``allowed_tools``, Anthropic's deferred tools) need it; the loop keeps one per run for
them (see ``ModelCapabilities.declares_all_tools``).

The catalogue also says what each search facade may open now (:class:`SearchOpenings`),
kept per scheduler and worked out again only where it can have changed.
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

import json
from collections.abc import Collection, Sequence

from statetools.engine.graph import DisclosureGraph
from statetools.engine.scheduler import Scheduler
from statetools.engine.tool_search import search_facades
from statetools.models.base import ToolCatalogue, ToolChange, ToolDefinition
from statetools.tools.tool import BaseTool


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


def definition(tool: BaseTool) -> ToolDefinition:
    """What the model is shown of ``tool``: the tool's own definition, the same object
    in every run, so adapters find what they built from it again."""
    return tool.definition


class CatalogueKeeper:
    """Keeps the catalogue of one run: registered tools first, in registration order,
    then tools that appear at run time, appended; and the changes by tool result.

    A request costs what changed since the last one. The catalogue's ``tools`` and
    ``run_time`` stay the same tuples until a tool is added, ``changes`` the same
    mapping until a change is noted, and a request showing the same ``visible`` object
    as the last one, with nothing noted since, gets the same catalogue: adapters reuse
    what they built from them by identity.

    >>> keeper = CatalogueKeeper(Scheduler.for_items([search, open_ticket]))  # doctest: +SKIP
    >>> keeper.request(visible_definitions).names  # doctest: +SKIP
    ['search', 'open_ticket']
    """

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        openings = SearchOpenings(scheduler)
        self._openings = openings if openings.facades else None
        """What the design's search facades may open now, worked out again only where
        a change could alter it."""
        self._searchable: dict[str, tuple[str, ...]] = {}
        """What the catalogue says they may open (the same object while it holds)."""
        graph = scheduler.graph
        self._tools = {  # a code-mode item's tools are reached through its script tool
            name: definition(e.tool)
            for name, e in graph.entries.items()
            if name not in graph.code_member_of
        }
        self._registered = len(self._tools)
        self._initial: tuple[str, ...] | None = None
        self._changes: dict[str, ToolChange] = {}
        self._shown: tuple[str, ...] = ()
        self._same: object = None
        """The last names object noted that held what ``_shown`` holds."""
        self._last_call: str | None = None
        self._listed: tuple[tuple[ToolDefinition, ...], tuple[str, ...]] | None = None
        """``tools`` and ``run_time`` of the catalogue, until a tool is added."""
        self._changed: dict[str, ToolChange] | None = None
        """``changes`` of the catalogue (a copy), until a change is noted."""
        self._last: tuple[object, ToolCatalogue] | None = None
        """The visible tools of the last request and its catalogue, until anything is
        noted."""

    def _note(self, call_id: str | None, now: tuple[str, ...]) -> None:
        if now is self._shown or now is self._same:
            return
        before = set(self._shown)
        added = tuple(name for name in now if name not in before)
        after = set(now)
        removed = tuple(name for name in self._shown if name not in after)
        if not (added or removed):
            self._same = now
            return
        self._shown, self._same, self._last = now, None, None
        if call_id is None:
            return
        earlier = self._changes.get(call_id, ToolChange())
        self._changes[call_id] = ToolChange(
            (*earlier.added, *(n for n in added if n not in earlier.added)),
            (*earlier.removed, *(n for n in removed if n not in earlier.removed)),
        )
        self._changed = None

    def after_search(self, search_id: str, visible: Sequence[str]) -> None:
        """Note the tools visible after a provider's own search (``search_id``) opened
        what it found; the changes count for the search, not for a tool result."""
        self.after_call(search_id, visible)

    def after_call(self, call_id: str, visible: Sequence[str]) -> None:
        """Note the tools visible after the result of ``call_id``."""
        if self._initial is not None:
            self._note(call_id, tuple(visible))
        self._last_call = call_id

    def request(self, visible: Sequence[ToolDefinition]) -> ToolCatalogue:
        """The catalogue for a request showing ``visible``. Tools seen for the first
        time are appended; a tool shown in a new form (``tool_detail`` of a layered
        catalogue, an object's tool with another schema) takes the place of the form the
        catalogue held; changes since the last result count for that result."""
        if self._openings is not None:  # a search may open others though none showed or hid
            searchable = self._openings.now()  # the same object while nothing changed it
            if searchable is not self._searchable:
                self._searchable, self._last = searchable, None
        last = self._last
        if last is not None and last[0] is visible:
            return last[1]
        known = len(self._tools)
        replaced = False
        for tool in visible:
            held = self._tools.setdefault(tool.name, tool)
            if held is not tool and held != tool:  # a new form (a layered tool's full one)
                self._tools[tool.name] = tool
                replaced = True
        if replaced or len(self._tools) != known:
            self._listed = None
        names = tuple(tool.name for tool in visible)
        if self._initial is None:
            self._initial = names
            self._shown = names
        else:
            self._note(self._last_call, names)
        if self._listed is None:
            self._listed = (tuple(self._tools.values()), tuple(self._tools)[self._registered :])
        if self._changed is None:
            self._changed = dict(self._changes)
        tools, run_time = self._listed
        shown, facades = set(names), self._scheduler.graph.facades
        callable_now = tuple(  # an unfolded facade: gone from view, still callable
            n
            for n in self._initial
            if n in facades and n not in shown and self._scheduler.explain(n) is None
        )
        catalogue = ToolCatalogue(
            tools, self._initial, self._changed, run_time, self._searchable, callable_now
        )
        self._last = (visible, catalogue)
        return catalogue

    def snapshot(self) -> str:
        """What the catalogue holds beyond the design, as JSON text (kept in
        ``DisclosureState.catalogue``, so a resumed run sends the same catalogues)."""
        added = [[t.name, t.description, t.input_schema] for t in self._tools.values()]
        return json.dumps(
            {
                "initial": None if self._initial is None else list(self._initial),
                "shown": list(self._shown),
                "last_call": self._last_call,
                "changes": [[k, list(c.added), list(c.removed)] for k, c in self._changes.items()],
                "added": added[self._registered :],
            },
            sort_keys=True,
        )

    def restore(self, text: str) -> None:
        """Take back what :meth:`snapshot` saved."""
        data = json.loads(text)
        self._listed = self._changed = self._last = self._same = None
        for name, description, schema in data["added"]:
            self._tools.setdefault(name, ToolDefinition(name, description, schema))
        initial = data["initial"]
        self._initial = None if initial is None else tuple(initial)
        self._shown = tuple(data["shown"])
        self._last_call = data["last_call"]
        self._changes = {
            call: ToolChange(tuple(added), tuple(removed))
            for call, added, removed in data["changes"]
        }
