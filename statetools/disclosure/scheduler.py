"""The scheduler: which tools the model sees this turn, and which it may call."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from statetools.disclosure.state import DisclosureState
from statetools.loop.messages import ToolCall
from statetools.tools.result import ToolResult
from statetools.tools.tool import BaseTool


@attrs.frozen
class Blocked:
    """A call that may not run now, and the text that tells the model why."""

    reason: str


@attrs.frozen
class Changes:
    """What one recorded call changed: ``announcement`` is appended to its result."""

    announcement: str | None = None


class Scheduler:
    """Tracks a run's tools: visible set in stable order, lookups and call records.

    Tools keep their position; tools added later are appended, so the tools array sent
    to a provider changes only at its end (friendly to prompt caches).
    """

    def __init__(self, tools: Sequence[BaseTool], state: DisclosureState | None = None) -> None:
        self._visible: dict[str, BaseTool] = {}
        for tool in tools:
            self._visible.setdefault(tool.name, tool)
        restored = state or DisclosureState()
        self._call_counts: dict[str, int] = dict(restored.call_counts)
        self.iteration = restored.iteration

    def visible(self) -> list[BaseTool]:
        """The tools to send to the model now, in stable order."""
        return list(self._visible.values())

    def resolve(self, name: str) -> BaseTool | Blocked | None:
        """The tool to run for ``name``; Blocked when it may not run now; None if unknown."""
        return self._visible.get(name)

    def record(self, call: ToolCall, result: ToolResult) -> Changes:
        """Note that ``call`` ran with ``result``."""
        if not result.is_error:
            self._call_counts[call.name] = self._call_counts.get(call.name, 0) + 1
        return Changes()

    def add(self, tools: Iterable[BaseTool]) -> tuple[list[str], list[str]]:
        """Append ``tools``; returns (added names, names skipped as duplicates)."""
        added: list[str] = []
        skipped: list[str] = []
        for tool in tools:
            if tool.name in self._visible:
                skipped.append(tool.name)
            else:
                self._visible[tool.name] = tool
                added.append(tool.name)
        return added, skipped

    def remove(self, names: Iterable[str]) -> list[str]:
        """Remove tools by name; returns the names that were there."""
        return [name for name in names if self._visible.pop(name, None) is not None]

    def snapshot(self) -> DisclosureState:
        """The current state, serializable."""
        return DisclosureState(call_counts=self._call_counts, iteration=self.iteration)
