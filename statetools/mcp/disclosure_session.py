"""One client's disclosure session at the MCP gateway: its scheduler over the shared
compiled graph, and the MCP form of what it shows."""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import mcp.types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

from statetools.blackboard import Blackboard
from statetools.disclosure.graph import DisclosureGraph
from statetools.disclosure.scheduler import Scheduler
from statetools.disclosure.shown import Shown
from statetools.engine.answers import Refusal, admit, settle
from statetools.messages import ToolCall
from statetools.tools.calling import failure
from statetools.tools.context import ToolCallContext
from statetools.tools.result import ToolResult

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


class _Session:
    """One client's scheduler, context and change subscriptions. The compiled graph
    is the server's, shared by every session."""

    def __init__(
        self, graph: DisclosureGraph, context: ToolCallContext, listings: _Listings
    ) -> None:
        self.blackboard = Blackboard()
        self.context = context.with_blackboard(self.blackboard)
        self.scheduler = Scheduler(graph, None, blackboard=self.blackboard, context=self.context)
        self.listings = listings
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.lock = asyncio.Lock()
        self.calls = itertools.count(1)

    def names(self) -> list[str]:
        return [tool.name for tool in self.scheduler.visible()]

    def listing(self) -> list[types.Tool]:
        return self.listings.of(self.scheduler.shown())

    async def call(self, name: str, arguments: Mapping[str, Any]) -> tuple[ToolResult, bool]:
        """Run one call as the loop would; returns the result (its text with the
        announcement) and whether the visible tools changed."""
        async with self.lock:
            before = self.names()
            self.scheduler.begin_turn()
            admitted = admit(self.scheduler, name)
            if isinstance(admitted, Refusal):
                result = ToolResult.error(admitted.text)
            else:
                try:
                    result = await admitted.acall(dict(arguments), self.context)
                except Exception as exc:
                    result = failure(name, exc)
                call = ToolCall(f"mcp_{next(self.calls)}", name, dict(arguments))
                settled = settle(self.scheduler, call, result)
                if settled.changes.announcement:
                    result = result.with_text(settled.text)
            return result, self.names() != before
