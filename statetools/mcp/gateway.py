"""disclosure_server: a design served over MCP, enforced call by call, over stdio or
streamable HTTP.

Two protocol eras, one engine (:func:`~statetools.engine.answers.admit` and
:func:`~statetools.engine.answers.settle`, as every host answers calls) and one
compiled graph shared by every session:

- 2026-07-28 clients (see :mod:`statetools.mcp.stateless`): ``tools/list`` is the same
  for everyone whatever was called (the first visible set, each tool with an optional
  ``session`` argument, then ``describe_tool`` and ``call_tool``); a call that may run
  starts a session whose server-minted handle the result gives; results say what
  opened and give the definitions of tools to call through ``call_tool``.
- 2025-era clients: one session per connection (a stdio process, an in-process
  client, an HTTP ``Mcp-Session-Id`` the SDK minted), kept in the SDK's connection
  state, so no header a client chooses can name another's; ``tools/list`` answers the
  session's visible tools and a call that changes them sends ``tools/list_changed``.

A locked call is an ``isError`` result saying what to call first (never a protocol
error) and never runs. Tools of the design that come from MCP servers are called
through them: a gateway in front of many servers.

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
['search', 'describe_tool', 'call_tool', 'search', 'describe_tool', 'call_tool']

Serving it: :func:`serve_stdio` (one client, the process that started us) or
:func:`serve_http` and :func:`http_app` (streamable HTTP: many clients, each with its own
session).

>>> server = disclosure_server([Tool.create("ping", "Ping", lambda: "pong")])
>>> app = http_app(server)
>>> type(app).__name__
'Starlette'
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette

from statetools.engine.graph import DisclosureGraph
from statetools.engine.scheduler import Scheduler
from statetools.mcp.gateway_sessions import _Listings, _Session
from statetools.mcp.skill_serving import publish_skills
from statetools.mcp.stateless import _Stable, stable_listing
from statetools.mcp.wire import wire_content
from statetools.tools.context import RUN_ID_KEY, RunEnd, ToolCallContext
from statetools.tools.tool import check_timeout

__all__ = ["SESSION_HEADER", "disclosure_server", "http_app", "serve_http", "serve_stdio"]

SESSION_HEADER = "statetools-session"
"""No longer read. 2026-era clients used to name their session with this HTTP header,
a value the client chose, so any client could read and drive another's session; a
2026-07-28 client now passes the handle the server minted as the ``session`` argument.

