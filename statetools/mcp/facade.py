"""MCPFacade: one facade over an MCP server's tools, listed when it is first called.

Before the server is listed the facade knows only its name, description and, for a
by-category facade, its categories; calling it lists the server (connecting if need
be) and opens the tools. When the server says its tools changed, the next call of the
facade lists them again. With a listing already known (listed before, or saved), the
inner tools are there from the start, so review sees them.

>>> from statetools.mcp import Listing, MCPServer
>>> listing = Listing("git", (
...     {"name": "git_status", "description": "Status", "annotations": {"readOnlyHint": True}},
...     {"name": "git_commit", "description": "Commit", "annotations": {"readOnlyHint": False}},
... ))
>>> facade = MCPServer.from_listing(listing).facade(by="annotations")
>>> facade.categories
(('read', ('git_status',)), ('write', ('git_commit',)))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from statetools.definitions.search_index import SearchOptions
from statetools.definitions.unfold_call import Unfolded
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import DefinitionError, StatetoolsError
from statetools.mcp.listed_server import ListedServer
from statetools.tools.calling import Arguments, Context, ToolResult
from statetools.tools.tool import BaseTool

__all__ = ["Grouping", "MCPFacade"]

Grouping = Literal["annotations"] | Mapping[str, Sequence[str]] | None
"""How a facade groups a server's tools: not at all, ``read``/``write`` from the
annotations, or your own ``{category: [tool names]}``.

