"""What a run has done (:class:`RunFacts`, which conditions and the visibility rule
read), and what one recorded call changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statetools.blackboard import Blackboard
from statetools.definitions.conditions import Condition, holds, type_key
from statetools.engine.bindings import Bindings
from statetools.engine.facades import Facades
from statetools.engine.graph import DisclosureGraph
from statetools.engine.outcomes import Injected, StateChange
from statetools.engine.state import DisclosureState
from statetools.errors import SpecError
from statetools.tools.calling import ToolResult
from statetools.tools.tool import BaseTool


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
            for key in type_keys(value) & waited_for:
                if key not in self.blackboard:
                    self.blackboard.add(key)
                    affected |= graph.dependents_of_blackboard(key)
        return affected

    def produced(self, graph: DisclosureGraph, value: Any) -> set[str]:
        """The tools whose conditions wait for an artifact of ``value``'s types, seen
        for the first time now."""
        affected: set[str] = set()
        for key in type_keys(value) & graph.artifact_keys:
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


def type_keys(value: Any) -> set[str]:
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
