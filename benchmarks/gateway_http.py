"""One ``tools/call`` over streamable HTTP at 2,000 tools: the statetools gateway side by
side with a plain MCP SDK server exposing the same tools.

Run: ``python benchmarks/gateway_http.py`` (add ``--write`` to update benchmarks/RESULTS.md).

Both servers run in their own process (uvicorn on 127.0.0.1) with the same 2,000 tools:
``st.mcp.disclosure_server(tools)``, and the MCP SDK's low-level ``Server`` answering
``tools/list`` and ``tools/call`` itself. One client process per server (``mcp.Client``
over ``streamable_http_client``) lists the tools, then times ``--calls`` calls of one
tool; the two clients take turns, ``--rounds`` times. A 2026-07-28 client either
passes no ``session`` argument (each call starts a fresh session) or passes the handle
its first call's result gave (the gateway keeps its session). Wall milliseconds per
call, medians over every call. Target: the gateway within 2x of the plain server.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

TOOLS = 2_000

SERVER = textwrap.dedent(
    """
    import sys
    import uvicorn
    import mcp.types as types
    from mcp.server import Server

    kind, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

    def reply(index, q=""):
        return f"tool {index} got {q}"

    if kind == "gateway":
        import statetools as st
        from statetools.mcp.gateway import http_app

        def make(index):
            return lambda q="": reply(index, q)

        tools = [st.Tool.create(f"t{i}", f"Tool number {i}", make(i)) for i in range(count)]
        app = http_app(st.mcp.disclosure_server(tools))
    else:
        schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        listed = [
            types.Tool(name=f"t{i}", description=f"Tool number {i}", input_schema=schema)
            for i in range(count)
        ]

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=listed)

        async def call_tool(ctx, params):
            text = reply(int(params.name[1:]), **(params.arguments or {}))
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

        server = Server("plain", on_list_tools=list_tools, on_call_tool=call_tool)
        app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")
    """
)

CLIENT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    import mcp
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    url, calls, session = sys.argv[1], int(sys.argv[2]), sys.argv[3]

    async def main():
        async with (
            create_mcp_http_client() as http,
            mcp.Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await client.list_tools()
            timings = []
            handle = None
            for _ in range(calls):
                arguments = {"q": "x"}
                if session and handle:
                    arguments["session"] = handle
                start = time.perf_counter()
                result = await client.call_tool("t5", arguments)
                timings.append((time.perf_counter() - start) * 1000)
                assert result.content[0].text.splitlines()[0] == "tool 5 got x", result
                handle = (result.meta or {}).get("statetools/session")
            print(json.dumps(timings))

    asyncio.run(main())
    """
)


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(kind: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, kind, str(port), str(TOOLS)],
        env={**os.environ},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}/mcp"
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the {kind} server did not start")


def _calls(url: str, calls: int, session: str) -> list[float]:
    import json

    out = subprocess.run(
        [sys.executable, "-c", CLIENT, url, str(calls), session],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    servers = {kind: _start(kind) for kind in ("gateway", "plain")}
    rows = []
    try:
        for header, session in (("none (a fresh session per call)", ""), ("handle passed", "yes")):
            timings: dict[str, list[float]] = {"gateway": [], "plain": []}
            for _ in range(args.rounds):
                for kind, (_, url) in servers.items():
                    timings[kind] += _calls(url, args.calls, session)
            gateway = statistics.median(timings["gateway"])
            plain = statistics.median(timings["plain"])
            met = "met" if gateway <= 2 * plain else "NOT met"
            rows.append(
                f"| {header} | {gateway:.1f} | {plain:.1f} | {gateway / plain:.2f} | {met} |"
            )
            print(rows[-1], flush=True)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=10)
    try:
        load = f"{os.getloadavg()[0]:.1f}"
    except OSError:
        load = "unknown"
    lines = [
        "## MCP gateway over streamable HTTP: one `tools/call` at 2,000 tools",
        "",
        "Command: `python benchmarks/gateway_http.py --write`. The gateway "
        "(`st.mcp.disclosure_server`) and a plain MCP SDK server with the same 2,000 tools, "
        "each in its own uvicorn process; a client process per server times "
        f"{args.calls} calls of one tool, the two taking turns {args.rounds} times. Wall ms "
        f"per call, medians. Load average (1 min) when measured: {load}. Target: the "
        "gateway within 2x of the plain server.",
        "",
        "| `session` argument | gateway ms | plain MCP SDK ms | ratio | target |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Cause of the 267-529 ms measured before: the 2026-07-28 protocol has no sessions, so"
        " a client without the (since removed) `Statetools-Session` header started a fresh "
        "gateway session on every request, and each fresh session compiled the whole design "
        "again (about 300 ms of CPU at 2,000 tools). The graph is now compiled once per "
        "server and shared; a fresh session costs well under a millisecond (see the gateway's"
        " cost per session above). Measured on this machine with the same client before the "
        "change (at d5c1d11, load average about 8, 15 calls each): 468 ms median per call "
        "without the header and 100 ms with it, against 48 ms for the plain server.",
        "",
        "Why the gateway is now faster than the plain server: on a 2026-07-28 `tools/call` "
        "with arguments the SDK checks the request's `Mcp-Param-*` headers against the "
        "tool's input schema, which it finds by calling the server's own `tools/list` "
        "handler and walking the whole listing (2,000 tools serialized on every call) "
        "unless the server passes `get_tool_input_schema`. The gateway passes it (one dict "
        "lookup); the plain server here, written as the SDK's examples write one, does not. "
        "Before that change the same run measured the gateway at 2.13-2.35x the plain "
        "server (the gateway's listing is larger: each tool has the `session` argument).",
        "",
        machine_line(),
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section("gateway-http", body)


if __name__ == "__main__":
    main()
