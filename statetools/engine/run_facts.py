"""What a run has done and what its calls changed.

A scheduler keeps what its run has done in one :class:`RunFacts` (which conditions and
the visibility rule read) and collects what one recorded call changes in a
:class:`CallRecord`. It answers with the values below: :class:`Blocked` (a call that
may not run now, and why), :class:`Changes` (what a call, or a new turn, changed: the
tools shown and hidden, the :class:`StateChange` of each machine that moved, the
tools :class:`Injected` at run time, the line announced to the model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from statetools.blackboard import Blackboard
from statetools.definitions.conditions import Condition, holds, type_key
from statetools.engine.bindings import Bindings
from statetools.engine.facades import Facades
from statetools.engine.graph import DisclosureGraph
from statetools.engine.state import DisclosureState
from statetools.errors import SpecError
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool


@attrs.frozen
class Blocked:
    """A call that may not run now, and the text that tells the model why.

    >>> Blocked("Tool 'analyze' is locked. Call first: search.").reason
    "Tool 'analyze' is locked. Call first: search."
    """

    reason: str


@attrs.frozen
class StateChange:
    """A state machine moved from ``previous`` to ``state``.

    >>> StateChange("order", previous="DRAFT", state="CONFIRMED", final=True).state
    'CONFIRMED'
    """

    machine: str
    previous: str
    state: str
    final: bool


@attrs.frozen
class Injected:
    """Tools a call's result added or removed at run time (not through conditions).

    ``source`` is ``"discovery"`` (``@tool_provider`` objects), ``"chaining"``
    (``Chaining.any()``) or the name of a selectable facade; ``skipped`` tools were not
    added because the name is taken; ``over_limit`` ones because the run reached
    ``limit`` discovered tools; ``not_added`` lists ``(name, reason)`` of other tools
    left out: those of provider objects without an id (the name is a template), and
    tools a resumed run could not restore.

    >>> Injected("discovery", added=("order_7_cancel",)).added
    ('order_7_cancel',)
    """

    source: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    over_limit: tuple[str, ...] = ()
    limit: int = 0
    not_added: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class Changes:
    """What a recorded call (or a new turn) changed.

    ``announcement`` is the line appended to the call's result, e.g.
    ``[now available: analyze; state is now CONFIRMED]``.

    >>> changes = Changes(entered=(StateChange("order", "DRAFT", "CONFIRMED", True),))
    >>> changes.final_reached
    True
    """

    unlocked: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    entered: tuple[StateChange, ...] = ()
    announcement: str | None = None
    injected: tuple[Injected, ...] = ()

    @property
    def final_reached(self) -> bool:
        """Whether a machine entered a final state.

        >>> Changes(entered=(StateChange("order", "DRAFT", "OPEN", False),)).final_reached
        False
        """
        return any(change.final for change in self.entered)


NOTHING_CHANGED = Changes()
"""The changes of a turn that changed nothing (one shared value: it is immutable)."""


def announcement(
    shown: list[str], entered: list[StateChange], machines: int, listed: set[str]
) -> str | None:
    """The line appended to a result: new tools (apart from those the result already
    listed) and state changes.

    >>> announcement(["a", "b"], [StateChange("m", "A", "B", True)], 1, {"b"})
    '[now available: a; state is now B (final)]'
    """
    parts = []
    news = [name for name in shown if name not in listed]
    if news:
        parts.append(f"now available: {', '.join(news)}")
    for change in entered:
        subject = "state" if machines == 1 else f"state of {change.machine}"
        final = " (final)" if change.final else ""
        parts.append(f"{subject} is now {change.state}{final}")
    return f"[{'; '.join(parts)}]" if parts else None


class RunFacts:
    """What one run has done, as its scheduler keeps it: successful calls per tool, the
    state of each machine, the type keys of the artifacts and blackboard values seen,
    the tools removed and the tools added at run time, the facades' unfolds
    (``unfolding``) and the bound objects (``bindings``). It is the only holder of these
    (nothing else keeps a reference to its containers), and it is what conditions (a
    ConditionView) and the visibility rule (a
    :class:`~statetools.engine.visibility.Moment`) read.

    >>> graph = disclosure_graph(Tool.create("ping", "Ping", lambda: "pong"))
    >>> facts = RunFacts(graph, DisclosureState(call_counts={"ping": 2}), {}, 128)
    >>> facts.calls("ping"), facts.calls("pong")
    (2, 0)
    """

    __slots__ = (
        "artifacts",
        "bindings",
        "blackboard",
        "blackboard_seen",
        "context",
        "counts",
        "dynamic",
        "facades",
        "machines",
        "removed",
        "unfolding",
    )

    def __init__(
        self,
        graph: DisclosureGraph,
        state: DisclosureState,
        context: Mapping[str, Any],
        discovery_limit: int,
    ) -> None:
        _check_machine_states(graph, state)
        self.counts: dict[str, int] = dict(state.call_counts)
        self.machines: dict[str, str] = {
            name: machine.initial_state() for name, machine in graph.machines.items()
        }
        self.machines.update(state.machine_states)
        self.artifacts = set(state.artifacts)
        self.blackboard = set(state.blackboard)
        """Type keys of the blackboard values seen."""
        self.blackboard_seen = 0
        """How many of the blackboard's values were looked at."""
        self.removed = set(state.removed)
        self.dynamic: dict[str, BaseTool] = {}
        """Tools added at run time (discovery, chaining, injection strategies), by name."""
        self.unfolding = Facades(graph)
        self.bindings = Bindings(graph, discovery_limit)
        self.context = context
        self.facades = self.unfolding.active

    def count(self, tool: str) -> None:
        """One more successful call of ``tool``."""
        self.counts[tool] = self.counts.get(tool, 0) + 1

    def posted(self, graph: DisclosureGraph, blackboard: Blackboard) -> set[str]:
        """The tools whose conditions wait for a blackboard value posted since the last
        look (a type key seen for the first time)."""
        affected: set[str] = set()
        if len(blackboard) == self.blackboard_seen:
            return affected  # nothing posted since (the usual turn)
        waited_for = graph.blackboard_keys
        for value in blackboard.since(self.blackboard_seen):
            self.blackboard_seen += 1
            for key in _type_keys(value) & waited_for:
                if key not in self.blackboard:
                    self.blackboard.add(key)
                    affected |= graph.dependents_of_blackboard(key)
        return affected

    def produced(self, graph: DisclosureGraph, value: Any) -> set[str]:
        """The tools whose conditions wait for an artifact of ``value``'s types, seen
        for the first time now."""
        affected: set[str] = set()
        for key in _type_keys(value) & graph.artifact_keys:
            if key not in self.artifacts:
                self.artifacts.add(key)
                affected |= graph.dependents_of_artifact(key)
        return affected

    def transition(
        self, graph: DisclosureGraph, machine: str, tool: str, result: ToolResult
    ) -> StateChange | None:
        """Take the first transition a successful call of ``tool`` fires in
        ``machine``'s current state (its guard, if any, accepting ``result``)."""
        current = self.machines[machine]
        for transition in graph.transitions(machine, current, tool):
            if transition.guard is None or transition.guard(result):
                self.machines[machine] = transition.target
                final = transition.target in graph.machines[machine].final_states
                return StateChange(machine, current, transition.target, final)
        return None

    # ConditionView

    def calls(self, tool: str) -> int:
        return self.counts.get(tool, 0)

    def machine_state(self, machine: str) -> str | None:
        return self.machines.get(machine)

    def seen_artifact(self, key: str) -> bool:
        return key in self.artifacts

    def seen_on_blackboard(self, key: str) -> bool:
        return key in self.blackboard

    # Moment

    def holds(self, condition: Condition) -> bool:
        return holds(condition, self)

    def in_scope(self, name: str) -> bool:
        return self.unfolding.in_scope(name)

    def enclosing(self, name: str) -> str | None:
        return self.unfolding.enclosing(name)

    def revealed(self, name: str) -> bool:
        return name in self.unfolding.revealed

    def replaced(self, name: str) -> bool:
        return self.unfolding.replaced(name)


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


