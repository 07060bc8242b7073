"""disclosure_server: a design served over MCP, with one scheduler per client session.

``tools/list`` answers the session's visible tools; ``tools/call`` goes through the
same enforcement as a run (a locked call is an ``isError`` result saying what to call
first, never a protocol error) and is recorded; when a call changes what the session
sees, the session is told ``tools/list_changed`` (on a ``subscriptions/listen`` stream
for 2026-07-28 clients, as a notification for earlier ones). Tools of the design that
come from MCP servers are called through them: a gateway in front of many servers.

Which session a request belongs to: each in-process client and each stdio process is
one session; over HTTP, the ``Mcp-Session-Id`` of a 2025-era client, or the
``Statetools-Session`` header a 2026-era client sends (the 2026-07-28 protocol has no
sessions of its own; without the header every request starts from the first set).

>>> import asyncio, mcp
>>> def search(q: str) -> str:
...     '''Search the notes.'''
...     return f"2 notes about {q}"
>>> def summarize() -> str:
...     '''Summarize what was found.'''
...     return "summary"
>>> design = PlaybookTool("notes", "Notes").with_tools(search).with_tool(
...     Tool.from_function(summarize)).unlocked_by(search)
>>> async def main() -> list[str]:
...     async with mcp.Client(disclosure_server([design])) as client:
...         before = [t.name for t in (await client.list_tools()).tools]
...         await client.call_tool("search", {"q": "tides"})
...         after = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
...         return before + after
>>> asyncio.run(main())
['search', 'search', 'summarize']
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from statetools.disclosure.graph import DisclosureGraph
from statetools.disclosure.scheduler import Scheduler
from statetools.mcp.convert import wire_content
from statetools.mcp.disclosure_session import _Listings, _Session
from statetools.tools.context import RUN_ID_KEY, RunEnd, ToolCallContext

__all__ = ["SESSION_HEADER", "disclosure_server"]

SESSION_HEADER = "statetools-session"
"""The HTTP header a 2026-era client sends to keep its disclosure state between
requests (2025-era clients are told apart by ``Mcp-Session-Id``).

>>> from statetools.mcp import MCPServer
>>> desk = MCPServer.http(
...     "http://127.0.0.1:8000/mcp", headers={SESSION_HEADER: "user-42"}, name="desk"
... )
>>> SESSION_HEADER
'statetools-session'
"""

ContextSource = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


class _Sessions:
    """The sessions of one server lifespan (one in-process client, one stdio process,
    or one HTTP server), by key."""

    def __init__(
        self,
        design: DisclosureGraph | Sequence[Any],
        context: ContextSource,
        max_sessions: int = 1000,
    ) -> None:
        self.graph = (
            design if isinstance(design, DisclosureGraph) else Scheduler.for_items(design).graph
        )
        self.listings = _Listings()
        self.context = context
        self.max_sessions = max_sessions
        self.run_end = RunEnd()
        self.run_id = f"mcp-gateway-{id(self)}"
        self.sessions: OrderedDict[str | None, _Session] = OrderedDict()

    def _context(self) -> ToolCallContext:
        values = self.context() if callable(self.context) else (self.context or {})
        base = ToolCallContext(values).merge({RUN_ID_KEY: self.run_id})
        return base.with_run_end(self.run_end)

    def of(self, ctx: ServerRequestContext[Any, Any]) -> _Session:
        request = ctx.request
        headers = getattr(request, "headers", None)
        key: str | None = None
        if headers is not None:
            key = headers.get("mcp-session-id") or headers.get(SESSION_HEADER)
            if key is None:
                return self.new()  # stateless: a fresh session
        session = self.sessions.get(key)
        if session is None:
            session = self.sessions[key] = self.new()
            while len(self.sessions) > self.max_sessions:
                self.sessions.popitem(last=False)  # the least recently used session
        else:
            self.sessions.move_to_end(key)
        return session

    def new(self) -> _Session:
        """A fresh session over the shared graph."""
        return _Session(self.graph, self._context(), self.listings)


def disclosure_server(
    definition_or_items: Any,
    *,
    name: str = "statetools",
    context: ContextSource = None,
    instructions: str | None = None,
    max_sessions: int = 1000,
) -> Server[Any]:
    """An MCP server (the SDK's low-level ``Server``) that serves ``definition_or_items``
    (one definition, or a list as for ``tools=[...]``) with progressive disclosure.

    ``context`` (a mapping, or a function returning a fresh one per session) is the
    :class:`~statetools.ToolCallContext` of every call. Over HTTP at most
    ``max_sessions`` sessions are kept; the least recently used one is forgotten first
    (its client starts again from the first visible set). Pass the result to
    ``mcp.Client(...)`` in tests, or serve it with ``statetools serve``.

    >>> import asyncio, mcp
    >>> def search(q: str) -> str:
    ...     "Search the notes."
    ...     return f"2 notes about {q}"
    >>> def summarize() -> str:
    ...     "Summarize what was found."
    ...     return "Tides follow the moon."
    >>> notes = st.PlaybookTool("notes", "Research the notes").with_tools(search)
    >>> notes = notes.with_tool(st.Tool.from_function(summarize)).unlocked_by(search)
    >>> async def session() -> None:
    ...     async with mcp.Client(st.mcp.disclosure_server(notes)) as client:
    ...         print([tool.name for tool in (await client.list_tools()).tools])
    ...         locked = await client.call_tool("summarize", {})
    ...         print(locked.is_error, locked.content[0].text)
    >>> asyncio.run(session())
    ['search']
    True Tool 'summarize' is locked. Call first: search.
    """
    items: Sequence[Any] = (
        list(definition_or_items)
        if isinstance(definition_or_items, list | tuple)
        else [definition_or_items]
    )
    # compiled once, shared by every session; a bad definition fails here
    graph = Scheduler.for_items(items).graph

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[_Sessions]:
        sessions = _Sessions(graph, context, max_sessions)
        try:
            yield sessions
        finally:
            await sessions.run_end.aclose()

    async def list_tools(
        ctx: ServerRequestContext[_Sessions, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=ctx.lifespan_context.of(ctx).listing())

    async def call_tool(
        ctx: ServerRequestContext[_Sessions, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = ctx.lifespan_context.of(ctx)
        result, changed = await session.call(params.name, params.arguments or {})
        if changed:
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                await session.bus.publish(ToolsListChanged())
            else:
                await ctx.session.send_tool_list_changed()
        return types.CallToolResult.model_validate(wire_content(result), by_name=False)

    async def listen(
        ctx: ServerRequestContext[_Sessions, Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        return await ctx.lifespan_context.of(ctx).listen(ctx, params)

    return Server(
        name,
        instructions=instructions,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=listen,
    )
