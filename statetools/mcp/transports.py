"""How an :class:`~statetools.mcp.MCPServer` reaches its server: the ``mcp`` client for
a command over stdio, a URL over streamable HTTP, or a server object in this process,
and the :class:`Link` that holds one connection open.

A transport makes a fresh client (with the message handler that reports
``tools/list_changed``) each time the server is connected.

>>> client = stdio("mcp-server-time", (), None, None)(None)
>>> type(client).__name__
'Client'

The SDK's client is an async context manager whose exit must happen in the task that
entered it; a run may call tools from other tasks. So a :class:`Link` enters the client
in its own task, hands the connected client out, and exits when :meth:`Link.close` asks.
Change notifications (``tools/list_changed``, by a ``subscriptions/listen`` stream on
2026-07-28 connections or a plain notification on earlier ones) call ``on_change``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TextIO

import mcp
from mcp.client.session import MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["Link", "Transport", "http", "in_process", "stdio"]

Transport = Callable[[MessageHandlerFnT], mcp.Client]


def _command(command: str) -> str:
    """``command`` as given, or from this Python's environment (a server installed next
    to statetools in a virtual environment that is not on PATH)."""
    if os.sep in command or shutil.which(command):
        return command
    local = Path(sys.executable).parent / command
    return str(local) if local.is_file() else command


SERVER_ERRLOG: ContextVar[TextIO | None] = ContextVar("statetools_mcp_errlog", default=None)
"""Where stdio servers started in this context write their standard error (None: ours).
Review commands set a file here, so servers' banners stay out of their output."""


@contextlib.contextmanager
def _server_stderr() -> Iterator[TextIO]:
    """Where a server's standard error goes: ours, read when the server starts. A
    subprocess needs a real file there, and a notebook's ``sys.stderr`` has none (nor has
    a captured one), so then the process's original standard error, else the null device.

    >>> with _server_stderr() as stream:
    ...     stream.fileno() >= 0
    True
    """
    captured = SERVER_ERRLOG.get()
    if captured is not None:
        yield captured
        return
    for stream in (sys.stderr, sys.__stderr__):
        try:
            usable = stream is not None and stream.fileno() >= 0
        except (OSError, ValueError):  # io.UnsupportedOperation is both
            usable = False
        if usable and stream is not None:
            yield stream
            return
    with open(os.devnull, "w", encoding="utf-8") as null:
        yield null


def stdio(
    command: str, args: Sequence[str], env: Mapping[str, str] | None, cwd: str | Path | None
) -> Transport:
    """Clients that start ``command args...`` and speak to it over its stdin/stdout.

    >>> client = stdio("mcp-server-git", ["--repository", "."], None, None)
    >>> type(client(None)).__name__  # not connected until entered
    'Client'
    """
    params = StdioServerParameters(
        command=_command(command), args=list(args), env=dict(env) if env else None, cwd=cwd
    )

    @contextlib.asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        # The SDK's own default is the sys.stderr of the moment it was imported.
        with _server_stderr() as errlog:
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams

    def client(handler: MessageHandlerFnT) -> mcp.Client:
        return mcp.Client(transport(), message_handler=handler, cache=None)

    return client


def http(url: str, headers: Mapping[str, str] | None) -> Transport:
    """Clients that reach ``url`` over streamable HTTP, sending ``headers``.

    >>> client = http("http://127.0.0.1:8000/mcp", {"Authorization": "Bearer t"})
    >>> type(client(None)).__name__  # not connected until entered
    'Client'
    """

    @contextlib.asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        async with (
            create_mcp_http_client(headers=dict(headers or {})) as session,
            streamable_http_client(url, http_client=session) as streams,
        ):
            yield streams

    def client(handler: MessageHandlerFnT) -> mcp.Client:
        return mcp.Client(transport(), message_handler=handler, cache=None)

    return client


def in_process(server: Any) -> Transport:
    """Clients of an ``mcp`` server object in this process (the SDK's in-memory link).

    >>> from mcp.server.mcpserver import MCPServer as FastServer
    >>> type(in_process(FastServer("clock"))(None)).__name__
    'Client'
    """

    def client(handler: MessageHandlerFnT) -> mcp.Client:
        return mcp.Client(server, message_handler=handler, cache=None)

    return client