>>> from statetools.mcp import Listing, MCPServer
>>> listing = Listing("git", ({"name": "git_status"}, {"name": "git_commit"}))
>>> by: Grouping = {"inspect": ["git_status"], "change": ["git_commit"]}
>>> MCPServer.from_listing(listing).facade(by=by).categories
(('inspect', ('git_status',)), ('change', ('git_commit',)))
"""

ANNOTATION_CATEGORIES = ("read", "write")


def _grouping(value: Grouping) -> Any:
    if value is None or value == "annotations":
        return value
    if not isinstance(value, Mapping):
        raise DefinitionError(
            f"by must be None, 'annotations' or a mapping, got {value!r}",
            hint="e.g. by={'read': ['git_status'], 'write': ['git_commit']}",
        )
    return tuple((str(c), tuple(str(n) for n in names)) for c, names in value.items())


@attrs.frozen(kw_only=True)
class MCPFacade(UnfoldingTool):
    """A facade over the tools of :attr:`server` (see :meth:`MCPServer.facade`).

    >>> from statetools.mcp import Listing, MCPServer
    >>> listing = Listing("time", ({"name": "now", "description": "The time"},))
    >>> facade = MCPServer.from_listing(listing).facade("Open the clock")
    >>> facade.name, facade.description, [tool.name for tool in facade.inner]
    ('time', 'Open the clock', ['now'])
    """

    server: ListedServer = attrs.field(eq=False, repr=False)
    grouping: Any = None
    """None, ``"annotations"`` or ``((category, names), ...)``."""
    only: tuple[str, ...] | None = None
    """The names of the server's tools the facade opens (None: all)."""
    missing: tuple[str, ...] = ()
    """Tools the facade names (in ``only`` or its categories) that the server's last
    listing lacks: left out, and reported by ``check`` (ST020)."""

    @classmethod
    def over(
        cls,
        server: ListedServer,
        description: str,
        *,
        by: Grouping = None,
        search: bool = False,
        usage_notes: str | None = None,
        name: str | None = None,
        only: Sequence[str] | None = None,
        exclusive: bool = False,
        max_results: int = 5,
    ) -> MCPFacade:
        """The facade of ``server`` (usually through :meth:`MCPServer.facade`).

        >>> from statetools.mcp import Listing, MCPServer
        >>> listing = Listing("time", ({"name": "now", "description": "The time"},
        ...                            {"name": "zones", "description": "Time zones"}))
        >>> server = MCPServer.from_listing(listing)
        >>> facade = MCPFacade.over(server, "Read the clock", only=["now"])
        >>> facade.name, facade.only
        ('time', ('now',))
        """
        if search and by is not None:
            raise DefinitionError(
                "a search facade has no categories",
                path=f"mcp server '{server.name}'",
                hint="give by= or search=True, not both",
            )
        if search and server.listing is None:
            raise DefinitionError(
                "a search facade needs the server's tools to build its index",
                path=f"mcp server '{server.name}'",
                hint="await server.list_tools() first, or load a saved listing",
            )
        grouping = _grouping(by)
        lazy = cls(
            name=name or server.name,
            description=description,
            usage_notes=usage_notes,
            exclusive=exclusive,
            server=server,
            grouping=grouping,
            only=None if only is None else tuple(only),
            category_parameter=None if grouping is None else "category",
            categories=() if grouping is None else [(c, ()) for c in cls._names(grouping)],
            selector=None if grouping is not None or search else _Listed(server),
            search=SearchOptions(max_results) if search else None,
        )
        if server.listing is None:
            return lazy
        return lazy.concrete(server.cached_tools())

    @staticmethod
    def _names(grouping: Any) -> list[str]:
        if grouping == "annotations":
            return list(ANNOTATION_CATEGORIES)
        return [category for category, _ in grouping]

    def concrete(self, tools: Sequence[BaseTool]) -> MCPFacade:
        """This facade with ``tools`` (a listing of its server) as its inner tools.

        >>> from statetools.mcp import Listing, MCPServer
        >>> listing = Listing("time", ({"name": "now", "description": "The time"},
        ...                            {"name": "zones", "description": "Time zones"}))
        >>> server = MCPServer.from_listing(listing)
        >>> facade = MCPFacade.over(server, "Read the clock", only=["now"])
        >>> [tool.name for tool in facade.concrete(server.cached_tools()).inner]
        ['now']
        """
        missing: list[str] = []
        if self.only is not None:
            known = {tool.name: tool for tool in tools}
            missing = [name for name in self.only if name not in known]
            tools = [known[name] for name in self.only if name in known]
        if self.grouping is None:
            return attrs.evolve(self, inner=tuple(tools), selector=None, missing=tuple(missing))
        by_name = {tool.name: tool for tool in tools}
        if self.grouping == "annotations":
            pairs = [
                (c, tuple(t.name for t in tools if t.metadata.category == c))
                for c in ANNOTATION_CATEGORIES
            ]
        else:
            named = dict.fromkeys(n for _, names in self.grouping for n in names)
            missing += [n for n in named if n not in by_name and n not in missing]
            pairs = [(c, tuple(n for n in names if n in by_name)) for c, names in self.grouping]
        chosen = dict.fromkeys(n for _, names in pairs for n in names)
        inner = tuple(by_name[name] for name in chosen)
        return attrs.evolve(self, inner=inner, categories=pairs, missing=tuple(missing))

    @property
    def review_notes(self) -> tuple[tuple[str, str], ...]:
        """What ``check`` reports about this facade: the tools it names that the server
        does not have (left out of the facade), as ``(code, message)`` pairs.

        >>> from statetools.mcp import Listing, MCPServer
        >>> server = MCPServer.from_listing(Listing("time", ({"name": "now"},)))
        >>> server.facade(tools=["now", "zones"]).review_notes
        (('ST020', "Facade 'time' names 'zones', which MCP server 'time' does not have: the facade leaves it out. Its tools are: now."),)
        """  # noqa: E501
        if not self.missing:
            return ()
        names = ", ".join(f"'{name}'" for name in self.missing)
        listed = self.server.listing
        tools = ", ".join(tool.name for tool in self.server.cached_tools()) if listed else ""
        them = "it" if len(self.missing) == 1 else "them"
        return (
            (
                "ST020",
                f"Facade '{self.name}' names {names}, which MCP server '{self.server.name}' "
                f"does not have: the facade leaves {them} out. Its tools are: {tools}.",
            ),
        )

    async def _current(self, context: Context) -> MCPFacade | ToolResult:
        try:
            tools = await self.server.current_tools(context)
        except StatetoolsError as error:
            return ToolResult.error(f"{error.message}.")
        return self.concrete(tools)

    def select(self, arguments: Mapping[str, Any]) -> Unfolded | str:
        """What a call with ``arguments`` opens, from the server's last listing (the
        scheduler replays this on resume).

        >>> from statetools.mcp import Listing, MCPServer
        >>> listing = Listing("time", ({"name": "now", "description": "The time"},
        ...                            {"name": "zones", "description": "Time zones"}))
        >>> server = MCPServer.from_listing(listing)
        >>> [tool.name for tool in server.facade("Open the clock").select({}).tools]
        ['now', 'zones']
        """
        return UnfoldingTool.select(self.concrete(self.server.cached_tools()), arguments)

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """List the server's tools (once, or again after it said they changed) and open
        them; an argument named like one of them calls it directly.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp import MCPServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> facade = MCPServer.in_process(upstream, name="clock").facade("Open the clock")
        >>> asyncio.run(facade.acall({})).text
        'Tools now available: now.'
        """
        current = await self._current(context)
        if isinstance(current, ToolResult):
            return current
        return await UnfoldingTool.acall(current, arguments, context)

    async def open(
        self,
        arguments: Arguments = None,
        context: Context = None,
        current: Sequence[BaseTool] | None = None,
    ) -> ToolResult:
        """Called again after unfolding: the opened tools, or all of the server's
        tools again if it said they changed.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp import MCPServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> facade = MCPServer.in_process(upstream, name="clock").facade("Open the clock")
        >>> async def twice() -> str:
        ...     await facade.acall({})
        ...     return (await facade.open({})).text
        >>> asyncio.run(twice())
        'Tools now available: now.'
        """
        stale = self.server.stale
        facade = await self._current(context)
        if isinstance(facade, ToolResult):
            return facade
        return await UnfoldingTool.open(facade, arguments, context, None if stale else current)


@attrs.frozen
class _Listed:
    """The selector of a facade over a server not listed yet: its last listing."""

    server: ListedServer = attrs.field(eq=False)

    def __call__(self, arguments: Mapping[str, Any]) -> list[BaseTool]:
        return list(self.server.cached_tools())
