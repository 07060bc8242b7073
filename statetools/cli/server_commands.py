"""The MCP commands of ``statetools``: ``serve`` (a design as an MCP server) and
``mcp list`` (a server's tools, optionally saved for review without the server).

They import the ``mcp`` SDK only when run, so the rest of the command works without
the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

from statetools.errors import StatetoolsError
from statetools.wording import counted


class MCPUsageError(StatetoolsError):
    """A mistake in an MCP command line."""


def _mcp() -> Any:
    try:
        import statetools.mcp as mcp_package
    except ImportError as exc:
        raise MCPUsageError(
            f"the mcp package is not installed ({exc})",
            hint="pip install 'statetools[mcp]'",
        ) from None
    return mcp_package


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Serve a design over MCP."""
    from statetools.spec.design import load_design

    if not Path(args.file).is_file():
        raise MCPUsageError(f"no such file: {args.file}", hint="give the path of a design file")
    design = load_design(Path(args.file))
    package = _mcp()
    server = package.disclosure_server(
        design.tools, name=args.name or Path(args.file).stem, context=design.run_context
    )
    from statetools.mcp import gateway

    if args.transport == "stdio":
        gateway.serve_stdio(server)
    else:
        _check_free(args.host, args.port)
        sys.stderr.write(f"serving {args.file} at http://{args.host}:{args.port}/mcp\n")
        gateway.serve_http(server, host=args.host, port=args.port)
    return 0


def _check_free(host: str, port: int) -> None:
    """Refuse a port something else listens on, before saying we serve there."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise MCPUsageError(
                    f"port {port} is in use",
                    hint="choose another with --port N, or stop what listens there",
                ) from None
            raise MCPUsageError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                hint="check --host and --port",
            ) from None


def _server(args: argparse.Namespace) -> Any:
    package = _mcp()
    if args.design:
        from statetools.mcp.design_servers import server_from_config
        from statetools.spec.source import read_source

        read = read_source(Path(args.design))
        servers = read.data.get("mcp_servers") if isinstance(read.data, dict) else None
        if not isinstance(servers, dict) or args.name not in servers:
            known = ", ".join(servers) if isinstance(servers, dict) else "none"
            raise MCPUsageError(
                f"{args.design} has no MCP server '{args.name}'",
                hint=f"its mcp_servers: {known}",
            )
        entry = servers[args.name]
        config = (
            {k: v for k, v in entry.items() if k != "listing"} if isinstance(entry, dict) else entry
        )
        return server_from_config(args.name, config, read.base_dir)
    if args.url:
        return package.MCPServer.http(args.url, name=args.name)
    words = shlex.split(args.server_command or "")
    if not words:
        raise MCPUsageError(
            "say which server to list",
            hint="--design FILE, --url URL or --command 'mcp-server-git'",
        )
    command, *rest = words
    return package.MCPServer.stdio(command, rest, name=args.name)


def cmd_mcp_list(args: argparse.Namespace, out: TextIO) -> int:
    """List an MCP server's tools; with --save, write them for review."""
    server = _server(args)

    async def listed() -> Any:
        async with server:
            await server.list_tools()
            return server.listing

    listing = asyncio.run(listed())
    for tool in listing.tools:
        annotations = tool.get("annotations") or {}
        kind = "read" if annotations.get("readOnlyHint") is True else "write"
        out.write(f"{tool['name']}  [{kind}]  {str(tool.get('description') or '').strip()}\n")
    if args.save:
        Path(args.save).write_text(listing.to_json(), encoding="utf-8")
        out.write(f"saved {counted(len(listing.tools), 'tool')} to {args.save}\n")
    return 0


def add_mcp_commands(commands: Any) -> None:
    """Add ``serve`` and ``mcp list`` to the ``statetools`` subcommands."""
    sub = commands.add_parser(
        "serve",
        help="Serve the design as an MCP server (progressive disclosure per session).",
        description="Serve the design as an MCP server: each client session sees its own "
        "visible tools, locked calls are refused, tools/list_changed says when they change.",
    )
    sub.add_argument("file", metavar="FILE", help="the design file")
    sub.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default), or streamable HTTP at http://HOST:PORT/mcp",
    )
    sub.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    sub.add_argument("--name", help="the server's name (default: the file's stem)")
    sub.set_defaults(handler=cmd_serve)

    group = commands.add_parser("mcp", help="Work with MCP servers.", description="MCP servers.")
    mcp_commands = group.add_subparsers(dest="mcp_command", required=True, metavar="COMMAND")
    sub = mcp_commands.add_parser(
        "list",
        help="List an MCP server's tools (--save FILE keeps them for review).",
        description="List an MCP server's tools: one from a design's mcp_servers "
        "(--design), at a URL (--url), or started by a command (--command).",
    )
    sub.add_argument("name", metavar="NAME", help="the server's name")
    sub.add_argument("--design", metavar="FILE", help="a design whose mcp_servers has NAME")
    sub.add_argument("--url", help="a streamable HTTP endpoint")
    sub.add_argument("--save", metavar="FILE", help="write the listing as JSON")
    sub.add_argument(
        "--command",
        dest="server_command",
        metavar="'CMD ARGS'",
        help="a server to start, e.g. 'mcp-server-git'",
    )
    sub.set_defaults(handler=cmd_mcp_list)
