"""The commands of ``statetools`` that connect a design to a server: ``serve`` (a
design as an MCP server), ``mcp list`` (a server's tools, optionally saved for review
without the server) and ``worker`` (sessions of designs run on Temporal).

They import the ``mcp`` SDK and ``temporalio`` only when run, so the rest of the
command works without the ``mcp`` and ``temporal`` extras.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

from statetools.errors import DefinitionError, StatetoolsError
from statetools.models.base import Model
from statetools.tools.fields import check_timeout
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
        design.tools,
        name=args.name or Path(args.file).stem,
        context=design.run_context,
        tool_timeout=args.tool_timeout,
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
    sub.add_argument(
        "--tool-timeout",
        type=_timeout,
        metavar="SECONDS",
        help="seconds a tool call may take when its tool has no timeout of its own "
        "(default: no limit); a call past it is answered as an error",
    )
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


class WorkerUsageError(StatetoolsError):
    """A mistake in a ``statetools worker`` command line."""


def _temporal() -> Any:
    try:
        import statetools.temporal as temporal_package
    except ImportError as exc:
        raise WorkerUsageError(
            f"the temporalio package is not installed ({exc})",
            hint="pip install 'statetools[temporal]'",
        ) from None
    return temporal_package


def _model(args: argparse.Namespace, designs: Any, package: Any) -> Model:
    if args.model_from:
        from statetools.spec.problems import Invalid
        from statetools.spec.references import import_object

        try:
            value = import_object(args.model_from)
        except Invalid as exc:
            raise WorkerUsageError(exc.message, path="--model-from", hint=exc.hint) from None
        model = value() if callable(value) and not isinstance(value, Model) else value
        if not isinstance(model, Model):
            raise WorkerUsageError(
                f"{args.model_from} is a {type(model).__name__}, not a model",
                path="--model-from",
                hint="name a Model, or a function returning one",
            )
        return model
    if args.model:
        from statetools.models.model_strings import resolve

        resolved: Model = resolve(args.model)
        return resolved
    for loaded in designs.values():
        if loaded.design is not None and loaded.design.script is not None:
            script: Model = package.ScriptByRequest(list(loaded.design.script))
            return script
    raise WorkerUsageError(
        "say which model the worker uses",
        path="statetools worker",
        hint="--model openai:gpt-4o-mini, --model-from module:MODEL, or a design with script:",
    )


def cmd_worker(args: argparse.Namespace, out: TextIO) -> int:
    """Run a worker until interrupted."""
    package = _temporal()
    designs = package.Designs(args.designs)
    model = _model(args, designs, package)

    async def serve() -> None:
        from temporalio.client import Client

        client = await Client.connect(args.temporal, namespace=args.namespace)
        worker = package.session_worker(
            client,
            args.task_queue,
            designs.values(),
            model,
            **worker_options(args),
        )
        sys.stderr.write(
            f"worker for {', '.join(designs)} on {args.temporal}, task queue {args.task_queue}\n"
        )
        sys.stderr.flush()
        await worker.run()

    asyncio.run(serve())
    return 0


def worker_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``temporalio.worker.Worker`` options the command line gives: the sticky
    timeout, and the capacity options that were given (the others keep Temporal's
    defaults)."""
    given = {
        "max_concurrent_workflow_tasks": args.max_concurrent_workflow_tasks,
        "max_concurrent_activities": args.max_concurrent_activities,
        "max_cached_workflows": args.max_cached_workflows,
    }
    options: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    options["sticky_queue_schedule_to_start_timeout"] = timedelta(seconds=args.sticky_timeout)
    return options


def _at_least(minimum: int) -> Callable[[str], int]:
    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of {minimum} or more, got {text!r}"
            )
        return value

    return count


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 10**9:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def _timeout(text: str) -> float | None:
    """A tool timeout from the command line, checked as ``ToolLoop(tool_timeout=...)``."""
    try:
        return check_timeout(float(text), "--tool-timeout")
    except (ValueError, DefinitionError):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds above 0, got {text!r}"
        ) from None


def add_worker_command(commands: Any) -> None:
    """Add ``worker`` to the ``statetools`` subcommands."""
    sub = commands.add_parser(
        "worker",
        help="Run sessions of designs on Temporal (statetools[temporal]).",
        description="Run a Temporal worker for sessions of the designs: the workflow "
        "(the scheduler) and the model and tool activities. The user guide's page on durable "
        "sessions explains them.",
    )
    sub.add_argument(
        "designs",
        nargs="+",
        metavar="DESIGN",
        help="a design file, or an import path module:attribute",
    )
    sub.add_argument(
        "--temporal",
        default="127.0.0.1:7233",
        metavar="HOST:PORT",
        help="the Temporal server (default 127.0.0.1:7233)",
    )
    sub.add_argument(
        "--task-queue",
        required=True,
        metavar="Q",
        help="the task queue to take sessions from (start_session's task_queue)",
    )
    sub.add_argument("--namespace", default="default", help="Temporal namespace (default: default)")
    sub.add_argument(
        "--sticky-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long a session's next step waits for this worker, which has the session "
        "in memory, before any worker takes it (a worker that died holds its sessions "
        "this long; default 10)",
    )
    sub.add_argument(
        "--max-concurrent-workflow-tasks",
        type=_at_least(2),
        metavar="N",
        help="workflow tasks (session steps) this worker runs at once (Temporal's default: 100)",
    )
    sub.add_argument(
        "--max-concurrent-activities",
        type=_at_least(1),
        metavar="N",
        help="model and tool calls this worker runs at once (Temporal's default: 100)",
    )
    sub.add_argument(
        "--max-cached-workflows",
        type=_at_least(0),
        metavar="N",
        help="sessions kept in memory between their steps (Temporal's default: 1000); "
        "a session not in memory is rebuilt from its history",
    )
    sub.add_argument("--model", metavar="SPEC", help="a model string, e.g. openai:gpt-4o-mini")
    sub.add_argument(
        "--model-from", metavar="MODULE:ATTR", help="a Model (or a function returning one)"
    )
    sub.set_defaults(handler=cmd_worker)
