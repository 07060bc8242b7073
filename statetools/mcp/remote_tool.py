"""MCPTool: one tool of an MCP server, called through its :class:`MCPServer`; and
FollowChanges, the strategy by which such tools follow the server's changes.

>>> listing = Listing("git", ({
...     "name": "git_status", "description": "Shows the working tree status",
...     "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}},
...     "annotations": {"readOnlyHint": True},
... },))
>>> [status] = tools_of(None, listing)
>>> status.name, status.metadata.category, status.annotations["readOnlyHint"]
('git_status', 'read', True)

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

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from statetools.engine.strategies import Injection, InjectionContext
from statetools.mcp.wire import Listing, category_of, tool_name
from statetools.tools.calling import Arguments, Context, ToolResult, parse_arguments
from statetools.tools.tool import BaseTool, ToolMetadata

if TYPE_CHECKING:
    from statetools.mcp.listed_server import ListedServer

__all__ = ["FollowChanges", "MCPTool", "distinct_names", "tools_of"]


def _frozen(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


@attrs.frozen(kw_only=True)
class MCPTool(BaseTool):
    """A tool of an MCP server. ``remote_name`` is its name on the server;
    ``annotations`` (``readOnlyHint``, ``destructiveHint``, ...) and ``title`` are kept
    as the server sent them; ``metadata.category`` is ``read`` or ``write`` from the
    annotations. Calling it sends ``tools/call``; the server checks the arguments.

    >>> from statetools.mcp import MCPServer
    >>> listing = Listing("git", ({"name": "git.log", "annotations": {"readOnlyHint": True}},))
    >>> [log] = MCPServer.from_listing(listing).cached_tools()
    >>> log.name, log.remote_name, log.metadata.category
    ('git_log', 'git.log', 'read')
    >>> log.call({}).text  # a saved listing has no server to call
    "MCP server 'git' is known only by a saved listing."
    """

    server: ListedServer | None = attrs.field(eq=False, repr=False)
    remote_name: str
    annotations: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen, hash=False)
    title: str | None = None
    renamed: str | None = None
    """The name it would have had, when another of the server's tools has that name too
    (``a.b`` and ``a_b``; two long names alike in their first 64 characters)."""

    @property
    def review_notes(self) -> tuple[tuple[str, str], ...]:
        """What ``check`` reports about this tool: ``(code, message)`` pairs.

        >>> [tool.review_notes for tool in tools_of(None, Listing("s", ({"name": "a.b"},
        ...                                                               {"name": "a_b"})))]
        [(('ST019', "MCP tool 'a.b' is called 'a_b_2e7336' here: its tool name 'a_b' is also the name of another of the server's tools."),), ()]
        """  # noqa: E501
        if self.renamed is None:
            return ()
        return (
            (
                "ST019",
                f"MCP tool '{self.remote_name}' is called '{self.name}' here: its tool name "
                f"'{self.renamed}' is also the name of another of the server's tools.",
            ),
        )

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """Send the call to the server; its answer (or failure) is the result.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp import MCPServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> (now_tool,) = asyncio.run(server.list_tools())
        >>> asyncio.run(now_tool.acall({})).text
        '12:00'
        """
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        if self.server is None:
            return ToolResult.error(f"MCP tool '{self.remote_name}' has no server to call.")
        return await self.server.call(self.remote_name, parsed, context)


def tools_of(server: ListedServer | None, listing: Listing) -> list[MCPTool]:
    """The tools of ``listing`` as :class:`MCPTool`\\ s calling ``server``.

    >>> listing = Listing("time", ({"name": "now", "description": "The time",
    ...                             "annotations": {"readOnlyHint": True}},))
    >>> [(tool.name, tool.metadata.category) for tool in tools_of(None, listing)]
    [('now', 'read')]
    """
    prefix = server.prefix if server is not None else ""
    tools: list[MCPTool] = []
    names = distinct_names([str(wire["name"]) for wire in listing.tools], prefix)
    for wire, (name, taken_by) in zip(listing.tools, names, strict=True):
        remote = str(wire["name"])
        annotations = wire.get("annotations") or {}
        schema = wire.get("inputSchema") or {"type": "object", "properties": {}}
        description = str(wire.get("description") or "")
        tools.append(
            MCPTool(
                name=name,
                description=description
                if description.strip()
                else str(wire.get("title") or remote),
                input_schema=schema,
                metadata=ToolMetadata(category=category_of(annotations)),
                server=server,
                remote_name=remote,
                annotations=annotations,
                title=wire.get("title") or annotations.get("title"),
                renamed=taken_by,
            )
        )
    return tools


def distinct_names(remotes: Sequence[str], prefix: str = "") -> list[tuple[str, str | None]]:
    """The statetools name of each of a server's tools, and for a tool whose usual name
    (:func:`~statetools.mcp.wire.tool_name`) another tool has too, that usual name:
    each tool that the conversion changed gets ``_`` and six hex digits of a hash of
    its own remote name (stable whatever the order of the listing).

    >>> distinct_names(["a.b", "a_b", "c"])
    [('a_b_2e7336', 'a_b'), ('a_b', None), ('c', None)]
    """
    usual = [tool_name(remote, prefix) for remote in remotes]
    counts = Counter(usual)
    names: list[tuple[str, str | None]] = []
    for remote, name in zip(remotes, usual, strict=True):
        if counts[name] == 1 or name == f"{prefix}{remote}":
            names.append((name, None))
            continue
        digest = hashlib.sha256(remote.encode()).hexdigest()[:6]
        names.append((f"{name[: 64 - 7]}_{digest}", name))
    return names


class FollowChanges:
    """The injection strategy of :meth:`MCPServer.follow_changes`.

    >>> from statetools.mcp import Listing, MCPServer
    >>> server = MCPServer.from_listing(Listing("t", ({"name": "a", "description": "A"},)))
    >>> strategy = server.follow_changes()
    >>> loop = ToolLoop(st.models.ScriptedModel(["Done."]), strategies=[strategy])
    >>> isinstance(strategy, FollowChanges), loop.strategy is strategy
    (True, True)
    """

    def __init__(self, server: ListedServer) -> None:
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
