"""The scheduler: which tools the model sees this turn, and which it may call.

It reads a :class:`DisclosureGraph` and keeps the run's :class:`DisclosureState`.
Evaluation is incremental: a recorded call re-evaluates only the tools whose
conditions depend on it (the graph's dependency index); ``When`` conditions are
re-checked at the start of every turn. Per-turn work grows with the visible tools and
the changes, not with the number registered.

Facades (:mod:`~statetools.disclosure.facades`), chained instances and discovered
entities (:mod:`~statetools.disclosure.bindings`) keep their own bookkeeping; the
scheduler asks them and applies what they decide. What a call changes, and tools added
or removed at run time, is :mod:`~statetools.disclosure.recording`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any, Literal

from statetools.blackboard import Blackboard
from statetools.definitions.search import SearchCall
from statetools.disclosure.bindings import Bindings, Resolver
from statetools.disclosure.code_view import through_scripts
from statetools.disclosure.facades import Facades, Replay
from statetools.disclosure.graph import DisclosureGraph
from statetools.disclosure.graph_cache import compiled, kept
from statetools.disclosure.locks import Locks
from statetools.disclosure.outcomes import (
    NOTHING_CHANGED,
    Blocked,
    Changes,
    Injected,
    StateChange,
)
from statetools.disclosure.outline import refuse_duplicate_sections
from statetools.disclosure.overlay import Overlay
from statetools.disclosure.recording import Recording
from statetools.disclosure.resume import restore_added_tools
from statetools.disclosure.shown import Shown
from statetools.disclosure.state import DisclosureState
from statetools.disclosure.tool_order import ToolOrder
from statetools.disclosure.view import SchedulerView
from statetools.disclosure.visibility import Opened, shows, usable
from statetools.errors import DefinitionError, SpecError
from statetools.tools.tool import BaseTool

__all__ = ["Blocked", "Changes", "Injected", "Scheduler", "StateChange", "Visibility"]

Visibility = Literal["hidden", "declared"]
DISCOVERY_LIMIT = 128
"""Default limit on tools added by entity discovery in one run."""


class Scheduler(Recording):
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
        restored = state or DisclosureState()
        self.graph = graph
        self.visibility = visibility
        self.blackboard = blackboard if blackboard is not None else Blackboard()
        self.context: Mapping[str, Any] = context or {}
        self.iteration = restored.iteration
        self.recorded = 0
        self._counts: dict[str, int] = dict(restored.call_counts)
        self._machine_states = {name: m.initial_state() for name, m in graph.machines.items()}
        _check_machine_states(graph, restored)
        self._machine_states.update(restored.machine_states)
        self._artifacts = set(restored.artifacts)
        self._blackboard_keys = set(restored.blackboard)
        self._blackboard_seen = 0
        self._removed = set(restored.removed)
        self._dynamic: dict[str, BaseTool] = {}
        fresh = state is None or state == DisclosureState(iteration=state.iteration)
        shared = fresh and graph.initial_visible is not None
        self._visible: Overlay[BaseTool] = Overlay(graph.initial_tools if shared else {})
        """The visible tools: a fresh run reads the graph's shared start and keeps only
        its own changes."""
        self._order = ToolOrder()
        self._shown: Shown | None = None
        """The visible tools as last handed out; None after any change."""
        self._facades = Facades(graph)
        self._view = SchedulerView(
            counts=self._counts,
            machines=self._machine_states,
            artifacts=self._artifacts,
            blackboard=self._blackboard_keys,
            removed=self._removed,
            facades=self._facades,
            context=self.context,
        )
        self._folding = self._facades.active
        self._bindings = Bindings(graph, discovery_limit)
        self._locks = Locks(
            graph,
            self._view,
            visible=self._visible,
            dynamic=self._dynamic,
            removed=self._removed,
            machine_states=self._machine_states,
            facades=self._facades,
            bindings=self._bindings,
            folding=self._folding,
        )
        self._facades.replay(restored.unfolds, replay)
        added, self._not_restored = restore_added_tools(
            restored,
            self._bindings,
            lambda name: self._known(name) or name in self._removed,
            instances,
            restore,
        )
        self._dynamic.update(added)
        if shared:  # worked out when compiled
            self._order.start((), graph.initial_positions)
        else:
            known = (*restored.visible_order, *graph.entries, *self._facades.built)
            names = [
                name
                for name in dict.fromkeys(known)
                if (self._known(name) or name in self._dynamic)
                and not (fresh and name in graph.when_tools)
                and self._available(name)
            ]
            tool_of = self._tool_of
            self._visible.update((name, tool_of(name)) for name in names)
            self._order.start(self._visible)
        posted = self._blackboard_changes()  # a nested run starts with its caller's values
        self._refresh(graph.when_tools | posted if posted else graph.when_tools)
        self._order.settle()
        if fresh and visibility == "hidden" and graph.initial_shown is not None and not posted:
            self._shown = graph.initial_shown

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

    def _known(self, name: str) -> bool:
        return name in self.graph.entries or name in self._facades.built

    def _tool_of(self, name: str) -> BaseTool:
        dynamic = self._dynamic.get(name)
        if dynamic is not None:
            return dynamic
        return self._facades.tool_of(name) if self._folding else self.graph.entries[name].tool

    def _available(self, name: str) -> bool:
        """Shown now (the rule of :mod:`~statetools.disclosure.visibility`, which
        ``explore()`` shares); tools added at run time always are."""
        graph = self.graph
        return name in self._dynamic or shows(graph.entries, name, self._view, graph.places)

    def _usable(self, name: str, scoped: bool = True) -> bool:
        """Available, counting an unfolded facade as usable (its tools may show)."""
        return name in self._dynamic or usable(
            self.graph.entries, name, self._view, scoped=scoped, places=self.graph.places
        )

    def would_show(self, name: str, opened: Container[str] = (), *, unfolded: bool = False) -> bool:
        """Whether ``name`` is shown now, the tools in ``opened`` counting as revealed by
        their facades (what loading them would show; a model's ``tool_search``);
        ``unfolded``: a facade that was unfolded counts as shown while its tools may show.

        >>> Scheduler.for_items([Tool.create("ping", "Ping.", lambda: "ok")]).would_show("ping")
        True
        """
        moment = Opened(self._view, opened) if opened else self._view
        entries, places = self.graph.entries, self.graph.places
        if name in self._dynamic:
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
            if self._shown is None:
                self._shown = through_scripts(
                    Shown.of(self._visible.values()), graph.code_modes, graph.code_member_of
                )
            return self._shown
        declared = Shown.of(self._locks.declared_view())
        return through_scripts(declared, graph.code_modes, graph.code_member_of)

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
        if tool is not None:
            if name in self.graph.chained:
                bound = self._bindings.tool(name)
                return bound if bound is not None else Blocked(self._bindings.reason(name) or "")
            if name in self.graph.facades and self.graph.facades[name].search is not None:
                return SearchCall.around(
                    tool, locked=lambda found: self._locks.search_lock(name, found)
                )
            return tool
        if self._folding and name in self.graph.facades and self._usable(name):
            recall = self._facades.recall(name)
            if recall is not None:
                return recall
            if name in self._facades.passed:  # a search went through it; it may unfold
                return self.graph.entries[name].tool
        if self._known(name):
            return Blocked(self.explain(name) or f"Tool '{name}' is not available now.")
        return None

    # changes ----------------------------------------------------------------------

    def _refresh(self, names: Iterable[str]) -> tuple[list[str], list[str]]:
        shown: list[str] = []
        hidden: list[str] = []
        # Registered tools in registration order, then tools built by selectors.
        position, later = self.graph.position, self._facades.position

        def order(name: str) -> int:
            index = position.get(name)
            return index if index is not None else later.get(name, len(position))

        if self._folding:
            names = self._facades.with_revealed(names)
        entries, built, visible = self.graph.entries, self._facades.built, self._visible
        for name in sorted(names, key=order):
            if name not in entries and name not in built:
                continue
            now = self._available(name)
            if now and name not in visible:
                tool = built.get(name)
                self._show(name, tool if tool is not None else entries[name].tool)
                shown.append(name)
            elif not now and name in visible and name not in self._dynamic:
                self._hide(name)
                hidden.append(name)
        return shown, hidden

    def _show(self, name: str, tool: BaseTool) -> None:
        """Make ``name`` visible: back in its place if the model still has it in view."""
        self._visible[name] = tool
        self._shown = None
        if self._order.show(name):  # rare: reorder in place (others hold this dict)
            tools = dict(self._visible)
            self._visible.clear()
            self._visible.update((n, tools[n]) for n in self._order.sorted(tools))

    def _hide(self, name: str) -> None:
        del self._visible[name]
        self._shown = None
        self._order.hide(name)

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
        affected = self._blackboard_changes()
        affected.update(self.graph.when_tools)
        if not affected:
            self._order.settle()
            return Changes(injected=lost) if lost else NOTHING_CHANGED
        self.recorded += 1
        shown, hidden = self._refresh(affected)
        self._order.settle()
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
        return DisclosureState(
            call_counts=self._counts,
            machine_states=self._machine_states,
            artifacts=self._artifacts,
            blackboard=self._blackboard_keys,
            visible_order=tuple(self._visible),
            removed=self._removed,
            iteration=self.iteration,
            unfolds=self._facades.snapshot(),
            objects=self._bindings.snapshot(),
        )


def _check_machine_states(graph: DisclosureGraph, state: DisclosureState) -> None:
    """Refuse a saved state that puts a machine of this run in a state it does not have."""
    for name, current in state.machine_states.items():
        machine = graph.machines.get(name)
        if machine is not None and current not in machine.state_names:
            raise SpecError(
                f"machine '{name}' has no state {current!r}",
                path=f"state.machine_states.{name}",
                hint=f"its states are {', '.join(machine.state_names)}; "
                "resume with the state saved from this design",
            )
