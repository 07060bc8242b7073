"""FollowChanges: tools listed with ``list_tools()`` follow the server's changes.

A facade lists its server again by itself after ``tools/list_changed``. Tools passed
one by one are fixed for the run unless the loop has this strategy: when the server
says its tools changed, they are listed again in the background, and after the next
call the run's tools change with them (new ones added, dropped ones removed).

>>> from statetools.mcp import Listing, MCPServer
>>> server = MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},)))
>>> strategy = server.follow_changes()
>>> strategy.tool("a").name
'a'
"""

from __future__ import annotations

from statetools.engine.strategies import Injection, InjectionContext
from statetools.mcp.remote_tool import Server
from statetools.mcp.wire import tool_name
from statetools.tools.tool import BaseTool

__all__ = ["FollowChanges"]


class FollowChanges:
    """The injection strategy of :meth:`MCPServer.follow_changes`.

    >>> from statetools.mcp import Listing, MCPServer
    >>> server = MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},)))
    >>> strategy = server.follow_changes()
    >>> loop = ToolLoop(st.models.ScriptedModel(["Done."]), strategies=[strategy])
    >>> isinstance(strategy, FollowChanges), loop.strategy is strategy
    (True, True)
    """

    def __init__(self, server: Server) -> None:
        self.server = server
        self._seen = server.version
        self._names = list(server.listing.names) if server.listing is not None else None

    def evaluate(self, context: InjectionContext) -> Injection | None:
        """The tools the server added and removed since the last listing seen.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp import MCPServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> call = ToolCall("c1", "now", {})
        >>> context = InjectionContext((), (), call, ToolResult.text("12:00"), 1, Blackboard())
        >>> async def follow() -> list[str]:
        ...     await server.list_tools()
        ...     strategy = server.follow_changes()
        ...     upstream.add_tool(lambda: "Monday", name="today", description="The date")
        ...     await server.list_tools()  # listed again after tools/list_changed
        ...     injection = strategy.evaluate(context)
        ...     await server.aclose()
        ...     return [tool.name for tool in injection.add]
        >>> asyncio.run(follow())
        ['today']
        """
        server = self.server
        if server.version == self._seen or server.listing is None:
            return None
        before = self._names
        self._seen, self._names = server.version, list(server.listing.names)
        if before is None:
            return None
        removed = [tool_name(n, server.prefix) for n in before if n not in self._names]
        added = [t for t in server.cached_tools() if t.remote_name not in before]
        return Injection(add=added, remove=removed) if added or removed else None

    def tool(self, name: str) -> BaseTool | None:
        """The tool named ``name`` in the server's last listing (for a resumed run).

        >>> from statetools.mcp import Listing, MCPServer
        >>> server = MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},)))
        >>> strategy = server.follow_changes()
        >>> strategy.tool("a").name, strategy.tool("b")
        ('a', None)
        """
        if self.server.listing is None:
            return None
        return next((t for t in self.server.cached_tools() if t.name == name), None)
