"""The scheduler: which tools the model sees this turn, and which it may call.

It reads a :class:`DisclosureGraph` (only reads: one compiled graph serves any number
of runs, threads and sessions) and owns its run's state, in two parts with one holder
each: what the run has done (:class:`~statetools.engine.run_facts.RunFacts`) and what it
shows (:class:`~statetools.engine.visible_tools.VisibleTools`). Evaluation is
incremental: a recorded call re-evaluates only the tools whose conditions depend on it
(:mod:`~statetools.engine.recording`); ``When`` conditions are re-checked at the
start of every turn. Per-turn work grows with the changes, not with the tools registered.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any, Literal

from statetools.blackboard import Blackboard
from statetools.engine.bindings import Resolver
from statetools.engine.code_view import through_scripts
from statetools.engine.facades import Replay
from statetools.engine.graph import DisclosureGraph
from statetools.engine.graph_cache import compiled, kept
from statetools.engine.locks import Locks
from statetools.engine.prompt_sections import refuse_duplicate_sections
from statetools.engine.recording import (
    add_tools,
    available,
    known,
    note_call,
    refresh,
    remove_tools,
    restore_added_tools,
    tool_of,
)
from statetools.engine.run_facts import (
    NOTHING_CHANGED,
    Blocked,
    CallRecord,
    Changes,
    Injected,
    RunFacts,
    StateChange,
    announcement,
)
from statetools.engine.state import DisclosureState
from statetools.engine.visibility import Opened, shows, usable
from statetools.engine.visible_tools import Shown, VisibleTools
from statetools.errors import DefinitionError
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool

__all__ = ["Blocked", "Changes", "Injected", "Scheduler", "StateChange", "Visibility"]

Visibility = Literal["hidden", "declared"]
DISCOVERY_LIMIT = 128
"""Default limit on tools added by entity discovery in one run."""


class Scheduler:
    """Decides, turn by turn, which tools are visible and which calls may run.

    A saved ``state`` resumes a run; ``replay`` says what its saved unfolds opened
    (by default each facade selects again, running its selector). Sections that share
    a key raise :class:`~statetools.DefinitionError`; ``strict_sections=False`` keeps
    them (the first one is read), for analysis such as ``statetools tokens``.

    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "Tides follow the moon."
    >>> research = PlaybookTool("research", "Research").with_tool(search).with_tool(
    ...     Tool.create("analyze", "Analyze a text", lambda text: "ok")
    ... ).unlocked_by(search)
    >>> scheduler = Scheduler.for_items([research])
    >>> [t.name for t in scheduler.visible()]
    ['search']
    >>> scheduler.explain("analyze")
    "Tool 'analyze' is locked. Call first: search."
    >>> scheduler.record(ToolCall("call_1", "search"), ToolResult.text("found")).announcement
    '[now available: analyze]'
    """

    def __init__(
        self,
        graph: DisclosureGraph,
        state: DisclosureState | None = None,
        *,
        visibility: Visibility = "hidden",
        blackboard: Blackboard | None = None,
        context: Mapping[str, Any] | None = None,
        discovery_limit: int = DISCOVERY_LIMIT,
        instances: Resolver | None = None,
        restore: Callable[[str], BaseTool | None] | None = None,
        replay: Replay | None = None,
        strict_sections: bool = True,
    ) -> None:
        if graph.duplicates:
            twice = ", ".join(sorted(set(graph.duplicates)))
            raise DefinitionError(
                f"different tools have the same name: {twice}",
                path="tools",
                hint="give every tool its own name (one tool may sit in several places)",
            )
        if strict_sections:
            refuse_duplicate_sections(graph.outlines)
        restored = state.disclosure() if state is not None else DisclosureState()
        self.graph = graph
        self.visibility = visibility
        self.blackboard = blackboard if blackboard is not None else Blackboard()
        self.context: Mapping[str, Any] = context or {}
        self.iteration = restored.iteration
        self.recorded = 0
        """How many recorded calls, turn starts and removals could change what may show:
        a call that nothing depends on leaves it, so a caller can tell "nothing changed
        since" (tools added at run time change nothing registered)."""
        facts = self._facts = RunFacts(graph, restored, self.context, discovery_limit)
        """What the run has done (the only holder of it)."""
        visible = self._visible = VisibleTools()
        """What the run shows (the only holder of it)."""
        self._locks = Locks(graph, facts, visible)
        facts.unfolding.replay(restored.unfolds, replay)
        added, self._not_restored = restore_added_tools(
            restored,
            facts.bindings,
            lambda name: known(graph, facts, name) or name in facts.removed,
            instances,
            restore,
        )
        facts.dynamic.update(added)
        fresh = restored == DisclosureState(iteration=restored.iteration)
        if fresh and graph.initial_visible is not None:  # worked out when compiled
            visible.start(graph.initial_tools, graph.initial_positions)
        else:
            saved = (*restored.visible_order, *graph.entries, *facts.unfolding.built)
            visible.start(
                (name, tool_of(graph, facts, name))
                for name in dict.fromkeys(saved)
                if (known(graph, facts, name) or name in facts.dynamic)
                and not (fresh and name in graph.when_tools)
                and available(graph, facts, name)
            )
        posted = facts.posted(graph, self.blackboard)  # a nested run starts with its caller's
        refresh(graph, facts, visible, graph.when_tools | posted if posted else graph.when_tools)
        visible.settle()
        if fresh and visibility == "hidden" and graph.initial_shown is not None and not posted:
            visible.keep_shown(graph.initial_shown)

    @classmethod
    def for_items(
        cls,
        items: Sequence[Any],
        state: DisclosureState | None = None,
        **options: Any,
    ) -> Scheduler:
        """A scheduler for tools and definitions (a prebuilt DisclosureGraph is used as is).

        >>> search = Tool.create("search", "Search the web", lambda: "found")
        >>> [tool.name for tool in Scheduler.for_items([disclosure_graph(search)]).visible()]
        ['search']
        """
        if len(items) == 1 and isinstance(items[0], DisclosureGraph):
            return cls(items[0], state, **options)
        graph = kept(items)  # the same items as a recent run: their graph, at once
        if graph is not None:
            return cls(graph, state, **options)
        if any(isinstance(item, DisclosureGraph) for item in items):
            raise DefinitionError(
                "a prebuilt DisclosureGraph cannot be combined with other tools",
                path="tools",
                hint="build one graph from everything: disclosure_graph(...)",
            )
        return cls(compiled(items), state, **options)

    # availability -------------------------------------------------------------------

    def _usable(self, name: str, scoped: bool = True) -> bool:
        """Available, counting an unfolded facade as usable (its tools may show)."""
        facts, graph = self._facts, self.graph
        return name in facts.dynamic or usable(
            graph.entries, name, facts, scoped=scoped, places=graph.places
        )

    def would_show(self, name: str, opened: Container[str] = (), *, unfolded: bool = False) -> bool:
        """Whether ``name`` is shown now, the tools in ``opened`` counting as revealed by
        their facades (what loading them would show; a model's ``tool_search``);
        ``unfolded``: a facade that was unfolded counts as shown while its tools may show.

        >>> Scheduler.for_items([Tool.create("ping", "Ping.", lambda: "ok")]).would_show("ping")
        True
        """
        moment = Opened(self._facts, opened) if opened else self._facts
        entries, places = self.graph.entries, self.graph.places
        if name in self._facts.dynamic:
            return True
        if unfolded:
            return usable(entries, name, moment, places=places)
        return shows(entries, name, moment, places)

    def explain(self, name: str) -> str | None:
        """Why ``name`` cannot be called now (the text the model gets), or None if it can.

        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> scheduler.explain("report"), scheduler.explain("search")
        ("Tool 'report' is locked. Call first: search.", None)
        """
        return self._locks.explain(name)

    def search_lock(self, facade: str, name: str) -> str | None:
        """Why ``name``, found by searching search facade ``facade``, may not open now
        (the text the model gets), or None if it may.

        >>> ping = Tool.create("ping", "Ping a host", lambda: "pong")
        >>> scheduler = Scheduler.for_items([Facade.searchable("find", "Find tools", [ping])])
        >>> scheduler.search_lock("find", "ping") is None
        True
        """
        return self._locks.search_lock(facade, name)

    def visible(self) -> list[BaseTool]:
        """The tools to send to the model now, in stable order.

        With ``visibility="declared"`` every registered tool is sent; locked ones carry
        one more line saying what unlocks them (unfolded facades, and tools an
        exclusive facade put away, are left out).


        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> [tool.name for tool in scheduler.visible()]
        ['search']
        """
        return list(self.shown().tools)

    def shown(self) -> Shown:
        """The tools to send to the model now (as :meth:`visible` gives them), with their
        names and definitions.

        With ``visibility="hidden"`` the same object is returned until the visible tools
        change, so a caller can tell "nothing changed" by identity and reuse what it
        built from it (the loop's requests, an adapter's wire forms); fresh runs of one
        graph without ``When`` conditions all start from the same object.


        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> shown = scheduler.shown()
        >>> shown.names, scheduler.shown() is shown
        (('search',), True)
        """
        graph = self.graph
        if self.visibility == "hidden":
            shown = self._visible.handed
            if shown is not None:  # nothing changed since it was handed out
                return shown
            return self._visible.shown(self._through_scripts if graph.code_modes else None)
        declared = Shown.of(self._locks.declared_view())
        return through_scripts(declared, graph.code_modes, graph.code_member_of)

    def _through_scripts(self, shown: Shown) -> Shown:
        return through_scripts(shown, self.graph.code_modes, self.graph.code_member_of)

    def resolve(self, name: str) -> BaseTool | Blocked | None:
        """The tool to run for ``name``; Blocked when it may not run now; None if unknown.

        An unfolded facade called again resolves to a tool that lists its tools; a
        chained tool resolves to its method bound to the newest instance.


        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> scheduler.resolve("search").name, scheduler.resolve("nothing")
        ('search', None)
        >>> scheduler.resolve("report")
        Blocked(reason="Tool 'report' is locked. Call first: search.")
        """
        tool = self._visible.get(name)
        facts = self._facts
        if tool is not None:
            if name in self.graph.chained:
                bound = facts.bindings.tool(name)
                return bound if bound is not None else Blocked(facts.bindings.reason(name) or "")
            if name in self.graph.facades and self.graph.facades[name].search is not None:
                return self._locks.search_call(name, tool)
            return tool
        if facts.facades and name in self.graph.facades and self._usable(name):
            recall = facts.unfolding.recall(name)
            if recall is not None:
                return recall
            if name in facts.unfolding.passed:  # a search went through it; it may unfold
                return self.graph.entries[name].tool
        if known(self.graph, facts, name):
            return Blocked(self.explain(name) or f"Tool '{name}' is not available now.")
        return None

    # changes ----------------------------------------------------------------------

    def record(self, call: ToolCall, result: ToolResult) -> Changes:
        """Note that ``call`` ran with ``result``; returns what became (un)available
        (failed calls count for nothing; see :func:`~.recording.note_call`).

        >>> ping = Tool.create("ping", "Ping", lambda: "pong")
        >>> after = Tool.create("after", "After a ping", lambda: "ok")
        >>> book = PlaybookTool("p", "P").with_tool(ping).with_tool(after).unlocked_by(ping)
        >>> Scheduler.for_items([book]).record(ToolCall("c1", "ping"), ToolResult.text("")).unlocked
        ('after',)
        """
        graph, facts, visible = self.graph, self._facts, self._visible
        record = CallRecord(facts.posted(graph, self.blackboard))
        note_call(graph, facts, visible, call, result, record)
        if not (record.affected or record.entered or record.hidden or record.injected):
            return NOTHING_CHANGED  # the usual call: nothing depends on it
        self.recorded += 1
        shown, hidden = refresh(graph, facts, visible, record.affected)
        hidden.extend(record.hidden)
        news = [*shown, *(name for name in record.opened if name not in shown)]
        return Changes(
            tuple(shown),
            tuple(hidden),
            tuple(record.entered),
            announcement(news, record.entered, len(graph.machines), record.listed),
            tuple(record.injected),
        )

    def add(self, tools: Iterable[BaseTool]) -> tuple[list[str], list[str]]:
        """Append tools injected at run time; returns (added names, skipped duplicates).

        >>> scheduler = Scheduler.for_items([Tool.create("ping", "Ping", lambda: "pong")])
        >>> scheduler.add([Tool.create("pong", "Pong", lambda: "ping")])
        (['pong'], [])
        """
        return add_tools(self.graph, self._facts, self._visible, tools)

    def remove(self, names: Iterable[str]) -> list[str]:
        """Remove tools by name (injected or registered); returns the names removed.

        >>> scheduler = Scheduler.for_items([Tool.create("ping", "Ping", lambda: "pong")])
        >>> scheduler.remove(["ping", "nothing"]), scheduler.visible()
        (['ping'], [])
        """
        removed = remove_tools(self.graph, self._facts, self._visible, names)
        if any(name in self.graph.entries for name in removed):
            self.recorded += 1
        return removed

    def begin_turn(self) -> Changes:
        """Re-check ``When`` conditions and the blackboard before a model call (the
        first turn of a resumed run also says which tools could not be restored).

        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> scheduler.begin_turn().unlocked  # no When condition, nothing posted
        ()
        """
        lost = (Injected("resume", not_added=self._not_restored),) if self._not_restored else ()
        self._not_restored = ()
        graph, facts, visible = self.graph, self._facts, self._visible
        affected = facts.posted(graph, self.blackboard)
        affected.update(graph.when_tools)
        if not affected:
            visible.settle()
            return Changes(injected=lost) if lost else NOTHING_CHANGED
        self.recorded += 1
        shown, hidden = refresh(graph, facts, visible, affected)
        visible.settle()
        return Changes(tuple(shown), tuple(hidden), injected=lost)

    def snapshot(self) -> DisclosureState:
        """The current state, serializable: bound objects are kept by reference (type
        and id), tools added at run time by name.

        >>> search, report = (Tool.create(n, n.title(), lambda: "ok") for n in ("search", "report"))
        >>> book = PlaybookTool("p", "P").with_tools(search).with_tool(report).unlocked_by(search)
        >>> scheduler = Scheduler.for_items([book])
        >>> _ = scheduler.record(ToolCall("c1", "search"), ToolResult.text("found"))
        >>> dict(scheduler.snapshot().call_counts)
        {'search': 1}
        """
        facts = self._facts
        return DisclosureState(
            call_counts=facts.counts,
            machine_states=facts.machines,
            artifacts=facts.artifacts,
            blackboard=facts.blackboard,
            visible_order=tuple(self._visible),
            removed=facts.removed,
            iteration=self.iteration,
            unfolds=facts.unfolding.snapshot(),
            objects=facts.bindings.snapshot(),
        )
