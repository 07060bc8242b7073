"""The MCP gateway's sessions: memory and CPU per client session on a 2,000-tool design,
and what a 2026-07-28 client's context holds.

Run: ``python benchmarks/gateway_sessions.py`` (add ``--write`` to update benchmarks/RESULTS.md).

``st.mcp.disclosure_server(items)`` compiles the design once; every client session gets
its own scheduler over that shared graph. A 2026-07-28 client's session starts with its
first call that may run (the result gives the handle, 128 random bits) and lives in the
handle table. For each design, ``--sessions`` sessions are opened that way and all kept
live at once; then every session makes one more call, all concurrently (one asyncio
task each), and each session's visible tools are checked against its own history (no
cross-talk: a session sees what its own calls opened and nothing another's did).
Memory is what ``tracemalloc`` counts as still allocated once all sessions exist,
divided by the number of sessions; the shared graph (and the gateway's listing) is made
before counting starts and given on its own line. CPU: opening one session (making its
scheduler and minting its handle), its first call, and the concurrent call (mean).

Designs (2,000 tools each): *flat*, every tool visible from the start; *facades*, 20
facades of 100 tools each (the first call opens one facade, chosen by the session's
number, so sessions hold different visible sets); *playbook*, a chain where each tool
unlocks after the one before (even sessions call the next tool, odd ones do not).

Targets: at most 20 KB per session beyond the shared graph, and at most 1 ms of CPU to
open a session.

Tokens: what a 2026-07-28 client's context holds under the gateway's design (the stable
listing: the first set with its ``session`` argument, ``describe_tool`` and
``call_tool``), against listing every tool and enforcing at call time; and what one
opening call adds (the definitions in its result). o200k tokens of the tools' MCP JSON
(``name``, ``description``, ``inputSchema``), for the 2,000-tool facades design and the
GitHub MCP server's 117 tools behind one facade per toolset (benchmarks/designs/github.yaml,
tools read from the shared catalogue by path).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine_line, write_section

import statetools as st
from statetools.mcp.gateway import _Gateway  # imported before memory is counted

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


def _gateway(items: list[Any], sessions: int) -> Any:
    return _Gateway(items, None, max_sessions=sessions + 1)


def _histories(name: str, index: int) -> tuple[str, str]:
    """The first call of session ``index`` and its second one, for design ``name``."""
    if name == "facades":
        group = index % (TOOLS // 100)
        return f"group{group}", f"t{group * 100}"
    if name == "playbook":
        return "t0", ("t1" if index % 2 == 0 else "t0")
    return "t0", f"t{index % TOOLS}"


def _expected(name: str, index: int, first: tuple[str, ...]) -> tuple[str, ...]:
    """What session ``index`` must show after its two calls (its own history only)."""
    if name == "facades":
        group = index % (TOOLS // 100)
        return tuple(f"group{g}" for g in range(TOOLS // 100) if g != group) + tuple(
            f"t{group * 100 + i}" for i in range(100)
        )
    if name == "playbook":
        return ("t0", "t1", "t2") if index % 2 == 0 else ("t0", "t1")
    return first


def measure(name: str, make: Any, sessions: int) -> dict[str, float]:
    items, _ = make()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    gateway = _gateway(items, sessions)  # compiles the shared graph, makes the listing
    graph_bytes = tracemalloc.get_traced_memory()[0] - before
    stable = gateway.stable
    first = gateway.new().names()
    gc.collect()
    start_bytes = tracemalloc.get_traced_memory()[0]
    handles: list[str] = []
    open_cpu = call_cpu = 0.0

    async def opening() -> None:
        nonlocal open_cpu, call_cpu
        for index in range(sessions):
            t0 = time.process_time()
            opened = stable.handles.open(gateway.new)
            t1 = time.process_time()
            assert opened is not None
            handle, session = opened
            first_call, _ = _histories(name, index)
            with stable.handles.using(handle):
                answer = await session.call(first_call, {})
            t2 = time.process_time()
            assert not answer.result.is_error, answer.result.text
            open_cpu, call_cpu = open_cpu + t1 - t0, call_cpu + t2 - t1
            handles.append(handle)

    asyncio.run(opening())
    gc.collect()
    per_session = (tracemalloc.get_traced_memory()[0] - start_bytes) / sessions
    tracemalloc.stop()

    async def together() -> list[Any]:
        calls = [
            stable.call("call_tool", {"name": _histories(name, i)[1], "session": handle})
            for i, handle in enumerate(handles)
        ]
        return await asyncio.gather(*calls)

    t0 = time.process_time()
    answers = asyncio.run(together())
    concurrent_cpu = time.process_time() - t0
    assert not any(a.is_error for a in answers), [a for a in answers if a.is_error][:1]
    crossed = sum(
        set(stable.handles.find(handle).names()) != set(_expected(name, i, first))
        for i, handle in enumerate(handles)
    )
    assert crossed == 0, f"{crossed} sessions show what they did not open"
    assert len(stable.handles) == sessions
    return {
        "graph_kb": graph_bytes / 1024,
        "session_kb": per_session / 1024,
        "open_ms": open_cpu / sessions * 1000,
        "call_ms": call_cpu / sessions * 1000,
        "concurrent_ms": concurrent_cpu / sessions * 1000,
    }


def _tokens(tools: list[dict[str, Any]]) -> int:
    from statetools.review.tokens import count_text, wire_json

    return sum(count_text(wire_json(tool)) for tool in tools)


def token_row(label: str, items: list[Any], opener: str) -> str:
    """Tokens a 2026-07-28 client holds: everything listed, against the stable listing
    and what one opening call adds."""
    gateway = _gateway(items, 1)
    stable = gateway.stable
    listing = [t.model_dump(by_alias=True, exclude_none=True) for t in stable.result.tools]
    everything = [
        {"name": e.tool.name, "description": e.tool.description, "inputSchema": e.tool.input_schema}
        for e in gateway.graph.entries.values()
        if e.tool.name not in gateway.graph.facades
    ]
    answer = asyncio.run(stable.call(opener, {}))
    opened = answer.meta["statetools/opened"]
    from statetools.review.tokens import count_text

    result_tokens = count_text(answer.content[0].text)
    stable_tokens = _tokens(listing)
    return (
        f"| {label} | {len(everything):,} | {_tokens(everything):,} | {len(listing)} | "
        f"{stable_tokens:,} | {opener} ({len(opened)} tools) | {result_tokens:,} | "
        f"{stable_tokens + result_tokens:,} |"
    )


def github_items(shared: Path) -> list[Any] | None:
    """The GitHub design's tools (schema-only tools answering a fixed text), if the shared
    catalogue is there."""
    if not (shared / "github_mcp").is_dir():
        return None
    from replay import load_replay_design

    design = load_replay_design(Path(__file__).resolve().parent / "designs" / "github.yaml")
    return list(design.tools)


def main() -> None:
    from convert import SHARED

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    for name, make in DESIGNS.items():
        figures = measure(name, make, args.sessions)
        met = (
            "met"
            if figures["session_kb"] <= TARGET_KB and figures["open_ms"] <= TARGET_MS
            else "NOT met"
        )
        rows.append(
            f"| {name} | {figures['graph_kb']:,.0f} | {figures['session_kb']:.1f} | "
            f"{figures['open_ms']:.3f} | {figures['call_ms']:.3f} | "
            f"{figures['concurrent_ms']:.3f} | 0 | {met} |"
        )
        print(rows[-1], flush=True)
    token_rows = [token_row("2,000 tools in 20 facades", facades()[0], "group0")]
    github = github_items(args.shared)
    if github is not None:
        token_rows.append(token_row("GitHub MCP, 117 tools in 22 facades", github, "issues"))
    for line in token_rows:
        print(line, flush=True)
    lines = [
        "## MCP gateway: cost per client session",
        "",
        f"Command: `python benchmarks/gateway_sessions.py --write`. {args.sessions:,} "
        f"2026-07-28 sessions on each {TOOLS:,}-tool design, all live at once in one "
        "gateway's handle table, each opened as the server opens one (its first call "
        "mints the handle), then one more call each, all concurrently. Memory: "
        "`tracemalloc` bytes still allocated once every session exists, per session; the "
        "graph, compiled once and shared, and the gateway's one listing, on their own. "
        "CPU per session, mean. Cross-talk: sessions whose visible tools differ from what "
        "their own calls opened. Targets: "
        f"<= {TARGET_KB:.0f} KB per session beyond the shared graph, <= {TARGET_MS:.0f} ms "
        "CPU to open one.",
        "",
        "| design | shared graph and listing KB | KB per session | open ms | first call ms "
        "| concurrent call ms | cross-talk | target |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "*facades*: the first call opens one of the 20 facades (by the session's number), so "
        "sessions hold different visible sets; *playbook*: half the sessions unlock one more "
        "tool; *flat*: the calls change nothing a session shows. *facades* was 23.3 KB "
        "per session until the scheduler kept a wholly opened facade as its one name "
        "instead of a set of its 100 names (8 KB, found by `tracemalloc` traceback); what "
        "is left is the session's own visible-tools overlay, order and shown tuples "
        "(about 3 KB each), which grow with what it opened, not with the catalogue.",
        "",
        "### What a 2026-07-28 client's context holds",
        "",
        "o200k tokens of the tools' MCP JSON. *Everything listed*: every tool of the design "
        "(no facades), as a list-everything, enforce-at-call-time gateway would list them. "
        "*Stable listing*: what the gateway lists (the first set with its `session` argument, "
        "`describe_tool`, `call_tool`). *Opening call*: the text of the result of opening "
        "one facade (the opened tools' definitions and the session line).",
        "",
        "| design | tools | everything listed | stable listing: tools | tokens "
        "| opening call | its result | held after it |",
        "|---|---|---|---|---|---|---|---|",
        *token_rows,
        "",
        machine_line(),
    ]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section("gateway-sessions", body)


if __name__ == "__main__":
    main()
