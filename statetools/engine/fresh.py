"""What a fresh run of a compiled graph shows first, worked out once when the graph is
compiled (so a run never writes to the graph, and every fresh run starts from the same
objects).

A fresh run has no calls, no artifacts, no blackboard values and no unfolds, and its
machines are in their initial states. ``When`` conditions are left out: they may
depend on the run's context, so each run checks them itself.

>>> search = Tool.create("search", "Search", lambda: "found")
>>> analyze = Tool.create("analyze", "Analyze", lambda: "ok")
>>> graph = disclosure_graph(
...     PlaybookTool("p", "P").with_tool(search).with_tool(analyze).unlocked_by(search)
... )
>>> graph.initial_visible, graph.initial_shown.names
(('search',), ('search',))
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from statetools.definitions.conditions import Condition, holds
from statetools.engine.nodes import ToolEntry
from statetools.engine.shown import Shown
from statetools.engine.visibility import shows


class _FreshMoment:
    """A fresh run as conditions and the visibility rule read it."""

    __slots__ = ("_entries", "facades", "machines")

    removed: Collection[str] = ()
    context: Mapping[str, Any] = {}

    def __init__(
        self, entries: Mapping[str, ToolEntry], machines: Mapping[str, str], facades: bool
    ) -> None:
        self._entries = entries
        self.machines = machines
        self.facades = facades

    def calls(self, tool: str) -> int:
        return 0

    def machine_state(self, machine: str) -> str | None:
        return self.machines.get(machine)

    def seen_artifact(self, key: str) -> bool:
        return False

    def seen_on_blackboard(self, key: str) -> bool:
        return False

    def holds(self, condition: Condition) -> bool:
        return holds(condition, self)

    def in_scope(self, name: str) -> bool:
        return True

    def enclosing(self, name: str) -> str | None:
        entry = self._entries.get(name)
        return entry.facade if entry is not None else None

    def revealed(self, name: str) -> bool:
        return False

    def replaced(self, name: str) -> bool:
        return False


def fresh_start(
    entries: Mapping[str, ToolEntry],
    places: Mapping[str, Sequence[ToolEntry]],
    machines: Mapping[str, str],
    when_tools: Collection[str],
    *,
    facades: bool,
) -> tuple[tuple[str, ...], Shown | None]:
    """The tools a fresh run shows, apart from ``When`` tools, in registration order;
    and what it shows first when no tool has a ``When`` condition (else None).
    ``machines`` gives each machine's initial state."""
    moment = _FreshMoment(entries, machines, facades)
    names = tuple(
        name for name in entries if name not in when_tools and shows(entries, name, moment, places)
    )
    shown = None if when_tools else Shown.of(entries[name].tool for name in names)
    return names, shown