>>> SESSION_HEADER
'statetools-session'
"""

ContextSource = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None

_STATE_KEY = "statetools.session"
"""Where a 2025-era connection's session is kept, in the SDK's per-connection state."""


class _Gateway:
    """One server lifespan (an in-process client, a stdio process, an HTTP server):
    the shared graph, the 2026-07-28 sessions by handle, 2025-era sessions by
    connection."""

    def __init__(
        self,
        design: DisclosureGraph | Sequence[Any],
        context: ContextSource,
        *,
        max_sessions: int = 1000,
        session_ttl: float = 1800.0,
        session_argument: str = "session",
        clock: Callable[[], float] = time.monotonic,
        listing: types.ListToolsResult | None = None,
        tool_timeout: float | None = None,
    ) -> None:
        self.tool_timeout = tool_timeout
        self.graph = (
            design if isinstance(design, DisclosureGraph) else Scheduler.for_items(design).graph
        )
        self.listings = _Listings()
        self.context = context
        self.run_end = RunEnd()
        self.run_id = f"mcp-gateway-{id(self)}"
        if listing is None:
            listing = stable_listing(self.new().scheduler.shown(), session_argument)
        self.stable = _Stable(
            listing,
            self.new,
            argument=session_argument,
            limit=max_sessions,
            ttl=session_ttl,
            clock=clock,
        )
        self.listen = ListenHandler(InMemorySubscriptionBus())

    def _context(self) -> ToolCallContext:
        values = self.context() if callable(self.context) else (self.context or {})
        base = ToolCallContext(values).merge({RUN_ID_KEY: self.run_id})
        return base.with_run_end(self.run_end)

    def new(self) -> _Session:
        """A fresh session over the shared graph."""
        return _Session(self.graph, self._context(), self.listings, self.tool_timeout)

    def of_connection(self, ctx: ServerRequestContext[Any, Any]) -> _Session:
        """A 2025-era client's session: the one of its connection (which the SDK made
        for the stdio process, the in-process client or the ``Mcp-Session-Id`` it
        minted); a request with no connection state gets a fresh one."""
        connection = getattr(ctx.session, "_connection", None)
        state = getattr(connection, "state", None)
        if not isinstance(state, dict):
            return self.new()
        session = state.get(_STATE_KEY)
        if not isinstance(session, _Session):
            session = state[_STATE_KEY] = self.new()
        return session


def _modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def disclosure_server(
    definition_or_items: Any,
    *,
    name: str = "statetools",
    context: ContextSource = None,
    instructions: str | None = None,
    max_sessions: int = 1000,
    session_ttl: float = 1800.0,
    session_argument: str = "session",
    clock: Callable[[], float] = time.monotonic,
    tool_timeout: float | None = None,
) -> Server[Any]:
    """An MCP server (the SDK's low-level ``Server``) that serves ``definition_or_items``
    (one definition, or a list as for ``tools=[...]``) with progressive disclosure.

    2026-07-28 clients all get one stable ``tools/list``: the first visible tools (with
    an optional ``session_argument``), ``describe_tool`` and ``call_tool``; at most
    ``max_sessions`` of their sessions live at once (a new one is refused while the
    table is full, none is evicted), each closing after ``session_ttl`` seconds without
    calls on ``clock``. 2025-era clients keep one session per connection, a
    ``tools/list`` of what it shows, and ``tools/list_changed``. ``context`` (a
    mapping, or a function returning a fresh one per session) is the
    :class:`~statetools.ToolCallContext` of every call. A call runs within its tool's
    own timeout (``metadata.timeout``), else ``tool_timeout`` seconds (None: no limit);
    past it the result is the error ``Tool 'name' timed out after N s.`` and the session
    goes on, as in a ``ToolLoop``. Pass the result to ``mcp.Client(...)`` in tests, or
    serve it with ``statetools serve`` (``--tool-timeout SECONDS``).

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
    ['search', 'describe_tool', 'call_tool']
    True Tool 'summarize' is locked. Call first: search.
    >>> async def wait() -> str:
    ...     await asyncio.sleep(1)
    ...     return "late"
    >>> slow = st.Tool.create("slow", "Wait a while.", wait)
    >>> async def timed_out() -> None:
    ...     async with mcp.Client(st.mcp.disclosure_server([slow], tool_timeout=0.05)) as client:
    ...         late = await client.call_tool("slow", {})
    ...         print(late.is_error, late.content[0].text.splitlines()[0])
    >>> asyncio.run(timed_out())
    True Tool 'slow' timed out after 0.05 s.
    """
    items: Sequence[Any] = (
        list(definition_or_items)
        if isinstance(definition_or_items, list | tuple)
        else [definition_or_items]
    )
    # compiled once, shared by every session; a bad definition fails here
    graph = Scheduler.for_items(items).graph
    options: dict[str, Any] = {
        "tool_timeout": check_timeout(tool_timeout, "disclosure_server(tool_timeout=...)"),
        "max_sessions": max_sessions,
        "session_ttl": session_ttl,
        "session_argument": session_argument,
        "clock": clock,
    }
    _Stable.check_names(graph.entries, session_argument)  # a clash fails here, not later
    # one listing for every lifespan (each in-process client has its own)
    listing = options["listing"] = stable_listing(Scheduler(graph).shown(), session_argument)
    # the SDK checks a 2026-07-28 call's Mcp-Param headers against the tool's schema;
    # this spares it a walk of the whole listing on every call
    schemas = {tool.name: tool.input_schema for tool in listing.tools}

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[_Gateway]:
        gateway = _Gateway(graph, context, **options)
        try:
            yield gateway
        finally:
            await gateway.run_end.aclose()

    async def list_tools(
        ctx: ServerRequestContext[_Gateway, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        gateway = ctx.lifespan_context
        if _modern(ctx):
            return gateway.stable.result
        return types.ListToolsResult(tools=gateway.of_connection(ctx).listing())

    async def call_tool(
        ctx: ServerRequestContext[_Gateway, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        gateway = ctx.lifespan_context
        if _modern(ctx):
            return await gateway.stable.call(params.name, params.arguments or {})
        answer = await gateway.of_connection(ctx).call(params.name, params.arguments or {})
        if answer.changed:
            await ctx.session.send_tool_list_changed()
        return types.CallToolResult.model_validate(wire_content(answer.result), by_name=False)

    async def listen(
        ctx: ServerRequestContext[_Gateway, Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        # the 2026-07-28 listing never changes: a stream that stays quiet
        return await ctx.lifespan_context.listen(ctx, params)

    server = Server(
        name,
        instructions=instructions,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=listen,
        get_tool_input_schema=schemas.get,
    )
    publish_skills(
        server, items, session=session_argument
    )  # skill:// resources for the design's sections and skills
    return server


async def _stdio(server: Server[Any]) -> None:
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client leaves.

    >>> serve_stdio(disclosure_server([search, research]))  # doctest: +SKIP
    """
    anyio.run(_stdio, server)


def http_app(server: Server[Any], *, host: str = "127.0.0.1", path: str = "/mcp") -> Starlette:
    """The ASGI app serving ``server`` over streamable HTTP at ``path``.

    >>> from mcp.server.mcpserver import MCPServer as FastServer
    >>> type(http_app(FastServer("clock"), path="/tools")).__name__
    'Starlette'
    """
    return server.streamable_http_app(streamable_http_path=path, host=host)


def serve_http(server: Server[Any], *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``server`` over streamable HTTP at ``http://HOST:PORT/mcp`` until stopped.

    >>> serve_http(disclosure_server([search, research]), port=8765)  # doctest: +SKIP
    """
    import uvicorn

    uvicorn.run(http_app(server, host=host), host=host, port=port, log_level="warning")