class CallRecord:
    """What a recorded call changes, collected before one refresh."""

    __slots__ = ("affected", "entered", "hidden", "injected", "listed", "opened")

    def __init__(self, affected: set[str]) -> None:
        self.affected = affected
        self.entered: list[StateChange] = []
        self.listed: set[str] = set()
        self.hidden: list[str] = []
        self.injected: list[Injected] = []
        self.opened: list[str] = []
        """Tools that objects in the result made usable (discovered, or chained)."""


def _type_keys(value: Any) -> set[str]:
    """Keys of the types of ``value`` (of each item of a list, tuple or set) and their bases."""
    values = value if isinstance(value, list | tuple | set | frozenset) else (value,)
    kinds = {type(item) for item in values}
    return {type_key(cls) for kind in kinds for cls in kind.__mro__ if cls is not object}


def state_reason(graph: DisclosureGraph, states: Mapping[str, str], name: str) -> str | None:
    """Why ``name`` is not available in its machine's current state (None if it is)."""
    entry = graph.entries[name]
    if entry.machine is None or entry.is_global:
        return None
    current = states[entry.machine]
    if current in entry.states:
        return None
    machine = graph.machines[entry.machine]
    where = ", ".join(s for s in machine.state_names if s in entry.states)
    return f"Tool '{name}' is not available in state {current} (it is available in: {where})."
