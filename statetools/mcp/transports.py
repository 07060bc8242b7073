"""How an :class:`~statetools.mcp.MCPServer` reaches its server: the ``mcp`` client for
a command over stdio, a URL over streamable HTTP, or a server object in this process.

A transport makes a fresh client (with the message handler that reports
``tools/list_changed``) each time the server is connected.

>>> client = stdio("mcp-server-time", (), None, None)(None)
>>> type(client).__name__
'Client'
"""

from __future__ import annotations

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
from mcp.shared._httpx_utils import create_mcp_http_client

__all__ = ["Transport", "http", "in_process", "stdio"]

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
