"""The sessions of the MCP gateway: one client's disclosure session (its scheduler over
the shared compiled graph, and the MCP form of what it shows), and the server-minted
handles by which 2026-07-28 clients reach theirs.

A 2026-07-28 client has no connection state: its disclosure session lives behind a
handle the server mints (128 random bits from :mod:`secrets`) and hands out in a tool
result; the client passes it back as an ordinary tool argument. A value the server did
not mint, or one that has expired, finds nothing. Handles expire after ``ttl`` seconds
without a call (on an injectable clock); at most ``limit`` are live, and a full table
refuses new sessions rather than evicting one (a session with a call running is never
expired either).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import mcp.types as types

from statetools.blackboard import Blackboard
from statetools.engine.answers import Refusal, settle
from statetools.engine.calls import Call
from statetools.engine.graph import DisclosureGraph
from statetools.engine.nested import admit_call
from statetools.engine.scheduler import Scheduler
from statetools.engine.visible_tools import Shown
from statetools.loop.host import run_call
from statetools.messages import ToolCall
from statetools.tools.calling import ToolResult
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

    __slots__ = ("blackboard", "calls", "context", "listings", "lock", "scheduler", "tool_timeout")

    def __init__(
        self,
        graph: DisclosureGraph,
        context: ToolCallContext,
        listings: _Listings,
        tool_timeout: float | None = None,
    ) -> None:
        self.tool_timeout = tool_timeout
        """Seconds a call may take when its tool has no timeout of its own."""
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
        answered with guidance; a call runs within its tool's timeout, else
        :attr:`tool_timeout` (past it, the error result ``Tool 'name' timed out after
        N s.``); a call that ran is recorded and its result carries the announcement of
        what it opened."""
        async with self.lock:
            before = self.scheduler.shown()
            admitted = self.admit(name)
            if isinstance(admitted, Refusal):
                return _Answer(ToolResult.error(admitted.text), before, self.scheduler.shown())
            call = ToolCall(f"mcp_{self.calls + 1}", name, dict(arguments))
            result = await run_call(Call(call, admitted), self.context, self.tool_timeout)
            self.calls += 1
            settled = settle(self.scheduler, call, result)
            if settled.text != result.text:  # what opened, or that nothing new did
                result = result.with_text(settled.text)
            return _Answer(result, before, self.scheduler.shown())


T = TypeVar("T")

HANDLE_BYTES = 16
"""Random bytes in a handle: 128 bits, written as 22 URL-safe characters."""


class _Entry(Generic[T]):
    """One live handle: its session, when it was last used, and its calls running."""

    __slots__ = ("busy", "session", "used")

    def __init__(self, session: T, used: float) -> None:
        self.session = session
        self.used = used
        self.busy = 0


class _Handles(Generic[T]):
    """The live sessions by handle, least recently used first."""

    def __init__(
        self,
        *,
        limit: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        mint: Callable[[], str] = lambda: secrets.token_urlsafe(HANDLE_BYTES),
    ) -> None:
        self.limit = limit
        self.ttl = ttl
        self.clock = clock
        self.mint = mint
        self.entries: OrderedDict[str, _Entry[T]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.entries)

    def _expired(self, entry: _Entry[T], now: float) -> bool:
        return entry.busy == 0 and now - entry.used >= self.ttl

    def sweep(self) -> None:
        """Forget expired handles (oldest first; a session with a call running stays)."""
        now = self.clock()
        expired = []
        for handle, entry in self.entries.items():
            if self._expired(entry, now):
                expired.append(handle)
            elif entry.busy == 0:
                break  # the rest were used more recently
        for handle in expired:
            del self.entries[handle]

    def open(self, session: Callable[[], T]) -> tuple[str, T] | None:
        """A new handle for a new session; None when ``limit`` sessions are live."""
        self.sweep()
        if len(self.entries) >= self.limit:
            return None
        handle = self.mint()
        while handle in self.entries:  # never with secrets; an injected mint may repeat
            handle = self.mint()
        made = session()
        self.entries[handle] = _Entry(made, self.clock())
        return handle, made

    def find(self, handle: object) -> T | None:
        """The session of ``handle``; None unless the server minted it and it is live."""
        if not isinstance(handle, str):
            return None
        entry = self.entries.get(handle)
        if entry is None:
            return None
        if self._expired(entry, self.clock()):
            del self.entries[handle]
            return None
        return entry.session

    @contextmanager
    def using(self, handle: str) -> Iterator[None]:
        """Mark ``handle`` in use for a call: it cannot expire meanwhile, and its idle
        time starts again when the call ends."""
        entry = self.entries[handle]
        entry.busy += 1
        self.entries.move_to_end(handle)
        try:
            yield
        finally:
            entry.busy -= 1
            entry.used = self.clock()
            if handle in self.entries:
                self.entries.move_to_end(handle)
