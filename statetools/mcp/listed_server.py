"""ListedServer: an MCP server's tool listing, kept current (the base of
:class:`~statetools.mcp.MCPServer`).

The server is listed at its first use; it is listed again after it says its tools
changed (``tools/list_changed``) and, for a saved listing of a live server, once the
listing's ``ttlMs`` has passed (by the server's ``clock``). Tools taken from the listing
(:meth:`ListedServer.cached_tools`) are :class:`~statetools.mcp.remote_tool.MCPTool`
objects that call the server; :meth:`ListedServer.follow_changes` keeps a run's tools in
step with it.

>>> from statetools.mcp import MCPServer
>>> server = MCPServer.from_listing(Listing("time", ({"name": "now"},)))
>>> [tool.name for tool in server.cached_tools()], server.version, server.stale
(['now'], 0, False)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any, Self

import mcp

from statetools.mcp.connection import MCPServerError
from statetools.mcp.remote_tool import FollowChanges, MCPTool, tools_of
from statetools.mcp.wire import Listing
from statetools.tools.calling import Context, ToolResult

__all__ = ["ListedServer"]


class ListedServer:
    """What an MCP server knows of its tools: its last listing (or a saved one), how
    many times it was listed, and whether the server said they changed since.
    :class:`~statetools.mcp.MCPServer` is one, and connects for it.

    >>> from statetools.mcp import MCPServer
    >>> isinstance(MCPServer.stdio("mcp-server-git", name="git"), ListedServer)
    True
    """

    def __init__(
        self,
        name: str,
        *,
        prefix: str,
        listing: Listing | None,
        clock: Callable[[], float],
        live: bool,
    ) -> None:
        self.name = name
        self.clock = clock
        self.prefix = prefix
        self._listing = listing
        self._live = live
        self._stale = False
        self._version = 0
        self._follow = False
        self._relisting: asyncio.Task[None] | None = None

    async def _client(self, context: Context) -> mcp.Client:
        """The connected client (the subclass connects)."""
        raise NotImplementedError

    async def call(
        self, tool: str, arguments: Mapping[str, Any], context: Context = None
    ) -> ToolResult:
        """Call MCP tool ``tool`` (its name on the server), as the subclass does.

        >>> import asyncio
        >>> from statetools.mcp import MCPServer
        >>> server = MCPServer.from_listing(Listing("time", ({"name": "now"},)))
        >>> asyncio.run(server.call("now", {})).is_error  # known only by its listing
        True
        """
        raise NotImplementedError

    def with_listing(self, listing: Listing) -> Self:
        """This server, reviewed from ``listing`` until it is connected (then listed
        again).

        >>> from statetools.mcp import MCPServer
        >>> listing = Listing("git", ({"name": "git_status", "description": "Status"},))
        >>> server = MCPServer.stdio("mcp-server-git", name="git").with_listing(listing)
        >>> [tool.name for tool in server.cached_tools()]  # not started
        ['git_status']
        """
        self._listing = listing
        return self

    def _mark_stale(self) -> None:
        self._stale = True
        if self._follow:
            with contextlib.suppress(RuntimeError):  # no running loop: list on next use
                self._relisting = asyncio.get_running_loop().create_task(self._relist())

    async def _relist(self) -> None:
        with contextlib.suppress(Exception):  # the next use lists again and reports
            await self.list_tools()

    @property
    def version(self) -> int:
        """How many times the server has been listed (changes with every listing).

        >>> from statetools.mcp import MCPServer
        >>> MCPServer.stdio("mcp-server-git", name="git").version
        0
        """
        return self._version

    def follow_changes(self) -> FollowChanges:
        """A loop strategy that keeps tools from :meth:`list_tools` in step with the
        server: after ``tools/list_changed`` the server is listed again in the
        background, and after the next call the run gains its new tools and loses the
        dropped ones (``ToolLoop(model, strategies=[server.follow_changes()])``).

        >>> from statetools.mcp import MCPServer
        >>> server = MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},)))
        >>> type(server.follow_changes()).__name__
        'FollowChanges'
        """
        self._follow = True
        return FollowChanges(self)

    @property
    def stale(self) -> bool:
        """Whether the server said its tools changed since the last listing.

        >>> from statetools.mcp import MCPServer
        >>> MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},))).stale
        False
        """
        return self._stale

    async def list_tools(self, context: Context = None) -> list[MCPTool]:
        """The server's tools as statetools tools (connects if needed); each keeps the
        server's ``inputSchema``, and its annotations and title in ``annotations`` and
        ``title``. Tool names a provider would reject get ``_`` for the odd characters.

        >>> from statetools.mcp import MCPServer
        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> tools = asyncio.run(server.list_tools())
        >>> [(tool.name, tool.description) for tool in tools], server.version
        ([('now', 'The time.')], 1)
        """
        client = await self._client(context)
        wire: list[dict[str, Any]] = []
        cursor: str | None = None
        ttl: int | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            if cursor is None and "ttl_ms" in page.model_fields_set:  # the server said it
                ttl = page.ttl_ms
            wire.extend(
                t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools
            )
            cursor = page.next_cursor
            if cursor is None:
                break
        self._listing = Listing(self.name, tuple(wire), ttl_ms=ttl, listed_at=self.clock())
        self._stale = False
        self._version += 1
        return self.cached_tools()

    def cached_tools(self) -> list[MCPTool]:
        """The tools of the last listing (or of the saved one), without connecting.

        >>> from statetools.mcp import MCPServer
        >>> listing = Listing("time", ({"name": "now", "description": "The time"},))
        >>> [tool.name for tool in MCPServer.from_listing(listing).cached_tools()]
        ['now']
        """
        if self._listing is None:
            raise MCPServerError(
                f"MCP server '{self.name}' has not been listed yet",
                path=f"mcp server '{self.name}'",
                hint="await server.list_tools() first, or load a saved listing",
            )
        return tools_of(self, self._listing)

    @property
    def listing(self) -> Listing | None:
        """The last listing (what ``statetools mcp list --save`` writes), if any.

        >>> from statetools.mcp import MCPServer
        >>> MCPServer.stdio("mcp-server-git", name="git").listing is None
        True
        >>> MCPServer.from_listing(Listing("time", ({"name": "now"},))).listing.names
        ['now']
        """
        return self._listing

    async def current_tools(self, context: Context = None) -> list[MCPTool]:
        """The cached listing, listed again first if the server said it changed. A saved
        listing of a live server is used while its ``ttlMs`` lasts (by ``clock``, without
        connecting), then listed again; one without ``ttlMs`` is listed again at once.

        >>> from statetools.mcp import MCPServer
        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> [tool.name for tool in asyncio.run(server.current_tools())]  # lists it first
        ['now']
        """
        if self._needs_listing():
            return await self.list_tools(context)
        return self.cached_tools()

    def _needs_listing(self) -> bool:
        listing = self._listing
        if listing is None or self._stale:
            return True
        if not self._live:
            return False  # known only by its listing
        # a live listing follows the server's list changes (subscriptions/listen)
        return listing.saved and not listing.fresh(self.clock())
