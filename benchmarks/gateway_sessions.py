"""The MCP gateway's sessions: memory and CPU per client session on a 2,000-tool design.

Run: ``python benchmarks/gateway_sessions.py`` (add ``--write`` to update benchmarks/RESULTS.md).

``st.mcp.disclosure_server(items)`` compiles the design once; every client session
(one per ``Mcp-Session-Id`` or ``Statetools-Session`` header over HTTP) gets its own
scheduler over that shared graph. For each design, ``--sessions`` sessions are opened
the way the server opens them (the request's session header picks or makes one), each
answers ``tools/list`` and one ``tools/call``, and all are kept (the server keeps up to
``max_sessions``). Memory is what ``tracemalloc`` counts as still allocated once all
sessions exist, divided by the number of sessions; the shared graph is compiled before
counting starts and given on its own line. CPU is the time to open one session (make
its scheduler), and separately its first ``tools/list`` and its call.

Designs (2,000 tools each): *flat*, every tool visible from the start; *facades*, 20
facades of 100 tools each (the call opens one facade, so that session's state differs
from the shared start); *playbook*, a chain where each tool unlocks after the one
before (the call unlocks one more tool).

Targets: at most 20 KB per session beyond the shared graph, and at most 1 ms of CPU to
open a session.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.mcp.gateway import _Sessions

TOOLS = 2_000
TARGET_KB = 20.0
TARGET_MS = 1.0


def _tool(i: int) -> st.Tool:
    return st.Tool.create(f"t{i}", f"Tool number {i}", lambda: "ok")


def flat() -> tuple[list[Any], str]:
    return [_tool(i) for i in range(TOOLS)], "t0"


def facades() -> tuple[list[Any], str]:
    groups = [
        st.Facade.of(f"group{g}", f"Tools of group {g}", [_tool(g * 100 + i) for i in range(100)])
        for g in range(TOOLS // 100)
    ]
    return groups, "group0"


def playbook() -> tuple[list[Any], str]:
    tools = [_tool(i) for i in range(TOOLS)]
    steps: list[Any] = [tools[0]]
    steps += [st.Unlock(tools[i], after=[tools[i - 1]]) for i in range(1, TOOLS)]
    return [st.PlaybookTool.of("chain", "A chain", steps)], "t0"


DESIGNS = {"flat": flat, "facades": facades, "playbook": playbook}


def _request(key: str) -> Any:
    return SimpleNamespace(request=SimpleNamespace(headers={"statetools-session": key}))


def measure(make: Any, sessions: int) -> dict[str, float]:
    items, call = make()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    pool = _Sessions(items, None, max_sessions=sessions + 1)  # compiles the shared graph
    graph_bytes = tracemalloc.get_traced_memory()[0] - before
    pool.of(_request("warm")).listing()  # the shared first listing is made once
    gc.collect()
    start_bytes = tracemalloc.get_traced_memory()[0]
    open_cpu = list_cpu = call_cpu = 0.0
    for index in range(sessions):
        t0 = time.process_time()
        session = pool.of(_request(f"s{index}"))
        t1 = time.process_time()
        listing = session.listing()
        t2 = time.process_time()
        asyncio.run(session.call(call, {}))
        t3 = time.process_time()
        open_cpu, list_cpu, call_cpu = open_cpu + t1 - t0, list_cpu + t2 - t1, call_cpu + t3 - t2
        assert listing
    gc.collect()
    per_session = (tracemalloc.get_traced_memory()[0] - start_bytes) / sessions
    tracemalloc.stop()
    assert len(pool.sessions) == sessions + 1
    return {
        "graph_kb": graph_bytes / 1024,
        "session_kb": per_session / 1024,
        "open_ms": open_cpu / sessions * 1000,
        "list_ms": list_cpu / sessions * 1000,
        "call_ms": call_cpu / sessions * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    for name, make in DESIGNS.items():
        figures = measure(make, args.sessions)
        met = (
            "met"
            if figures["session_kb"] <= TARGET_KB and figures["open_ms"] <= TARGET_MS
            else "NOT met"
        )
        rows.append(
            f"| {name} | {figures['graph_kb']:,.0f} | {figures['session_kb']:.1f} | "
            f"{figures['open_ms']:.3f} | {figures['list_ms']:.3f} | {figures['call_ms']:.3f} "
            f"| {met} |"
        )
        print(rows[-1], flush=True)
    lines = [
        "## MCP gateway: cost per client session",
        "",
        f"Command: `python benchmarks/gateway_sessions.py --write`. {args.sessions:,} sessions "
        f"on each {TOOLS:,}-tool design, opened as the server opens them (by session "
        "header), each answering `tools/list` and one `tools/call`, all kept. Memory: "
        "`tracemalloc` bytes still allocated once every session exists, per session; the "
        "graph, compiled once and shared, on its own. CPU per session, mean. Targets: "
        f"<= {TARGET_KB:.0f} KB per session beyond the shared graph, <= {TARGET_MS:.0f} ms "
        "CPU to open one.",
        "",
        "| design | shared graph KB | KB per session | open ms | first tools/list ms "
        "| tools/call ms | target |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "*facades*: the call opens a facade (the session then holds its own visible set, "
        "the 100 opened tools' names); *playbook*: the call unlocks the next tool; *flat*: "
        "the call changes nothing a session shows.",
        "",
        machine_line(),
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section("gateway-sessions", body)


if __name__ == "__main__":
    main()
