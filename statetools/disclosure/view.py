"""What the scheduler hands to conditions and to the visibility rule, and what one
recorded call changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statetools.definitions.conditions import Condition, holds, type_key
from statetools.disclosure.facades import Facades
from statetools.disclosure.outcomes import Injected, StateChange

if TYPE_CHECKING:
    from statetools.disclosure.graph import DisclosureGraph


class SchedulerView:
    """The run's state as conditions (a ConditionView) and the visibility rule (a
    :class:`~statetools.disclosure.visibility.Moment`) read it. It holds the scheduler's
    own containers, so it always sees the current state."""

    __slots__ = (
        "_artifacts",
        "_blackboard",
        "_counts",
        "_facades",
        "context",
        "facades",
        "machines",
        "removed",
    )

    def __init__(
        self,
        *,
        counts: Mapping[str, int],
        machines: Mapping[str, str],
        artifacts: set[str],
        blackboard: set[str],
        removed: set[str],
        facades: Facades,
        context: Mapping[str, Any],
    ) -> None:
        self._counts = counts
        self._artifacts = artifacts
        self._blackboard = blackboard
        self.removed = removed
        self.machines = machines
        self._facades = facades
        self.context = context
        self.facades = facades.active

    # ConditionView

    def calls(self, tool: str) -> int:
        return self._counts.get(tool, 0)

    def machine_state(self, machine: str) -> str | None:
        return self.machines.get(machine)

    def seen_artifact(self, key: str) -> bool:
        return key in self._artifacts

    def seen_on_blackboard(self, key: str) -> bool:
        return key in self._blackboard

    # Moment

    def holds(self, condition: Condition) -> bool:
        return holds(condition, self)

    def in_scope(self, name: str) -> bool:
        return self._facades.in_scope(name)

    def enclosing(self, name: str) -> str | None:
        return self._facades.enclosing(name)

    def revealed(self, name: str) -> bool:
        return name in self._facades.revealed

    def replaced(self, name: str) -> bool:
        return self._facades.replaced(name)


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
