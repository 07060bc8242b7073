"""What a call changes: the scheduler's bookkeeping after each call, and tools added or
removed at run time.

:class:`~statetools.disclosure.scheduler.Scheduler` mixes this in: ``record`` notes a
call's effects (call counts, artifacts and blackboard values seen, the transition it
fires, the facade it unfolds, the objects it binds or discovers) and collects the
tools whose conditions depend on them, which the scheduler then re-evaluates; ``add``
and ``remove`` change the tools of a run directly.

>>> ping = Tool.create("ping", "Ping", lambda: "pong")
>>> after = Tool.create("after", "After a ping", lambda: "ok")
>>> playbook = PlaybookTool("p", "P").with_tool(ping).with_tool(after).unlocked_by(ping)
>>> scheduler = Scheduler.for_items([playbook])
>>> scheduler.record(ToolCall("call_1", "ping"), ToolResult.text("pong")).unlocked
('after',)
>>> scheduler.remove(["after"]), [tool.name for tool in scheduler.visible()]
(['after'], ['ping'])
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import TYPE_CHECKING

from statetools.blackboard import Blackboard
from statetools.definitions.unfold_call import Loaded
from statetools.definitions.unfolding import Unfolded
from statetools.disclosure.bindings import Bindings, Plan
from statetools.disclosure.facades import Facades, unfolded_value
from statetools.disclosure.graph import DisclosureGraph
from statetools.disclosure.outcomes import (
    NOTHING_CHANGED,
    Changes,
    Injected,
    StateChange,
    announcement,
)
from statetools.disclosure.shown import Shown
from statetools.disclosure.tool_order import ToolOrder
from statetools.disclosure.view import CallRecord, type_keys
from statetools.messages import ToolCall
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool


class Recording:
    """The part of the scheduler that applies what calls did (see the module)."""

    graph: DisclosureGraph
    blackboard: Blackboard
    _counts: dict[str, int]
    _machine_states: dict[str, str]
    _artifacts: set[str]
    _blackboard_keys: set[str]
    _blackboard_seen: int
    _removed: set[str]
    _dynamic: dict[str, BaseTool]
    _visible: MutableMapping[str, BaseTool]
    _order: ToolOrder
    _shown: Shown | None
    _facades: Facades
    _folding: bool
    _bindings: Bindings
    recorded: int
    """How many recorded calls, turn starts and removals could change what may show: a
    call that nothing depends on leaves it, so a caller can tell "nothing changed
    since" (tools added at run time change nothing registered)."""

    if TYPE_CHECKING:  # the scheduler's own

        def _known(self, name: str) -> bool: ...

        def _refresh(self, names: Iterable[str]) -> tuple[list[str], list[str]]: ...

        def _show(self, name: str, tool: BaseTool) -> None: ...

        def _hide(self, name: str) -> None: ...

    def _blackboard_changes(self) -> set[str]:
        affected: set[str] = set()
        if len(self.blackboard) == self._blackboard_seen:
            return affected  # nothing posted since (the usual turn)
        waited_for = self.graph.blackboard_keys
        for value in self.blackboard.since(self._blackboard_seen):
            self._blackboard_seen += 1
            for key in type_keys(value) & waited_for:
                if key not in self._blackboard_keys:
                    self._blackboard_keys.add(key)
                    affected |= self.graph.dependents_of_blackboard(key)
        return affected

    def record(self, call: ToolCall, result: ToolResult) -> Changes:
        """Note that ``call`` ran with ``result``; returns what became (un)available.

        Failed calls count for nothing: they do not satisfy ``After`` nor transition.
        A facade's result unfolds it; objects in a result may bind chained tools or
        add discovered ones.
        """
        record = CallRecord(self._blackboard_changes())
        self._note(call, result, record)
        if not (record.affected or record.entered or record.hidden or record.injected):
            return NOTHING_CHANGED  # the usual call: nothing depends on it
        self.recorded += 1
        shown, hidden = self._refresh(record.affected)
        hidden.extend(record.hidden)
        news = [*shown, *(name for name in record.opened if name not in shown)]
        return Changes(
            tuple(shown),
            tuple(hidden),
            tuple(record.entered),
            announcement(news, record.entered, len(self.graph.machines), record.listed),
            tuple(record.injected),
        )

    def _note(self, call: ToolCall, result: ToolResult, record: CallRecord) -> None:
        if isinstance(result.value, Loaded) and call.name not in self.graph.facades:
            for each in result.value.unfolds:  # a model's search loaded these facades' tools
                if self._folding and each.facade in self.graph.facades:
                    self._unfold(each, record)
        unfolded = unfolded_value(result) if self._folding else None
        if (
            unfolded is not None
            and unfolded.facade == call.name
            and call.name in self.graph.facades
        ):
            self._unfold(unfolded, record)
            self._move(call.name, result, record)  # unfolding counts as the facade's call
            if unfolded.direct is not None:
                direct = unfolded.direct
                self._note(ToolCall(call.id, direct.name, direct.arguments), direct.result, record)
            return
        if result.is_error:
            return
        name = call.name
        self._counts[name] = self._counts.get(name, 0) + 1
        record.affected |= self.graph.dependents_of_call(name)
        if result.has_value:
            if self.graph.artifact_keys:
                for key in type_keys(result.value) & self.graph.artifact_keys:
                    if key not in self._artifacts:
                        self._artifacts.add(key)
                        record.affected |= self.graph.dependents_of_artifact(key)
            for plan in self._bindings.observe(result.value, name):
                injected = self._apply(plan)
                record.injected.append(injected)
                record.opened.extend([*injected.added, *plan.usable])
        self._move(name, result, record)

    def _move(self, name: str, result: ToolResult, record: CallRecord) -> None:
        """Take the transition a successful call of ``name`` fires in its machine."""
        entry = self.graph.entries.get(name)
        if entry is not None and entry.machine is not None:
            change = self._transition(entry.machine, name, result)
            if change is not None:
                record.entered.append(change)
                record.affected |= self.graph.tools_in_state(change.machine, change.previous)
                record.affected |= self.graph.tools_in_state(change.machine, change.state)
                record.affected |= self.graph.dependents_of_machine(change.machine)

    def _unfold(self, unfolded: Unfolded, record: CallRecord) -> None:
        name = unfolded.facade
        changed, skipped, started = self._facades.apply(unfolded, self._dynamic.__contains__)
        self._counts[name] = self._counts.get(name, 0) + 1
        record.affected |= set(changed) | self.graph.dependents_of_call(name)
        if unfolded.listed:
            record.listed.update(unfolded.names)
        if self.graph.facades[name].swaps:  # the full form moves to the end, in place
            for swapped in unfolded.names:
                if swapped in self._visible and self._visible[swapped] is not (
                    full := self._facades.tool_of(swapped)
                ):
                    del self._visible[swapped]
                    self._visible[swapped] = full
                    self._order.renumber(swapped)
                    self._shown = None
        if skipped:
            record.injected.append(Injected(name, skipped=tuple(skipped)))
        if started:
            record.affected |= set(self._visible)
            away = [n for n in self._dynamic if not self._facades.in_scope(n)]
            record.hidden.extend(self.remove(away))

    def _apply(self, plan: Plan) -> Injected:
        removed = self.remove(plan.remove)
        added: list[str] = []
        skipped: list[str] = []
        for tool in plan.add:
            if tool.name in self._dynamic:  # the same object again: rebind in place
                self._dynamic[tool.name] = self._visible[tool.name] = tool
                self._shown = None
            elif tool.name in self._visible or self._known(tool.name):
                skipped.append(tool.name)
            else:
                self._dynamic[tool.name] = tool
                self._show(tool.name, tool)
                added.append(tool.name)
        return Injected(
            plan.source,
            tuple(added),
            tuple(removed),
            tuple(skipped),
            plan.over_limit,
            self._bindings.limit if plan.over_limit else 0,
            plan.not_added,
        )

    def _transition(self, machine: str, tool: str, result: ToolResult) -> StateChange | None:
        current = self._machine_states[machine]
        for transition in self.graph.transitions(machine, current, tool):
            if transition.guard is None or transition.guard(result):
                self._machine_states[machine] = transition.target
                final = transition.target in self.graph.machines[machine].final_states
                return StateChange(machine, current, transition.target, final)
        return None

    def add(self, tools: Iterable[BaseTool]) -> tuple[list[str], list[str]]:
        """Append tools injected at run time; returns (added names, skipped duplicates)."""
        added: list[str] = []
        skipped: list[str] = []
        for tool in tools:
            if tool.name in self._visible or self._known(tool.name):
                skipped.append(tool.name)
                continue
            self._dynamic[tool.name] = tool
            self._show(tool.name, tool)
            added.append(tool.name)
        return added, skipped

    def remove(self, names: Iterable[str]) -> list[str]:
        """Remove tools by name (injected or registered); returns the names removed."""
        removed: list[str] = []
        for name in names:
            if name in self._dynamic:
                del self._dynamic[name]
                self._hide(name)
                removed.append(name)
            elif name in self.graph.entries and name not in self._removed:
                self._removed.add(name)
                self.recorded += 1
                if name in self._visible:
                    self._hide(name)
                removed.append(name)
        return removed
