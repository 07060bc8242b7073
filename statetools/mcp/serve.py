"""Serving a design over MCP: stdio (one client, the process that started us) or
streamable HTTP (many clients, each with its own session).

>>> server = disclosure_server([Tool.create("ping", "Ping", lambda: "pong")])
>>> app = http_app(server)
>>> type(app).__name__
'Starlette'
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette

from statetools.mcp.gateway import disclosure_server

__all__ = ["disclosure_server", "http_app", "serve_http", "serve_stdio"]


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
