"""An MCP server's connection: opened at the first use, shared by the run's calls,
closed when the run ends, started again once when it dies; and the server's options,
checked when it is built.

:class:`~statetools.mcp.MCPServer` keeps one :class:`Connection` and sends its calls
through :meth:`Connection.call`, which decides what a call whose connection dropped
gets: sent again (a tool that may be resent, :func:`may_resend`), or an error saying its
outcome is unknown (:func:`unknown_outcome`). The ``forward_context`` and ``idempotent``
options are checked by :func:`names_or_all`:

>>> names_or_all("idempotent", ["put_note"])
('put_note',)
>>> names_or_all("forward_context", 5)
Traceback (most recent call last):
...
statetools.mcp.connection.OptionError: forward_context must be a list of context keys or 'all', ...
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import anyio
import mcp
from mcp_types import CONNECTION_CLOSED, RequestParamsMeta

from statetools.errors import StatetoolsError
from statetools.mcp.transports import Link, Transport
from statetools.mcp.wire import Listing, result_from_wire
from statetools.tools.calling import Context, ToolResult
from statetools.tools.context import RUN_ID_KEY, ToolCallContext

__all__ = [
    "Connection",
    "MCPServerError",
    "OptionError",
    "may_resend",
    "names_or_all",
    "unknown_outcome",
]


class MCPServerError(StatetoolsError):
    """An MCP server could not be started, reached or listed.

    >>> st.mcp.MCPServer.stdio("mcp-server-time", name="time").cached_tools()
    Traceback (most recent call last):
    ...
    statetools.mcp.connection.MCPServerError: mcp server 'time': MCP server 'time' has not been ...
    """


class Connection:
    """The connection of the MCP server ``name`` (``None`` as ``transport``: a server
    known only by a saved listing, which cannot connect). ``on_change`` is called when
    the server says its tools changed.

    >>> connection = Connection(None, name="time", describe="saved listing of time",
    ...                         on_change=lambda: None)
    >>> import asyncio
    >>> asyncio.run(connection.call("now", {}, may_resend=lambda tool: False)).text
    "MCP server 'time' is known only by a saved listing."
    """

    def __init__(
        self,
        transport: Transport | None,
        *,
        name: str,
        describe: str,
        on_change: Callable[[], None],
    ) -> None:
        self.name = name
        self.describe = describe
        self.managed = 0
        """How many ``async with server:`` blocks hold the connection open."""
        self._transport = transport
        self._on_change = on_change
        self._link: Link | None = None
        self._lock: asyncio.Lock | None = None
        self._runs: set[Any] = set()
        self._restarted = False
        self._dead: str | None = None

    @property
    def link(self) -> Link | None:
        """The live link while connected, else None.

        >>> Connection(None, name="t", describe="t", on_change=print).link is None
        True
        """
        return self._link

    async def close(self) -> None:
        """Disconnect now (the next use connects again, and may restart it once more).

        >>> import asyncio
        >>> asyncio.run(Connection(None, name="t", describe="t", on_change=print).close())
        """
        link, self._link = self._link, None
        self._runs.clear()
        self._restarted = False
        self._dead = None
        if link is not None:
            await link.close()

    def _lock_for_loop(self) -> asyncio.Lock:
        if self._lock is None or self._link is None or not self._link.alive:
            self._lock = asyncio.Lock()
        return self._lock

    async def client(self, context: Context = None) -> mcp.Client:
        """The connected client (connects if needed); raises :class:`MCPServerError`
        when the server cannot be reached.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> connection = Connection(in_process(FastServer("clock")), name="clock",
        ...                         describe="in-process clock", on_change=lambda: None)
        >>> async def connect() -> list[bool]:
        ...     client = await connection.client()
        ...     again = await connection.client()  # the same connection, reused
        ...     await connection.close()
        ...     return [again is client, connection.link is None]
        >>> asyncio.run(connect())
        [True, True]
        """
        if self._transport is None:
            raise MCPServerError(
                f"MCP server '{self.name}' is known only by a saved listing",
                path=f"mcp server '{self.name}'",
                hint="configure its command or url to run it; a saved listing is for review",
            )
        self._close_with_run(context)
        link = self._link
        if link is not None and link.alive:
            return link.client
        async with self._lock_for_loop():
            link = self._link
            if link is not None and link.alive:
                return link.client
            self._link = None
            fresh = Link(self._transport, self._on_change)
            try:
                client = await fresh.open()
            except Exception as exc:
                raise MCPServerError(
                    f"cannot connect to MCP server '{self.name}' ({self.describe}): "
                    f"{type(exc).__name__}: {exc}",
                    path=f"mcp server '{self.name}'",
                    hint="check the command or url; run it by hand to see its own error",
                ) from exc
            self._link = fresh
            return client

    def _close_with_run(self, context: Context) -> None:
        """Outside ``async with``, a connection made in a run closes when it ends."""
        if self.managed or not isinstance(context, ToolCallContext):
            return
        run_end, run = context.run_end, context.get(RUN_ID_KEY)
        if run_end is None or run in self._runs:
            return
        self._runs.add(run)
        run_end.push(self.close)

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        may_resend: Callable[[str], bool],
        meta: RequestParamsMeta | None = None,
        timeout: float | None = 60.0,
        context: Context = None,
    ) -> ToolResult:
        """Call MCP tool ``tool`` (its name on the server). Failures are error results:
        a server that stops answering is started again once per connection, then its
        calls say it is gone; a call whose connection dropped before its answer is sent
        again only if ``may_resend(tool)``. ``timeout``: seconds to wait for the answer.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     '''The time.'''
        ...     return "12:00"
        >>> connection = Connection(in_process(upstream), name="clock",
        ...                         describe="in-process clock", on_change=lambda: None)
        >>> async def call() -> str:
        ...     result = await connection.call("now", {}, may_resend=lambda tool: True)
        ...     await connection.close()
        ...     return result.text
        >>> asyncio.run(call())
        '12:00'
        """
        if self._dead is not None:
            return ToolResult.error(self._dead)
        for attempt in (1, 2):
            try:
                client = await self.client(context)
            except MCPServerError as exc:
                return ToolResult.error(f"{exc.message}.")
            try:
                result = await client.call_tool(
                    tool, dict(arguments), read_timeout_seconds=timeout, meta=meta
                )
            except mcp.MCPError as exc:
                if exc.code != CONNECTION_CLOSED:
                    return ToolResult.error(f"MCP tool '{tool}' failed: {exc.error.message}")
                failure: Exception = exc
            except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
                failure = exc
            except Exception as exc:
                return ToolResult.error(f"MCP tool '{tool}' failed: {type(exc).__name__}: {exc}")
            else:
                return result_from_wire(
                    result.model_dump(by_alias=True, mode="json", exclude_none=True), tool
                )
            if not may_resend(tool):
                return await self._unknown_outcome(tool, failure)
            if attempt == 1 and not self._restarted:
                self._restarted = True
                await self._drop_link()
                continue
            break
        self._dead = (
            f"MCP server '{self.name}' stopped ({failure}) and was already restarted once; "
            "its tools cannot be used in this run."
        )
        await self._drop_link()
        return ToolResult.error(self._dead)

    async def _unknown_outcome(self, tool: str, failure: Exception) -> ToolResult:
        """The answer to a call whose connection dropped before its answer: it may have
        run, so it is not sent again."""
        await self._drop_link()
        if self._restarted:
            self._dead = (
                f"MCP server '{self.name}' stopped ({failure}) and was already restarted "
                "once; its tools cannot be used in this run."
            )
        self._restarted = True
        return ToolResult.error(unknown_outcome(self.name, tool, failure, self._dead is not None))

    async def _drop_link(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            await link.close()


_WORDS = {
    "forward_context": (
        "context keys",
        "e.g. forward_context=['tenant'] (keys of the run's context), or 'all'",
    ),
    "idempotent": (
        "tool names",
        "e.g. idempotent=['put_note'] (the names the server gives its tools)",
    ),
}


class OptionError(ValueError):
    """An option of :class:`~statetools.mcp.MCPServer` has the wrong shape (the server
    raises it as an ``MCPServerError``).

    >>> OptionError("bad", "fix it").hint
    'fix it'
    """

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def names_or_all(option: str, value: Any) -> tuple[str, ...] | Literal["all"]:
    """``value`` of ``forward_context`` or ``idempotent``: ``"all"`` or a list of names.

    >>> names_or_all("forward_context", "all")
    'all'
    """
    if value == "all":
        return "all"
    noun, hint = _WORDS[option]
    if isinstance(value, str) or not isinstance(value, Sequence | set | frozenset):
        raise OptionError(f"{option} must be a list of {noun} or 'all', got {value!r}", hint)
    names = tuple(value)
    bad = [item for item in names if not isinstance(item, str)]
    if bad:
        raise OptionError(f"{option} must hold {noun} (text), got {bad[0]!r}", hint)
    return names


def may_resend(tool: str, idempotent: Sequence[str] | str, listing: Listing | None) -> bool:
    """Whether a call of ``tool`` (its name on the server) may be sent again when the
    connection dropped before its answer: ``idempotent`` names it (or is ``"all"``), or
    the server marks it ``readOnlyHint`` or ``idempotentHint``.

    >>> listing = Listing("notes", ({"name": "read", "annotations": {"readOnlyHint": True}},
    ...                             {"name": "write"}))
    >>> may_resend("read", (), listing), may_resend("write", (), listing)
    (True, False)
    """
    if idempotent == "all" or tool in idempotent:
        return True
    wire = next((t for t in listing.tools if t.get("name") == tool), None) if listing else None
    annotations = (wire or {}).get("annotations") or {}
    return bool(annotations.get("readOnlyHint") or annotations.get("idempotentHint"))


def unknown_outcome(server: str, tool: str, failure: Exception, gone: bool) -> str:
    """What a call whose connection dropped before its answer is answered: it may have
    run, so it is not sent again; ``gone`` when the server may not start again.

    >>> print(unknown_outcome("fx", "append", OSError("Broken pipe"), gone=False))
    MCP server 'fx' stopped (Broken pipe) during the call of 'append': whether it took effect is unknown, so it was not sent again. Check its effect before calling it again. The server starts again at the next call.
    """  # noqa: E501
    text = (
        f"MCP server '{server}' stopped ({failure}) during the call of '{tool}': whether it "
        "took effect is unknown, so it was not sent again. Check its effect before calling "
        "it again."
    )
    if gone:
        return (
            f"{text} The server was already restarted once; its tools cannot be used in this run."
        )
    return f"{text} The server starts again at the next call."
