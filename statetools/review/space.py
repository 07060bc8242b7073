"""The abstract disclosure states :func:`~statetools.review.explore.explore` searches.

A state holds what decides visibility: call counts (capped at what some ``After``
needs), each machine's state, whether any call succeeded (for artifacts), the facade
unfolds (facade, category) and the exclusive facade in force. A read of a section
(``read_section``) is an unfold whose category is the section's key when it opens
tools; reads that open nothing are no steps (the prompt text they change is reported
per state by :mod:`~statetools.review.prompt_states`, never enumerated). A facade that
stays visible (``read_section``, ``load_skill``) is recorded by the tools its reads
opened: its unfolds are every category whose tools are already open, so reading skill
a or skill b, both opening ``read_skill_file``, leads to one state. The transitions
mirror the scheduler; what analysis cannot decide is taken both ways (see ``explore``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
)
from statetools.engine.visibility import Opened, shows, usable
from statetools.errors import StatetoolsError
from statetools.review.model import DesignView, Facade, free_key, leaves

MAX_FREE_CONDITIONS = 10
"""Undecidable conditions (When, artifacts, blackboard) whose combinations are tried."""


class AbstractState(NamedTuple):
    """One abstract disclosure state (hashable)."""

    counts: tuple[int, ...]
    machines: tuple[str, ...]
    called: bool
    opened: frozenset[tuple[str, str | None]]
    exclusive: str | None


class Space:
    """The abstract semantics: visible sets of a state, and the states after a call."""

    def __init__(self, design: DesignView) -> None:
        self.design = design
        self.machines = list(design.machines)
        self.position = {name: i for i, name in enumerate(self.machines)}
        caps: dict[str, int] = {}
        free: dict[str, None] = {}
        places = [p for name in design.entries for p in design.graph.places_of(name)]
        for entry in places:
            if entry.condition is None:
                continue
            for leaf in leaves(entry.condition):
                if isinstance(leaf, After):
                    for name in leaf.tools:
                        caps[name] = max(caps.get(name, 0), leaf.count)
                key = free_key(leaf)
                if key is not None:
                    free.setdefault(key)
        self.tracked = list(caps)
        self.index = {name: i for i, name in enumerate(self.tracked)}
        self.caps = [caps[name] for name in self.tracked]
        self.free = list(free)
        if len(self.free) > MAX_FREE_CONDITIONS:
            raise StatetoolsError(
                f"the design has {len(self.free)} conditions that analysis cannot decide "
                f"(When, artifacts, blackboard); at most {MAX_FREE_CONDITIONS} are explored",
                hint="use After/InState conditions where you can",
            )
        self.artifact_keys = {key for key in self.free if key.startswith("artifact ")}
        self.chains = {name: design.facade_chain(name) for name in design.entries}
        self.searched_by = {
            name: {f for f in chain if design.facades[f].searchable}
            for name, chain in self.chains.items()
        }
        """Tool -> the search facades above it (one search of any of them opens it)."""
        self.scopes = {
            name: design.scope(name) for name in design.facades if design.facades[name].exclusive
        }
        self.kept = {
            name: {category: frozenset(members) for category, members in facade.categories}
            for name, facade in design.facades.items()
            if _kept_by_tools(facade)
        }
        """Per facade that stays (``read_section``): category -> the tools it opens."""

    def start(self) -> AbstractState:
        """The state of a fresh run."""
        states = tuple(self.design.machines[m].initial_state() for m in self.machines)
        return AbstractState((0,) * len(self.tracked), states, False, frozenset(), None)

    def may_end(self, state: AbstractState) -> bool:
        """Whether ``state`` may rightly show no tools: some machine is in a final state,
        or a selectable facade unfolded (its selector may have built tools analysis
        does not know)."""
        machines, facades = self.design.machines, self.design.facades
        return any(
            current in machines[name].final_states
            for name, current in zip(self.machines, state.machines, strict=True)
        ) or any(facades[name].selectable for name, _ in state.opened)

    def assignments(self, state: AbstractState) -> Iterator[Mapping[str, bool]]:
        """Every truth assignment of the undecidable conditions possible in ``state``."""
        for values in itertools.product((False, True), repeat=len(self.free)):
            assignment = dict(zip(self.free, values, strict=True))
            if not state.called and any(assignment[key] for key in self.artifact_keys):
                continue
            yield assignment

    def holds(self, condition: Condition, state: AbstractState, free: Mapping[str, bool]) -> bool:
        """Whether ``condition`` holds in ``state`` under the assignment ``free``."""
        match condition:
            case After(tools=names, count=count):
                return all(state.counts[self.index[name]] >= count for name in names)
            case AllOf(conditions=parts):
                return all(self.holds(part, state, free) for part in parts)
            case AnyOf(conditions=parts):
                return any(self.holds(part, state, free) for part in parts)
            case InState(machine=machine, state=wanted):
                if machine not in self.position:
                    return False
                return state.machines[self.position[machine]] == wanted
        if isinstance(condition, OnArtifact) and not state.called:
            return False
        key = free_key(condition)
        return bool(key is not None and free.get(key, False))

    def _revealed(self, name: str, facade: str, state: AbstractState) -> bool:
        searched_by = self.searched_by[name]
        if searched_by and any(opened in searched_by for opened, _ in state.opened):
            return True
        definition = self.design.facades[facade]
        return any(
            opened == facade and name in definition.members(category)
            for opened, category in state.opened
        )

    def _replaced(self, facade: str, state: AbstractState) -> bool:
        chosen = {category for name, category in state.opened if name == facade}
        if not chosen:
            return False
        definition = self.design.facades[facade]
        if definition.searchable or definition.stays:
            return False
        if not definition.categories or definition.exclusive or None in chosen:
            return True
        return len(chosen) == len(definition.categories)

    def visible(self, state: AbstractState, free: Mapping[str, bool]) -> tuple[str, ...]:
        """The tools visible in ``state``, in registration order, by the scheduler's own
        rule (:mod:`statetools.engine.visibility`) asked about this abstract state."""
        moment = _Moment(self, state, free)
        entries = self.design.entries
        places = self.design.graph.places
        return tuple(name for name in entries if shows(entries, name, moment, places))

    def loadable(
        self, state: AbstractState, free: Mapping[str, bool], opened: Iterable[str]
    ) -> tuple[str, ...]:
        """The tools of ``opened`` that would show in ``state`` were they revealed by
        their facades (what a model's ``tool_search`` may load there)."""
        names = tuple(opened)
        moment = Opened(_Moment(self, state, free), set(names))
        entries = self.design.entries
        places = self.design.graph.places
        return tuple(name for name in names if shows(entries, name, moment, places))

    def callable_tools(self, state: AbstractState, free: Mapping[str, bool]) -> tuple[str, ...]:
        """The tools a call may reach in ``state``: the visible ones, and facades that
        unfolded (called again, they list their tools; the call counts like any)."""
        moment = _Moment(self, state, free)
        entries = self.design.entries
        places = self.design.graph.places
        return tuple(name for name in entries if usable(entries, name, moment, places=places))

    def after(self, state: AbstractState, tool: str) -> list[tuple[AbstractState, str]]:
        """The states a successful call of ``tool`` may lead to, each with the call as a
        step of a path: the tool's name, ``files(category=read)`` for a category."""
        counts = list(state.counts)
        if tool in self.index:
            i = self.index[tool]
            counts[i] = min(counts[i] + 1, self.caps[i])
        options: list[list[str]] = []
        for position, machine in enumerate(self.machines):
            options.append(self._targets(machine, state.machines[position], tool))
        called = bool(self.artifact_keys)  # only artifact conditions care
        unfolds = self._unfolds(state, tool)
        return [
            (AbstractState(tuple(counts), tuple(machines), called, opened, exclusive), step)
            for opened, exclusive, step in unfolds
            for machines in itertools.product(*options)
        ]

    def _unfolds(
        self, state: AbstractState, tool: str
    ) -> list[tuple[frozenset[tuple[str, str | None]], str | None, str]]:
        facade = self.design.facades.get(tool)
        if facade is None:
            return [(state.opened, state.exclusive, tool)]
        first = not any(name == tool for name, _ in state.opened)
        exclusive = tool if facade.exclusive and first else state.exclusive
        if tool in self.kept:
            return self._reads(state, tool, exclusive)
        if not facade.categories:
            return [(state.opened | {(tool, None)}, exclusive, tool)]
        return [
            (state.opened | {(tool, category)}, exclusive, f"{tool}({facade.parameter}={category})")
            for category, _members in facade.categories
            if (tool, category) not in state.opened
        ] or [(state.opened, exclusive, tool)]

    def _reads(
        self, state: AbstractState, tool: str, exclusive: str | None
    ) -> list[tuple[frozenset[tuple[str, str | None]], str | None, str]]:
        """The unfolds of a facade that stays: one per new set of open tools, holding
        every category whose tools are all open (the first read reaching it is the
        step)."""
        categories = self.kept[tool]
        others = frozenset(entry for entry in state.opened if entry[0] != tool)
        open_now = frozenset(
            name
            for f, c in state.opened
            if f == tool and c is not None and c in categories
            for name in categories[c]
        )
        found: set[frozenset[str]] = set()
        unfolds: list[tuple[frozenset[tuple[str, str | None]], str | None, str]] = []
        parameter = self.design.facades[tool].parameter
        for category, members in categories.items():
            tools = open_now | members
            if tools == open_now or tools in found:
                continue
            found.add(tools)
            closed = {(tool, c) for c, opens in categories.items() if opens <= tools}
            unfolds.append((others | closed, exclusive, f"{tool}({parameter}={category})"))
        return unfolds or [(state.opened, exclusive, tool)]

    def _targets(self, machine: str, current: str, tool: str) -> list[str]:
        targets: list[str] = []
        for transition in self.design.graph.transitions(machine, current, tool):
            if transition.target not in targets:
                targets.append(transition.target)
            if transition.guard is None:
                return targets
        return [current, *(t for t in targets if t != current)]


def _kept_by_tools(facade: Facade) -> bool:
    """Whether the tools a facade opened alone decide what it shows: it stays, shows
    one category a call, and neither hides others nor builds or searches tools."""
    return (
        facade.stays
        and bool(facade.categories)
        and not (facade.exclusive or facade.selectable or facade.searchable)
    )


class _Moment:
    """An abstract state as the visibility rule asks about it."""

    __slots__ = ("_free", "_scope", "_space", "_state", "facades", "machines")

    removed: frozenset[str] = frozenset()  # only a run's injection strategies remove tools

    def __init__(self, space: Space, state: AbstractState, free: Mapping[str, bool]) -> None:
        self.facades = bool(space.design.facades)
        self.machines = dict(zip(space.machines, state.machines, strict=True))
        self._space = space
        self._state = state
        self._free = free
        self._scope = space.scopes.get(state.exclusive) if state.exclusive else None

    def holds(self, condition: Condition) -> bool:
        return self._space.holds(condition, self._state, self._free)

    def in_scope(self, name: str) -> bool:
        scope = self._scope
        return scope is None or name in scope or name == self._state.exclusive

    def enclosing(self, name: str) -> str | None:
        chain = self._space.chains[name]
        return chain[0] if chain else None

    def revealed(self, name: str) -> bool:
        chain = self._space.chains[name]
        return bool(chain) and self._space._revealed(name, chain[0], self._state)

    def replaced(self, name: str) -> bool:
        return name in self._space.design.facades and self._space._replaced(name, self._state)
