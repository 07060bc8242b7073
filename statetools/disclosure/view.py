"""What the scheduler hands to conditions, and what one recorded call changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statetools.disclosure.conditions import type_key
from statetools.disclosure.outcomes import Injected, StateChange

if TYPE_CHECKING:
    from statetools.disclosure.graph import DisclosureGraph
    from statetools.disclosure.scheduler import Scheduler


class SchedulerView:
    """The ConditionView the scheduler hands to conditions."""

    def __init__(self, scheduler: Scheduler) -> None:
        self._s = scheduler

    def calls(self, tool: str) -> int:
        return self._s._counts.get(tool, 0)

    def machine_state(self, machine: str) -> str | None:
        return self._s._machine_states.get(machine)

    def seen_artifact(self, key: str) -> bool:
        return key in self._s._artifacts

    def seen_on_blackboard(self, key: str) -> bool:
        return key in self._s._blackboard_keys

    @property
    def context(self) -> Mapping[str, Any]:
        return self._s.context


class CallRecord:
    """What a recorded call changes, collected before one refresh."""

    __slots__ = ("affected", "entered", "hidden", "injected", "listed")

    def __init__(self, affected: set[str]) -> None:
        self.affected = affected
        self.entered: list[StateChange] = []
        self.listed: set[str] = set()
        self.hidden: list[str] = []
        self.injected: list[Injected] = []


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
