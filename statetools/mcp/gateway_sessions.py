"""One client's disclosure session at the MCP gateway: its scheduler over the shared
compiled graph, and the MCP form of what it shows."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import mcp.types as types

from statetools.blackboard import Blackboard
from statetools.disclosure.graph import DisclosureGraph
from statetools.disclosure.scheduler import Scheduler
from statetools.disclosure.shown import Shown
from statetools.engine.answers import Refusal, settle
from statetools.engine.nested import admit_call
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult, failure
from statetools.tools.context import ToolCallContext
from statetools.tools.tool import BaseTool

__all__: list[str] = []


class _Listings:
    """The MCP form of the visible tools, kept by the scheduler's :class:`Shown` (fresh
    sessions share the graph's first one, so their first ``tools/list`` is made once)."""

    def __init__(self, kept: int = 64) -> None:
        self.kept = kept
        self.forms: OrderedDict[int, tuple[Shown, list[types.Tool]]] = OrderedDict()

    def of(self, shown: Shown) -> list[types.Tool]:
        found = self.forms.get(id(shown))
        if found is not None and found[0] is shown:
            return found[1]
        listing = [
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
            for t in shown.tools
        ]
        self.forms[id(shown)] = (shown, listing)  # kept alive with it: the id stays its own
        while len(self.forms) > self.kept:
            self.forms.popitem(last=False)
        return listing


class _Answer:
    """A call answered in a session: the result (its text with the announcement), and
    what the session showed before and after it."""

    __slots__ = ("after", "before", "result")

    def __init__(self, result: ToolResult, before: Shown, after: Shown) -> None:
        self.result = result
        self.before = before
        self.after = after

    @property
    def changed(self) -> bool:
        """Whether the call changed what the session shows (the scheduler hands out the
        same :class:`Shown` until something changes, so most calls cost nothing here)."""
        return self.after is not self.before and self.after.names != self.before.names


class _Session:
    """One client's scheduler and context over the server's compiled graph, shared by
    every session (a session holds only what it changed)."""

    __slots__ = ("blackboard", "calls", "context", "listings", "lock", "scheduler")

    def __init__(
        self, graph: DisclosureGraph, context: ToolCallContext, listings: _Listings
    ) -> None:
        self.blackboard = Blackboard()
        self.context = context.with_blackboard(self.blackboard)
        self.scheduler = Scheduler(graph, None, blackboard=self.blackboard, context=self.context)
        self.listings = listings
        self.lock = asyncio.Lock()
        self.calls = 0

    def names(self) -> tuple[str, ...]:
        """The names of the tools the session shows now."""
        return self.scheduler.shown().names

    def listing(self) -> list[types.Tool]:
        """The session's visible tools in MCP form (a 2025-era client's ``tools/list``)."""
        return self.listings.of(self.scheduler.shown())

    def admit(self, name: str) -> BaseTool | Refusal:
        """The tool a call of ``name`` would run now, or the refusal it would get."""
        self.scheduler.begin_turn()  # a script tool (code mode) comes bound to the session
        return admit_call(self.scheduler, ToolCall(f"mcp_{self.calls + 1}", name), self.context)

    async def call(self, name: str, arguments: Mapping[str, Any]) -> _Answer:
        """Run one call as the loop would: a locked or unknown tool never runs and is
        answered with guidance; a call that ran is recorded and its result carries the
        announcement of what it opened."""
        async with self.lock:
            before = self.scheduler.shown()
            admitted = self.admit(name)
            if isinstance(admitted, Refusal):
                return _Answer(ToolResult.error(admitted.text), before, self.scheduler.shown())
            try:
                result = await admitted.acall(dict(arguments), self.context)
            except Exception as exc:
                result = failure(name, exc)
            self.calls += 1
            settled = settle(
                self.scheduler, ToolCall(f"mcp_{self.calls}", name, dict(arguments)), result
            )
            if settled.changes.announcement:
                result = result.with_text(settled.text)
            return _Answer(result, before, self.scheduler.shown())
