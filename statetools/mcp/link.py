"""One live connection to an MCP server, held open by a task of its own.

The SDK's client is an async context manager whose exit must happen in the task that
entered it; a run may call tools from other tasks. So a :class:`Link` enters the client
in its own task, hands the connected client out, and exits when :meth:`Link.close` asks.
Change notifications (``tools/list_changed``, by a ``subscriptions/listen`` stream on
2026-07-28 connections or a plain notification on earlier ones) call ``on_change``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import mcp
from mcp.client.session import MessageHandlerFnT
from mcp.client.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["Link"]

ClientFactory = Callable[[MessageHandlerFnT], mcp.Client]
"""Builds an unconnected client given the message handler to install."""


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

    def __init__(self, factory: ClientFactory, on_change: Callable[[], None]) -> None:
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
