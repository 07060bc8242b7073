"""MCPServer: an MCP server whose tools a run uses as statetools tools (its listing,
kept current, is :class:`~statetools.mcp.listed_server.ListedServer`'s).

The connection opens at the first listing or call, is reused for the rest of the run
and closes when the run ends (or when ``async with server:`` ends, if you opened it
that way). A server that dies mid-run is started again once; after that its tools
answer with an error result and the run goes on.

>>> import asyncio
>>> from mcp.server.mcpserver import MCPServer as FastServer
>>> upstream = FastServer("clock")
>>> @upstream.tool()
... def now() -> str:
...     '''The time.'''
...     return "12:00"
>>> async def main() -> list[str]:
...     async with MCPServer.in_process(upstream, name="clock") as server:
...         tools = await server.list_tools()
...         return [tools[0].name, (await tools[0].acall({})).text]
>>> asyncio.run(main())
['now', '12:00']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import mcp
from mcp_types import RequestParamsMeta
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from statetools.mcp import transports
from statetools.mcp.connection import (
    Connection,
    MCPServerError,
    OptionError,
    may_resend,
    names_or_all,
)
from statetools.mcp.facade import Grouping, MCPFacade
from statetools.mcp.gateway_skills import GatewayRoute
from statetools.mcp.listed_server import ListedServer
from statetools.mcp.remote_skills import read_remote_skills, resource_bytes
from statetools.mcp.transports import Link, Transport
from statetools.mcp.wire import Listing
from statetools.sections.sections import Sections
from statetools.tools.calling import Context, ToolResult

__all__ = ["MCPServer"]


class MCPServer(ListedServer):
    """An MCP server (a command over stdio, a URL, or an in-process server object).

    Build it with :meth:`stdio`, :meth:`http` or :meth:`in_process`; get its tools with
    ``await server.list_tools()`` or one facade over them with :meth:`facade`.
    ``forward_context`` names the :class:`~statetools.ToolCallContext` entries sent to
    the server as the call's ``_meta`` (``"all"`` sends every entry you gave the run).
    ``idempotent`` names tools (as the server names them, or ``"all"``) that may be sent
    again when the connection drops during a call, besides those the server marks
    ``readOnlyHint`` or ``idempotentHint``; any other call whose connection dropped is
    answered as an error saying its outcome is unknown, never sent twice.
    ``clock`` (seconds since the epoch; ``time.time``) dates listings, for the
    ``ttlMs`` a 2026-07-28 server gives them (see :meth:`current_tools`).

    >>> MCPServer.stdio("mcp-server-time", name="time").name
    'time'
    """

    def __init__(
        self,
        transport: Transport | None,
        *,
        name: str,
        describe: str,
        prefix: str = "",
        forward_context: Sequence[str] | Literal["all"] = (),
        listing: Listing | None = None,
        timeout: float | None = 60.0,
        idempotent: Sequence[str] | Literal["all"] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(
            name, prefix=prefix, listing=listing, clock=clock, live=transport is not None
        )
        self.forward_context = _checked("forward_context", forward_context, name)
        self.idempotent = _checked("idempotent", idempotent, name)
        self.timeout = timeout
        self._connection = Connection(
            transport, name=name, describe=describe, on_change=self._mark_stale
        )

    # building -----------------------------------------------------------------------

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        name: str,
        **options: Any,
    ) -> MCPServer:
        """A server started as ``command args...``, spoken to over its stdin/stdout.

        >>> MCPServer.stdio("mcp-server-git", ["--repository", "."], name="git").name
        'git'
        """
        return cls(
            transports.stdio(command, args, env, cwd),
            name=name,
            describe=" ".join([command, *args]),
            **options,
        )

    @classmethod
    def http(
        cls, url: str, *, headers: Mapping[str, str] | None = None, name: str, **options: Any
    ) -> MCPServer:
        """A server reached over streamable HTTP at ``url``.

        >>> MCPServer.http("http://127.0.0.1:8000/mcp", name="remote").name
        'remote'
        """
        return cls(transports.http(url, headers), name=name, describe=url, **options)

    @classmethod
    def in_process(cls, server: Any, *, name: str, **options: Any) -> MCPServer:
        """An ``mcp`` server object in this process (``mcp.server.Server`` or
        ``mcp.server.mcpserver.MCPServer``), as the SDK's in-memory client reaches it.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> [tool.name for tool in asyncio.run(server.list_tools())]
        ['now']
        """
        return cls(
            transports.in_process(server), name=name, describe=f"in-process {name}", **options
        )

    @classmethod
    def from_listing(cls, listing: Listing, **options: Any) -> MCPServer:
        """A server known only by a saved listing: its tools and facades can be checked,
        explored, counted and drawn; calling one is an error result.

        >>> listing = Listing("time", ({"name": "now", "description": "The time"},))
        >>> MCPServer.from_listing(listing).cached_tools()[0].name
        'now'
        """
        options.setdefault("name", listing.server)
        return cls(None, describe=f"saved listing of {listing.server}", listing=listing, **options)

    # lifecycle ----------------------------------------------------------------------

    async def __aenter__(self) -> MCPServer:
        self._connection.managed += 1
        await self._connection.client()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._connection.managed -= 1
        if self._connection.managed == 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Disconnect now (the next listing or call connects again).

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> async def twice() -> list[str]:
        ...     first = await server.call("now", {})
        ...     await server.aclose()
        ...     second = await server.call("now", {})  # connects again
        ...     await server.aclose()
        ...     return [first.text, second.text]
        >>> asyncio.run(twice())
        ['12:00', '12:00']
        """
        await self._connection.close()

    async def _client(self, context: Context) -> mcp.Client:
        return await self._connection.client(context)

    @property
    def _link(self) -> Link | None:
        """The connection's live link, if connected (tests check a run closed it)."""
        return self._connection.link

    # skills ---------------------------------------------------------------------------

    async def read_resource(self, uri: str, context: Context = None) -> bytes:
        """The bytes of the server's resource ``uri`` (connects if needed); raises
        :class:`MCPServerError` when it cannot be read.

        >>> import asyncio
        >>> from mcp.server import Server
        >>> from statetools.mcp.skill_serving import publish_skills
        >>> upstream = Server("docs")
        >>> _ = publish_skills(upstream, [Sections(Section("tone", "Tone", "Be brief."))])
        >>> server = MCPServer.in_process(upstream, name="docs")
        >>> asyncio.run(server.read_resource("skill://tone/SKILL.md")).decode().splitlines()[1]
        'name: tone'
        """
        client = await self._connection.client(context)
        try:
            answer = await client.read_resource(uri, cache_mode="bypass")
            return resource_bytes(answer, uri)
        except Exception as exc:
            message = exc.error.message if isinstance(exc, mcp.MCPError) else str(exc)
            raise MCPServerError(
                f"cannot read {uri} from MCP server '{self.name}': {message}",
                path=f"mcp server '{self.name}': {uri}",
                hint="check the URI; the server lists its resources with resources/list",
            ) from exc

    async def skills(
        self,
        *,
        tool_name: str = "load_skill",
        file_tool_name: str = "read_skill_file",
        context: Context = None,
    ) -> Sections:
        """The server's skills (Skills over MCP, SEP-2640) as :class:`~statetools.Sections`:
        the prompt lists each skill (its title names the server), ``load_skill(key)``
        (the key is the skill's name) returns its ``SKILL.md`` and opens the tools of
        this server its ``allowed-tools`` names, and ``read_skill_file(skill, path)``
        reads its other files (rename both to use them next to local skills, or another
        server's). A malformed index, entry or ``SKILL.md`` raises
        :class:`~statetools.SpecError` naming the server and the URI.

        >>> import asyncio
        >>> from mcp.server import Server
        >>> from statetools.mcp.skill_serving import publish_skills
        >>> upstream = Server("docs")
        >>> _ = publish_skills(upstream, [Sections(Section("tone", "Tone", "Be brief."))])
        >>> skills = asyncio.run(MCPServer.in_process(upstream, name="docs").skills())
        >>> print(skills.prompt())
        ## tone (skill of MCP server 'docs')
        <BLANKLINE>
        Tone
        (Summary only: call load_skill with key "tone" to read it in full.)
        """
        client = await self._connection.client(context)
        tools = await self.current_tools(context) if client.server_capabilities.tools else []

        async def read(uri: str) -> bytes:
            return await self.read_resource(uri)

        async def raw(name: str, arguments: Mapping[str, Any], context: Context) -> Any:
            connected = await self._connection.client(context)
            return await connected.call_tool(
                name, dict(arguments), read_timeout_seconds=self.timeout
            )

        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        route = GatewayRoute(self.name, modern=modern, raw=raw, call=self.call)
        return await read_remote_skills(
            self.name,
            client,
            read,
            tools,
            tool_name=tool_name,
            file_tool_name=file_tool_name,
            route=route,
        )

    # facades --------------------------------------------------------------------------

    def facade(
        self,
        description: str | None = None,
        *,
        by: Grouping = None,
        search: bool = False,
        usage_notes: str | None = None,
        name: str | None = None,
        tools: Sequence[str] | None = None,
        exclusive: bool = False,
        max_results: int = 5,
    ) -> MCPFacade:
        """One facade named after the server that opens its tools.

        ``by="annotations"``: the model picks ``read`` (tools marked ``readOnlyHint``)
        or ``write`` (the others); ``by={category: [names]}``: your categories;
        ``search=True``: the model searches the tools (for large servers; it opens
        the best ``max_results``). ``name``
        (default: the server's), ``tools`` (some of the server's tools, by name) and
        ``exclusive`` are as for :class:`~statetools.UnfoldingTool`.

        >>> MCPServer.stdio("mcp-server-git", name="git").facade(by="annotations").name
        'git'
        """
        return MCPFacade.over(
            self,
            description or f"Open the tools of the {self.name} MCP server",
            by=by,
            search=search,
            usage_notes=usage_notes,
            name=name,
            only=tools,
            exclusive=exclusive,
            max_results=max_results,
        )

    # calling --------------------------------------------------------------------------

    def _meta(self, context: Context) -> RequestParamsMeta | None:
        if not context or not self.forward_context:
            return None
        values = dict(context)
        if self.forward_context == "all":
            chosen = {k: v for k, v in values.items() if not k.startswith("statetools.")}
        else:
            chosen = {k: values[k] for k in self.forward_context if k in values}
        return RequestParamsMeta(**chosen) if chosen else None  # type: ignore[typeddict-item]

    async def call(
        self, tool: str, arguments: Mapping[str, Any], context: Context = None
    ) -> ToolResult:
        """Call MCP tool ``tool`` (its name on the server). Failures are error results:
        a server that stops answering is started again once per connection, then its
        calls say it is gone.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> server = MCPServer.in_process(upstream, name="clock")
        >>> result = asyncio.run(server.call("now", {}))
        >>> result.text, result.is_error
        ('12:00', False)
        """
        return await self._connection.call(
            tool,
            arguments,
            may_resend=self.may_resend,
            meta=self._meta(context),
            timeout=self.timeout,
            context=context,
        )

    def may_resend(self, tool: str) -> bool:
        """Whether a call of ``tool`` (its name on the server) may be sent again when the
        connection dropped before its answer: the server marks it ``readOnlyHint`` or
        ``idempotentHint``, or ``idempotent=`` names it.

        >>> listing = Listing("notes", ({"name": "read", "annotations": {"readOnlyHint": True}},
        ...                             {"name": "write"}, {"name": "put"}))
        >>> server = MCPServer.from_listing(listing, idempotent=["put"])
        >>> [server.may_resend(name) for name in ("read", "write", "put")]
        [True, False, True]
        """
        return may_resend(tool, self.idempotent, self.listing)

    def __repr__(self) -> str:
        return f"MCPServer({self.name!r}, {self._connection.describe!r})"


def _checked(option: str, value: Any, name: str) -> tuple[str, ...] | Literal["all"]:
    try:
        return names_or_all(option, value)
    except OptionError as error:
        raise MCPServerError(error.message, path=f"mcp server '{name}'", hint=error.hint) from None