class Link:
    """A connected :class:`mcp.Client` and the task that owns it.

    >>> import asyncio
    >>> from mcp.server.mcpserver import MCPServer as FastServer
    >>> from statetools.mcp.transports import in_process
    >>> upstream = FastServer("clock")
    >>> @upstream.tool()
    ... def now() -> str:
    ...     '''The time.'''
    ...     return "12:00"
    >>> async def names() -> list[str]:
    ...     link = Link(in_process(upstream), on_change=lambda: None)
    ...     client = await link.open()
    ...     try:
    ...         return [tool.name for tool in (await client.list_tools()).tools]
    ...     finally:
    ...         await link.close()
    >>> asyncio.run(names())
    ['now']
    """

    def __init__(self, factory: Transport, on_change: Callable[[], None]) -> None:
        self._factory = factory
        self._on_change = on_change
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._client: mcp.Client | None = None
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def open(self) -> mcp.Client:
        """Connect; raises what connecting raised.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     return "12:00"
        >>> async def connect() -> str:
        ...     link = Link(in_process(upstream), on_change=lambda: None)
        ...     client = await link.open()
        ...     await link.close()
        ...     return type(client).__name__
        >>> asyncio.run(connect())
        'Client'
        """
        self.loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._hold())
        await self._ready.wait()
        if self._client is None:
            await self.close()
            assert self._error is not None
            raise self._error
        return self._client

    @property
    def client(self) -> mcp.Client:
        """The connected client (after :meth:`open`).

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     return "12:00"
        >>> async def same() -> bool:
        ...     link = Link(in_process(upstream), on_change=lambda: None)
        ...     client = await link.open()
        ...     try:
        ...         return link.client is client
        ...     finally:
        ...         await link.close()
        >>> asyncio.run(same())
        True
        """
        assert self._client is not None
        return self._client

    @property
    def alive(self) -> bool:
        """Whether the connection is still held open in this event loop.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     return "12:00"
        >>> async def alive() -> tuple[bool, bool]:
        ...     link = Link(in_process(upstream), on_change=lambda: None)
        ...     await link.open()
        ...     before = link.alive
        ...     await link.close()
        ...     return before, link.alive
        >>> asyncio.run(alive())
        (True, False)
        """
        if self._task is None or self._task.done() or self._client is None:
            return False
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    async def _notified(self, message: Any) -> None:
        root = getattr(message, "root", message)
        if type(root).__name__ == "ToolListChangedNotification":
            self._on_change()

    async def _drain(self, subscription: Any) -> None:
        with contextlib.suppress(Exception):
            async for event in subscription:
                if isinstance(event, ToolsListChanged):
                    self._on_change()

    async def _subscribe(self, client: mcp.Client, stack: contextlib.AsyncExitStack) -> Any:
        """The acknowledged ``tools/list_changed`` subscription, if the server has one."""
        tools = client.server_capabilities.tools
        if (
            tools is None
            or not tools.list_changed
            or client.protocol_version not in MODERN_PROTOCOL_VERSIONS
        ):
            return None
        try:
            return await stack.enter_async_context(client.listen(tools_list_changed=True))
        except Exception:  # a server that will not listen still serves its tools
            return None

    async def _hold(self) -> None:
        listener: asyncio.Task[None] | None = None
        try:
            async with (
                self._factory(self._notified) as client,
                contextlib.AsyncExitStack() as stack,
            ):
                self._client = client
                subscription = await self._subscribe(client, stack)
                if subscription is not None:
                    listener = asyncio.create_task(self._drain(subscription))
                self._ready.set()
                await self._stop.wait()
                if listener is not None:
                    listener.cancel()
                    with contextlib.suppress(BaseException):
                        await listener
        except BaseException as exc:  # the connection failed or died: keep why
            self._error = exc
        finally:
            self._ready.set()

    async def close(self) -> None:
        """Disconnect (a server process is stopped); safe to call more than once.

        >>> import asyncio
        >>> from mcp.server.mcpserver import MCPServer as FastServer
        >>> from statetools.mcp.transports import in_process
        >>> upstream = FastServer("clock")
        >>> @upstream.tool()
        ... def now() -> str:
        ...     return "12:00"
        >>> async def twice() -> bool:
        ...     link = Link(in_process(upstream), on_change=lambda: None)
        ...     await link.open()
        ...     await link.close()
        ...     await link.close()
        ...     return link.alive
        >>> asyncio.run(twice())
        False
        """
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if task.get_loop() is not asyncio.get_running_loop():
            return  # its event loop is gone; nothing left to close from here
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=10)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
