"""``mcp_servers:`` of a design file: each entry made into an :class:`MCPServer`.

An entry has ``command`` (with ``args``, ``env``, ``cwd``) or ``url`` (with
``headers``), and optionally ``listing`` (a file ``statetools mcp list NAME --save``
wrote: review uses it and never starts the server), ``prefix``, ``forward_context`` and
``idempotent`` (tools that may be sent again when the connection drops during a call).

>>> server = server_from_config("time", {"command": "mcp-server-time"}, Path("."))
>>> server.name
'time'
>>> server_from_config("time", {"comand": "x"}, Path("."))
Traceback (most recent call last):
...
statetools.mcp.design_servers.MCPConfigError: unknown key 'comand' Hint: did you mean 'command'?
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import difflib
import tempfile
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from statetools.errors import StatetoolsError
from statetools.mcp.connection import MCPServerError
from statetools.mcp.remote_tool import MCPTool
from statetools.mcp.server import MCPServer
from statetools.mcp.transports import SERVER_ERRLOG
from statetools.mcp.wire import Listing

__all__ = ["MCPConfigError", "listed_tools", "server_from_config"]

KEYS = (
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "listing",
    "prefix",
    "forward_context",
    "idempotent",
)


class MCPConfigError(StatetoolsError):
    """An ``mcp_servers:`` entry is malformed.

    >>> server_from_config("git", {"comand": "mcp-server-git"}, Path("."))
    Traceback (most recent call last):
    statetools.mcp.design_servers.MCPConfigError: unknown key 'comand' Hint: did you mean 'command'?
    """


def _strings(value: Any, key: str, *, mapping: bool = False) -> Any:
    if mapping:
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise MCPConfigError(f"'{key}' must map names to strings", hint=f"e.g. {key}: {{A: b}}")
        return dict(value)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise MCPConfigError(f"'{key}' must be a list of strings", hint=f"e.g. {key}: [a, b]")
    return list(value)


def _text(config: Mapping[str, Any], key: str) -> str | None:
    value = config.get(key)
    if value is not None and not isinstance(value, str):
        raise MCPConfigError(f"'{key}' must be a string, got {value!r}")
    return value


def server_from_config(name: str, config: Any, base_dir: Path) -> MCPServer:
    """The server an ``mcp_servers:`` entry describes (not started).

    >>> server_from_config("git", {"command": "mcp-server-git", "args": ["-r", "."]}, Path("."))
    MCPServer('git', 'mcp-server-git -r .')
    """
    if not isinstance(config, Mapping):
        raise MCPConfigError(
            f"expected a mapping, got {config!r}",
            hint="give 'command:' (and 'args:') or 'url:'",
        )
    for key in config:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"keys: {', '.join(KEYS)}"
            raise MCPConfigError(f"unknown key '{key}'", hint=hint)
    command, url = _text(config, "command"), _text(config, "url")
    if (command is None) == (url is None):
        raise MCPConfigError(
            "give exactly one of 'command' and 'url'",
            hint="command: mcp-server-git (with args: [...]) or url: http://host/mcp",
        )
    options: dict[str, Any] = {"name": name, "prefix": _text(config, "prefix") or ""}
    forward = config.get("forward_context")
    if forward is not None:
        options["forward_context"] = (
            "all" if forward == "all" else tuple(_strings(forward, "forward_context"))
        )
    idempotent = config.get("idempotent")
    if idempotent is not None:
        options["idempotent"] = (
            "all" if idempotent == "all" else tuple(_strings(idempotent, "idempotent"))
        )
    if command is not None:
        cwd = _text(config, "cwd")
        server = MCPServer.stdio(
            command,
            _strings(config.get("args", []), "args"),
            env=_strings(config["env"], "env", mapping=True) if "env" in config else None,
            cwd=None if cwd is None else base_dir / cwd,
            **options,
        )
    else:
        headers = config.get("headers")
        server = MCPServer.http(
            str(url),
            headers=None if headers is None else _strings(headers, "headers", mapping=True),
            **options,
        )
    listing = _text(config, "listing")
    if listing is not None:
        server.with_listing(Listing.read(base_dir / listing))
    return server


SHOW_SERVER_STDERR: ContextVar[bool] = ContextVar("statetools_show_stderr", default=False)
"""Whether servers listed for a design write their standard error to ours (``--verbose``);
otherwise it is kept, and shown only when listing fails."""
_MAX_STDERR = 2_000


def _list_live(server: MCPServer) -> None:
    async def listed() -> None:
        async with server:
            await server.list_tools()

    show = SHOW_SERVER_STDERR.get()

    def run() -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
            token = SERVER_ERRLOG.set(None if show else log)
            try:
                asyncio.run(listed())
            except MCPServerError as exc:
                log.seek(0)
                said = log.read().strip()
                if not said:
                    raise
                if len(said) > _MAX_STDERR:
                    said = "..." + said[-_MAX_STDERR:]
                shown = "".join(f"\n    {line}" for line in said.splitlines())
                raise MCPServerError(
                    f"{exc.message}; it wrote on stderr:{shown}", path=exc.path, hint=exc.hint
                ) from exc
            finally:
                SERVER_ERRLOG.reset(token)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(run).result()


def listed_tools(server: MCPServer) -> list[MCPTool]:
    """The server's tools: from its saved listing, else listed now (the server is
    started and stopped again; the run connects anew).

    >>> from statetools.mcp import Listing
    >>> server = MCPServer.from_listing(Listing("time", ({"name": "now", "description": "Now"},)))
    >>> [tool.name for tool in listed_tools(server)]
    ['now']
    """
    if server.listing is None:
        _list_live(server)
    return server.cached_tools()
