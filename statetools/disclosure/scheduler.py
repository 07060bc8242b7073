"""The scheduler: which tools the model sees this turn, and which it may call.

It reads a :class:`DisclosureGraph` and keeps the run's :class:`DisclosureState`.
Evaluation is incremental: a recorded call re-evaluates only the tools whose
conditions depend on it (the graph's dependency index); ``When`` conditions are
re-checked at the start of every turn. Per-turn work grows with the visible tools and
the changes, not with the number registered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from statetools.disclosure.conditions import holds, type_key, unmet_sentences
from statetools.disclosure.graph import DisclosureGraph, disclosure_graph
from statetools.disclosure.state import DisclosureState
from statetools.errors import DefinitionError
from statetools.loop.blackboard import Blackboard
from statetools.loop.messages import ToolCall
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool

Visibility = Literal["hidden", "declared"]


@attrs.frozen
class Blocked:
    """A call that may not run now, and the text that tells the model why."""

    reason: str


@attrs.frozen
class StateChange:
    """A state machine moved from ``previous`` to ``state``."""

    machine: str
    previous: str
    state: str
    final: bool


@attrs.frozen
class Changes:
    """What a recorded call (or a new turn) changed.

    ``announcement`` is the line appended to the call's result, e.g.
    ``[now available: analyze; state is now CONFIRMED]``.
    """

    unlocked: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    entered: tuple[StateChange, ...] = ()
    announcement: str | None = None

    @property
    def final_reached(self) -> bool:
        """Whether a machine entered a final state."""
        return any(change.final for change in self.entered)


class _View:
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


def _type_keys(value: Any) -> set[str]:
    values = value if isinstance(value, list | tuple | set | frozenset) else (value,)
    kinds = {type(item) for item in values}
    return {type_key(cls) for kind in kinds for cls in kind.__mro__ if cls is not object}


class Scheduler:
    """Decides, turn by turn, which tools are visible and which calls may run.

    >>> scheduler = Scheduler.for_items([research_playbook])  # doctest: +SKIP
    >>> [t.name for t in scheduler.visible()]  # doctest: +SKIP
    ['search']
    >>> scheduler.explain("analyze")  # doctest: +SKIP
    "Tool 'analyze' is locked. Call first: search."
    """

    def __init__(
        self,
        graph: DisclosureGraph,
        state: DisclosureState | None = None,
        *,
        visibility: Visibility = "hidden",
        blackboard: Blackboard | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        if graph.duplicates:
            twice = ", ".join(sorted(set(graph.duplicates)))
            raise DefinitionError(
                f"more than one tool is named {twice}",
                path="tools",
                hint="every tool of a run needs its own name",
            )
        restored = state or DisclosureState()
        self.graph = graph
        self.visibility = visibility
        self.blackboard = blackboard if blackboard is not None else Blackboard()
        self.context: Mapping[str, Any] = context or {}
        self.iteration = restored.iteration
        self._view = _View(self)
        self._counts: dict[str, int] = dict(restored.call_counts)
        self._machine_states = {name: m.initial_state() for name, m in graph.machines.items()}
        self._machine_states.update(restored.machine_states)
        self._artifacts = set(restored.artifacts)
        self._blackboard_keys = set(restored.blackboard)
        self._blackboard_seen = 0
        self._removed = set(restored.removed)
        self._dynamic: dict[str, BaseTool] = {}
        self._visible: dict[str, BaseTool] = {}
        fresh = state is None or state == DisclosureState(iteration=state.iteration)
        if fresh and graph.initial_visible is not None:
            names: Iterable[str] = graph.initial_visible
        else:
            names = [
                name
                for name in dict.fromkeys((*restored.visible_order, *graph.entries))
                if name in graph.entries
                and not (fresh and name in graph.when_tools)
                and self._available(name)
            ]
            if fresh:
                graph.initial_visible = tuple(names)
        for name in names:
            self._visible[name] = graph.entries[name].tool
        self._refresh(graph.when_tools)

    @classmethod
    def for_items(
        cls,
        items: Sequence[Any],
        state: DisclosureState | None = None,
        **options: Any,
    ) -> Scheduler:
        """A scheduler for tools and definitions (a prebuilt DisclosureGraph is used as is)."""
        if len(items) == 1 and isinstance(items[0], DisclosureGraph):
            return cls(items[0], state, **options)
        return cls(disclosure_graph(*items), state, **options)

    # availability -------------------------------------------------------------------

    def _state_reason(self, name: str) -> str | None:
        entry = self.graph.entries[name]
        if entry.machine is None or entry.is_global:
            return None
        current = self._machine_states[entry.machine]
        if current in entry.states:
            return None
        machine = self.graph.machines[entry.machine]
        where = ", ".join(s for s in machine.state_names if s in entry.states)
        return f"Tool '{name}' is not available in state {current} (it is available in: {where})."

    def _available(self, name: str) -> bool:
        if name in self._dynamic:
            return True
        if name in self._removed:
            return False
        entry = self.graph.entries[name]
        if (
            entry.machine is not None
            and not entry.is_global
            and self._machine_states[entry.machine] not in entry.states
        ):
            return False
        return entry.condition is None or holds(entry.condition, self._view)

    def explain(self, name: str) -> str | None:
        """Why ``name`` cannot be called now (the text the model gets), or None if it can."""
        if name in self._visible or name in self._dynamic:
            return None
        if name not in self.graph.entries:
            return f"Tool '{name}' is not part of this run."
        if name in self._removed:
            return f"Tool '{name}' was removed from this run."
        reason = self._state_reason(name)
        if reason:
            return reason
        condition = self.graph.entries[name].condition
        if condition is not None:
            sentences = unmet_sentences(condition, self._view)
            if sentences:
                return f"Tool '{name}' is locked. {' '.join(sentences)}"
        return None

    def visible(self) -> list[BaseTool]:
        """The tools to send to the model now, in stable order.

        With ``visibility="declared"`` every registered tool is sent; locked ones carry
        one more line saying what unlocks them.
        """
        if self.visibility == "hidden":
            return list(self._visible.values())
        tools: list[BaseTool] = []
        for name, entry in self.graph.entries.items():
            if name in self._visible:
                tools.append(entry.tool)
            elif name not in self._removed:
                reason = self.explain(name) or ""
                tools.append(entry.tool.with_description(f"{entry.tool.description}\n{reason}"))
        tools.extend(tool for name, tool in self._visible.items() if name in self._dynamic)
        return tools

    def resolve(self, name: str) -> BaseTool | Blocked | None:
        """The tool to run for ``name``; Blocked when it may not run now; None if unknown."""
        tool = self._visible.get(name)
        if tool is not None:
            return tool
        if name in self.graph.entries:
            return Blocked(self.explain(name) or f"Tool '{name}' is not available now.")
        return None

    # changes ----------------------------------------------------------------------

    def _refresh(self, names: Iterable[str]) -> tuple[list[str], list[str]]:
        shown: list[str] = []
        hidden: list[str] = []
        position = self.graph.position
        for name in sorted(names, key=lambda n: position.get(n, len(position))):
            if name not in self.graph.entries:
                continue
            now = self._available(name)
            if now and name not in self._visible:
                self._visible[name] = self.graph.entries[name].tool
                shown.append(name)
            elif not now and name in self._visible and name not in self._dynamic:
                del self._visible[name]
                hidden.append(name)
        return shown, hidden

    def _blackboard_changes(self) -> set[str]:
        affected: set[str] = set()
        items = list(self.blackboard)
        for value in items[self._blackboard_seen :]:
            for key in _type_keys(value) & self.graph.blackboard_keys:
                if key not in self._blackboard_keys:
                    self._blackboard_keys.add(key)
                    affected |= self.graph.dependents_of_blackboard(key)
        self._blackboard_seen = len(items)
        return affected

    def begin_turn(self) -> Changes:
        """Re-check ``When`` conditions and the blackboard before a model call."""
        affected = set(self.graph.when_tools) | self._blackboard_changes()
        if not affected:
            return Changes()
        shown, hidden = self._refresh(affected)
        return Changes(tuple(shown), tuple(hidden))

    def record(self, call: ToolCall, result: ToolResult) -> Changes:
        """Note that ``call`` ran with ``result``; returns what became (un)available.

        Failed calls count for nothing: they do not satisfy ``After`` nor transition.
        """
        affected = self._blackboard_changes()
        if result.is_error:
            shown, hidden = self._refresh(affected)
            return self._changes(shown, hidden, [])
        name = call.name
        self._counts[name] = self._counts.get(name, 0) + 1
        affected |= self.graph.dependents_of_call(name)
        if result.has_value and self.graph.artifact_keys:
            for key in _type_keys(result.value) & self.graph.artifact_keys:
                if key not in self._artifacts:
                    self._artifacts.add(key)
                    affected |= self.graph.dependents_of_artifact(key)
        entered: list[StateChange] = []
        entry = self.graph.entries.get(name)
        if entry is not None and entry.machine is not None:
            change = self._transition(entry.machine, name, result)
            if change is not None:
                entered.append(change)
                affected |= self.graph.tools_in_state(change.machine, change.previous)
                affected |= self.graph.tools_in_state(change.machine, change.state)
                affected |= self.graph.dependents_of_machine(change.machine)
        shown, hidden = self._refresh(affected)
        return self._changes(shown, hidden, entered)

    def _transition(self, machine: str, tool: str, result: ToolResult) -> StateChange | None:
        current = self._machine_states[machine]
        for transition in self.graph.transitions(machine, current, tool):
            if transition.guard is None or transition.guard(result):
                self._machine_states[machine] = transition.target
                final = transition.target in self.graph.machines[machine].final_states
                return StateChange(machine, current, transition.target, final)
        return None

    def _changes(self, shown: list[str], hidden: list[str], entered: list[StateChange]) -> Changes:
        parts = []
        if shown:
            parts.append(f"now available: {', '.join(shown)}")
        for change in entered:
            subject = "state" if len(self.graph.machines) == 1 else f"state of {change.machine}"
            final = " (final)" if change.final else ""
            parts.append(f"{subject} is now {change.state}{final}")
        announcement = f"[{'; '.join(parts)}]" if parts else None
        return Changes(tuple(shown), tuple(hidden), tuple(entered), announcement)

    # injection --------------------------------------------------------------------

    def add(self, tools: Iterable[BaseTool]) -> tuple[list[str], list[str]]:
        """Append tools injected at run time; returns (added names, skipped duplicates)."""
        added: list[str] = []
        skipped: list[str] = []
        for tool in tools:
            if tool.name in self._visible or tool.name in self.graph.entries:
                skipped.append(tool.name)
                continue
            self._dynamic[tool.name] = tool
            self._visible[tool.name] = tool
            added.append(tool.name)
        return added, skipped

    def remove(self, names: Iterable[str]) -> list[str]:
        """Remove tools by name (injected or registered); returns the names removed."""
        removed: list[str] = []
        for name in names:
            if name in self._dynamic:
                del self._dynamic[name]
                self._visible.pop(name, None)
                removed.append(name)
            elif name in self.graph.entries and name not in self._removed:
                self._removed.add(name)
                self._visible.pop(name, None)
                removed.append(name)
        return removed

    def snapshot(self) -> DisclosureState:
        """The current state, serializable (injected tools are not part of it)."""
        return DisclosureState(
            call_counts=self._counts,
            machine_states=self._machine_states,
            artifacts=self._artifacts,
            blackboard=self._blackboard_keys,
            visible_order=tuple(n for n in self._visible if n not in self._dynamic),
            removed=self._removed,
            iteration=self.iteration,
        )
